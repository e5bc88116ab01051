// The raw clock a session's events are stamped with (docs/ENGINE.md,
// "Clocks"): shared by the session's writers and logger and by whoever
// recovers a dead host's buffers, so that all of them stamp alike.
#pragma once

#include "platform/clock.hpp"

#include <openetw/constants.h>

#include <cstdint>

namespace openetw::engine {

// cycles: the session stamps with the cycle counter (its region's
// ControlBlock::cycle_hz is not 0). Otherwise FILETIME for clock 2, the
// 100 ns monotonic clock for the others.
inline std::int64_t session_clock_now(std::uint32_t clock_type, bool cycles) noexcept
{
    if (cycles)
        return std::int64_t(platform::cycle_counter());
    return clock_type == ETW_CLOCK_SYSTEM_TIME ? platform::filetime_now() : platform::qpc_now();
}

} // namespace openetw::engine
