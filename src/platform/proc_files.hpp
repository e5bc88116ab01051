// What the system says about a process's open files and the strings it
// passed to the kernel (Linux: /proc/PID/fd, fdinfo, cwd and
// process_vm_readv): the system logger's FileIo events name files from
// them (kernel/file_io_tracker.hpp). Read after the fact (the next drain),
// so a process that closed the descriptor, changed the string or ended
// meanwhile gives ETW_ERROR_NOT_FOUND. Nothing throws.
// posix/proc_files_posix.cpp reads them; windows/ answers NOT_SUPPORTED.
#pragma once

#include <openetw/status.h>

#include <cstdint>
#include <string>

namespace openetw::platform {

struct ProcFdFile {
    std::string target;         // the link's text: "/a/b", "socket:[123]", "pipe:[4]", "anon_inode:[eventfd]"
    std::uint64_t pos = 0;      // fdinfo pos: the file position now
    std::uint32_t flags = 0;    // fdinfo flags: the open flags (O_APPEND, O_DIRECT...)
    std::int64_t birth_ns = -1; // the file's birth time (ns since 1970, statx btime); -1 when unknown
};
// The open file of pid's descriptor fd.
etw_status proc_fd_file(std::uint32_t pid, int fd, ProcFdFile *out) noexcept;
// The folder a relative path of pid is resolved from: its current
// directory for dirfd AT_FDCWD, else the folder open as dirfd.
etw_status proc_dir_path(std::uint32_t pid, int dirfd, std::string *out) noexcept;
// The NUL-terminated string at address of pid's memory, at most max_bytes.
etw_status proc_user_string(std::uint32_t pid, std::uint64_t address, std::size_t max_bytes, std::string *out) noexcept;
// False once pid has ended (and been reaped).
bool proc_exists(std::uint32_t pid) noexcept;

// The open flags a system call's flags argument holds, as this machine's
// kernel numbers them (O_DIRECT and O_DIRECTORY trade places between x86
// and arm); asm-generic's where the build is no Linux.
struct OpenFlagBits {
    std::uint32_t creat, excl, trunc, dsync, direct, directory;
};
OpenFlagBits open_flag_bits() noexcept;

} // namespace openetw::platform
