// The export's spool: first in, first out; bounded, counting on its caller
// for what it refuses; continued by whoever opens its folder next.
#include "export/spool.hpp"
#include "platform/process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace openetw;
using namespace openetw::exporter;

namespace {

std::string fresh_folder(const char *stem)
{
    static int n = 0;
    const std::string d = (std::filesystem::temp_directory_path() /
                           ("openetw-spool-" + std::to_string(getpid()) + "-" + stem + "-" + std::to_string(n++)))
                              .string();
    std::filesystem::remove_all(d);
    return d;
}

std::vector<std::uint8_t> record(std::uint32_t n, std::size_t size = 100)
{
    std::vector<std::uint8_t> r(size);
    for (std::size_t i = 0; i < size; ++i)
        r[i] = std::uint8_t(n * 31 + i);
    return r;
}

std::unique_ptr<Spool> open_spool(const std::string &folder, std::uint64_t max_bytes)
{
    std::unique_ptr<Spool> s;
    const Status st = Spool::open(folder, max_bytes, &s);
    EXPECT_TRUE(st) << st.message;
    return s;
}

void expect_front(Spool &s, const std::vector<std::uint8_t> &want)
{
    std::vector<std::uint8_t> got;
    std::string why;
    ASSERT_TRUE(s.front(&got, &why)) << why;
    EXPECT_EQ(got, want);
}

} // namespace

TEST(Spool, RecordsLeaveInTheOrderTheyCame)
{
    auto s = open_spool(fresh_folder("order"), 1 << 20);
    std::string why;
    for (std::uint32_t i = 0; i < 10; ++i)
        ASSERT_EQ(s->push(record(i), &why), Spool::Push::Stored) << why;
    EXPECT_EQ(s->records(), 10u);
    for (std::uint32_t i = 0; i < 10; ++i) {
        expect_front(*s, record(i));
        expect_front(*s, record(i)); // front does not consume: a failed send tries the same record again
        ASSERT_TRUE(s->pop());
    }
    std::vector<std::uint8_t> got;
    EXPECT_FALSE(s->front(&got, &why));
    EXPECT_EQ(s->bytes(), 0u);
}

TEST(Spool, AFullSpoolRefusesWithoutWritingAndTakesMoreOncePopped)
{
    // Room for three 100-byte records with their 8-byte frames.
    const std::string folder = fresh_folder("bound");
    auto s = open_spool(folder, 3 * 108);
    std::string why;
    for (std::uint32_t i = 0; i < 3; ++i)
        ASSERT_EQ(s->push(record(i), &why), Spool::Push::Stored);
    EXPECT_EQ(s->push(record(3), &why), Spool::Push::Full);
    EXPECT_EQ(s->records(), 3u);
    EXPECT_EQ(s->bytes(), 3u * 108);
    ASSERT_TRUE(s->pop());
    EXPECT_EQ(s->push(record(4), &why), Spool::Push::Stored);
    for (std::uint32_t i : {1u, 2u, 4u}) {
        expect_front(*s, record(i));
        ASSERT_TRUE(s->pop());
    }
    // The refused record is nowhere: reopening finds nothing left.
    s.reset();
    auto again = open_spool(folder, 3 * 108);
    EXPECT_EQ(again->records(), 0u);
}

TEST(Spool, ReopeningTheFolderContinuesWithWhatWasNotPopped)
{
    const std::string folder = fresh_folder("reopen");
    {
        auto s = open_spool(folder, 1 << 20);
        std::string why;
        for (std::uint32_t i = 0; i < 6; ++i)
            ASSERT_EQ(s->push(record(i), &why), Spool::Push::Stored);
        ASSERT_TRUE(s->pop());
        ASSERT_TRUE(s->pop());
    } // a host that stops (or is killed) with four records unsent
    auto s = open_spool(folder, 1 << 20);
    ASSERT_EQ(s->records(), 4u);
    std::string why;
    ASSERT_EQ(s->push(record(6), &why), Spool::Push::Stored);
    for (std::uint32_t i = 2; i <= 6; ++i) {
        expect_front(*s, record(i));
        ASSERT_TRUE(s->pop());
    }
}

TEST(Spool, ATornLastAppendIsCutOffAtReopening)
{
    const std::string folder = fresh_folder("torn");
    {
        auto s = open_spool(folder, 1 << 20);
        std::string why;
        ASSERT_EQ(s->push(record(0), &why), Spool::Push::Stored);
        ASSERT_EQ(s->push(record(1), &why), Spool::Push::Stored);
    }
    // Half a frame and no record after the last one, as a kill mid-append leaves.
    {
        std::ofstream f(folder + "/seg-0000000000", std::ios::binary | std::ios::app);
        f.write("ESPL", 3);
    }
    auto s = open_spool(folder, 1 << 20);
    ASSERT_EQ(s->records(), 2u);
    std::string why;
    ASSERT_EQ(s->push(record(2), &why), Spool::Push::Stored);
    for (std::uint32_t i = 0; i < 3; ++i) {
        expect_front(*s, record(i));
        ASSERT_TRUE(s->pop());
    }
}

TEST(Spool, RecordsSpanSegmentsInOrderAndAcknowledgedSegmentsAreRemoved)
{
    const std::string folder = fresh_folder("segments");
    auto s = open_spool(folder, 64ull << 20);
    const std::size_t big = 1 << 20;
    const std::uint32_t n = std::uint32_t(Spool::kSegmentBytes / big) * 2 + 1; // three segments
    std::string why;
    for (std::uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(s->push(record(i, big), &why), Spool::Push::Stored) << why;
    std::size_t segments = 0;
    for (const auto &e : std::filesystem::directory_iterator(folder))
        segments += e.path().filename().string().rfind("seg-", 0) == 0;
    EXPECT_EQ(segments, 3u);
    for (std::uint32_t i = 0; i < n; ++i) {
        expect_front(*s, record(i, big));
        ASSERT_TRUE(s->pop());
    }
    segments = 0;
    for (const auto &e : std::filesystem::directory_iterator(folder))
        segments += e.path().filename().string().rfind("seg-", 0) == 0;
    EXPECT_EQ(segments, 1u) << "segments whose records were all acknowledged are removed";
    s->remove_files();
    EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(Spool, ABoundOfZeroIsRefused)
{
    std::unique_ptr<Spool> s;
    EXPECT_EQ(Spool::open(fresh_folder("zero"), 0, &s).code, ETW_ERROR_INVALID_PARAMETER);
}

TEST(Spool, AFolderBelongsToAGoneHostOnlyWhenItsProcessIsGone)
{
    const std::uint32_t me = std::uint32_t(getpid());
    const std::string start = std::to_string(platform::process_start_time(me));
    EXPECT_FALSE(spool_owner_gone("Web-" + std::to_string(me) + "-" + start + "-133"));
    EXPECT_TRUE(spool_owner_gone("Web-" + std::to_string(me) + "-" + start + "1-133")) << "the pid, reused";
    EXPECT_TRUE(spool_owner_gone("My%20Session-4194304999-1-2")) << "no such pid";
    EXPECT_FALSE(spool_owner_gone("not-a-spool"));
    EXPECT_FALSE(spool_owner_gone("head"));
    EXPECT_FALSE(spool_owner_gone("x-1-99999999999999999999999-1"));
    const std::string made = spool_folder_for("a.b");
    EXPECT_FALSE(spool_owner_gone(made.substr(made.rfind('/') + 1)));
}
