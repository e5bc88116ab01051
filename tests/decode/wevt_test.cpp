// The WEVT_TEMPLATE reader on synthetic resources: the item forms the real
// binaries we test on do not use (structs, counts and lengths from other
// items, fixed counts, value maps with message texts), decoded end to end;
// and the item references a template must not make.
#include "decode_helpers.hpp"

#include "decode/wevt.hpp"

#include <gtest/gtest.h>

using namespace dectest;

namespace {

struct Item {
    std::uint32_t flags;
    std::uint8_t in, out;
    std::uint16_t first_or_zero, members;
    bool map;
    std::uint16_t count, length;
    const char16_t *name;
};

void patch32(Bytes &b, std::size_t at, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        b.b[at + i] = std::uint8_t(v >> (8 * i));
}

void counted(Bytes &b, const char16_t *s)
{
    const std::size_t at = b.b.size();
    b.u32(0).w(s);
    patch32(b, at, std::uint32_t(b.b.size() - at));
}

// One provider {11111111-2222-3333-4455-66778899aabb}, one map, one template, one event 7 v2.
std::vector<std::uint8_t> crim(const std::vector<Item> &items)
{
    Bytes b;
    b.raw("CRIM").u32(0).u16(3).u16(1).u32(1);
    b.u32(0x11111111).u16(0x2222).u16(0x3333).u8(0x44).u8(0x55).u8(0x66).u8(0x77).u8(0x88).u8(0x99).u8(0xaa).u8(0xbb);
    b.u32(0x24);
    // WEVT: 3 elements.
    b.raw("WEVT").u32(0).u32(0xFFFFFFFF).u32(3).u32(0);
    const std::size_t descriptors = b.b.size();
    for (int i = 0; i < 3; ++i)
        b.u32(0).u32(0);
    // MAPS with one VMAP: 1 -> message 0x10 ("one"), 2 -> message 0x11 ("two").
    patch32(b, descriptors, std::uint32_t(b.b.size()));
    const std::size_t maps = b.b.size();
    b.raw("MAPS").u32(0).u32(1).u32(std::uint32_t(b.b.size() + 4));
    const std::size_t vmap = b.b.size();
    b.raw("VMAP").u32(36).u32(0).u32(0).u32(2).u32(1).u32(0x10).u32(2).u32(0x11);
    patch32(b, vmap + 8, std::uint32_t(b.b.size()));
    counted(b, u"M");
    patch32(b, maps + 4, std::uint32_t(b.b.size() - maps));
    // TTBL with one TEMP.
    patch32(b, descriptors + 8, std::uint32_t(b.b.size()));
    const std::size_t ttbl = b.b.size();
    b.raw("TTBL").u32(0).u32(1);
    const std::size_t temp = b.b.size();
    b.raw("TEMP").u32(0).u32(std::uint32_t(items.size())).u32(std::uint32_t(items.size())).u32(0).u32(1);
    for (int i = 0; i < 16; ++i)
        b.u8(std::uint8_t(i));
    patch32(b, temp + 16, std::uint32_t(b.b.size()));
    std::vector<std::size_t> names;
    for (const Item &it : items) {
        b.u32(it.flags);
        if (it.flags & 1)
            b.u16(it.first_or_zero).u16(it.members);
        else
            b.u8(it.in).u8(it.out).u16(0);
        b.u32(it.map ? std::uint32_t(vmap) : 0).u16(it.count).u16(it.length);
        names.push_back(b.b.size());
        b.u32(0);
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
        patch32(b, names[i], std::uint32_t(b.b.size()));
        counted(b, items[i].name);
    }
    patch32(b, temp + 4, std::uint32_t(b.b.size() - temp));
    patch32(b, ttbl + 4, std::uint32_t(b.b.size() - ttbl));
    // EVNT: event 7 version 2 with the template.
    patch32(b, descriptors + 16, std::uint32_t(b.b.size()));
    b.raw("EVNT").u32(16 + 48).u32(1).u32(0);
    b.u16(7).u8(2).u8(0).u8(4).u8(0).u16(0).u64(0).u32(0xFFFFFFFF).u32(std::uint32_t(temp)).u32(0).u32(0).u32(0);
    b.u32(0).u32(0).u32(0);
    patch32(b, 0x24 + 4, std::uint32_t(b.b.size() - 0x24));
    patch32(b, 4, std::uint32_t(b.b.size()));
    return b.b;
}

const MessageTable kMessages{{0x10, "one"}, {0x11, "two"}};

const etw_guid kProvider{0x11111111, 0x2222, 0x3333, {0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb}};

TEST(Wevt, StructsCountsLengthsAndMaps)
{
    const std::vector<Item> items{
        {0, kInUInt16, kOutNull, 0, 0, false, 0, 0, u"n"},
        {0x4, kInUInt32, kOutNull, 0, 0, false, 0, 0, u"vals"},      // count: item 0
        {0x2, kInBinary, kOutHexBinary, 0, 0, false, 0, 0, u"blob"}, // length: item 0
        {0x1 | 0x20, 0, 0, 4, 2, false, 2, 0, u"pair"},              // struct of items 4, 5; 2 of them
        {0, kInUInt8, kOutNull, 0, 0, true, 0, 0, u"a"},             // map M
        {0, kInUnicodeString, kOutNull, 0, 0, false, 0, 0, u"b"},
        {0, kInUInt16, kOutNull, 0, 0, false, 3, 0, u"fixed"},      // count 3
        {0x10, kInAnsiString, kOutNull, 0, 0, false, 0, 2, u"two"}, // length 2
    };
    const std::vector<std::uint8_t> resource = crim(items);
    SchemaEntries out;
    openetw::format::Problem problem;
    ASSERT_TRUE(read_wevt_template(resource, kMessages, out, problem)) << problem.detail;
    ASSERT_EQ(out.size(), 1u);
    const auto it = out.find(manifest_key(kProvider, 7, 2));
    ASSERT_NE(it, out.end());
    const EventSchema &s = *it->second.schema;
    EXPECT_EQ(s.provider_name, "{11111111-2222-3333-4455-66778899AABB}");
    EXPECT_EQ(s.level_name, "");
    ASSERT_EQ(s.fields.size(), 8u);
    EXPECT_EQ(s.fields[3].in_type, kInStruct);
    EXPECT_EQ(s.fields[3].end, 6u);
    EXPECT_EQ(s.fields[3].count_kind, CountKind::Fixed);
    EXPECT_EQ(s.fields[1].count_kind, CountKind::Field);
    EXPECT_EQ(s.fields[2].length_kind, LengthKind::Field);

    Bytes p;
    p.u16(2).u32(10).u32(20).u8(0xAB).u8(0xCD);
    p.u8(1).w(u"x").u8(5).w(u"y");
    p.u16(1).u16(2).u16(3).raw("hi");
    std::vector<Node> nodes;
    ASSERT_TRUE(decode_payload(s, p.b, 8, nodes, problem, nullptr)) << problem.detail;
    EXPECT_EQ(flatten(s, nodes, p.b), (Pairs{{"n", "2"},
                                             {"vals[0]", "10"},
                                             {"vals[1]", "20"},
                                             {"blob", "0xABCD"},
                                             {"pair[0].a", "one"},
                                             {"pair[0].b", "x"},
                                             {"pair[1].a", "5"},
                                             {"pair[1].b", "y"},
                                             {"fixed[0]", "1"},
                                             {"fixed[1]", "2"},
                                             {"fixed[2]", "3"},
                                             {"two", "hi"}}));
}

std::string fails(const std::vector<Item> &items)
{
    SchemaEntries out;
    openetw::format::Problem problem;
    EXPECT_FALSE(read_wevt_template(crim(items), kMessages, out, problem));
    EXPECT_EQ(problem.code, ETW_ERROR_INVALID_DATA);
    return problem.detail;
}

TEST(Wevt, BadItemReferences)
{
    // A count from a later item, from a string, from itself.
    EXPECT_NE(fails({{0x4, kInUInt32, 0, 0, 0, false, 1, 0, u"v"}, {0, kInUInt16, 0, 0, 0, false, 0, 0, u"n"}})
                  .find("the count of 'v' is item 1, which is not an earlier field"),
              std::string::npos);
    EXPECT_NE(fails({{0, kInUnicodeString, 0, 0, 0, false, 0, 0, u"s"}, {0x2, kInBinary, 0, 0, 0, false, 0, 0, u"b"}})
                  .find("the length of 'b' is field 's', which is not an integer"),
              std::string::npos);
    // A struct whose members are not later items; items in two structs; a bad in-type.
    EXPECT_NE(fails({{0, kInUInt8, 0, 0, 0, false, 0, 0, u"a"}, {0x1, 0, 0, 0, 1, false, 0, 0, u"s"}})
                  .find("struct 's' has members 0..1, not later items"),
              std::string::npos);
    EXPECT_NE(fails({{0x1, 0, 0, 2, 1, false, 0, 0, u"s"},
                     {0x1, 0, 0, 2, 1, false, 0, 0, u"t"},
                     {0, kInUInt8, 0, 0, 0, false, 0, 0, u"a"}})
                  .find("item 'a' is a member of two structs"),
              std::string::npos);
    EXPECT_NE(fails({{0, 99, 0, 0, 0, false, 0, 0, u"x"}}).find("field 'x' has in-type 99"), std::string::npos);
}

TEST(Wevt, StructsNestAtMost32Levels)
{
    std::vector<Item> items;
    for (std::uint16_t i = 0; i < 40; ++i)
        items.push_back({0x1, 0, 0, std::uint16_t(i + 1), 1, false, 0, 0, u"s"});
    items.push_back({0, kInUInt8, 0, 0, 0, false, 0, 0, u"leaf"});
    EXPECT_NE(fails(items).find("structs nest deeper than 32 levels"), std::string::npos);
}

// MESSAGE_RESOURCE_DATA: one block of ids 5..6, an ANSI and a UTF-16 entry (as mc writes them:
// "\r\n" after the text, padded to 4 bytes).
Bytes message_table()
{
    Bytes b;
    b.u32(1).u32(5).u32(6).u32(16);
    b.u16(12).u16(0).raw("Abc\r\n").u8(0).u8(0).u8(0);
    b.u16(16).u16(1).w(u"Xy%0", false).u16(0).u16(0);
    return b;
}

TEST(MessageTable, AnsiAndUtf16EntriesWithoutTheirLineBreak)
{
    MessageTable out;
    openetw::format::Problem problem;
    const Bytes b = message_table();
    ASSERT_TRUE(read_message_table(b.b, out, problem)) << problem.detail;
    EXPECT_EQ(out, (MessageTable{{5, "Abc"}, {6, "Xy"}}));
}

TEST(MessageTable, DamagedTables)
{
    const auto fails = [](Bytes b, const char *what) {
        MessageTable out;
        openetw::format::Problem problem;
        EXPECT_FALSE(read_message_table(b.b, out, problem));
        EXPECT_EQ(problem.code, ETW_ERROR_INVALID_DATA);
        EXPECT_NE(problem.detail.find(what), std::string::npos) << problem.detail;
    };
    Bytes b = message_table();
    b.b[0] = 9; // 9 blocks
    fails(b, "MESSAGETABLE: 9 blocks do not fit in 44 bytes");
    b = message_table();
    b.b[4] = 7; // ids 7..6
    fails(b, "block 0 has ids 0x7..0x6, in the wrong order");
    b = message_table();
    b.b[28] = 0xF0; // the second entry's length
    fails(b, "message 0x6 has length 240, outside the resource");
    b = message_table();
    b.b[8] = 0x00, b.b[9] = 0x10; // ids 5..0x1000: more entries than bytes
    fails(b, "message 0x7 is outside the resource");
    b = message_table();
    b.b[8] = 0xFF, b.b[9] = 0xFF, b.b[10] = 0xFF, b.b[11] = 0xFF; // ids 5..0xFFFFFFFF: bounded before reading
    fails(b, "the table holds more than 1048576 messages");
    fails(Bytes().u8(1), "too short");
}

} // namespace
