// perf's record times to a session's raw clock. The perf events stamp with
// CLOCK_MONOTONIC in nanoseconds (platform/perf_events.hpp), the clock of
// qpc_now(): a session of clock type 1 takes time / 100 as is; a FILETIME
// session adds the offset between wall time and that clock, and a session
// that stamps with the cycle counter scales from a pair of readings, both
// taken once when the map is made.
#pragma once

#include <cstdint>
#include <functional>

namespace openetw::kernel {

// Another clock read between two reads of qpc (100 ns units): the middle of
// the two is its time. A thread preempted between the reads would put that
// off by up to half the pause (milliseconds on a busy machine); a session
// re-anchors at each drain, and records converted at two drains would then
// fall out of time order. So the narrowest of up to 16 tries is kept; one
// within 10 us ends them.
struct BracketedRead {
    std::int64_t mid_qpc = 0; // 100 ns units
    std::int64_t value = 0;   // what read returned
    std::int64_t window = 0;  // the two qpc reads' distance
};
BracketedRead read_bracketed(const std::function<std::int64_t()> &qpc, const std::function<std::int64_t()> &read);

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
