// Windows part of poller.hpp: no session host yet (docs/SYSTEM_SESSIONS.md,
// "Windows"), so nothing waits on channels.
#include "platform/poller.hpp"

namespace openetw::platform {

etw_status poller_open(Poller *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
void poller_close(Poller *) noexcept {}
etw_status poller_add(const Poller &, ChannelHandle, std::uint64_t) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
void poller_remove(const Poller &, ChannelHandle) noexcept {}
etw_status poller_wait(const Poller &, std::int64_t, std::uint64_t *, std::size_t, std::size_t *n) noexcept
{
    if (n != nullptr)
        *n = 0;
    return ETW_ERROR_NOT_SUPPORTED;
}
void poller_wake(const Poller &) noexcept {}

} // namespace openetw::platform
