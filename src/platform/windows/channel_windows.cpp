// Windows part of channel.hpp: no channels yet. Sessions stay in the process
// that starts them on Windows (docs/SYSTEM_SESSIONS.md, "Windows"), so
// nothing calls these but to learn that.
#include "platform/channel.hpp"

namespace openetw::platform {

etw_status channel_listen(const std::string &, ChannelHandle *out) noexcept
{
    if (out != nullptr)
        *out = kNoChannel;
    return ETW_ERROR_NOT_SUPPORTED;
}

etw_status channel_accept(ChannelHandle, std::int64_t, ChannelHandle *out, PeerCredentials *) noexcept
{
    if (out != nullptr)
        *out = kNoChannel;
    return ETW_ERROR_NOT_SUPPORTED;
}

etw_status channel_connect(const std::string &, ChannelHandle *out) noexcept
{
    if (out != nullptr)
        *out = kNoChannel;
    return ETW_ERROR_NOT_SUPPORTED;
}

etw_status channel_send(ChannelHandle, const void *, std::size_t, std::int64_t, std::intptr_t) noexcept
{
    return ETW_ERROR_NOT_SUPPORTED;
}

etw_status channel_recv(ChannelHandle, void *, std::size_t, std::int64_t, std::intptr_t *fd) noexcept
{
    if (fd != nullptr)
        *fd = -1;
    return ETW_ERROR_NOT_SUPPORTED;
}

etw_status channel_read_some(ChannelHandle, void *, std::size_t, std::size_t *got) noexcept
{
    if (got != nullptr)
        *got = 0;
    return ETW_ERROR_NOT_SUPPORTED;
}

etw_status channel_peer(ChannelHandle, PeerCredentials *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }

void channel_shutdown(ChannelHandle) noexcept {}

void channel_close(ChannelHandle *c) noexcept
{
    if (c != nullptr)
        *c = kNoChannel;
}

} // namespace openetw::platform
