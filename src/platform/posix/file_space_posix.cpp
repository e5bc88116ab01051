// POSIX part of file_space.hpp.
#include "platform/posix/file_space.hpp"

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

namespace openetw::platform {

namespace {
etw_status status_of(int err)
{
    switch (err) {
    case 0:
        return ETW_OK;
    case ENOSPC:
    case EDQUOT:
    case EFBIG:
        return ETW_ERROR_DISK_FULL;
    case ENOMEM:
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    default:
        return ETW_ERROR_WRITE_FAULT;
    }
}
} // namespace

etw_status reserve_file_space(int fd, std::uint64_t offset, std::uint64_t len, bool *unreservable) noexcept
{
    *unreservable = false;
    if (len == 0)
        return ETW_OK;
    int r;
#ifdef __linux__
    // fallocate itself: where the file system lacks it, glibc's
    // posix_fallocate writes a byte into each block instead, which races
    // with processes writing through their mapping of a region that grows.
    do
        r = ::fallocate(fd, 0, off_t(offset), off_t(len)) == 0 ? 0 : errno;
    while (r == EINTR);
#else
    do
        r = posix_fallocate(fd, off_t(offset), off_t(len));
    while (r == EINTR);
#endif
    if (r == EOPNOTSUPP || r == ENOTSUP || r == ENOSYS) {
        *unreservable = true;
        return ETW_OK;
    }
    return status_of(r);
}

etw_status write_file_zeros(int fd, std::uint64_t offset, std::uint64_t len) noexcept
{
    static const char zeros[65536] = {};
    while (len > 0) {
        const std::size_t n = len < sizeof zeros ? std::size_t(len) : sizeof zeros;
        const ssize_t w = ::pwrite(fd, zeros, n, off_t(offset));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return status_of(w < 0 ? errno : ENOSPC);
        offset += std::uint64_t(w);
        len -= std::uint64_t(w);
    }
    return ETW_OK;
}

} // namespace openetw::platform
