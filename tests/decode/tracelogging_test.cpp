// TraceLogging metadata parsing and payload decoding on hand-built events:
// every in-type, arrays (constant and variable counts), nested structs,
// binary, and the errors of malformed metadata and short payloads.
#include "decode_helpers.hpp"

#include "decode/tracelogging.hpp"

#include <gtest/gtest.h>

using namespace dectest;

namespace {

struct Decoded {
    bool ok = false;
    EventSchema schema;
    Pairs values;
    openetw::format::Problem problem;
};

Decoded run(const std::vector<std::uint8_t> &meta, const Bytes &payload, std::uint32_t ptr = 8)
{
    Decoded d;
    if (!parse_tracelogging_event(meta, d.schema, d.problem))
        return d;
    std::vector<Node> nodes;
    d.ok = decode_payload(d.schema, payload.b, ptr, nodes, d.problem);
    if (d.ok)
        d.values = flatten(d.schema, nodes, payload.b, ptr);
    return d;
}

TEST(TraceLogging, ScalarsOfEveryInType)
{
    Bytes f;
    f.str("i8").u8(3).str("u8").u8(4).str("i16").u8(5).str("u16").u8(6).str("i32").u8(7).str("u32").u8(8);
    f.str("i64").u8(9).str("u64").u8(10).str("f").u8(11).str("d").u8(12).str("b").u8(13);
    f.str("g").u8(15).str("ft").u8(17).str("st").u8(18).str("sid").u8(19).str("h32").u8(20).str("h64").u8(21);
    f.str("ws").u8(1).str("as").u8(2).str("cws").u8(22).str("cas").u8(23).str("bin").u8(14).str("cbin").u8(25);
    Bytes p;
    p.u8(0xFE).u8(200).u16(0x8000).u16(65535).u32(0xFFFFFFFF).u32(4000000000u);
    p.u64(0xFFFFFFFFFFFFFFFEull).u64(18446744073709551615ull);
    p.u32(0x3FC00000);            // 1.5f
    p.u64(0xC004000000000000ull); // -2.5
    p.u32(1);
    p.u32(0x01020304).u16(0x0506).u16(0x0708).u8(0x09).u8(0x0A).u8(0x0B).u8(0x0C).u8(0x0D).u8(0x0E).u8(0x0F).u8(0x10);
    p.u64(132392018769038717ull); // 2020-07-14T...
    p.u16(2021).u16(3).u16(2).u16(17).u16(8).u16(9).u16(10).u16(11);
    p.u8(1).u8(2).u8(0).u8(0).u8(0).u8(0).u8(0).u8(5).u32(32).u32(544); // S-1-5-32-544
    p.u32(0xBEEF).u64(0x123456789ABCull);
    p.w(u"h\u00e9llo").str("abc").u16(4).w(u"hi", false).u16(3).raw("xyz").u16(2).u8(0xAB).u8(0x01).u16(1).u8(0xFF);
    const Decoded d = run(tl_metadata("Scalars", f), p);
    ASSERT_TRUE(d.ok) << d.problem.detail;
    EXPECT_EQ(d.schema.event_name, "Scalars");
    const Pairs want = {{"i8", "-2"},
                        {"u8", "200"},
                        {"i16", "-32768"},
                        {"u16", "65535"},
                        {"i32", "-1"},
                        {"u32", "4000000000"},
                        {"i64", "-2"},
                        {"u64", "18446744073709551615"},
                        {"f", "1.5"},
                        {"d", "-2.5"},
                        {"b", "true"},
                        {"g", "{01020304-0506-0708-090A-0B0C0D0E0F10}"},
                        {"ft", "2020-07-14T12:04:36.9038717Z"},
                        {"st", "2021-03-17T08:09:10.011"},
                        {"sid", "S-1-5-32-544"},
                        {"h32", "0xBEEF"},
                        {"h64", "0x123456789ABC"},
                        {"ws", "h\xc3\xa9llo"},
                        {"as", "abc"},
                        {"cws", "hi"},
                        {"cas", "xyz"},
                        {"bin", "0xAB01"},
                        {"cbin", "0xFF"}};
    EXPECT_EQ(d.values, want);
}

TEST(TraceLogging, OutTypesChangeTheText)
{
    Bytes f;
    f.str("hex").u8(8 | 0x80).u8(4).str("err").u8(8 | 0x80).u8(13).str("ip").u8(8 | 0x80).u8(8);
    f.str("port").u8(6 | 0x80).u8(7).str("flag").u8(4 | 0x80).u8(3).str("signed").u8(8 | 0x80).u8(17);
    f.str("tagged").u8(8 | 0x80).u8(0x80 | 0).u8(0x81).u8(0x02); // out-type with 2 tag bytes
    Bytes p;
    p.u32(255).u32(5).u8(192).u8(168).u8(1).u8(2).u8(0x1F).u8(0x90).u8(1).u32(0xFFFFFFFF).u32(7);
    const Decoded d = run(tl_metadata("Out", f), p);
    ASSERT_TRUE(d.ok) << d.problem.detail;
    const Pairs want = {{"hex", "0xFF"},  {"err", "0x00000005"}, {"ip", "192.168.1.2"}, {"port", "8080"},
                        {"flag", "true"}, {"signed", "-1"},      {"tagged", "7"}};
    EXPECT_EQ(d.values, want);
}

TEST(TraceLogging, ArraysAndNestedStructs)
{
    Bytes f;
    f.str("fixed").u8(6 | 0x20).u16(3);        // UINT16[3]
    f.str("var").u8(1 | 0x40);                 // UTF-16 string[count in data]
    f.str("outer").u8(24 | 0x80).u8(2);        // struct of 2 members
    f.str("x").u8(7);                          //   INT32
    f.str("inner").u8(24 | 0x40 | 0x80).u8(1); //   struct[] of 1 member
    f.str("y").u8(4);                          //     UINT8
    f.str("after").u8(4);
    Bytes p;
    p.u16(1).u16(2).u16(3).u16(2).w(u"a").w(u"bc").u32(0xFFFFFFF6).u16(3).u8(7).u8(8).u8(9).u8(42);
    const Decoded d = run(tl_metadata("Nest", f), p);
    ASSERT_TRUE(d.ok) << d.problem.detail;
    const Pairs want = {
        {"fixed[0]", "1"},         {"fixed[1]", "2"},  {"fixed[2]", "3"},         {"var[0]", "a"},
        {"var[1]", "bc"},          {"outer.x", "-10"}, {"outer.inner[0].y", "7"}, {"outer.inner[1].y", "8"},
        {"outer.inner[2].y", "9"}, {"after", "42"}};
    EXPECT_EQ(d.values, want);
    EXPECT_EQ(d.schema.fields[2].end, 6u); // outer spans x, inner, y
}

TEST(TraceLogging, PointerSizeFollowsTheEvent)
{
    // No TraceLogging type is pointer-sized, but the payload decoder's POINTER is.
    EventSchema s;
    s.fields.push_back(Field{"p", kInPointer, kOutNull, CountKind::One, LengthKind::Natural, 0, 0, 1});
    s.fields.push_back(Field{"n", kInUInt8, kOutNull, CountKind::One, LengthKind::Natural, 0, 0, 2});
    Bytes p;
    p.u32(0x1000).u32(0x2000).u8(9);
    std::vector<Node> nodes;
    openetw::format::Problem problem;
    ASSERT_TRUE(decode_payload(s, p.b, 4, nodes, problem));
    EXPECT_EQ(flatten(s, nodes, p.b, 4), (Pairs{{"p", "0x1000"}, {"n", "0"}}));
    ASSERT_TRUE(decode_payload(s, p.b, 8, nodes, problem));
    EXPECT_EQ(flatten(s, nodes, p.b, 8), (Pairs{{"p", "0x200000001000"}, {"n", "9"}}));
}

TEST(TraceLogging, MalformedMetadataIsReported)
{
    EventSchema s;
    openetw::format::Problem problem;
    const std::vector<std::uint8_t> too_big = {0x20, 0x00, 0x00, 'E', 0};
    EXPECT_FALSE(parse_tracelogging_event(too_big, s, problem));
    EXPECT_EQ(problem.code, ETW_ERROR_INVALID_DATA);
    EXPECT_NE(problem.detail.find("does not fit"), std::string::npos) << problem.detail;

    const std::vector<std::uint8_t> unterminated = {0x05, 0x00, 0x00, 'E', 'v'};
    EXPECT_FALSE(parse_tracelogging_event(unterminated, s, problem));
    EXPECT_NE(problem.detail.find("no terminating NUL"), std::string::npos) << problem.detail;

    Bytes bad_type;
    bad_type.str("f").u8(30);
    EXPECT_FALSE(parse_tracelogging_event(tl_metadata("E", bad_type), s, problem));
    EXPECT_NE(problem.detail.find("in-type 30"), std::string::npos) << problem.detail;

    Bytes no_type;
    no_type.str("f");
    EXPECT_FALSE(parse_tracelogging_event(tl_metadata("E", no_type), s, problem));
    EXPECT_NE(problem.detail.find("truncated"), std::string::npos) << problem.detail;

    Bytes short_struct;
    short_struct.str("s").u8(24 | 0x80).u8(3).str("a").u8(4);
    EXPECT_FALSE(parse_tracelogging_event(tl_metadata("E", short_struct), s, problem));
    EXPECT_NE(problem.detail.find("before its 3 members"), std::string::npos) << problem.detail;

    Bytes deep;
    for (int i = 0; i < 40; ++i)
        deep.str("s").u8(24 | 0x80).u8(1);
    deep.str("leaf").u8(4);
    EXPECT_FALSE(parse_tracelogging_event(tl_metadata("E", deep), s, problem));
    EXPECT_NE(problem.detail.find("deeper than 32"), std::string::npos) << problem.detail;
}

TEST(TraceLogging, PayloadThatDoesNotMatchIsReported)
{
    Bytes f;
    f.str("a").u8(8).str("b").u8(9);
    Bytes p;
    p.u32(1).u32(2); // b needs 8 bytes, 4 remain
    Decoded d = run(tl_metadata("E", f), p);
    EXPECT_FALSE(d.ok);
    EXPECT_EQ(d.problem.code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(d.problem.detail, "field 'b' needs 8 bytes at payload offset 4; the payload has 8");

    Bytes counted;
    counted.str("s").u8(22);
    Bytes q;
    q.u16(10).u16(u'x');
    d = run(tl_metadata("E", counted), q);
    EXPECT_FALSE(d.ok);
    EXPECT_NE(d.problem.detail.find("field 's' needs 12 bytes at payload offset 0"), std::string::npos)
        << d.problem.detail;

    Bytes sid;
    sid.str("sid").u8(19);
    Bytes r;
    r.u8(1).u8(200).u32(0).u16(0);
    d = run(tl_metadata("E", sid), r);
    EXPECT_FALSE(d.ok);
    EXPECT_NE(d.problem.detail.find("200 sub-authorities"), std::string::npos) << d.problem.detail;

    Bytes many;
    many.str("a").u8(24 | 0x40 | 0x80).u8(1).str("e").u8(24 | 0x40 | 0x80).u8(1).str("z").u8(4 | 0x20).u16(0);
    Bytes m;
    m.u16(65535);
    for (int i = 0; i < 65535; ++i)
        m.u16(65535);
    d = run(tl_metadata("E", many), m);
    EXPECT_FALSE(d.ok);
    EXPECT_NE(d.problem.detail.find("more than 65536 properties"), std::string::npos) << d.problem.detail;
}

TEST(TraceLogging, FinalStringWithoutTerminatorEndsWithThePayload)
{
    Bytes f;
    f.str("s").u8(2);
    Bytes p;
    p.raw("tail");
    const Decoded d = run(tl_metadata("E", f), p);
    ASSERT_TRUE(d.ok) << d.problem.detail;
    EXPECT_EQ(d.values, (Pairs{{"s", "tail"}}));
}

TEST(TraceLogging, ProviderTraitsName)
{
    Bytes t;
    t.u16(0).str("My.Provider").u16(3).u8(1);
    t.b[0] = std::uint8_t(t.b.size());
    std::string name;
    ASSERT_TRUE(parse_provider_traits(t.b, name));
    EXPECT_EQ(name, "My.Provider");
    t.b.resize(5); // name cut short
    t.b[0] = 5;
    EXPECT_FALSE(parse_provider_traits(t.b, name));
}

} // namespace
