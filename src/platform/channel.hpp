// Local channels between processes (system-wide sessions,
// docs/SYSTEM_SESSIONS.md): a host listens under a name; other processes
// connect, and the host learns each caller's user and process from the
// kernel, never from the caller's words. A channel carries bytes and, with
// a message, one open file descriptor (how a host hands its session region
// to a caller it has checked).
//
// POSIX: Unix-domain stream sockets in the abstract namespace (no file to
// clean up when a host dies). Windows: every function returns
// ETW_ERROR_NOT_SUPPORTED (sessions stay in-process there).
// Handles are -1 when not open. Nothing here raises SIGPIPE.
#pragma once

#include <openetw/status.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace openetw::platform {

using ChannelHandle = std::intptr_t;
inline constexpr ChannelHandle kNoChannel = -1;

struct PeerCredentials {
    std::uint32_t pid = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
};

// Listens under name (any bytes but NUL). ETW_ERROR_ALREADY_EXISTS when
// another listener has the name; ETW_ERROR_INVALID_NAME when it is too long.
etw_status channel_listen(const std::string &name, ChannelHandle *out) noexcept;
// Waits at most timeout_ms (negative: no limit) for a caller.
// ETW_ERROR_TIMEOUT when none came.
etw_status channel_accept(ChannelHandle listener, std::int64_t timeout_ms, ChannelHandle *out,
                          PeerCredentials *peer) noexcept;
// Connects to the listener of name. ETW_ERROR_FILE_NOT_FOUND when nobody
// listens under it (a host that died).
etw_status channel_connect(const std::string &name, ChannelHandle *out) noexcept;
// The process at the other end of a connected channel, as the kernel knows
// it (for a caller: the host as it was when it began listening).
etw_status channel_peer(ChannelHandle c, PeerCredentials *peer) noexcept;
// Sends all len bytes (len >= 1), within timeout_ms (negative: no limit); fd,
// when >= 0, travels with them. ETW_ERROR_HANDLE_EOF when the peer is gone,
// ETW_ERROR_TIMEOUT.
etw_status channel_send(ChannelHandle c, const void *data, std::size_t len, std::int64_t timeout_ms,
                        std::intptr_t fd = -1) noexcept;
// Receives exactly len bytes within timeout_ms (negative: no limit).
// ETW_ERROR_HANDLE_EOF when the peer closed first (a partial message counts as
// none), ETW_ERROR_TIMEOUT. A descriptor that came with them goes to *fd (the
// caller owns it) when fd is not null, and is closed otherwise; *fd is -1
// when none came.
etw_status channel_recv(ChannelHandle c, void *data, std::size_t len, std::int64_t timeout_ms,
                        std::intptr_t *fd = nullptr) noexcept;
// Reads what c holds now, at most len bytes, without waiting: *got is 0
// when nothing is there yet. ETW_ERROR_HANDLE_EOF when the peer closed.
// Descriptors sent along are closed (a request never carries one).
etw_status channel_read_some(ChannelHandle c, void *data, std::size_t len, std::size_t *got) noexcept;
// Ends both directions: a channel_recv/send blocked on c in another thread
// returns ETW_ERROR_HANDLE_EOF. c stays open until channel_close.
void channel_shutdown(ChannelHandle c) noexcept;
void channel_close(ChannelHandle *c) noexcept;

} // namespace openetw::platform
