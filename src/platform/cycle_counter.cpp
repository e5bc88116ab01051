// The CPU cycle counter's rate (clock type 3, and clock type 1 where the
// counter is the system's time base): the same on every OS, measured
// against the standard library's monotonic clock.
#include "platform/clock.hpp"
#include "platform/sync.hpp"

#include <atomic>
#include <chrono>
#include <climits>

namespace openetw::platform {

bool has_cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return true;
#else
    return false;
#endif
}

namespace {

struct Pair {
    std::int64_t ns; // monotonic clock
    std::uint64_t cycles;
};

// A counter reading and the monotonic time it was taken at: the narrowest
// of a few clock reads bracketing it (a preempted try is wide), its middle.
Pair read_pair() noexcept
{
    Pair best{0, 0};
    std::int64_t width = INT64_MAX;
    for (int i = 0; i < 7; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const std::uint64_t c = cycle_counter();
        const auto t1 = std::chrono::steady_clock::now();
        const std::int64_t a = std::chrono::duration_cast<std::chrono::nanoseconds>(t0.time_since_epoch()).count();
        const std::int64_t b = std::chrono::duration_cast<std::chrono::nanoseconds>(t1.time_since_epoch()).count();
        if (b - a < width) {
            width = b - a;
            best = {a + (b - a) / 2, c};
        }
    }
    return best;
}

} // namespace

std::uint64_t cycle_counter_hz() noexcept
{
    static std::atomic<std::uint64_t> cached{0};
    std::uint64_t v = cached.load(std::memory_order_acquire);
    if (v != 0 || !has_cycle_counter())
        return v;
    // Over about 20 ms, with each end bracketed to a few tens of ns: a few
    // parts per million, within a quartz clock's own error (a clock-1 trace
    // converts with this rate for its whole length).
    const Pair a = read_pair();
    sleep_ms(20);
    const Pair b = read_pair();
    if (b.ns <= a.ns || b.cycles <= a.cycles)
        return 0;
    v = std::uint64_t(double(b.cycles - a.cycles) * 1e9 / double(b.ns - a.ns) + 0.5);
    if (v == 0)
        v = 1;
    cached.store(v, std::memory_order_release);
    return v;
}

std::uint32_t cycle_counter_mhz() noexcept
{
    const std::uint64_t hz = cycle_counter_hz();
    if (hz == 0)
        return 0;
    return hz < 1'000'000 ? 1u : std::uint32_t((hz + 500'000) / 1'000'000);
}

} // namespace openetw::platform
