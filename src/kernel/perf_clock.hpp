// perf's record times to a session's raw clock. The perf events stamp with
// CLOCK_MONOTONIC in nanoseconds (platform/perf_events.hpp), the clock of
// qpc_now(): a session of clock type 1 takes time / 100 as is; a FILETIME
// session adds the offset between wall time and that clock, and a session
// that stamps with the cycle counter scales from a pair of readings, both
// taken once when the map is made.
#pragma once

#include <cstdint>

namespace openetw::kernel {

struct PerfClock {
    enum class Base : std::uint8_t { Monotonic, Filetime, Cycles };
    Base base = Base::Monotonic;
    std::int64_t filetime_offset = 0; // Filetime: FILETIME - qpc_now() (100 ns units)
    std::uint64_t anchor_ns = 0;      // Cycles: a CLOCK_MONOTONIC time in ns...
    std::uint64_t anchor_cycles = 0;  // ...the cycle counter at that time...
    std::uint64_t cycles_hz = 0;      // ...and its rate

    // The session timestamp of a perf time (ns of CLOCK_MONOTONIC).
    std::int64_t to_session(std::uint64_t ns) const noexcept;

    // The map for a session of clock_type (ETW_CLOCK_*) that stamps with the
    // cycle counter at cycles_hz, or with a 100 ns clock when cycles_hz is 0
    // (as the session decides: engine/session.cpp).
    static PerfClock capture(std::uint32_t clock_type, std::uint64_t cycles_hz) noexcept;
};

} // namespace openetw::kernel
