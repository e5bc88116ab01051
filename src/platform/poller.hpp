// Waiting on many channels at once (the session host's request loop,
// host/request_loop.hpp): one thread learns which listeners have callers
// and which connections have bytes, so that no silent peer holds up
// another. A poller also has a wake-up any thread may ring.
//
// POSIX: epoll (level-triggered) and an eventfd. Windows: every function
// returns ETW_ERROR_NOT_SUPPORTED (sessions stay in-process there).
#pragma once

#include "platform/channel.hpp"

#include <openetw/status.h>

#include <cstddef>
#include <cstdint>

namespace openetw::platform {

struct Poller {
    std::intptr_t set = -1;  // the epoll set
    std::intptr_t wake = -1; // the eventfd poller_wake rings
};

// The token poller_wait reports for a ring of poller_wake.
inline constexpr std::uint64_t kPollerWoken = ~std::uint64_t(0);

etw_status poller_open(Poller *p) noexcept;
void poller_close(Poller *p) noexcept;
// Watches c for bytes to read (or a caller to accept, or a hang-up); wait
// reports token when it is ready. One token per channel.
etw_status poller_add(const Poller &p, ChannelHandle c, std::uint64_t token) noexcept;
// Stops watching c (before it is closed or handed on).
void poller_remove(const Poller &p, ChannelHandle c) noexcept;
// Waits at most timeout_ms (negative: no limit) for ready channels: up to
// max tokens into tokens, their number into *n (0 when the time passed).
// A ring of poller_wake shows as kPollerWoken (and is then cleared).
etw_status poller_wait(const Poller &p, std::int64_t timeout_ms, std::uint64_t *tokens, std::size_t max,
                       std::size_t *n) noexcept;
// Ends the wait of poller_wait now or its next one (any thread).
void poller_wake(const Poller &p) noexcept;

} // namespace openetw::platform
