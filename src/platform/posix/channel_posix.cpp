// POSIX part of channel.hpp: Unix-domain stream sockets in Linux's abstract
// namespace (the name dies with the last socket, so a dead host leaves
// nothing behind). Linux only: abstract names, SO_PEERCRED and accept4.
#include "platform/channel.hpp"

#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstring>
#include <ctime>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

constexpr char kPrefix[] = "openetw:";
constexpr std::size_t kPrefixLen = sizeof kPrefix - 1;
constexpr int kBacklog = 64;
// Room for a few descriptors, so that a sender who attaches more than one
// still lets the first arrive; the kernel closes what does not fit.
constexpr int kMaxFdsPerRecv = 8;

etw_status errno_status(int err) noexcept
{
    switch (err) {
    case EPIPE:
    case ECONNRESET:
    case ENOTCONN:
        return ETW_ERROR_HANDLE_EOF;
    case EACCES:
    case EPERM:
        return ETW_ERROR_ACCESS_DENIED;
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ENOMEM:
        return ETW_ERROR_NO_SYSTEM_RESOURCES;
    case EBADF:
    case ENOTSOCK:
        return ETW_ERROR_INVALID_HANDLE;
    case EINVAL:
        return ETW_ERROR_INVALID_PARAMETER;
    default:
        return ETW_ERROR_INTERNAL_ERROR;
    }
}

// Fills addr with "\0openetw:" + name; false when it cannot be named so.
bool make_address(const std::string &name, sockaddr_un *addr, socklen_t *len) noexcept
{
    if (name.find('\0') != std::string::npos)
        return false;
    const std::size_t path_len = 1 + kPrefixLen + name.size();
    if (path_len > sizeof addr->sun_path)
        return false;
    std::memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    std::memcpy(addr->sun_path + 1, kPrefix, kPrefixLen);
    std::memcpy(addr->sun_path + 1 + kPrefixLen, name.data(), name.size());
    // An abstract name is exactly path_len bytes long: no terminator counts.
    *len = socklen_t(offsetof(sockaddr_un, sun_path) + path_len);
    return true;
}

std::int64_t now_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// A deadline on the monotonic clock, so that EINTR and partial transfers do
// not stretch the caller's timeout. Negative: none.
struct Deadline {
    std::int64_t at = -1; // ns

    explicit Deadline(std::int64_t timeout_ms) noexcept
    {
        // Beyond a century is no limit (and keeps the sum from overflowing).
        if (timeout_ms >= 0 && timeout_ms < std::int64_t(100) * 365 * 24 * 3600 * 1000)
            at = now_ns() + timeout_ms * 1'000'000;
    }

    // Milliseconds left for poll(): -1 without limit, 0 when passed. Rounded
    // up, so that a timeout never ends before its deadline.
    int remaining() const noexcept
    {
        if (at < 0)
            return -1;
        const std::int64_t left = at - now_ns();
        if (left <= 0)
            return 0;
        const std::int64_t ms = (left + 999'999) / 1'000'000;
        return ms > INT_MAX ? INT_MAX : int(ms);
    }
};

// Waits until fd is ready for events (or hung up). ETW_ERROR_TIMEOUT when
// the deadline passed first; *hangup tells a hung-up or failed socket apart.
etw_status wait_ready(int fd, short events, const Deadline &deadline, bool *hangup) noexcept
{
    for (;;) {
        const int ms = deadline.remaining();
        if (ms == 0)
            return ETW_ERROR_TIMEOUT;
        pollfd p{fd, events, 0};
        const int n = ::poll(&p, 1, ms);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno_status(errno);
        }
        if (n == 0)
            continue; // the next round sees the deadline passed
        if (p.revents & POLLNVAL)
            return ETW_ERROR_INVALID_HANDLE;
        *hangup = (p.revents & (POLLHUP | POLLERR)) != 0;
        return ETW_OK;
    }
}

// After a non-blocking call on fd failed with err: ETW_OK to try again (at
// once for EINTR, once fd is ready for events otherwise), or the status that
// ends the transfer (another error, a hung-up socket, the deadline).
etw_status retry_when_ready(int err, int fd, short events, const Deadline &deadline, bool *hangup) noexcept
{
    if (err == EINTR)
        return ETW_OK;
    if (err != EAGAIN && err != EWOULDBLOCK)
        return errno_status(err);
    // A socket that hung up polls as ready with nothing to transfer:
    // report it instead of spinning.
    if (*hangup)
        return ETW_ERROR_HANDLE_EOF;
    return wait_ready(fd, events, deadline, hangup);
}

void close_quietly(int fd) noexcept
{
    // Linux frees the descriptor even when close reports EINTR: no retry.
    if (fd >= 0)
        ::close(fd);
}

// Takes the descriptors of one recvmsg: the first one goes to *kept when it
// is still free, every other one is closed.
void take_fds(msghdr *msg, int *kept) noexcept
{
    for (cmsghdr *c = CMSG_FIRSTHDR(msg); c != nullptr; c = CMSG_NXTHDR(msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        const std::size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (std::size_t i = 0; i < n; ++i) {
            int fd;
            std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            if (*kept < 0)
                *kept = fd;
            else
                close_quietly(fd);
        }
    }
}

// One recvmsg that does not wait; descriptors that came (even with an EOF)
// go to take_fds. errno as recvmsg left it.
ssize_t recv_now(int sock, void *data, std::size_t len, int *kept) noexcept
{
    iovec iov{data, len};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFdsPerRecv)];
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    const ssize_t n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n >= 0)
        take_fds(&msg, kept);
    return n;
}

} // namespace

etw_status channel_listen(const std::string &name, ChannelHandle *out) noexcept
{
    if (out == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    *out = kNoChannel;
    sockaddr_un addr;
    socklen_t addr_len;
    if (!make_address(name, &addr, &addr_len))
        return ETW_ERROR_INVALID_NAME;
    // Non-blocking, so that accept4 after a wake-up whose caller already
    // gave up returns EAGAIN instead of blocking past the timeout.
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return errno_status(errno);
    if (::bind(fd, reinterpret_cast<const sockaddr *>(&addr), addr_len) != 0 || ::listen(fd, kBacklog) != 0) {
        const int err = errno;
        close_quietly(fd);
        return err == EADDRINUSE ? ETW_ERROR_ALREADY_EXISTS : errno_status(err);
    }
    *out = fd;
    return ETW_OK;
}

etw_status channel_accept(ChannelHandle listener, std::int64_t timeout_ms, ChannelHandle *out,
                          PeerCredentials *peer) noexcept
{
    if (out == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    *out = kNoChannel;
    if (listener < 0 || listener > INT_MAX)
        return ETW_ERROR_INVALID_HANDLE;
    const int lfd = int(listener);
    const Deadline deadline(timeout_ms);
    bool hangup = false;
    int fd;
    for (;;) {
        // The accepted socket stays blocking; transfers use MSG_DONTWAIT.
        fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0)
            break;
        const int err = errno;
        if (err == ECONNABORTED)
            continue;
        // A listener that was shut down polls as hung up with nobody to accept.
        if (const etw_status s = retry_when_ready(err, lfd, POLLIN, deadline, &hangup); s != ETW_OK)
            return s;
    }
    if (peer != nullptr) {
        ucred cred{};
        socklen_t cred_len = sizeof cred;
        if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0) {
            const int err = errno;
            close_quietly(fd);
            return errno_status(err);
        }
        peer->pid = std::uint32_t(cred.pid);
        peer->uid = std::uint32_t(cred.uid);
        peer->gid = std::uint32_t(cred.gid);
    }
    *out = fd;
    return ETW_OK;
}

etw_status channel_connect(const std::string &name, ChannelHandle *out) noexcept
{
    if (out == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    *out = kNoChannel;
    sockaddr_un addr;
    socklen_t addr_len;
    if (!make_address(name, &addr, &addr_len))
        return ETW_ERROR_INVALID_NAME;
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return errno_status(errno);
    // An interrupted Unix-domain connect leaves the socket unconnected, so
    // it can simply be tried again.
    while (::connect(fd, reinterpret_cast<const sockaddr *>(&addr), addr_len) != 0) {
        const int err = errno;
        if (err == EINTR)
            continue;
        close_quietly(fd);
        if (err == ECONNREFUSED || err == ENOENT)
            return ETW_ERROR_FILE_NOT_FOUND;
        return errno_status(err);
    }
    *out = fd;
    return ETW_OK;
}

etw_status channel_send(ChannelHandle c, const void *data, std::size_t len, std::int64_t timeout_ms,
                        std::intptr_t fd) noexcept
{
    if (data == nullptr || len == 0)
        return ETW_ERROR_INVALID_PARAMETER;
    if (c < 0 || c > INT_MAX || fd > INT_MAX)
        return ETW_ERROR_INVALID_HANDLE;
    const int sock = int(c);
    const Deadline deadline(timeout_ms);
    const char *p = static_cast<const char *>(data);
    std::size_t left = len;
    bool fd_pending = fd >= 0;
    bool hangup = false;
    while (left > 0) {
        iovec iov{const_cast<char *>(p), left};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
        if (fd_pending) {
            std::memset(control, 0, sizeof control);
            msg.msg_control = control;
            msg.msg_controllen = sizeof control;
            cmsghdr *cm = CMSG_FIRSTHDR(&msg);
            cm->cmsg_level = SOL_SOCKET;
            cm->cmsg_type = SCM_RIGHTS;
            cm->cmsg_len = CMSG_LEN(sizeof(int));
            const int f = int(fd);
            std::memcpy(CMSG_DATA(cm), &f, sizeof f);
        }
        // MSG_DONTWAIT keeps a large send from blocking past the deadline;
        // MSG_NOSIGNAL turns a dead peer into EPIPE instead of SIGPIPE.
        const ssize_t n = ::sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            fd_pending = false; // it went with these bytes
            p += n;
            left -= std::size_t(n);
            continue;
        }
        const int err = n < 0 ? errno : EAGAIN;
        if (const etw_status s = retry_when_ready(err, sock, POLLOUT, deadline, &hangup); s != ETW_OK)
            return s;
    }
    return ETW_OK;
}

etw_status channel_recv(ChannelHandle c, void *data, std::size_t len, std::int64_t timeout_ms,
                        std::intptr_t *fd) noexcept
{
    if (fd != nullptr)
        *fd = -1;
    if (data == nullptr || len == 0)
        return ETW_ERROR_INVALID_PARAMETER;
    if (c < 0 || c > INT_MAX)
        return ETW_ERROR_INVALID_HANDLE;
    const int sock = int(c);
    const Deadline deadline(timeout_ms);
    char *p = static_cast<char *>(data);
    std::size_t left = len;
    int kept = -1;
    etw_status result = ETW_OK;
    while (left > 0) {
        const ssize_t n = recv_now(sock, p, left, &kept);
        if (n > 0) {
            p += n;
            left -= std::size_t(n);
            continue;
        }
        if (n == 0) {
            result = ETW_ERROR_HANDLE_EOF;
            break;
        }
        const int err = errno;
        if (err == EINTR)
            continue;
        if (err != EAGAIN && err != EWOULDBLOCK) {
            result = errno_status(err);
            break;
        }
        // A hung-up socket reads 0, never EAGAIN; loop once more regardless.
        bool hangup = false;
        result = wait_ready(sock, POLLIN, deadline, &hangup);
        if (result != ETW_OK)
            break;
    }
    // A partial message counts as none, and so does its descriptor.
    if (result != ETW_OK || fd == nullptr)
        close_quietly(kept);
    else
        *fd = kept;
    return result;
}

etw_status channel_read_some(ChannelHandle c, void *data, std::size_t len, std::size_t *got) noexcept
{
    if (got != nullptr)
        *got = 0;
    if (data == nullptr || len == 0 || got == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    if (c < 0 || c > INT_MAX)
        return ETW_ERROR_INVALID_HANDLE;
    for (;;) {
        int kept = -1;
        const ssize_t n = recv_now(int(c), data, len, &kept);
        close_quietly(kept);
        if (n > 0) {
            *got = std::size_t(n);
            return ETW_OK;
        }
        if (n == 0)
            return ETW_ERROR_HANDLE_EOF;
        if (errno == EINTR)
            continue;
        return errno == EAGAIN || errno == EWOULDBLOCK ? ETW_OK : errno_status(errno);
    }
}

etw_status channel_peer(ChannelHandle c, PeerCredentials *peer) noexcept
{
    if (c < 0 || peer == nullptr)
        return ETW_ERROR_INVALID_HANDLE;
    ucred cred{};
    socklen_t cred_len = sizeof cred;
    if (::getsockopt(int(c), SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) != 0)
        return errno_status(errno);
    peer->pid = std::uint32_t(cred.pid);
    peer->uid = std::uint32_t(cred.uid);
    peer->gid = std::uint32_t(cred.gid);
    return ETW_OK;
}

void channel_shutdown(ChannelHandle c) noexcept
{
    if (c >= 0 && c <= INT_MAX)
        ::shutdown(int(c), SHUT_RDWR);
}

void channel_close(ChannelHandle *c) noexcept
{
    if (c == nullptr || *c < 0)
        return;
    if (*c <= INT_MAX)
        close_quietly(int(*c));
    *c = kNoChannel;
}

} // namespace openetw::platform
