// The precomputed converters (Divider, TimeConverter) against the plain
// division and to_filetime they replace: bit-identical over random values
// and the extremes of every input.
#include "format/timestamps.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

using namespace openetw::format;

namespace {

// Values near every boundary that matters for 64-bit arithmetic and for d.
std::vector<std::uint64_t> edge_values(std::uint64_t d)
{
    std::vector<std::uint64_t> v = {0,
                                    1,
                                    2,
                                    3,
                                    7,
                                    9999999,
                                    10000000,
                                    10000001,
                                    UINT32_MAX,
                                    1ull << 32,
                                    (1ull << 32) + 1,
                                    INT64_MAX,
                                    1ull << 63,
                                    (1ull << 63) + 1,
                                    UINT64_MAX,
                                    UINT64_MAX - 1,
                                    UINT64_MAX / 10,
                                    UINT64_MAX / 10000000};
    for (std::uint64_t k : std::initializer_list<std::uint64_t>{1, 2, 3, 1000, UINT64_MAX / (d ? d : 1)}) {
        const std::uint64_t m = d * k; // wraps for the large k: still a value to try
        for (std::uint64_t delta : {0ull, 1ull, 2ull})
            v.insert(v.end(), {m + delta, m - delta});
    }
    return v;
}

std::vector<std::uint64_t> divisors()
{
    return {1,
            2,
            3,
            5,
            7,
            10,
            16,
            1000,
            2400,
            3000,
            3579545,
            10000000,
            14318180,
            1000000000,
            UINT32_MAX,
            1ull << 32,
            (1ull << 32) + 1,
            1000000000000ull,
            UINT64_MAX / 10000000,
            UINT64_MAX / 10000000 + 1,
            UINT64_MAX / 10,
            1ull << 62,
            INT64_MAX,
            1ull << 63,
            UINT64_MAX - 1,
            UINT64_MAX};
}

} // namespace

TEST(MulHi64, PortableMatchesTheWideProduct)
{
    std::mt19937_64 rng(42);
    std::vector<std::uint64_t> v = {0, 1, 2, UINT32_MAX, 1ull << 32, INT64_MAX, 1ull << 63, UINT64_MAX - 1, UINT64_MAX};
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t a = rng() >> (rng() % 64), b = rng() >> (rng() % 64);
#if defined(__SIZEOF_INT128__)
        const auto wide = static_cast<std::uint64_t>((static_cast<uint128>(a) * b) >> 64);
        ASSERT_EQ(mul_hi64_portable(a, b), wide) << a << " * " << b;
#endif
        ASSERT_EQ(mul_hi64(a, b), mul_hi64_portable(a, b)) << a << " * " << b;
    }
    for (std::uint64_t a : v)
        for (std::uint64_t b : v)
            EXPECT_EQ(mul_hi64_portable(a, b), mul_hi64_portable(b, a)) << a << " * " << b;
    // Known products, independent of any 128-bit type.
    EXPECT_EQ(mul_hi64_portable(UINT64_MAX, UINT64_MAX), UINT64_MAX - 1);
    EXPECT_EQ(mul_hi64_portable(1ull << 63, 2), 1u);
    EXPECT_EQ(mul_hi64_portable(1ull << 32, 1ull << 32), 1u);
    EXPECT_EQ(mul_hi64_portable(UINT64_MAX, 2), 1u);
    EXPECT_EQ(mul_hi64_portable(0xFFFFFFFFull, 0xFFFFFFFFull), 0u);
    EXPECT_EQ(mul_hi64_portable(UINT64_MAX, 0xFFFFFFFFull), 0xFFFFFFFEull);
}

TEST(Divider, MatchesDivisionForEveryDivisorAndExtreme)
{
    std::mt19937_64 rng(7);
    std::vector<std::uint64_t> ds = divisors();
    for (int i = 0; i < 200; ++i)
        ds.push_back((rng() >> (rng() % 64)) | 1);
    for (std::uint64_t d : ds) {
        const Divider div(d);
        std::vector<std::uint64_t> ns = edge_values(d);
        for (int i = 0; i < 2000; ++i)
            ns.push_back(rng() >> (rng() % 64));
        for (std::uint64_t n : ns) {
            std::uint64_t rem = 0;
            const std::uint64_t q = div.divide(n, rem);
            ASSERT_EQ(q, n / d) << n << " / " << d;
            ASSERT_EQ(rem, n % d) << n << " % " << d;
        }
    }
}

TEST(TimeConverter, BitIdenticalToToFiletime)
{
    std::mt19937_64 rng(2024);
    const std::int64_t refs[] = {
        0, 1, -1, 2745263251517, INT64_MIN, INT64_MAX, INT64_MIN + 1, INT64_MAX - 1, 123456789012345678};
    const std::int64_t filetimes[] = {0, 132264173104203138, INT64_MIN, INT64_MAX, -5};
    std::vector<TimeBase> bases;
    for (std::int64_t ref : refs)
        for (std::int64_t ft : filetimes) {
            for (std::uint64_t d : divisors())
                for (std::uint32_t clock : {0u, 1u, 7u})
                    bases.push_back(TimeBase{clock, ref, ft, d, 0});
            for (std::uint32_t mhz : {0u, 1u, 3u, 2400u, 3000u, 3600u, 65535u, UINT32_MAX})
                bases.push_back(TimeBase{3, ref, ft, 0, mhz});
            bases.push_back(TimeBase{1, ref, ft, 0, 0});
            bases.push_back(TimeBase{2, ref, ft, 10000000, 3000});
        }
    for (int i = 0; i < 300; ++i)
        bases.push_back(TimeBase{1u + std::uint32_t(rng() % 3), std::int64_t(rng()), std::int64_t(rng()),
                                 rng() >> (rng() % 64), std::uint32_t(rng() >> (rng() % 64))});
    std::uint64_t checked = 0;
    for (const TimeBase &b : bases) {
        const TimeConverter convert(b);
        const std::uint64_t d = b.clock_type == 3 ? b.cpu_mhz : b.perf_freq;
        std::vector<std::int64_t> raws = {INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX};
        for (std::int64_t delta : {0ll, 1ll, -1ll, 2ll, -2ll, 299ll, 300ll, -300ll, 3000ll, 10000000ll, -10000000ll})
            raws.push_back(std::int64_t(std::uint64_t(b.reference_raw) + std::uint64_t(delta)));
        for (std::uint64_t n : edge_values(d)) {
            raws.push_back(std::int64_t(std::uint64_t(b.reference_raw) + n));
            raws.push_back(std::int64_t(std::uint64_t(b.reference_raw) - n));
        }
        for (int i = 0; i < 300; ++i) {
            raws.push_back(std::int64_t(rng()));
            raws.push_back(std::int64_t(std::uint64_t(b.reference_raw) + (rng() >> (rng() % 64))));
            raws.push_back(std::int64_t(std::uint64_t(b.reference_raw) - (rng() >> (rng() % 64))));
        }
        for (std::int64_t raw : raws) {
            ASSERT_EQ(convert(raw), to_filetime(b, raw))
                << "clock " << b.clock_type << " ref " << b.reference_raw << " start " << b.reference_filetime
                << " freq " << b.perf_freq << " mhz " << b.cpu_mhz << " raw " << raw;
            ++checked;
        }
    }
    EXPECT_GT(checked, 1000000u);
}

TEST(TimeConverter, DefaultConvertsNothing)
{
    const TimeConverter convert;
    EXPECT_EQ(convert(12345), 12345);
    EXPECT_EQ(convert(INT64_MIN), INT64_MIN);
}
