// POSIX part of proc_files.hpp (Linux: /proc and process_vm_readv).
#include "platform/proc_files.hpp"

#include "platform/posix/text_file.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

etw_status read_link(const std::string &path, std::string *out) noexcept
{
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    if (n < 0)
        return errno == EACCES || errno == EPERM ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_FOUND;
    try {
        out->assign(buf, std::size_t(n));
    } catch (const std::bad_alloc &) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
    return ETW_OK;
}

// "pos:\t123" of an fdinfo text, in base (flags are octal).
std::uint64_t fdinfo_value(const std::string &text, const char *key, int base)
{
    const std::size_t at = text.find(key);
    return at == std::string::npos ? 0 : std::strtoull(text.c_str() + at + std::strlen(key), nullptr, base);
}

// The position and open flags of pid's fd, through a duplicate of it
// (pidfd_getfd, Linux 5.6) that shares its open file: lseek and fcntl
// leave no file-open trace of this process's own, where reading
// /proc/PID/fdinfo/N would open a file for every descriptor looked up
// (FileIo events of the logger's own bookkeeping). fdinfo where the
// kernel lacks pidfd_getfd.
void position_and_flags(std::uint32_t pid, int fd, ProcFdFile *out)
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    const int pidfd = int(::syscall(SYS_pidfd_open, pid_t(pid), 0));
    if (pidfd >= 0) {
        const int dup = int(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
        ::close(pidfd);
        if (dup >= 0) {
            const off_t pos = ::lseek(dup, 0, SEEK_CUR);
            const int flags = ::fcntl(dup, F_GETFL);
            ::close(dup);
            out->pos = pos < 0 ? 0 : std::uint64_t(pos);
            out->flags = flags < 0 ? 0 : std::uint32_t(flags);
            return;
        }
    }
#endif
    std::string info;
    if (posix::read_text_file("/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd), &info) == 0) {
        out->pos = fdinfo_value(info, "pos:", 10);
        out->flags = std::uint32_t(fdinfo_value(info, "flags:", 8));
    }
}

} // namespace

etw_status proc_fd_file(std::uint32_t pid, int fd, ProcFdFile *out) noexcept
{
    const std::string p = "/proc/" + std::to_string(pid);
    const std::string n = std::to_string(fd);
    if (etw_status st = read_link(p + "/fd/" + n, &out->target); st != ETW_OK)
        return st;
    out->pos = 0;
    out->flags = 0;
    if (out->target[0] == '/') // a file: sockets and pipes have no position
        position_and_flags(pid, fd, out);
    out->birth_ns = -1;
    struct statx sx {};
    if (::statx(AT_FDCWD, (p + "/fd/" + n).c_str(), 0, STATX_BTIME, &sx) == 0 && (sx.stx_mask & STATX_BTIME))
        out->birth_ns = std::int64_t(sx.stx_btime.tv_sec) * 1000000000 + sx.stx_btime.tv_nsec;
    return ETW_OK;
}

etw_status proc_dir_path(std::uint32_t pid, int dirfd, std::string *out) noexcept
{
    const std::string p = "/proc/" + std::to_string(pid);
    return read_link(dirfd == AT_FDCWD ? p + "/cwd" : p + "/fd/" + std::to_string(dirfd), out);
}

etw_status proc_user_string(std::uint32_t pid, std::uint64_t address, std::size_t max_bytes, std::string *out) noexcept
{
    out->clear();
    char chunk[256];
    while (out->size() < max_bytes) {
        // Up to the end of the page: the next one may not be mapped.
        const std::uint64_t at = address + out->size();
        std::size_t want = std::min<std::size_t>(sizeof chunk, 4096 - std::size_t(at % 4096));
        want = std::min(want, max_bytes - out->size());
        iovec local{chunk, want};
        iovec remote{reinterpret_cast<void *>(static_cast<std::uintptr_t>(at)), want};
        const ssize_t n = ::process_vm_readv(pid_t(pid), &local, 1, &remote, 1, 0);
        if (n <= 0)
            return errno == EPERM ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_FOUND;
        const void *nul = std::memchr(chunk, 0, std::size_t(n));
        try {
            out->append(chunk, nul ? std::size_t(static_cast<const char *>(nul) - chunk) : std::size_t(n));
        } catch (const std::bad_alloc &) {
            return ETW_ERROR_NOT_ENOUGH_MEMORY;
        }
        if (nul)
            return ETW_OK;
    }
    return ETW_OK; // cut at max_bytes
}

OpenFlagBits open_flag_bits() noexcept { return {O_CREAT, O_EXCL, O_TRUNC, O_DSYNC, O_DIRECT, O_DIRECTORY}; }

bool proc_exists(std::uint32_t pid) noexcept
{
    struct stat st {};
    return ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0;
}

} // namespace openetw::platform
