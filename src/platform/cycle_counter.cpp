// The CPU cycle counter (clock type 3) and its rate: the same on every OS,
// built on the platform's monotonic clock and sleep.
#include "platform/platform.hpp"

#include <atomic>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace openetw::platform {

bool has_cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return true;
#else
    return false;
#endif
}

std::uint64_t cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
}

std::uint32_t cycle_counter_mhz() noexcept
{
    static std::atomic<std::uint32_t> cached{0};
    std::uint32_t v = cached.load(std::memory_order_acquire);
    if (v != 0 || !has_cycle_counter())
        return v;
    // Measure against the monotonic clock over about 20 ms, once.
    const std::int64_t t0 = qpc_now();
    const std::uint64_t c0 = cycle_counter();
    sleep_ms(20);
    const std::int64_t t1 = qpc_now();
    const std::uint64_t c1 = cycle_counter();
    const std::int64_t dt = t1 - t0; // 100 ns units
    if (dt <= 0)
        return 0;
    const double mhz = double(c1 - c0) * 10.0 / double(dt); // cycles per microsecond
    v = mhz < 1.0 ? 1u : std::uint32_t(mhz + 0.5);
    cached.store(v, std::memory_order_release);
    return v;
}

} // namespace openetw::platform
