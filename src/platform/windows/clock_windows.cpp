// Windows part of clock.hpp: QueryPerformanceCounter as clock type 1 (in
// 100 ns units whatever its own frequency), the precise system time, and
// GetTimeZoneInformation.
#include "platform/windows/win32.hpp"

#include "platform/clock.hpp"

#include <cstring>

namespace openetw::platform {

namespace {

std::int64_t filetime_to_int(const FILETIME &ft)
{
    return std::int64_t((std::uint64_t(ft.dwHighDateTime) << 32) | ft.dwLowDateTime);
}

std::int64_t qpc_frequency()
{
    static const std::int64_t f = [] {
        LARGE_INTEGER v;
        QueryPerformanceFrequency(&v);
        return v.QuadPart > 0 ? std::int64_t(v.QuadPart) : std::int64_t(1);
    }();
    return f;
}

} // namespace

std::int64_t qpc_now() noexcept
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    const std::int64_t f = qpc_frequency();
    if (f == kQpcFrequency)
        return c.QuadPart;
    // 100 ns units without overflow: whole seconds, then the remainder.
    return (c.QuadPart / f) * kQpcFrequency + (c.QuadPart % f) * kQpcFrequency / f;
}

// QueryPerformanceCounter stays clock type 1 here: it is Windows' own.
bool cycle_counter_is_system_clock() noexcept { return false; }

std::int64_t filetime_now() noexcept
{
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    return filetime_to_int(ft);
}

std::int64_t boot_time_filetime() noexcept
{
    // GetTickCount64: milliseconds since boot, sleep included.
    return filetime_now() - std::int64_t(GetTickCount64()) * 10'000;
}

void local_time_zone(etw_time_zone_information *out) noexcept
{
    std::memset(out, 0, sizeof *out);
    TIME_ZONE_INFORMATION tz;
    std::memset(&tz, 0, sizeof tz);
    if (GetTimeZoneInformation(&tz) == TIME_ZONE_ID_INVALID)
        return;
    out->Bias = std::int32_t(tz.Bias);
    out->StandardBias = std::int32_t(tz.StandardBias);
    out->DaylightBias = std::int32_t(tz.DaylightBias);
    for (int i = 0; i < 31 && tz.StandardName[i]; ++i)
        out->StandardName[i] = std::uint16_t(tz.StandardName[i]);
    for (int i = 0; i < 31 && tz.DaylightName[i]; ++i)
        out->DaylightName[i] = std::uint16_t(tz.DaylightName[i]);
    // Transition dates are left zero, as clock.hpp says.
}

void thread_cpu_times(std::uint64_t *kernel, std::uint64_t *user) noexcept
{
    *kernel = 0;
    *user = 0;
    FILETIME created, exited, k, u;
    if (GetThreadTimes(GetCurrentThread(), &created, &exited, &k, &u)) {
        *kernel = std::uint64_t(filetime_to_int(k));
        *user = std::uint64_t(filetime_to_int(u));
    }
}

} // namespace openetw::platform
