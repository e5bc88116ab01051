// Clocks: the monotonic counter (clock type 1), wall time as FILETIME (2),
// the CPU cycle counter (3), the boot time, the local time zone and a
// thread's CPU times. All times are in 100 ns units unless the name says
// otherwise.
//
// Rules (every header of src/platform): functions marked HOT are on the
// event-writing path and must not allocate, take a lock or make a system
// call in the common case (vDSO clock reads are fine); nothing throws;
// failures are etw_status values. posix/clock_posix.cpp and
// windows/clock_windows.cpp implement it, cycle_counter.cpp the rate.
#pragma once

#include <openetw/records.h>

#include <cstdint>

#if !defined(_WIN32)
#include <time.h>
#endif

namespace openetw::platform {

// HOT. Monotonic high-resolution counter (clock type 1), 100 ns units, so
// its frequency (PerfFreq) is kQpcFrequency. Inline on POSIX (the default
// clock of every event): CLOCK_MONOTONIC through the vDSO.
inline constexpr std::int64_t kQpcFrequency = 10'000'000;
#if defined(_WIN32)
std::int64_t qpc_now() noexcept;
#else
inline std::int64_t qpc_now() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    // (tv_nsec is within [0, 1e9): an unsigned division, without the signed fix-up)
    return std::int64_t(ts.tv_sec) * 10'000'000 + std::int64_t(std::uint64_t(ts.tv_nsec) / 100u);
}
#endif

// HOT. Wall-clock time as a FILETIME (100 ns units since 1601-01-01 UTC).
std::int64_t filetime_now() noexcept;

// True when the CPU has a constant-rate cycle counter that cycle_counter()
// reads (x86 TSC). False elsewhere: clock type 3 then falls back to 2.
bool has_cycle_counter() noexcept;
// HOT. The CPU cycle counter (0 when !has_cycle_counter()). Inline: it is
// the timestamp of every event of a session whose clock it is. Not ordered
// with the instructions around it (no fence): an event's timestamp may be
// read a few cycles early.
inline std::uint64_t cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}
// The cycle counter's rate in Hz, measured once per process against the
// monotonic clock (about 20 ms, the first time), 0 when there is none.
std::uint64_t cycle_counter_hz() noexcept;
// The same in MHz, rounded (TRACE_LOGFILE_HEADER.CpuSpeedInMHz).
std::uint32_t cycle_counter_mhz() noexcept;
// True when the cycle counter is the system's own time base, so that it
// can serve as clock type 1 (QPC) for every process of the machine alike:
// Linux on x86 whose kernel keeps time with it (clocksource "tsc", chosen
// only once the kernel found it invariant and in step across processors).
// Windows keeps QueryPerformanceCounter. Checked once per process.
bool cycle_counter_is_system_clock() noexcept;

// FILETIME of the last boot.
std::int64_t boot_time_filetime() noexcept;

// The local time zone in Windows TIME_ZONE_INFORMATION form (Bias, names,
// StandardBias/DaylightBias; POSIX also gives this year's transition dates,
// Windows leaves them zero).
void local_time_zone(etw_time_zone_information *out) noexcept;

// CPU time consumed so far by the calling thread, kernel and user, 100 ns.
// A system call: callers rate-limit it.
void thread_cpu_times(std::uint64_t *kernel, std::uint64_t *user) noexcept;

} // namespace openetw::platform
