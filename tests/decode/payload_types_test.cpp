// The payload decoder and formatter on the TDH in-types TraceLogging does
// not use (the manifest and kernel forms): counted, reversed-counted and
// non-NUL-terminated strings, lengths and counts from other fields, HEXDUMP,
// WBEMSID, SIZET, characters, value maps and bit maps, JSON kinds.
#include "decode_helpers.hpp"

#include <gtest/gtest.h>

using namespace dectest;

namespace {

Field field(const char *name, std::uint16_t in, std::uint16_t out = kOutNull)
{
    Field f;
    f.name = name;
    f.in_type = in;
    f.out_type = out;
    return f;
}

// Appends a scalar field (its `end` set) and returns its index.
std::uint16_t add(EventSchema &s, Field f)
{
    f.end = static_cast<std::uint32_t>(s.fields.size() + 1);
    s.fields.push_back(std::move(f));
    return static_cast<std::uint16_t>(s.fields.size() - 1);
}

struct Result {
    bool ok;
    Pairs values;
    std::string problem;
    std::uint32_t consumed = 0;
};

Result decode(const EventSchema &s, const Bytes &p, std::uint32_t ptr = 8)
{
    std::vector<Node> nodes;
    openetw::format::Problem problem;
    Result r{decode_payload(s, p.b, ptr, nodes, problem, nullptr), {}, problem.detail};
    std::uint32_t consumed = 0;
    decode_payload(s, p.b, ptr, nodes, problem, &consumed);
    r.consumed = consumed;
    if (r.ok)
        r.values = flatten(s, nodes, p.b, ptr);
    return r;
}

TEST(PayloadTypes, CountedAndLengthStrings)
{
    EventSchema s;
    add(s, field("c16", kInCountedString));
    add(s, field("c8", kInCountedAnsiString));
    add(s, field("r16", kInReversedCountedString));
    add(s, field("r8", kInReversedCountedAnsiString));
    Field fixed = field("fixed", kInUnicodeString);
    fixed.length_kind = LengthKind::Fixed;
    fixed.length = 3; // characters
    add(s, fixed);
    const std::uint16_t n = add(s, field("n", kInUInt8));
    Field bytes = field("bytes", kInBinary);
    bytes.length_kind = LengthKind::Field;
    bytes.length = n;
    add(s, bytes);
    add(s, field("rest", kInNonNulTerminatedAnsiString));
    Bytes p;
    p.u16(4).w(u"ab", false).u16(2).raw("cd").u8(0).u8(4).w(u"ef", false).u8(0).u8(1).raw("g");
    p.w(u"xyz", false).u8(3).u8(1).u8(2).u8(3).raw("tail!");
    const Result r = decode(s, p);
    ASSERT_TRUE(r.ok) << r.problem;
    EXPECT_EQ(r.values, (Pairs{{"c16", "ab"},
                               {"c8", "cd"},
                               {"r16", "ef"},
                               {"r8", "g"},
                               {"fixed", "xyz"},
                               {"n", "3"},
                               {"bytes", "0x010203"},
                               {"rest", "tail!"}}));
    EXPECT_EQ(r.consumed, p.b.size());
}

TEST(PayloadTypes, CountFromAnEarlierField)
{
    EventSchema s;
    const std::uint16_t count = add(s, field("count", kInUInt16));
    Field values = field("values", kInInt32);
    values.count_kind = CountKind::Field;
    values.count = count;
    add(s, values);
    Bytes p;
    p.u16(2).u32(0xFFFFFFFF).u32(5);
    Result r = decode(s, p);
    ASSERT_TRUE(r.ok) << r.problem;
    EXPECT_EQ(r.values, (Pairs{{"count", "2"}, {"values[0]", "-1"}, {"values[1]", "5"}}));
    Bytes q;
    q.u16(3).u32(1).u32(2); // a third element is missing
    r = decode(s, q);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.problem, "field 'values' needs 4 bytes at payload offset 10; the payload has 10");
}

TEST(PayloadTypes, HexDumpWbemSidSizeTAndChars)
{
    EventSchema s;
    add(s, field("dump", kInHexDump));
    add(s, field("user", kInWbemSid));
    add(s, field("size", kInSizeT));
    add(s, field("wc", kInUnicodeChar));
    add(s, field("ac", kInAnsiChar));
    add(s, field("st", kInSystemTime));
    for (std::uint32_t ptr : {4u, 8u}) {
        Bytes p;
        p.u32(2).u8(0xDE).u8(0xAD);
        for (std::uint32_t i = 0; i < 2 * ptr; ++i) // TOKEN_USER: Sid pointer, Attributes
            p.u8(std::uint8_t(i + 1));
        p.u8(1).u8(2).u8(0).u8(0).u8(0).u8(0).u8(0).u8(5).u32(32).u32(545); // S-1-5-32-545
        ptr == 8 ? p.u64(4096) : p.u32(4096);
        p.u16(0x263A).u8('Z');
        p.u16(2024).u16(2).u16(4).u16(29).u16(23).u16(59).u16(58).u16(999);
        const Result r = decode(s, p, ptr);
        ASSERT_TRUE(r.ok) << r.problem;
        EXPECT_EQ(r.values, (Pairs{{"dump", "0xDEAD"},
                                   {"user", "S-1-5-32-545"},
                                   {"size", "4096"},
                                   {"wc", "\xe2\x98\xba"},
                                   {"ac", "Z"},
                                   {"st", "2024-02-29T23:59:58.999"}}))
            << ptr;
    }
}

TEST(PayloadTypes, ValueMapsAndBitMaps)
{
    EventSchema s;
    s.maps.push_back(ValueMap{false, {{1, "One"}, {2, "Two"}}});
    s.maps.push_back(ValueMap{true, {{1, "Read"}, {2, "Write"}, {8, "Delete"}}});
    Field v = field("v", kInUInt32);
    v.map = 0;
    add(s, v);
    add(s, v);
    Field b = field("b", kInUInt32);
    b.map = 1;
    add(s, b);
    add(s, b);
    add(s, b);
    Bytes p;
    p.u32(2).u32(7).u32(3).u32(0x19).u32(0);
    const Result r = decode(s, p);
    ASSERT_TRUE(r.ok) << r.problem;
    EXPECT_EQ(r.values,
              (Pairs{{"v", "Two"}, {"v", "7"}, {"b", "Read|Write"}, {"b", "Read|Delete|0x10"}, {"b", "0x0"}}));
}

TEST(PayloadTypes, JsonKindsAndEscapes)
{
    const std::uint8_t i32[] = {0xFE, 0xFF, 0xFF, 0xFF};
    std::string out, scratch;
    format_json(field("i", kInInt32), nullptr, i32, 4, 8, out, scratch);
    EXPECT_EQ(out, "-2");
    out.clear();
    format_json(field("h", kInHexInt32), nullptr, i32, 4, 8, out, scratch);
    EXPECT_EQ(out, "\"0xFFFFFFFE\"");
    out.clear();
    format_json(field("b", kInBoolean), nullptr, i32, 4, 8, out, scratch);
    EXPECT_EQ(out, "true");
    const std::uint8_t nan[] = {0x00, 0x00, 0xC0, 0x7F};
    out.clear();
    format_json(field("f", kInFloat), nullptr, nan, 4, 8, out, scratch);
    EXPECT_EQ(out, "\"nan\"");
    const std::uint8_t text[] = {'a', '"', '\\', '\n', 0x01, 0xE9}; // 0xE9: not UTF-8, read as Latin-1
    out.clear();
    format_json(field("s", kInAnsiString), nullptr, text, sizeof text, 8, out, scratch);
    EXPECT_EQ(out, "\"a\\\"\\\\\\n\\u0001\xc3\xa9\"");
}

} // namespace
