// POSIX part of proc_sockets.hpp (Linux: pidfd_getfd and process_vm_readv).
#include "platform/proc_sockets.hpp"

#include <algorithm>
#include <cerrno>
#include <new>

#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

// A sockaddr (getsockname or getpeername of s) into out; false when none.
bool socket_name(int s, bool peer, std::vector<std::uint8_t> *out)
{
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    const int rc = peer ? ::getpeername(s, reinterpret_cast<sockaddr *>(&a), &len)
                        : ::getsockname(s, reinterpret_cast<sockaddr *>(&a), &len);
    if (rc != 0)
        return false;
    const auto *p = reinterpret_cast<const std::uint8_t *>(&a);
    out->assign(p, p + std::min<std::size_t>(len, sizeof a));
    return true;
}

} // namespace

etw_status proc_udp_socket_ends(std::uint32_t pid, int fd, SocketEnds *out) noexcept
{
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
    const int pidfd = int(::syscall(SYS_pidfd_open, pid_t(pid), 0));
    if (pidfd < 0)
        return errno == EPERM ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_FOUND;
    const int s = int(::syscall(SYS_pidfd_getfd, pidfd, fd, 0));
    const int getfd_errno = errno;
    ::close(pidfd);
    if (s < 0)
        return getfd_errno == EPERM ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_FOUND;
    etw_status st = ETW_ERROR_NOT_FOUND;
    int protocol = 0;
    socklen_t plen = sizeof protocol;
    try {
        out->local.clear();
        out->peer.clear();
        if (::getsockopt(s, SOL_SOCKET, SO_PROTOCOL, &protocol, &plen) == 0 && protocol == IPPROTO_UDP &&
            socket_name(s, false, &out->local)) {
            (void)socket_name(s, true, &out->peer); // ENOTCONN: not connected
            st = ETW_OK;
        }
    } catch (const std::bad_alloc &) {
        st = ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
    ::close(s);
    return st;
#else
    (void)pid, (void)fd, (void)out;
    return ETW_ERROR_NOT_SUPPORTED;
#endif
}

etw_status proc_user_bytes(std::uint32_t pid, std::uint64_t address, std::size_t size,
                           std::vector<std::uint8_t> *out) noexcept
{
    try {
        out->assign(size, 0);
    } catch (const std::bad_alloc &) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
    iovec local{out->data(), size};
    iovec remote{reinterpret_cast<void *>(static_cast<std::uintptr_t>(address)), size};
    const ssize_t n = ::process_vm_readv(pid_t(pid), &local, 1, &remote, 1, 0);
    if (n != ssize_t(size)) {
        out->clear();
        return n < 0 && errno == EPERM ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_NOT_FOUND;
    }
    return ETW_OK;
}

} // namespace openetw::platform
