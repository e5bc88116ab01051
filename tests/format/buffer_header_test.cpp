// WMI_BUFFER_HEADER fields, the filled-size rules and buffer images
// (plain, truncated, compressed, damaged).
#include "etl_builder.hpp"
#include "format/buffer_header.hpp"
#include "format/record_reader.hpp"

#include <gtest/gtest.h>

using namespace openetw::format;
using namespace etltest;

namespace {

Bytes sample_buffer(std::uint32_t size = 4096)
{
    BufferSpec spec;
    spec.size = size;
    spec.sequence = 77;
    spec.cpu = 0x0103;
    spec.ts = 123456789;
    for (int i = 0; i < 20; ++i)
        spec.records.push_back(system_record(0x02, std::uint16_t(i), 1, 2, 1000 + i, Bytes(40, std::uint8_t(i))));
    return make_buffer(spec);
}

std::size_t count_records(const BufferImage &image)
{
    RecordReader reader(image.bytes, image.filled);
    Record r;
    std::vector<ExtendedItem> items;
    Problem p;
    std::size_t n = 0;
    while (reader.next(r, items, p) == RecordReader::Step::Record)
        ++n;
    return n;
}

} // namespace

TEST(BufferHeader, Fields)
{
    const Bytes b = sample_buffer();
    const BufferHeader h = parse_buffer_header(b);
    EXPECT_EQ(h.buffer_size, 4096u);
    EXPECT_EQ(h.sequence_number, 77u);
    EXPECT_EQ(h.timestamp, 123456789);
    EXPECT_EQ(h.processor_word, 0x0103);
    EXPECT_EQ(h.processor(), 0x0103u); // PROC_INDEX: the 16-bit index
    EXPECT_EQ(h.logger_id, 1);
    EXPECT_EQ(h.state, 3u);
    EXPECT_EQ(h.offset, 0x48u + 20 * 0x48);
    EXPECT_EQ(h.saved_offset, h.offset);
    EXPECT_EQ(h.flags, 0x20);
    EXPECT_FALSE(h.compressed());
}

TEST(BufferHeader, Windows7ProcessorNumberAndAlignmentByte)
{
    Bytes b = sample_buffer();
    put16(b, 0x28, 0x0803); // ProcessorNumber 3, Alignment 8
    put16(b, 0x34, 0x0001); // no PROC_INDEX
    EXPECT_EQ(parse_buffer_header(b).processor(), 3u);
}

TEST(BufferImage, UsesOffsetThenSavedOffset)
{
    Bytes b = sample_buffer();
    const std::uint32_t filled = parse_buffer_header(b).offset;
    std::vector<std::uint8_t> scratch;
    BufferImage image;
    Problem p;
    // Windows 7 header buffers: SavedOffset 0, Offset right.
    put32(b, 0x04, 0);
    ASSERT_TRUE(make_buffer_image(b, parse_buffer_header(b), {}, scratch, image, p));
    EXPECT_FALSE(p);
    EXPECT_EQ(image.filled, filled);
    EXPECT_EQ(count_records(image), 20u);
    EXPECT_FALSE(image.warning);
    // Offset 0 or out of range: SavedOffset, with a warning (filled_end_test.cpp).
    put32(b, 0x04, filled);
    for (std::uint32_t bad : {0u, 0x10u, 5000u}) {
        put32(b, 0x30, bad);
        ASSERT_TRUE(make_buffer_image(b, parse_buffer_header(b), {}, scratch, image, p));
        EXPECT_FALSE(p);
        EXPECT_TRUE(image.warning);
        EXPECT_EQ(image.filled, filled);
    }
}

TEST(BufferImage, TruncatedBuffersKeepTheirLeadingRecords)
{
    Bytes b = sample_buffer();
    const BufferHeader h = parse_buffer_header(b);
    std::vector<std::uint8_t> scratch;
    BufferImage image;
    Problem p;
    // Cut inside the records: the 5 whole records before the cut remain.
    Bytes cut(b.begin(), b.begin() + 0x48 + 5 * 0x48 + 10);
    ASSERT_TRUE(make_buffer_image(cut, h, {}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_HANDLE_EOF);
    EXPECT_EQ(count_records(image), 5u);
    // Cut inside the 0xFF fill: every record is there, nothing is wrong.
    Bytes fill_cut(b.begin(), b.begin() + h.offset + 8);
    ASSERT_TRUE(make_buffer_image(fill_cut, h, {}, scratch, image, p));
    EXPECT_FALSE(p);
    EXPECT_EQ(count_records(image), 20u);
    // Not even a header.
    EXPECT_FALSE(make_buffer_image(Bytes(10, 0), h, {}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_HANDLE_EOF);
}

TEST(BufferImage, BadBufferSize)
{
    Bytes b = sample_buffer();
    std::vector<std::uint8_t> scratch;
    BufferImage image;
    Problem p;
    for (std::uint32_t bad : {0u, 0x47u, 0x1000001u}) {
        put32(b, 0, bad);
        EXPECT_FALSE(make_buffer_image(b, parse_buffer_header(b), {}, scratch, image, p));
        EXPECT_EQ(p.code, ETW_ERROR_BAD_LENGTH);
        EXPECT_EQ(p.at, 0u);
    }
}

TEST(BufferImage, CompressedBuffersDecompress)
{
    const Bytes plain = sample_buffer(65536);
    const Bytes packed = compress_buffer(plain);
    ASSERT_LT(packed.size(), plain.size());
    const BufferHeader h = parse_buffer_header(packed);
    EXPECT_TRUE(h.compressed());
    EXPECT_EQ(h.buffer_size, packed.size());
    std::vector<std::uint8_t> scratch;
    BufferImage image;
    Problem p;
    ASSERT_TRUE(make_buffer_image(packed, h, {65536, 3}, scratch, image, p)) << p.detail;
    EXPECT_FALSE(p);
    EXPECT_TRUE(image.decompressed);
    EXPECT_EQ(image.filled, h.offset);
    EXPECT_TRUE(std::equal(image.bytes.begin() + 0x48, image.bytes.end(), plain.begin() + 0x48));
    EXPECT_EQ(count_records(image), 20u);
}

TEST(BufferImage, DamagedCompressedBuffers)
{
    const Bytes packed = compress_buffer(sample_buffer(65536));
    const BufferHeader h = parse_buffer_header(packed);
    std::vector<std::uint8_t> scratch;
    BufferImage image;
    Problem p;
    // Another compression format.
    EXPECT_FALSE(make_buffer_image(packed, h, {65536, 4}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_NOT_SUPPORTED);
    // Uncompressed size beyond the session buffer size.
    EXPECT_FALSE(make_buffer_image(packed, h, {1024, 3}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_BAD_LENGTH);
    // Offset promising more than the stream holds.
    Bytes more = packed;
    put32(more, 0x30, h.offset + 8);
    EXPECT_FALSE(make_buffer_image(more, parse_buffer_header(more), {65536, 3}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_INVALID_DATA);
    // A corrupt stream: the first flag word says "match" before any output.
    Bytes corrupt = packed;
    put32(corrupt, 0x48, 0xFFFFFFFFu);
    EXPECT_FALSE(make_buffer_image(corrupt, parse_buffer_header(corrupt), {65536, 3}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_INVALID_DATA);
    EXPECT_NE(p.detail.find("the compressed data is corrupt at stored byte 0x4E"), std::string::npos) << p.detail;
    // Cut short by the end of the file.
    Bytes cut(packed.begin(), packed.end() - 1);
    EXPECT_FALSE(make_buffer_image(cut, h, {65536, 3}, scratch, image, p));
    EXPECT_EQ(p.code, ETW_ERROR_HANDLE_EOF);
}
