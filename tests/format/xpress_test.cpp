// MS-XCA plain LZ77 decoding: the specification's own examples, round
// trips through the test encoder, and every kind of damaged stream.
#include "format/xpress.hpp"
#include "xpress_encoder.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

using openetw::format::xpress_decompress;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes decode(const Bytes &in, std::size_t out_size, bool expect_ok = true)
{
    Bytes out(out_size);
    const auto r = xpress_decompress(in, out);
    EXPECT_EQ(r.ok, expect_ok) << r.error;
    out.resize(r.produced);
    return out;
}

Bytes text(const std::string &s) { return Bytes(s.begin(), s.end()); }

} // namespace

TEST(Xpress, SpecExampleLiteralsOnly)
{
    // MS-XCA 3.1: "abc...z" is 26 literal flags, then 1s, then the letters.
    Bytes in = {0x3f, 0x00, 0x00, 0x00};
    const std::string alphabet = "abcdefghijklmnopqrstuvwxyz";
    in.insert(in.end(), alphabet.begin(), alphabet.end());
    EXPECT_EQ(decode(in, 26), text(alphabet));
}

TEST(Xpress, SpecExampleLongOverlappingMatch)
{
    // MS-XCA 3.1: "abc" repeated 100 times; one match of 297 bytes at distance 3
    // through the nibble, byte and 16-bit length forms.
    const Bytes in = {0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01};
    std::string expect;
    for (int i = 0; i < 100; ++i)
        expect += "abc";
    EXPECT_EQ(decode(in, 300), text(expect));
}

TEST(Xpress, EmptyStreams)
{
    EXPECT_TRUE(decode({}, 0).empty());
    decode({}, 1, false); // nothing to produce the promised byte from
    EXPECT_TRUE(decode({0xff, 0xff, 0xff, 0xff}, 0).empty());
}

TEST(Xpress, RoundTripsThroughTheEncoder)
{
    std::mt19937 rng(1234);
    for (std::size_t size : {1u, 2u, 3u, 31u, 32u, 33u, 100u, 4096u, 65536u - 0x48u}) {
        for (int variant = 0; variant < 4; ++variant) {
            Bytes plain(size);
            for (std::size_t i = 0; i < size; ++i) {
                switch (variant) {
                case 0:
                    plain[i] = std::uint8_t(rng());
                    break; // incompressible
                case 1:
                    plain[i] = std::uint8_t(i % 7);
                    break; // short periods
                case 2:
                    plain[i] = std::uint8_t((rng() % 8) ? 0 : rng());
                    break; // sparse
                default:
                    plain[i] = std::uint8_t("event record "[i % 13]);
                    break;
                }
            }
            const Bytes packed = etltest::xpress_compress(plain);
            EXPECT_EQ(decode(packed, size), plain) << "size " << size << " variant " << variant;
        }
    }
}

TEST(Xpress, LengthForms)
{
    // Runs long enough for the 16-bit and 32-bit explicit lengths.
    for (std::size_t run : {10u, 24u, 25u, 280u, 281u, 65000u, 70000u, 200000u}) {
        Bytes plain(run + 1, 0);
        plain[0] = 7;
        const Bytes packed = etltest::xpress_compress(plain);
        EXPECT_EQ(decode(packed, plain.size()), plain) << run;
    }
}

TEST(Xpress, DamagedStreamsAreErrors)
{
    Bytes out(64);
    // Flag word cut off.
    EXPECT_FALSE(xpress_decompress(Bytes{0x00, 0x00}, out).ok);
    // Match before the start of the output: first symbol is a match of distance 1.
    {
        const Bytes in = {0x00, 0x00, 0x00, 0x80, 0x00, 0x00};
        const auto r = xpress_decompress(in, out);
        EXPECT_FALSE(r.ok);
        EXPECT_STREQ(r.error, "a match reaches before the start of the output");
        EXPECT_EQ(r.input_position, 6u);
    }
    // Literal with no room in the output.
    {
        Bytes tiny(1);
        EXPECT_FALSE(xpress_decompress(Bytes{0x00, 0x00, 0x00, 0x00, 'a', 'b'}, tiny).ok);
    }
    // Match longer than the output.
    {
        Bytes small(8);
        const Bytes in = {0x00, 0x00, 0x00, 0x40, 'a', 0x06, 0x00}; // literal, then match d=1 l=9
        const auto r = xpress_decompress(in, small);
        EXPECT_FALSE(r.ok);
        EXPECT_STREQ(r.error, "a match overflows the output");
    }
    // Explicit 16-bit length below 22.
    {
        const Bytes in = {0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x05, 0x00};
        const auto r = xpress_decompress(in, out);
        EXPECT_FALSE(r.ok);
        EXPECT_STREQ(r.error, "an explicit match length is too small");
    }
    // Match token, nibble and length bytes cut off.
    EXPECT_FALSE(xpress_decompress(Bytes{0x00, 0x00, 0x00, 0x40, 'a', 0x07}, out).ok);
    EXPECT_FALSE(xpress_decompress(Bytes{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00}, out).ok);
    EXPECT_FALSE(xpress_decompress(Bytes{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f}, out).ok);
    EXPECT_FALSE(xpress_decompress(Bytes{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x00}, out).ok);
    EXPECT_FALSE(
        xpress_decompress(Bytes{0x00, 0x00, 0x00, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x00, 0x00, 0x01}, out).ok);
}

TEST(Xpress, EveryTruncationIsSafe)
{
    Bytes plain;
    for (int i = 0; i < 3000; ++i)
        plain.push_back(std::uint8_t((i * 37) % 11 == 0 ? i : i % 5));
    const Bytes packed = etltest::xpress_compress(plain);
    for (std::size_t cut = 0; cut < packed.size(); ++cut) {
        Bytes in(packed.begin(), packed.begin() + std::ptrdiff_t(cut));
        Bytes out(plain.size());
        const auto r = xpress_decompress(in, out);
        ASSERT_LE(r.produced, out.size());
        // Only the trailing flag word (all 1s, no symbols after it) may go unmissed.
        if (r.ok && r.produced == plain.size()) {
            EXPECT_GE(cut + 4, packed.size()) << cut;
        }
        EXPECT_TRUE(std::equal(out.begin(), out.begin() + std::ptrdiff_t(r.produced), plain.begin())) << cut;
    }
}
