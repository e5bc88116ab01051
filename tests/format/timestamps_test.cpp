// Raw session-clock values to FILETIME, for the three clock types.
#include "format/timestamps.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace openetw::format;

TEST(Timestamps, QpcClock)
{
    TimeBase b;
    b.clock_type = 1;
    b.reference_raw = 2745263251517;
    b.reference_filetime = 132264173104203138;
    b.perf_freq = 10000000;
    // From the AMSITrace sample's golden records.
    EXPECT_EQ(to_filetime(b, 2745536567203), 132264173377518824);
    EXPECT_EQ(to_filetime(b, b.reference_raw), b.reference_filetime);
    // Another frequency: 3 ticks of 3 MHz are 10 units of 100 ns; rounding is down.
    b.perf_freq = 3000000;
    EXPECT_EQ(to_filetime(b, b.reference_raw + 3), b.reference_filetime + 10);
    EXPECT_EQ(to_filetime(b, b.reference_raw + 1), b.reference_filetime + 3);
    EXPECT_EQ(to_filetime(b, b.reference_raw - 1), b.reference_filetime - 4); // floor of -3.33
    // Clock 0 is the default QPC clock.
    b.clock_type = 0;
    EXPECT_EQ(to_filetime(b, b.reference_raw + 3), b.reference_filetime + 10);
}

TEST(Timestamps, SystemTimeClock)
{
    TimeBase b;
    b.clock_type = 2;
    b.reference_raw = 5;
    b.reference_filetime = 99;
    b.perf_freq = 10000000;
    EXPECT_EQ(to_filetime(b, 134105812840355567), 134105812840355567);
}

TEST(Timestamps, CpuCycleClock)
{
    TimeBase b;
    b.clock_type = 3;
    b.reference_raw = 1000000;
    b.reference_filetime = 130000000000000000;
    b.cpu_mhz = 3000;
    EXPECT_EQ(to_filetime(b, b.reference_raw + 3000), b.reference_filetime + 10); // 1 us
    EXPECT_EQ(to_filetime(b, b.reference_raw + 299), b.reference_filetime + 0);
    EXPECT_EQ(to_filetime(b, b.reference_raw + 300), b.reference_filetime + 1);
}

TEST(Timestamps, ZeroDivisorsKeepRawValues)
{
    TimeBase b;
    b.clock_type = 1;
    b.perf_freq = 0;
    EXPECT_EQ(to_filetime(b, 12345), 12345);
    b.clock_type = 3;
    b.cpu_mhz = 0;
    EXPECT_EQ(to_filetime(b, 12345), 12345);
}

TEST(Timestamps, AbsurdValuesDoNotOverflow)
{
    TimeBase b;
    b.clock_type = 1;
    b.reference_raw = INT64_MIN;
    b.reference_filetime = INT64_MAX;
    b.perf_freq = 1;
    // Wraps, defined behaviour (UBSan checks this).
    (void)to_filetime(b, INT64_MAX);
    // (2^64 - 1) ticks at 2^64 - 1 per second are 10^7 units past INT64_MAX: wraps around.
    b.perf_freq = UINT64_MAX;
    EXPECT_EQ(to_filetime(b, INT64_MAX), INT64_MIN + 10000000 - 1);
}

#if defined(__SIZEOF_INT128__)
TEST(Timestamps, MulDivMatchesWideArithmetic)
{
    __extension__ typedef unsigned __int128 u128;
    std::mt19937_64 rng(42);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t a = rng() >> (rng() % 64);
        const std::uint64_t b = rng() >> (rng() % 64);
        const std::uint64_t c = (rng() >> (rng() % 64)) | 1;
        std::uint64_t rem = 0;
        const std::uint64_t q = mul_div(a, b, c, rem);
        const u128 wide = static_cast<u128>(a) * b;
        EXPECT_EQ(q, static_cast<std::uint64_t>(wide / c)) << a << " " << b << " " << c;
        EXPECT_EQ(rem, static_cast<std::uint64_t>(wide % c));
    }
}
#endif
