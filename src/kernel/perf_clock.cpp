#include "kernel/perf_clock.hpp"

#include "platform/clock.hpp"

#include <openetw/constants.h>

namespace openetw::kernel {

std::int64_t PerfClock::to_session(std::uint64_t ns) const noexcept
{
    switch (base) {
    case Base::Monotonic:
        return std::int64_t(ns / 100);
    case Base::Filetime:
        return std::int64_t(ns / 100) + filetime_offset;
    case Base::Cycles: {
        // delta * hz / 1e9 without a 128-bit product: whole seconds, then the rest
        // (the rest's product stays below 2^64 for rates below 18 GHz).
        const bool before = ns < anchor_ns;
        const std::uint64_t delta = before ? anchor_ns - ns : ns - anchor_ns;
        const std::uint64_t cycles =
            delta / 1'000'000'000u * cycles_hz + delta % 1'000'000'000u * cycles_hz / 1'000'000'000u;
        return std::int64_t(before ? anchor_cycles - cycles : anchor_cycles + cycles);
    }
    }
    return 0;
}

PerfClock PerfClock::capture(std::uint32_t clock_type, std::uint64_t cycles_hz) noexcept
{
    PerfClock c;
    if (cycles_hz != 0) {
        c.base = Base::Cycles;
        c.cycles_hz = cycles_hz;
        // The counter read between two clock reads: their middle is its time.
        const std::int64_t before = platform::qpc_now();
        c.anchor_cycles = platform::cycle_counter();
        const std::int64_t after = platform::qpc_now();
        c.anchor_ns = std::uint64_t(before + (after - before) / 2) * 100;
    } else if (clock_type == ETW_CLOCK_SYSTEM_TIME) {
        c.base = Base::Filetime;
        c.filetime_offset = platform::filetime_now() - platform::qpc_now();
    }
    return c;
}

} // namespace openetw::kernel
