// A buffer whose Offset disagrees with its records (short of them, past
// them over fill, outside the buffer): every record that frames within the
// buffer is read, and the disagreement is a warning (or a problem, when
// bytes past the records are neither records nor fill).
#include "etl_builder.hpp"
#include "format/buffer_header.hpp"
#include "format/filled_end.hpp"
#include "format/record_reader.hpp"

#include <gtest/gtest.h>

using namespace openetw::format;
using namespace etltest;

namespace {

constexpr std::uint32_t kRecord = 0x48; // each record of sample_buffer
constexpr std::uint32_t kEnd = 0x48 + 20 * kRecord;

Bytes sample_buffer()
{
    BufferSpec spec;
    spec.size = 4096;
    for (int i = 0; i < 20; ++i)
        spec.records.push_back(system_record(0x02, std::uint16_t(i), 1, 2, 1000 + i, Bytes(40, std::uint8_t(i))));
    return make_buffer(spec);
}

struct Read {
    bool ok = false;
    BufferImage image;
    Problem problem;
    std::vector<std::uint16_t> hooks; // HookId of each record read
};

Read read(const Bytes &b)
{
    Read r;
    std::vector<std::uint8_t> scratch;
    r.ok = make_buffer_image(b, parse_buffer_header(b), {}, scratch, r.image, r.problem);
    if (!r.ok)
        return r;
    RecordReader reader(r.image.bytes, r.image.filled);
    Record rec;
    std::vector<ExtendedItem> items;
    Problem p;
    while (reader.next(rec, items, p) == RecordReader::Step::Record)
        r.hooks.push_back(rec.hook_id);
    return r;
}

std::vector<std::uint16_t> first(int n)
{
    std::vector<std::uint16_t> v;
    for (int i = 0; i < n; ++i)
        v.push_back(std::uint16_t(i));
    return v;
}

} // namespace

TEST(FilledEnd, AnOffsetShortOfTheRecordsReadsThemAllWithAWarning)
{
    // Agreeing, it raises nothing.
    const Read clean = read(sample_buffer());
    ASSERT_TRUE(clean.ok);
    EXPECT_FALSE(clean.problem);
    EXPECT_FALSE(clean.image.warning);
    EXPECT_EQ(clean.image.filled, kEnd);
    EXPECT_EQ(clean.hooks, first(20));
    // At a record boundary, and inside a record.
    for (std::uint32_t offset : {0x48 + 12 * kRecord, 0x48 + 12 * kRecord + 0x10}) {
        Bytes b = sample_buffer();
        put32(b, 0x30, offset);
        const Read r = read(b);
        ASSERT_TRUE(r.ok);
        EXPECT_FALSE(r.problem) << r.problem.detail;
        EXPECT_EQ(r.image.filled, kEnd);
        EXPECT_EQ(r.hooks, first(20));
        EXPECT_EQ(r.image.warning.code, ETW_ERROR_BAD_LENGTH);
        EXPECT_EQ(r.image.warning.at, 0x30u);
        EXPECT_EQ(r.image.warning.detail,
                  text_printf("Offset 0x%X falls short of the records, which run on to 0x5E8: they are read up to "
                              "there",
                              offset));
    }
}

TEST(FilledEnd, AnOffsetOutsideTheBufferFallsBackToSavedOffsetWithAWarning)
{
    for (std::uint32_t bad : {0u, 0x10u, 0x1001u, 0x080005A0u}) {
        Bytes b = sample_buffer();
        put32(b, 0x30, bad);
        const Read r = read(b);
        ASSERT_TRUE(r.ok);
        EXPECT_FALSE(r.problem);
        EXPECT_EQ(r.hooks, first(20));
        EXPECT_EQ(r.image.warning.detail,
                  text_printf("Offset 0x%X is outside 0x48..BufferSize 0x1000 and SavedOffset 0x5E8 is taken as the "
                              "filled end",
                              bad));
    }
    // SavedOffset short of the records too (the header buffers of Windows 11
    // private loggers keep SavedOffset < Offset): they are read to their end.
    Bytes b = sample_buffer();
    put32(b, 0x30, 0x08000000u + kEnd);
    put32(b, 0x04, kEnd - 2 * kRecord);
    const Read r = read(b);
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.problem);
    EXPECT_EQ(r.hooks, first(20));
    EXPECT_EQ(r.image.warning.detail,
              "Offset 0x80005E8 is outside 0x48..BufferSize 0x1000 and SavedOffset 0x558 falls short of the records, "
              "which run on to 0x5E8: they are read up to there");
}

TEST(FilledEnd, AnOffsetPastTheRecordsOverFillIsAWarning)
{
    for (std::uint32_t offset : {kEnd + 0x100, 0x1000u}) {
        Bytes b = sample_buffer();
        put32(b, 0x30, offset);
        const Read r = read(b);
        ASSERT_TRUE(r.ok);
        EXPECT_FALSE(r.problem) << r.problem.detail;
        EXPECT_EQ(r.image.filled, kEnd);
        EXPECT_EQ(r.hooks, first(20));
        EXPECT_EQ(
            r.image.warning.detail,
            text_printf("Offset 0x%X runs past the records, which end at 0x5E8: fill follows them up to it", offset));
    }
}

TEST(FilledEnd, NeitherFieldUsableReadsTheRecordsThatFrame)
{
    Bytes b = sample_buffer();
    put32(b, 0x30, 5000);
    put32(b, 0x04, 4097);
    Read r = read(b);
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.problem);
    EXPECT_EQ(r.hooks, first(20));
    EXPECT_EQ(r.image.warning.detail, "Offset 0x1388 and SavedOffset 0x1001 are both outside 0x48..BufferSize "
                                      "0x1000: the records framed from 0x48 are read, up to 0x5E8");
    // Not even a first record: nothing can be read.
    put32(b, 0x48, 0x12345678);
    r = read(b);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.problem.code, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(r.problem.at, 0x30u);
    EXPECT_EQ(r.problem.detail, "Offset 0x1388 and SavedOffset 0x1001 are both outside 0x48..BufferSize 0x1000");
}

TEST(FilledEnd, BytesPastTheRecordsThatAreNeitherRecordsNorFillAreAProblem)
{
    // Offset right, fill overwritten: what it hides may be records.
    Bytes b = sample_buffer();
    put32(b, kEnd, 0x12345678);
    Read r = read(b);
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.image.warning);
    EXPECT_EQ(r.problem.code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(r.problem.at, kEnd);
    EXPECT_EQ(r.problem.detail, "the 0xA18 bytes from 0x5E8 to the end of the buffer are neither records nor 0xFF "
                                "fill: what they hold is not read");
    EXPECT_EQ(r.hooks, first(20));
    // Offset short, and the records after it stop at such bytes: both said.
    put32(b, 0x30, 0x48 + 4 * kRecord);
    r = read(b);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.image.warning.code, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(r.problem.at, kEnd);
    EXPECT_EQ(r.hooks, first(20));
}

TEST(FilledEnd, ZerosAfterTheRecordsArePadding)
{
    Bytes b = sample_buffer();
    std::fill(b.begin() + kEnd, b.end(), std::uint8_t(0));
    put32(b, 0x30, 0x48 + 5 * kRecord);
    const Read r = read(b);
    ASSERT_TRUE(r.ok);
    EXPECT_FALSE(r.problem) << r.problem.detail;
    EXPECT_TRUE(r.image.warning);
    EXPECT_EQ(r.hooks, first(20));
}

TEST(FilledEnd, FramingPastOffsetStaysInsideTheBuffer)
{
    // The last record claims more than the buffer holds: the records before it are read.
    Bytes b = sample_buffer();
    put32(b, 0x30, 0x48 + 2 * kRecord);
    put16(b, 0x48 + 19 * kRecord + 4, 0xFFF0); // a SYSTEM record's Size is at +4
    const Read r = read(b);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.image.filled, 0x48 + 19 * kRecord);
    EXPECT_EQ(r.hooks, first(19));
    EXPECT_TRUE(r.image.warning);
    EXPECT_EQ(r.problem.code, ETW_ERROR_INVALID_DATA);
    EXPECT_EQ(r.problem.at, 0x48 + 19 * kRecord);
}
