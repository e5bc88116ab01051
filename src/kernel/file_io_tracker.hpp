// FileIo records (DISK_FILE_IO, FILE_IO_INIT, FILE_IO) from the file
// system calls' tracepoints (syscalls:sys_enter_/sys_exit_ of openat,
// read, write, pread64, pwrite64, close, fsync, fdatasync, lseek, unlinkat,
// unlink, renameat, renameat2, rename; the exits of dup2, dup3, execve and
// execveat, which replace descriptors without a close), read with perf: a call's enter
// makes its init record (Read, Write, Cleanup and Close, Flush, Delete,
// Rename) with a new IrpPtr, its exit the OperationEnd of that IrpPtr; an
// open's Create is made at its exit (the FileObject exists only then) and
// stamped at its enter. Files are named by file_objects.hpp's table; the
// paths a call passes are read from the process after the fact
// (docs/KERNEL_LOGGER.md, "File I/O", says what that cannot see).
// Not thread-safe: the logger thread's.
#pragma once

#include "kernel/file_io_records.hpp"
#include "kernel/file_objects.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace openetw::kernel {

// The syscalls tracepoints FileIo reads ("sys_enter_openat", ...), and
// whether each is optional (architectures without the legacy calls).
struct FileIoTracepoint {
    const char *name;
    bool optional;
    bool high_volume; // fires on every read or write of the machine
};
const std::vector<FileIoTracepoint> &file_io_tracepoints();

// Linux open flags as NtCreateFile's CreateDisposition << 24 | CreateOptions.
std::uint32_t create_options_from_open_flags(std::uint32_t flags);
// What an open that succeeded did, as a Create's OperationEnd says it
// (FILE_CREATED, FILE_OVERWRITTEN, FILE_OPENED): O_CREAT|O_EXCL created;
// O_CREAT created when the file was born at or after the call began.
std::uint32_t create_result(std::uint32_t flags, bool born_during_call);

// How the tracker reads the process: descriptors (FileObjects' resolver),
// the folder of a relative path, the string at an address.
struct ProcessReader {
    FdResolver fd;
    std::function<bool(std::uint32_t pid, int dirfd, std::string *out)> dir;
    std::function<bool(std::uint32_t pid, std::uint64_t address, std::string *out)> string;
    std::function<bool(std::uint32_t pid)> alive;
};
// The reader of /proc and process memory (platform/proc_files.hpp).
ProcessReader proc_process_reader();

class FileIoTracker {
public:
    // A record with the time (session clock) and processor it belongs to,
    // and the call chain of the sample that made it (empty without CALLCHAIN).
    using Emit = std::function<void(std::uint32_t cpu, std::int64_t time, Bytes &&record,
                                    std::span<const std::uint64_t> frames)>;

    FileIoTracker(ProcessReader reader, std::uint32_t pointer_size, std::size_t max_record);
    // Which records are made: Name (DISK_FILE_IO), init (FILE_IO_INIT), OperationEnd (FILE_IO).
    void set_flags(std::uint32_t enable_flags) { flags_ = enable_flags; }
    // Keeps a sample (copied) until flush: an open's path is settled
    // knowing whether its descriptor was closed later in the same drain.
    void add(const TracepointFormat &format, const TracepointSample &sample);
    // Makes the records of the samples added, in their order.
    void flush(const PerfClock &clock, const Emit &emit);
    // FileRundown of every key an open file holds (DISK_FILE_IO), at the
    // stop, in the name of the thread that runs it.
    void rundown(std::int64_t time, std::uint32_t cpu, std::uint32_t pid, std::uint32_t tid, const Emit &emit);
    const FileObjects &files() const { return files_; }

private:
    enum class Call : std::uint8_t {
        None,
        Open,
        Read,
        Write,
        PRead,
        PWrite,
        Close,
        Flush,
        Seek,
        Unlink,
        Rename,
        Dup, // exit only: the descriptor it made
        Exec // exit only: the process's descriptors
    };
    struct Kind {
        Call call = Call::None;
        bool exit = false;
        bool at = true; // takes a dirfd (openat, unlinkat, renameat*)
    };
    struct Pending {
        Call call = Call::None;
        std::int64_t enter_time = 0;
        std::uint64_t enter_ns = 0; // perf clock
        std::uint32_t cpu = 0, pid = 0;
        int fd = -1;
        std::uint32_t flags = 0;
        std::uint64_t irp = 0, irp2 = 0, key = 0;
        std::string path;
    };
    struct Added {
        const TracepointFormat *format;
        TracepointSample sample; // raw and frames view these once flushed
        std::vector<std::uint8_t> raw;
        std::vector<std::uint64_t> frames;
    };
    const Kind &kind_of(const TracepointFormat &format);
    void on_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                   const Emit &emit);
    void on_enter(Call call, bool at, const TracepointFormat &f, const TracepointSample &s, std::int64_t time,
                  const Emit &emit);
    void on_exit(Pending &&p, std::int64_t ret, const TracepointSample &s, std::int64_t time, const Emit &emit);
    void open_exit(Pending &&p, std::int64_t ret, const TracepointSample &s, std::int64_t time, const Emit &emit);
    // The file of (pid, fd), looked up unless a later call of the batch
    // made that number anew (the lookup would find the newer file).
    OpenFile *find_file(std::uint32_t pid, int fd, bool *new_key);
    // The absolute path a call named (dirfd, address); empty when unreadable.
    std::string path_at(std::uint32_t pid, int dirfd, std::uint64_t address);
    void emit_name(FileIoType type, std::uint64_t key, const std::string &path, const TracepointSample &s,
                   std::int64_t time, const Emit &emit);
    void put(FileIoType type, const Bytes &payload, const TracepointSample &s, std::int64_t time,
             const Emit &emit) const;
    void sweep(std::uint64_t now_ns);

    ProcessReader reader_;
    FileObjects files_;
    std::uint32_t pointer_size_;
    std::size_t max_record_;
    std::uint32_t flags_ = 0;
    std::unordered_map<std::uint32_t, Kind> kinds_;      // by tracepoint id
    std::unordered_map<std::uint32_t, Pending> pending_; // by thread: its call in progress
    std::uint64_t last_sweep_ns_ = 0;
    std::vector<Added> batch_;
    std::size_t at_ = 0;                                        // the batch index being made
    std::unordered_map<std::uint64_t, std::size_t> last_close_; // pid << 32 | fd: its batch's last close
    std::unordered_map<std::uint64_t, std::size_t> last_made_;  // ... its batch's last open or dup making it
};

} // namespace openetw::kernel
