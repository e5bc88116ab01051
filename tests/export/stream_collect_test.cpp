// The pure rules of `etwctl collect`: an instance's image and what it lacks,
// and the file names of instances (stream_collect.hpp).
#include "export/stream_collect.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace openetw::exporter;

namespace {

std::vector<std::uint8_t> buf(std::uint8_t fill) { return std::vector<std::uint8_t>(16, fill); }

// A stopped instance with data buffers 1..n and its final header at n + 1.
StreamInstance stopped(std::uint64_t n)
{
    StreamInstance i;
    i.tag.machine = "web-042";
    i.tag.session = "Web";
    i.tag.start_time = 133000000000000000;
    i.header = buf(0xA0);
    i.end = buf(0xE0);
    i.end_sequence = n + 1;
    for (std::uint64_t s = 1; s <= n; ++s)
        i.data.emplace(s, buf(std::uint8_t(s)));
    return i;
}

BufferTag tag(const std::string &machine, const std::string &session, std::int64_t start = 133000000000000000)
{
    BufferTag t;
    t.machine = machine;
    t.session = session;
    t.start_time = start;
    return t;
}

} // namespace

TEST(Collect, AWholeInstanceIsTheFinalHeaderThenItsBuffersInOrderAndComplete)
{
    StreamInstance i = stopped(3);
    const CollectedTrace t = assemble_instance(i);
    EXPECT_TRUE(t.complete()) << (t.missing.empty() ? "" : t.missing[0]);
    EXPECT_TRUE(t.stopped);
    EXPECT_EQ(t.buffers, 3u);
    std::vector<std::uint8_t> want = buf(0xE0);
    for (std::uint8_t s = 1; s <= 3; ++s) {
        const auto b = buf(s);
        want.insert(want.end(), b.begin(), b.end());
    }
    EXPECT_EQ(t.etl, want) << "the final header, not the one the session started with, then 1, 2, 3";
}

TEST(Collect, BuffersTheRetentionRemovedAreNamedByTheirSequences)
{
    StreamInstance i = stopped(10);
    i.data.erase(2);
    i.data.erase(3);
    i.data.erase(7);
    i.data.erase(10); // the last one: only the final header's sequence shows it is missing
    const CollectedTrace t = assemble_instance(i);
    ASSERT_EQ(t.missing.size(), 1u);
    EXPECT_EQ(t.missing[0], "4 of 10 data buffers (sequence 2-3, 7, 10)");
    EXPECT_EQ(t.buffers, 6u);
}

TEST(Collect, ASessionStillRunningLacksItsFinalHeaderAndUsesTheFirst)
{
    StreamInstance i = stopped(2);
    i.end.clear();
    i.end_sequence = 0;
    const CollectedTrace t = assemble_instance(i);
    ASSERT_EQ(t.missing.size(), 1u);
    EXPECT_NE(t.missing[0].find("the final header"), std::string::npos) << t.missing[0];
    EXPECT_FALSE(t.stopped);
    ASSERT_FALSE(t.etl.empty());
    EXPECT_EQ(t.etl[0], 0xA0) << "the header as it started";
}

TEST(Collect, WithoutItsHeaderBufferNoFileCanBegin)
{
    StreamInstance i = stopped(2);
    i.header.clear();
    const CollectedTrace t = assemble_instance(i);
    EXPECT_TRUE(t.etl.empty());
    ASSERT_FALSE(t.missing.empty());
    EXPECT_NE(t.missing[0].find("the header buffer (sequence 0)"), std::string::npos) << t.missing[0];
}

TEST(Collect, ABufferSentTwiceIsWrittenOnceAndTwoDifferentCopiesAreReported)
{
    StreamInstance i = stopped(3);
    i.data.emplace(2, buf(2)); // the same buffer again: not a fault
    CollectedTrace t = assemble_instance(i);
    EXPECT_TRUE(t.complete());
    EXPECT_EQ(t.buffers, 3u);
    EXPECT_EQ(t.etl.size(), 4u * 16);
    i.data.emplace(3, buf(0x33)); // other bytes under the same sequence
    t = assemble_instance(i);
    ASSERT_EQ(t.missing.size(), 1u);
    EXPECT_NE(t.missing[0].find("3 (twice, with other bytes)"), std::string::npos) << t.missing[0];
    EXPECT_EQ(t.buffers, 3u);
}

TEST(Collect, TheFilterTakesTheMachineAsWrittenAndTheSessionInAnyCase)
{
    StreamFilter f;
    f.machine = "web-042";
    f.session = "WEB";
    EXPECT_TRUE(f.matches(tag("web-042", "Web")));
    EXPECT_FALSE(f.matches(tag("web-043", "Web")));
    EXPECT_FALSE(f.matches(tag("web-042", "Webs")));
    EXPECT_TRUE(StreamFilter{}.matches(tag("any", "thing")));
}

TEST(CollectNames, MachineSessionAndStartInUtc)
{
    // 133000000000000000 is 2022-06-18T04:26:40Z.
    EXPECT_EQ(collected_file_name(tag("web-042", "Web", 133000000000001234)),
              "web-042.Web.20220618T042640.0001234Z.etl");
}

TEST(CollectNames, NoNameReachesOutsideTheFolderOrNamesADevice)
{
    for (const char *bad : {"../../etc/passwd", "a/b", "a\\b", "C:x", "..", ".", "", "a b*?<>|\""}) {
        const std::string name = collected_file_name(tag(bad, bad));
        EXPECT_EQ(name.find('/'), std::string::npos) << name;
        EXPECT_EQ(name.find('\\'), std::string::npos) << name;
        EXPECT_EQ(name.find(':'), std::string::npos) << name;
        EXPECT_EQ(name.find(".."), std::string::npos) << name;
        EXPECT_NE(name[0], '.') << name;
    }
    EXPECT_EQ(collected_file_name(tag("CON", "x", 0)), "%43ON.x.16010101T000000.0000000Z.etl");
    EXPECT_EQ(collected_file_name(tag("lpt1", "x", 0)), "%6Cpt1.x.16010101T000000.0000000Z.etl");
    EXPECT_EQ(collected_file_name(tag("console", "x", 0)), "console.x.16010101T000000.0000000Z.etl");
}

TEST(CollectNames, LongNamesAreCutWithAHashAndStayDistinct)
{
    const std::string a(1024, 'a');
    std::string b = a;
    b.back() = 'b';
    const std::string na = collected_file_name(tag("m", a)), nb = collected_file_name(tag("m", b));
    EXPECT_LE(na.size(), 255u);
    EXPECT_NE(na, nb);
    // Escapes are never cut in two.
    const std::string dots(600, '.');
    const std::string nd = collected_file_name(tag(dots, "s"));
    EXPECT_LE(nd.size(), 255u);
    const std::string machine = nd.substr(0, nd.find('.'));
    const std::size_t tilde = machine.find('~');
    ASSERT_NE(tilde, std::string::npos);
    EXPECT_EQ(tilde % 3, 0u) << machine;
}

TEST(CollectNames, InstancesThatDifferInAnyPartGetDifferentNames)
{
    std::set<std::string> names;
    for (const BufferTag &t :
         {tag("a.b", "c"), tag("a", "b.c"), tag("a", "b", 1), tag("a", "b", 2), tag("a%2E", "b"), tag("a", "b")})
        EXPECT_TRUE(names.insert(collected_file_name(t)).second) << collected_file_name(t);
}
