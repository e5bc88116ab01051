// Files and folders: the log file's random-access I/O (File), what exists
// at a path, removing a file, listing a folder. Paths are UTF-8 (UTF-16 for the Win32 calls, where '/' and '\'
// both separate folders).
//
// Rules (every header of src/platform): nothing here is on the
// event-writing path; nothing throws; failures are etw_status values.
// files.cpp holds what File does alike on every OS; posix/files_posix.cpp
// and windows/files_windows.cpp its system calls and the rest.
#pragma once

#include <openetw/status.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::platform {

enum class OpenMode {
    CreateTruncate, // create or truncate, read/write
    OpenOrCreate,   // open existing or create, read/write, keep contents
    ReadExisting,   // open existing, read only (ETW_ERROR_FILE_NOT_FOUND when absent)
};

class File {
public:
    File() = default;
    ~File();
    File(const File &) = delete;
    File &operator=(const File &) = delete;
    File(File &&other) noexcept;
    File &operator=(File &&other) noexcept;

    // ETW_ERROR_PATH_NOT_FOUND when the folder is missing,
    // ETW_ERROR_ACCESS_DENIED, ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_WRITE_FAULT.
    etw_status open(const std::string &path, OpenMode mode) noexcept;
    bool is_open() const noexcept { return handle_ >= 0; }
    void close() noexcept;

    // Writes all len bytes at offset. ETW_ERROR_DISK_FULL when the disk or a
    // file size limit is full, ETW_ERROR_WRITE_FAULT for other errors; part of
    // the data may have been written on failure.
    etw_status write_at(std::uint64_t offset, const void *data, std::size_t len) noexcept;
    // Reads exactly len bytes at offset; ETW_ERROR_HANDLE_EOF when shorter.
    etw_status read_at(std::uint64_t offset, void *data, std::size_t len) noexcept;
    etw_status size(std::uint64_t *out) noexcept;
    etw_status truncate(std::uint64_t size) noexcept;
    // Reserves disk blocks for [0, size) without changing the data.
    etw_status preallocate(std::uint64_t size) noexcept;

private:
    // The system calls under open, close, write_at and read_at, one OS each.
    // open_handle sets handle_ (the folder is known to exist). write_some and
    // read_some move what one call moves (retrying interrupted calls) into
    // *done; 0 is a full disk or the end of the file.
    etw_status open_handle(const std::string &path, OpenMode mode) noexcept;
    void close_handle() noexcept;
    etw_status write_some(std::uint64_t offset, const void *data, std::size_t len, std::size_t *done) noexcept;
    etw_status read_some(std::uint64_t offset, void *data, std::size_t len, std::size_t *done) noexcept;

    std::intptr_t handle_ = -1;
};

// True when the folder part of path exists (or path has no folder part).
bool parent_directory_exists(const std::string &path) noexcept;
bool file_exists(const std::string &path) noexcept;
// The absolute form of path (as written into .etl headers); path itself on failure.
std::string absolute_path(const std::string &path);
// Removes a file (a region whose session stopped); no error when missing.
void remove_file(const std::string &path) noexcept;
// Replaces to with from in one step (readers see the old file or the new,
// never a part): false when it could not.
bool rename_file(const std::string &from, const std::string &to) noexcept;
// The names in a folder (no "." or ".."); empty when it cannot be read.
std::vector<std::string> list_folder(const std::string &folder);
// True when path names a regular file this process may execute.
bool is_executable(const std::string &path) noexcept;

} // namespace openetw::platform
