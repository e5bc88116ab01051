// POSIX part of poller.hpp: epoll, level-triggered (a connection not read to
// its end is reported again), and an eventfd for poller_wake. Linux only,
// as channel_posix.cpp.
#include "platform/poller.hpp"

#include <cerrno>
#include <climits>
#include <cstdint>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

etw_status errno_status(int err) noexcept
{
    switch (err) {
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case ENOSPC: // the user's epoll watch limit
        return ETW_ERROR_NO_SYSTEM_RESOURCES;
    case EBADF:
        return ETW_ERROR_INVALID_HANDLE;
    case EEXIST:
        return ETW_ERROR_ALREADY_EXISTS;
    default:
        return ETW_ERROR_INVALID_PARAMETER;
    }
}

bool valid(std::intptr_t fd) noexcept { return fd >= 0 && fd <= INT_MAX; }

} // namespace

etw_status poller_open(Poller *p) noexcept
{
    if (p == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    *p = Poller{};
    const int set = ::epoll_create1(EPOLL_CLOEXEC);
    if (set < 0)
        return errno_status(errno);
    const int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake < 0) {
        const int err = errno;
        ::close(set);
        return errno_status(err);
    }
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kPollerWoken;
    if (::epoll_ctl(set, EPOLL_CTL_ADD, wake, &ev) != 0) {
        const int err = errno;
        ::close(wake);
        ::close(set);
        return errno_status(err);
    }
    p->set = set;
    p->wake = wake;
    return ETW_OK;
}

void poller_close(Poller *p) noexcept
{
    if (p == nullptr)
        return;
    if (valid(p->wake))
        ::close(int(p->wake));
    if (valid(p->set))
        ::close(int(p->set));
    *p = Poller{};
}

etw_status poller_add(const Poller &p, ChannelHandle c, std::uint64_t token) noexcept
{
    if (!valid(p.set) || !valid(c) || token == kPollerWoken)
        return ETW_ERROR_INVALID_HANDLE;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.u64 = token;
    return ::epoll_ctl(int(p.set), EPOLL_CTL_ADD, int(c), &ev) == 0 ? ETW_OK : errno_status(errno);
}

void poller_remove(const Poller &p, ChannelHandle c) noexcept
{
    if (valid(p.set) && valid(c))
        ::epoll_ctl(int(p.set), EPOLL_CTL_DEL, int(c), nullptr);
}

etw_status poller_wait(const Poller &p, std::int64_t timeout_ms, std::uint64_t *tokens, std::size_t max,
                       std::size_t *n) noexcept
{
    if (n == nullptr || tokens == nullptr || max == 0)
        return ETW_ERROR_INVALID_PARAMETER;
    *n = 0;
    if (!valid(p.set))
        return ETW_ERROR_INVALID_HANDLE;
    constexpr int kBatch = 64;
    epoll_event events[kBatch];
    const int want = int(max < std::size_t(kBatch) ? max : std::size_t(kBatch));
    const int ms = timeout_ms < 0 ? -1 : timeout_ms > INT_MAX ? INT_MAX : int(timeout_ms);
    const int got = ::epoll_wait(int(p.set), events, want, ms);
    if (got < 0)
        return errno == EINTR ? ETW_OK : errno_status(errno);
    for (int i = 0; i < got; ++i) {
        if (events[i].data.u64 == kPollerWoken) {
            std::uint64_t rings;
            while (::read(int(p.wake), &rings, sizeof rings) > 0) {
            }
        }
        tokens[(*n)++] = events[i].data.u64;
    }
    return ETW_OK;
}

void poller_wake(const Poller &p) noexcept
{
    if (!valid(p.wake))
        return;
    const std::uint64_t one = 1;
    // A full counter (never, in practice) still leaves the poller woken.
    [[maybe_unused]] const ssize_t w = ::write(int(p.wake), &one, sizeof one);
}

} // namespace openetw::platform
