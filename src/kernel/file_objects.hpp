// The FileIo events' identities on Linux, where a process names an open
// file by a descriptor, not a FILE_OBJECT: a table (process, fd) ->
// {FileObject, FileKey, file position, path}. Each successful open gets a
// new FileObject; each distinct path one FileKey, shared by its opens and
// kept while one of them is (a Name record maps it to the path once).
// Descriptors the session did not see opened (inherited, opened before the
// start, dup'd) are looked up once through a resolver (the logger's reads
// /proc/PID/fd/N): a path starting with '/' is a file; sockets, pipes and
// anonymous inodes are not, and are remembered as such until closed.
// Entries leave at close and with their process (forget_ended), so the
// table holds what is open now. Not thread-safe: the logger thread's.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace openetw::kernel {

struct OpenFile {
    std::uint64_t file_object = 0;
    std::uint64_t file_key = 0;
    std::uint64_t offset = 0; // the position read and write start at
    std::uint32_t flags = 0;  // the open flags (O_APPEND, O_DIRECT)
    std::string path;
};

// What a resolver found for a descriptor: its link text, and for a file
// its position and open flags now.
struct FdTarget {
    std::string target;
    std::uint64_t pos = 0;
    std::uint32_t flags = 0;
    std::int64_t birth_ns = -1; // the file's birth (ns since 1970), -1 when unknown
};
// False when the descriptor cannot be read (closed, the process ended).
using FdResolver = std::function<bool(std::uint32_t pid, int fd, FdTarget *out)>;

class FileObjects {
public:
    explicit FileObjects(FdResolver resolve) : resolve_(std::move(resolve)) {}

    // A successful open of path as (pid, fd): a new FileObject, the path's
    // FileKey (*new_key: made now, its Name record is due), position 0.
    const OpenFile &opened(std::uint32_t pid, int fd, const std::string &path, std::uint32_t flags, bool *new_key);
    // The file open as (pid, fd): the table's, else resolved once. Null
    // for a descriptor that is not a file or cannot be resolved.
    OpenFile *find(std::uint32_t pid, int fd, bool *new_key);
    // Whether (pid, fd) is in the table (a file, or remembered as none).
    bool known(std::uint32_t pid, int fd) const { return fds_.count({pid, fd}) != 0; }
    // Removes (pid, fd), returning what it was (empty: not a known file).
    std::optional<OpenFile> closed(std::uint32_t pid, int fd);
    // The FileKey of path while some open holds it; else a new one
    // (*new_key true) that is not kept (nothing open holds it).
    std::uint64_t key_of(const std::string &path, bool *new_key);
    // The FileKey of path while some open holds it, else 0 (a hard fault's
    // file joins its FileIo records by it: hard_faults.hpp).
    std::uint64_t held_key(const std::string &path) const
    {
        const auto k = keys_.find(path);
        return k != keys_.end() ? k->second.key : 0;
    }
    // Drops the descriptors of pid (an exec closed some: they are looked up anew).
    void forget_process(std::uint32_t pid)
    {
        forget_ended([pid](std::uint32_t p) { return p != pid; });
    }
    // Drops the descriptors of processes for which alive(pid) is false.
    void forget_ended(const std::function<bool(std::uint32_t pid)> &alive);
    // The keys held by open files, with their paths (for FileRundown).
    std::vector<std::pair<std::uint64_t, std::string>> open_keys() const;
    // A new IrpPtr: unique within the session.
    std::uint64_t next_irp() { return irp_ += kIdStep; }
    // A FileObject of an open the table does not keep (a delete, a rename, a failed open).
    std::uint64_t new_object() { return object_ += kIdStep; }

    std::size_t size() const { return fds_.size(); }
    std::size_t key_count() const { return keys_.size(); }

private:
    struct Key {
        std::uint64_t key = 0;
        std::uint32_t refs = 0;
    };
    struct Entry {
        bool is_file = false; // false: remembered as not a file until closed
        OpenFile file;
    };
    using FdKey = std::pair<std::uint32_t, int>;
    // Pointer-aligned values, FileObjects and FileKeys from one counter so
    // that the two never collide (a Name's FileObject is a FileKey).
    static constexpr std::uint64_t kIdStep = 0x40;
    std::uint64_t hold_key(const std::string &path, bool *new_key);
    void release_key(const std::string &path);

    FdResolver resolve_;
    std::map<FdKey, Entry> fds_;
    std::unordered_map<std::string, Key> keys_;
    std::uint64_t object_ = 0x10000;
    std::uint64_t irp_ = 0x20000;
};

} // namespace openetw::kernel
