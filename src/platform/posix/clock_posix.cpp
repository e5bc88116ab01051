// POSIX (Linux first) part of clock.hpp: wall time, the boot time, the
// local time zone and a thread's CPU times; the monotonic clock is inline.
#include "platform/clock.hpp"

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

constexpr std::int64_t kFiletimeUnixEpoch = 116444736000000000LL; // 1970-01-01 in FILETIME

std::int64_t ts_to_100ns(const timespec &ts) { return std::int64_t(ts.tv_sec) * 10'000'000 + ts.tv_nsec / 100; }

} // namespace

std::int64_t filetime_now() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts_to_100ns(ts) + kFiletimeUnixEpoch;
}

std::int64_t boot_time_filetime() noexcept
{
    timespec rt, bt;
    clock_gettime(CLOCK_REALTIME, &rt);
#if defined(CLOCK_BOOTTIME)
    clock_gettime(CLOCK_BOOTTIME, &bt);
#else
    clock_gettime(CLOCK_MONOTONIC, &bt);
#endif
    return ts_to_100ns(rt) - ts_to_100ns(bt) + kFiletimeUnixEpoch;
}

bool cycle_counter_is_system_clock() noexcept
{
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
    static const bool yes = [] {
        // The kernel switches away from "tsc" (for good) when it finds the
        // counter unstable; a process that started before keeps its choice,
        // which is no worse than the clock the kernel gave up.
        const int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return false;
        char text[16] = {};
        const ssize_t n = ::read(fd, text, sizeof text - 1);
        ::close(fd);
        return n >= 3 && std::strncmp(text, "tsc", 3) == 0 && (n == 3 || text[3] == '\n');
    }();
    return yes;
#else
    return false;
#endif
}

namespace {

// The wall time of instant t on a clock that is offset seconds ahead of UTC.
etw_systemtime wall_systemtime(time_t t, long offset)
{
    const time_t wall = t + offset;
    struct tm lt;
    gmtime_r(&wall, &lt);
    etw_systemtime st{};
    st.wYear = std::uint16_t(lt.tm_year + 1900);
    st.wMonth = std::uint16_t(lt.tm_mon + 1);
    st.wDayOfWeek = std::uint16_t(lt.tm_wday);
    st.wDay = std::uint16_t(lt.tm_mday);
    st.wHour = std::uint16_t(lt.tm_hour);
    st.wMinute = std::uint16_t(lt.tm_min);
    st.wSecond = std::uint16_t(lt.tm_sec);
    return st;
}

int is_dst_at(time_t t)
{
    struct tm lt;
    localtime_r(&t, &lt);
    return lt.tm_isdst > 0;
}

// The zone of this year, from a scan of local time.
void compute_local_time_zone(etw_time_zone_information *out) noexcept
{
    std::memset(out, 0, sizeof *out);
    tzset();
    const time_t now = time(nullptr);
    struct tm lt;
    localtime_r(&now, &lt);
    // This year's transitions, found by scanning local time hour by hour and
    // narrowing to the second: the tz database has no other portable API.
    // They are stored in the absolute format (wYear set), each as the
    // wall time in force before the change, as TIME_ZONE_INFORMATION expects.
    struct tm jan1 = {};
    jan1.tm_year = lt.tm_year;
    jan1.tm_mday = 1;
    jan1.tm_isdst = -1;
    const time_t start = mktime(&jan1);
    long std_off = lt.tm_gmtoff, dst_off = lt.tm_gmtoff;
    bool have_std = !lt.tm_isdst, have_dst = lt.tm_isdst > 0;
    int prev = is_dst_at(start);
    for (time_t t = start; t < start + 366 * 86400; t += 3600) {
        const int cur = is_dst_at(t + 3600);
        if (cur == prev)
            continue;
        time_t lo = t, hi = t + 3600; // is_dst(lo) == prev, is_dst(hi) == cur
        while (hi - lo > 1) {
            const time_t mid = lo + (hi - lo) / 2;
            (is_dst_at(mid) == prev ? lo : hi) = mid;
        }
        struct tm before, after;
        const time_t last = hi - 1;
        localtime_r(&last, &before);
        localtime_r(&hi, &after);
        // Windows states a transition in the wall time in force before it.
        const etw_systemtime when = wall_systemtime(hi, before.tm_gmtoff);
        if (cur) {
            out->DaylightDate = when;
            dst_off = after.tm_gmtoff;
            have_dst = true;
        } else {
            out->StandardDate = when;
            std_off = after.tm_gmtoff;
            have_std = true;
        }
        prev = cur;
    }
    // Windows: UTC = local + Bias (+ StandardBias or DaylightBias), in minutes.
    if (!have_std) // daylight time all year: treat the current offset as standard
        std_off = dst_off;
    out->Bias = std::int32_t(-std_off / 60);
    out->StandardBias = 0;
    out->DaylightBias = have_dst ? std::int32_t(-(dst_off - std_off) / 60) : 0;
    auto copy_name = [](std::uint16_t *dst, const char *src) {
        for (int i = 0; src && src[i] && i < 31; ++i)
            dst[i] = std::uint16_t(static_cast<unsigned char>(src[i]));
    };
    copy_name(out->StandardName, tzname[0]);
    if (have_dst)
        copy_name(out->DaylightName, tzname[1]);
}

} // namespace

// The scan below calls localtime ~9000 times (about 150 us): it is done once
// per process and year (and again if TZ changes), not at every session start.
void local_time_zone(etw_time_zone_information *out) noexcept
{
    static std::mutex m;
    static bool cached = false;
    static int cached_year = 0;
    static std::string cached_tz;
    static etw_time_zone_information cached_info;
    const char *tz = std::getenv("TZ");
    const std::string tz_now = tz ? std::string("=") + tz : std::string();
    const time_t now = time(nullptr);
    struct tm lt;
    localtime_r(&now, &lt);
    std::lock_guard<std::mutex> lock(m);
    if (!cached || cached_year != lt.tm_year || cached_tz != tz_now) {
        compute_local_time_zone(&cached_info);
        cached = true;
        cached_year = lt.tm_year;
        cached_tz = tz_now;
    }
    *out = cached_info;
}

void thread_cpu_times(std::uint64_t *kernel, std::uint64_t *user) noexcept
{
    *kernel = 0;
    *user = 0;
#if defined(RUSAGE_THREAD)
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        *kernel = std::uint64_t(ru.ru_stime.tv_sec) * 10'000'000u + std::uint64_t(ru.ru_stime.tv_usec) * 10u;
        *user = std::uint64_t(ru.ru_utime.tv_sec) * 10'000'000u + std::uint64_t(ru.ru_utime.tv_usec) * 10u;
    }
#else
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        *user = std::uint64_t(ts_to_100ns(ts));
#endif
}

} // namespace openetw::platform
