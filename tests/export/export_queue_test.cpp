// The export's queue: memory while the spool is empty, the spool after;
// the oldest record first, wherever it sits; one bound for both.
#include "export/export_queue.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace openetw;
using namespace openetw::exporter;

namespace {

std::vector<std::uint8_t> record(std::uint32_t n)
{
    return std::vector<std::uint8_t>(92, std::uint8_t(n));
} // 100 with its frame

std::unique_ptr<ExportQueue> make_queue(const char *stem, std::uint64_t bound, std::uint64_t memory)
{
    static int n = 0;
    const std::string d = (std::filesystem::temp_directory_path() /
                           ("openetw-queue-" + std::to_string(getpid()) + "-" + stem + "-" + std::to_string(n++)))
                              .string();
    std::filesystem::remove_all(d);
    std::unique_ptr<Spool> spool;
    EXPECT_TRUE(Spool::open(d, bound, &spool));
    return std::make_unique<ExportQueue>(std::move(spool), bound, memory);
}

std::uint8_t take(ExportQueue &q)
{
    std::vector<std::uint8_t> r;
    std::string why;
    EXPECT_TRUE(q.front(&r, &why)) << why;
    EXPECT_TRUE(q.pop());
    return r.empty() ? 0xFF : r[0];
}

} // namespace

TEST(ExportQueue, RecordsStayInMemoryWhileTheServerKeepsUp)
{
    auto q = make_queue("memory", 10000, 1000);
    std::string why;
    for (std::uint32_t i = 0; i < 10; ++i)
        ASSERT_EQ(q->push(record(i), &why), Spool::Push::Stored);
    EXPECT_EQ(q->in_memory(), 10u);
    EXPECT_EQ(q->spool().records(), 0u) << "no second write per buffer while memory has room";
    for (std::uint32_t i = 0; i < 10; ++i)
        EXPECT_EQ(take(*q), i);
}

TEST(ExportQueue, PastTheMemoryLimitEverythingGoesToTheSpoolInOrder)
{
    auto q = make_queue("spill", 10000, 300);
    std::string why;
    for (std::uint32_t i = 0; i < 3; ++i)
        ASSERT_EQ(q->push(record(i), &why), Spool::Push::Stored);
    ASSERT_EQ(q->in_memory(), 3u);
    ASSERT_EQ(q->push(record(3), &why), Spool::Push::Stored);
    EXPECT_EQ(q->in_memory(), 0u);
    EXPECT_EQ(q->spool().records(), 4u);
    // The spool not empty: newer records follow the older ones there.
    ASSERT_EQ(q->push(record(4), &why), Spool::Push::Stored);
    EXPECT_EQ(q->in_memory(), 0u);
    for (std::uint32_t i = 0; i < 5; ++i)
        EXPECT_EQ(take(*q), i);
    // Empty again: memory first.
    ASSERT_EQ(q->push(record(5), &why), Spool::Push::Stored);
    EXPECT_EQ(q->in_memory(), 1u);
    EXPECT_EQ(take(*q), 5u);
}

TEST(ExportQueue, ARecordInFlightWhenMemorySpillsIsPoppedFromTheSpool)
{
    auto q = make_queue("inflight", 10000, 200);
    std::string why;
    ASSERT_EQ(q->push(record(0), &why), Spool::Push::Stored);
    ASSERT_EQ(q->push(record(1), &why), Spool::Push::Stored);
    std::vector<std::uint8_t> sending;
    ASSERT_TRUE(q->front(&sending, &why));                    // record 0, from memory
    ASSERT_EQ(q->push(record(2), &why), Spool::Push::Stored); // spills 0 and 1
    ASSERT_EQ(q->in_memory(), 0u);
    ASSERT_TRUE(q->pop()); // 0 acknowledged: it is the spool's front now
    EXPECT_EQ(take(*q), 1u);
    EXPECT_EQ(take(*q), 2u);
    EXPECT_EQ(q->records(), 0u);
}

// A sender with several records in flight names them by ordinal: each
// ordinal reads the same record before and after a spill moves it.
TEST(ExportQueue, AnOrdinalNamesTheSameRecordWhereverItSits)
{
    auto q = make_queue("ordinal", 10000, 300);
    std::string why;
    for (std::uint32_t n = 0; n < 3; ++n)
        ASSERT_EQ(q->push(record(n), &why), Spool::Push::Stored);
    ASSERT_EQ(q->in_memory(), 3u);
    ExportQueue::Record r;
    ASSERT_TRUE(q->peek(2, &r, &why));
    EXPECT_EQ((*r)[0], 2u);
    ASSERT_EQ(q->push(record(3), &why), Spool::Push::Stored); // spills 0..2
    ASSERT_EQ(q->in_memory(), 0u);
    ASSERT_TRUE(q->pop()); // 0 acknowledged
    EXPECT_EQ(q->first(), 1u);
    EXPECT_EQ(q->end(), 4u);
    for (std::uint32_t n = 1; n < 4; ++n) {
        ASSERT_TRUE(q->peek(n, &r, &why)) << why;
        EXPECT_EQ((*r)[0], n) << "ordinal " << n;
    }
    EXPECT_FALSE(q->peek(0, &r, &why)) << "popped";
    EXPECT_FALSE(q->peek(4, &r, &why)) << "past the end";
    EXPECT_EQ((*r)[0], 3u) << "a failed peek leaves *out alone";
    // Spool empty again: a new record goes to memory and follows the spooled ones.
    while (q->records() > 0)
        ASSERT_TRUE(q->pop());
    ASSERT_EQ(q->push(record(9), &why), Spool::Push::Stored);
    ASSERT_EQ(q->in_memory(), 1u);
    ASSERT_TRUE(q->peek(4, &r, &why));
    EXPECT_EQ((*r)[0], 9u);
}

// The storage of a record that left is reused for the next one, but never
// while the sender still holds the record it is publishing.
TEST(ExportQueue, ARecordsStorageIsReusedOnlyOnceNobodyHoldsIt)
{
    auto q = make_queue("spare", 10000, 1000);
    std::string why;
    ASSERT_EQ(q->push(record(1), &why), Spool::Push::Stored);
    ASSERT_EQ(q->push(record(2), &why), Spool::Push::Stored);
    ExportQueue::Record sending;
    ASSERT_TRUE(q->peek(0, &sending, &why));
    ASSERT_TRUE(q->pop()); // acknowledged while the sender still holds it
    EXPECT_EQ(q->take_spare().capacity(), 0u) << "held: not reused";
    EXPECT_EQ(sending->size(), 92u);
    EXPECT_EQ((*sending)[0], 1u);
    sending.reset();
    ASSERT_TRUE(q->pop()); // nobody holds record 2
    std::vector<std::uint8_t> spare = q->take_spare();
    EXPECT_TRUE(spare.empty());
    EXPECT_GE(spare.capacity(), 92u) << "its storage, for the next record";
    EXPECT_EQ(q->take_spare().capacity(), 0u) << "one spare, taken";
}

TEST(ExportQueue, TheBoundCoversMemoryAndSpool)
{
    auto q = make_queue("bound", 300, 200);
    std::string why;
    ASSERT_EQ(q->push(record(0), &why), Spool::Push::Stored);
    ASSERT_EQ(q->push(record(1), &why), Spool::Push::Stored);
    ASSERT_EQ(q->push(record(2), &why), Spool::Push::Stored);
    EXPECT_EQ(q->push(record(3), &why), Spool::Push::Full);
    EXPECT_EQ(q->bytes(), 300u);
    EXPECT_EQ(take(*q), 0u);
    EXPECT_EQ(q->push(record(4), &why), Spool::Push::Stored);
}

TEST(ExportQueue, ASpillKeepsWhatMemoryHeldInTheSpool)
{
    auto q = make_queue("keep", 10000, 1000);
    std::string why;
    ASSERT_EQ(q->push(record(7), &why), Spool::Push::Stored);
    ASSERT_TRUE(q->spill());
    EXPECT_EQ(q->in_memory(), 0u);
    EXPECT_EQ(q->spool().records(), 1u);
    EXPECT_EQ(take(*q), 7u);
}

// What a held lossless logger asks before it pushes: whether the record
// would stay in memory, and how much memory is free (nothing once the
// spool holds records: the order sends every later record there).
TEST(ExportQueue, FitsInMemoryAndMemoryRoomSayWhereTheNextRecordGoes)
{
    auto q = make_queue("fits", 10000, 300);
    std::string why;
    EXPECT_EQ(q->memory_room(), 300u);
    EXPECT_TRUE(q->fits_in_memory(92));
    for (std::uint32_t i = 0; i < 3; ++i)
        ASSERT_EQ(q->push(record(i), &why), Spool::Push::Stored);
    EXPECT_EQ(q->memory_room(), 0u);
    EXPECT_FALSE(q->fits_in_memory(92)) << "three records of 100 fill 300 bytes";
    EXPECT_EQ(take(*q), 0u);
    EXPECT_EQ(q->memory_room(), 100u);
    EXPECT_TRUE(q->fits_in_memory(92));
    EXPECT_FALSE(q->fits_in_memory(93)) << "the 8-byte frame counts";
    ASSERT_EQ(q->push(record(3), &why), Spool::Push::Stored);
    ASSERT_EQ(q->push(record(4), &why), Spool::Push::Stored); // past memory: all of it to the spool
    EXPECT_EQ(q->spool().records(), 4u);
    EXPECT_EQ(q->memory_room(), 0u) << "while the spool holds records, memory takes none";
    EXPECT_FALSE(q->fits_in_memory(1));
    for (std::uint32_t i = 1; i < 5; ++i)
        EXPECT_EQ(take(*q), i);
    EXPECT_EQ(q->memory_room(), 300u);
    EXPECT_TRUE(q->fits_in_memory(92));
}
