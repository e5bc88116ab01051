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

BracketedRead read_bracketed(const std::function<std::int64_t()> &qpc, const std::function<std::int64_t()> &read)
{
    constexpr std::int64_t kTight = 100; // 10 us
    BracketedRead best;
    best.window = INT64_MAX;
    for (int attempt = 0; attempt < 16 && best.window > kTight; ++attempt) {
        const std::int64_t before = qpc();
        const std::int64_t v = read();
        const std::int64_t after = qpc();
        if (after - before < best.window)
            best = {before + (after - before) / 2, v, after - before};
    }
    return best;
}

PerfClock PerfClock::capture(std::uint32_t clock_type, std::uint64_t cycles_hz) noexcept
{
    PerfClock c;
    const auto qpc = [] { return platform::qpc_now(); };
    if (cycles_hz != 0) {
        c.base = Base::Cycles;
        c.cycles_hz = cycles_hz;
        const BracketedRead r = read_bracketed(qpc, [] { return std::int64_t(platform::cycle_counter()); });
        c.anchor_cycles = std::uint64_t(r.value);
        c.anchor_ns = std::uint64_t(r.mid_qpc) * 100;
    } else if (clock_type == ETW_CLOCK_SYSTEM_TIME) {
        c.base = Base::Filetime;
        const BracketedRead r = read_bracketed(qpc, [] { return platform::filetime_now(); });
        c.filetime_offset = r.value - r.mid_qpc;
    }
    return c;
}

} // namespace openetw::kernel
