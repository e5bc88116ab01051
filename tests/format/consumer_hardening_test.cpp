// Damaged files built from a real sample:
// a header that disagrees with its buffers is read by its buffers, an end
// marker before the filled end and a repeated buffer are reported, and every
// intact record is still delivered exactly once, in both orders.
#include "consumer_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

using namespace etltest;
namespace fs = std::filesystem;

namespace {

const fs::path kSamples = OPENETW_SAMPLES_DIR;
// Uncompressed, 6 buffers of 64 KB, records in buffers 1..5.
const char *const kSample = "etlparser_AMSITrace.etl";
constexpr std::size_t kBuffersWritten = 0x48 + 0x20 + 0x24; // TRACE_LOGFILE_HEADER.BuffersWritten in buffer 0

std::uint32_t rd32(const Bytes &b, std::size_t at)
{
    return std::uint32_t(b[at]) | std::uint32_t(b[at + 1]) << 8 | std::uint32_t(b[at + 2]) << 16 |
           std::uint32_t(b[at + 3]) << 24;
}

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// A record's identity that does not depend on where its buffer sits in the file.
using RecordId = std::tuple<std::uint32_t, std::uint32_t, std::int64_t, std::uint32_t>;
std::vector<RecordId> ids(const RunResult &run)
{
    std::vector<RecordId> out;
    for (const SeenRecord &r : run.records)
        out.emplace_back(r.record.processor, r.record.size, r.record.timestamp_raw, r.record.thread_id);
    std::sort(out.begin(), out.end());
    return out;
}

struct Sample {
    Bytes bytes = read_file((kSamples / kSample).string());
    std::uint32_t buffer_size = rd32(bytes, 0);
    RunResult clean;
    Sample()
    {
        TempDir dir;
        clean = run_consumer({dir.write("clean.etl", bytes)});
    }
};

// Both orders: the same status, the same records.
RunResult run_both(const std::string &path)
{
    const RunResult file = run_consumer({path}, ETW_CONSUMER_ORDER_FILE);
    const RunResult time = run_consumer({path}, ETW_CONSUMER_ORDER_TIME);
    EXPECT_EQ(file.status, time.status) << file.message << " / " << time.message;
    EXPECT_EQ(ids(file), ids(time));
    return file;
}

} // namespace

TEST(Hardening, TheSampleIsClean)
{
    Sample s;
    ASSERT_EQ(s.clean.status, ETW_OK) << s.clean.message;
    ASSERT_EQ(s.bytes.size(), 6u * s.buffer_size);
    ASSERT_EQ(s.clean.records.size(), 21u);
}

TEST(Hardening, AHeaderNeverRewrittenIsReadByItsBuffers)
{
    // A killed host leaves BuffersWritten 1 (as written at start).
    Sample s;
    Bytes bytes = s.bytes;
    bytes[kBuffersWritten] = 1;
    bytes[kBuffersWritten + 1] = bytes[kBuffersWritten + 2] = bytes[kBuffersWritten + 3] = 0;
    TempDir dir;
    const RunResult run = run_both(dir.write("killed.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(run.message, "BuffersWritten 1, but the file holds 6 buffers")) << run.message;
    EXPECT_EQ(ids(run), ids(s.clean));
    EXPECT_EQ(run.stats.buffers, 6u);
}

TEST(Hardening, APreallocatedTailPastBuffersWrittenIsNotABuffer)
{
    // Zeros after the last buffer (space preallocated, never written) end the file quietly.
    Sample s;
    Bytes bytes = s.bytes;
    bytes.resize(bytes.size() + 3 * s.buffer_size, 0);
    TempDir dir;
    const RunResult run = run_both(dir.write("prealloc.etl", bytes));
    EXPECT_EQ(run.status, ETW_OK) << run.message;
    EXPECT_EQ(ids(run), ids(s.clean));
}

TEST(Hardening, AnEndMarkerBeforeTheFilledEndIsReported)
{
    Sample s;
    Bytes bytes = s.bytes;
    // The second record of buffer 1 becomes an end marker; the buffer's Offset still says more follows.
    const std::size_t buffer = s.buffer_size;
    const std::uint32_t filled = rd32(bytes, buffer + 0x08);
    const std::size_t first = buffer + 0x48;
    const std::size_t second = first + ((rd32(bytes, first) & 0xFFFF) + 7) / 8 * 8;
    ASSERT_LT(second - buffer + 4, filled) << "buffer 1 needs two records";
    for (int i = 0; i < 4; ++i)
        bytes[second + i] = 0xFF;
    TempDir dir;
    const RunResult run = run_both(dir.write("marker.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(run.message, "end-of-buffer marker 0xFFFFFFFF stands before the filled end")) << run.message;
    EXPECT_EQ(run.stats.corrupt_buffers, 1u);
    // Only the records of buffer 1 from the marker on are missing.
    std::size_t in_buffer1 = 0;
    for (const SeenRecord &r : s.clean.records)
        in_buffer1 += r.record.buffer_index == 1;
    ASSERT_GE(in_buffer1, 2u);
    EXPECT_EQ(run.records.size(), s.clean.records.size() - (in_buffer1 - 1));
}

TEST(Hardening, ARepeatedBufferIsDeliveredOnceAndTheLastBufferIsRead)
{
    // Buffer 2 appears twice (a copy inserted after it); the header still says 6 buffers.
    Sample s;
    const std::size_t bs = s.buffer_size;
    Bytes bytes(s.bytes.begin(), s.bytes.begin() + std::ptrdiff_t(3 * bs));
    bytes.insert(bytes.end(), s.bytes.begin() + std::ptrdiff_t(2 * bs), s.bytes.begin() + std::ptrdiff_t(3 * bs));
    bytes.insert(bytes.end(), s.bytes.begin() + std::ptrdiff_t(3 * bs), s.bytes.end());
    TempDir dir;
    const RunResult run = run_both(dir.write("repeat.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(run.message, "repeats buffer 2 (at offset 0x20000) byte for byte")) << run.message;
    EXPECT_EQ(ids(run), ids(s.clean)); // each record once, the last buffer's too
    EXPECT_EQ(run.stats.corrupt_buffers, 1u);
}

TEST(Hardening, BuffersWithTheSameSequenceButOtherBytesAreBothRead)
{
    // Not a repeat: a buffer that only shares its processor and SequenceNumber is delivered.
    Sample s;
    const std::size_t bs = s.buffer_size;
    Bytes bytes = s.bytes;
    // Buffer 3 takes buffer 2's processor and SequenceNumber.
    std::copy(bytes.begin() + std::ptrdiff_t(2 * bs + 0x18), bytes.begin() + std::ptrdiff_t(2 * bs + 0x20),
              bytes.begin() + std::ptrdiff_t(3 * bs + 0x18));
    std::copy(bytes.begin() + std::ptrdiff_t(2 * bs + 0x28), bytes.begin() + std::ptrdiff_t(2 * bs + 0x2C),
              bytes.begin() + std::ptrdiff_t(3 * bs + 0x28));
    TempDir dir;
    const RunResult run = run_consumer({dir.write("same_seq.etl", bytes)});
    EXPECT_EQ(run.status, ETW_OK) << run.message;
    EXPECT_EQ(run.records.size(), s.clean.records.size());
}
