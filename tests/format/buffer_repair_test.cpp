// format/buffer_repair: what is kept of a buffer some of whose writers died.
#include "format/buffer_repair.hpp"
#include "format/etl_layout.hpp"
#include "format/etl_writer.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace etl = openetw::etl;

namespace {

constexpr std::uint32_t kSize = 4096;

struct Buffer {
    std::vector<std::uint8_t> bytes = std::vector<std::uint8_t>(kSize, 0);
    std::uint32_t end = std::uint32_t(etl::kBufferHeaderSize);

    // A record of `size` bytes whose payload is `tag`; how far its writer got.
    enum Stage { Nothing, SizeOnly, Payload, Finished };
    std::uint32_t add(std::uint16_t size, std::uint8_t tag, Stage stage)
    {
        const std::uint32_t at = end;
        std::uint8_t *p = bytes.data() + at;
        end += std::uint32_t(etl::align8(size));
        if (stage == Nothing)
            return at;
        etl::begin_record(p, size);
        if (stage == SizeOnly)
            return at;
        // Class and Guid stay zero (the buffer starts zeroed), as a writer's
        // copy of the caller's header would have left them.
        const std::uint32_t word0 = etl::write_full_header_fields(p, size, tag, 0, 0, 0);
        std::memset(p + etl::kFullHeaderSize, tag, size - etl::kFullHeaderSize);
        if (stage == Finished)
            etl::finish_record(p, word0);
        return at;
    }
    // The tags of the records in [header, filled), walking by Size.
    std::vector<int> tags(std::uint32_t filled) const
    {
        std::vector<int> out;
        for (std::uint32_t p = std::uint32_t(etl::kBufferHeaderSize); p < filled;) {
            const std::uint16_t size = etl::rd16(bytes.data() + p);
            out.push_back(bytes[p + 8]); // thread id's low byte
            p += std::uint32_t(etl::align8(size));
        }
        return out;
    }
};

TEST(BufferRepair, FinishedRecordsAreKeptAsTheyAre)
{
    Buffer b;
    b.add(0x40, 1, Buffer::Finished);
    b.add(0x53, 2, Buffer::Finished);
    const std::vector<std::uint8_t> before = b.bytes;
    const etl::RepairResult r = etl::repair_buffer(b.bytes.data(), b.end, kSize);
    EXPECT_EQ(r.kept, 2u);
    EXPECT_EQ(r.filled, b.end);
    EXPECT_EQ(b.bytes, before);
}

TEST(BufferRepair, AnUnfinishedRecordIsSkippedAndTheLaterOnesMoveUp)
{
    Buffer b;
    b.add(0x40, 1, Buffer::Finished);
    b.add(0x100, 2, Buffer::Payload); // died after the payload, before the marker
    b.add(0x48, 3, Buffer::Finished);
    b.add(0x30, 4, Buffer::SizeOnly);
    b.add(0x38, 5, Buffer::Finished);
    const etl::RepairResult r = etl::repair_buffer(b.bytes.data(), b.end, kSize);
    EXPECT_EQ(r.kept, 3u);
    EXPECT_EQ(r.filled, std::uint32_t(etl::kBufferHeaderSize + 0x40 + 0x48 + 0x38));
    EXPECT_EQ(b.tags(r.filled), (std::vector<int>{1, 3, 5}));
}

TEST(BufferRepair, ARecordWithoutEvenASizeIsSkippedToTheNextNonZeroWord)
{
    Buffer b;
    b.add(0x40, 1, Buffer::Finished);
    b.add(0x200, 2, Buffer::Nothing); // died right after reserving
    b.add(0x30, 3, Buffer::Nothing);
    b.add(0x58, 4, Buffer::Finished);
    b.add(0x100, 5, Buffer::Nothing); // the last one
    const etl::RepairResult r = etl::repair_buffer(b.bytes.data(), b.end, kSize);
    EXPECT_EQ(r.kept, 2u);
    EXPECT_EQ(b.tags(r.filled), (std::vector<int>{1, 4}));
}

TEST(BufferRepair, AScribbledSizeCutsTheBufferAndNothingOutsideIsTouched)
{
    std::vector<std::uint8_t> big(kSize + 64, 0xAB); // guard bytes after the buffer
    Buffer b;
    b.add(0x40, 1, Buffer::Finished);
    const std::uint32_t bad = b.add(0x40, 2, Buffer::Finished);
    b.add(0x40, 3, Buffer::Finished);
    b.bytes[bad] = 0x10; // Size 0x10: less than a header
    std::memcpy(big.data(), b.bytes.data(), kSize);
    const etl::RepairResult r = etl::repair_buffer(big.data(), b.end, kSize);
    EXPECT_EQ(r.kept, 1u);
    EXPECT_EQ(r.filled, bad);
    // A filled beyond the buffer is clamped; a Size beyond it cuts.
    big[bad] = 0xF8;
    big[bad + 1] = 0xFF;
    const etl::RepairResult r2 = etl::repair_buffer(big.data(), 0xFFFFFFFFu, kSize);
    EXPECT_EQ(r2.kept, 1u);
    for (std::uint32_t i = kSize; i < big.size(); ++i)
        ASSERT_EQ(big[i], 0xAB) << "byte " << i << " after the buffer was written";
}

} // namespace
