// Damaged files: each problem has its status and a message naming the file
// offset; the other buffers are still read; nothing crashes.
#include "consumer_fixture.hpp"
#include "format/problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace etltest;
namespace format = openetw::format;

namespace {

constexpr std::uint32_t kBuf = 4096;

// Buffer 0 + 4 data buffers of 3 EVENT records each (ids b*10 + r).
FileBuilder good_file()
{
    FileBuilder f;
    for (int b = 1; b <= 4; ++b) {
        BufferSpec spec;
        spec.sequence = std::uint64_t(b);
        for (int r = 0; r < 3; ++r) {
            EventSpec e;
            e.id = std::uint16_t(b * 10 + r);
            e.ts = 1000000 + b * 10 + r;
            spec.records.push_back(event_record(e, Bytes(20, 1)));
        }
        f.add(spec);
    }
    return f;
}

const std::size_t kRecord = 0x50 + 20; // aligned 0x68

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

std::vector<int> all_ids() { return {10, 11, 12, 20, 21, 22, 30, 31, 32, 40, 41, 42}; }

std::vector<int> without(std::vector<int> ids, std::initializer_list<int> gone)
{
    for (int g : gone)
        ids.erase(std::remove(ids.begin(), ids.end(), g), ids.end());
    return ids;
}

// Runs both orders; they must agree on status and on the set of records.
RunResult check_both_orders(const std::string &path)
{
    const RunResult file = run_consumer({path}, ETW_CONSUMER_ORDER_FILE);
    const RunResult time = run_consumer({path}, ETW_CONSUMER_ORDER_TIME);
    EXPECT_EQ(file.status, time.status);
    std::vector<int> a = event_ids(file), b = event_ids(time);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    EXPECT_EQ(file.stats.corrupt_buffers, time.stats.corrupt_buffers);
    return file;
}

} // namespace

TEST(BadInput, TruncatedInsideABuffer)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    bytes.resize(3 * kBuf + 0x48 + kRecord + 10); // buffer 3 keeps its first record only
    const std::string path = dir.write("cut.etl", bytes);
    const RunResult run = check_both_orders(path);
    EXPECT_EQ(run.status, ETW_ERROR_HANDLE_EOF);
    EXPECT_TRUE(contains(run.message, path + ": file offset 0x")) << run.message;
    EXPECT_TRUE(contains(run.message, "(buffer 3 at 0x3000")) << run.message;
    EXPECT_TRUE(contains(run.message, "BufferSize 0x1000 runs past the end of the file")) << run.message;
    EXPECT_EQ(event_ids(run), (std::vector<int>{10, 11, 12, 20, 21, 22, 30}));
    ASSERT_EQ(run.buffers.size(), 4u);
    EXPECT_EQ(run.buffers[3].info.status, ETW_ERROR_HANDLE_EOF);
    EXPECT_EQ(run.buffers[3].info.status_flags & ETW_BUFFER_STATUS_CORRUPT, unsigned(ETW_BUFFER_STATUS_CORRUPT));
    EXPECT_EQ(run.buffers[3].info.stored_size, 0x48u + kRecord + 10);
    EXPECT_EQ(run.buffers[3].message, run.message.substr(0, run.buffers[3].message.size()));
    EXPECT_EQ(run.stats.corrupt_buffers, 1u);
}

TEST(BadInput, TruncatedInsideABufferHeader)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    bytes.resize(4 * kBuf + 10);
    const RunResult run = check_both_orders(dir.write("cut.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_HANDLE_EOF);
    EXPECT_TRUE(contains(run.message, "file offset 0x4000 (buffer 4 at 0x4000, offset 0x0): the file ends 0xA bytes "
                                      "into a buffer header"))
        << run.message;
    EXPECT_EQ(event_ids(run), without(all_ids(), {40, 41, 42}));
}

TEST(BadInput, BufferSizeZeroIsSkippedBySessionSize)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    put32(bytes, 2 * kBuf, 0);
    const RunResult run = check_both_orders(dir.write("zero.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_BAD_LENGTH);
    EXPECT_TRUE(contains(run.message, "file offset 0x2000 (buffer 2 at 0x2000, offset 0x0): BufferSize 0x0 is outside "
                                      "0x48..0x1000000"))
        << run.message;
    EXPECT_EQ(event_ids(run), without(all_ids(), {20, 21, 22}));
    EXPECT_EQ(run.stats.corrupt_buffers, 1u);
}

TEST(BadInput, BufferSizeZeroInACompressedFileStops)
{
    // Compressed buffers have their own sizes: nothing after a bad one can be located.
    FileBuilder f = good_file();
    f.spec().mode = ETW_COMPRESSED_MODE;
    f.set_compressed(true);
    Bytes bytes = f.build();
    const std::uint32_t first = std::uint32_t(bytes[kBuf] | bytes[kBuf + 1] << 8);
    put32(bytes, kBuf + first, 0);
    TempDir dir;
    const RunResult run = check_both_orders(dir.write("zero.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_BAD_LENGTH);
    EXPECT_TRUE(contains(run.message, "the buffers after it cannot be located")) << run.message;
    EXPECT_EQ(event_ids(run), (std::vector<int>{10, 11, 12}));
}

TEST(BadInput, BufferSizePastTheEndOfTheFile)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    put32(bytes, 4 * kBuf, 2 * kBuf);
    const RunResult run = check_both_orders(dir.write("past.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_HANDLE_EOF);
    EXPECT_TRUE(contains(run.message, "BufferSize 0x2000 runs past the end of the file, 0x1000 bytes on"));
    // Its records lie before the end of the file and are still read.
    EXPECT_EQ(event_ids(run), all_ids());
}

// An Offset that disagrees with the records: they are all delivered, and the
// buffer callback hears a warning naming the buffer and both ends; the
// status of the run stays ETW_OK (no record is lost).
void expect_offset_warning(const std::string &path, const std::string &detail)
{
    const RunResult run = check_both_orders(path);
    EXPECT_EQ(run.status, ETW_OK) << run.message;
    EXPECT_EQ(event_ids(run), all_ids());
    EXPECT_EQ(run.stats.corrupt_buffers, 0u);
    ASSERT_EQ(run.buffers.size(), 5u);
    for (std::size_t i = 0; i < run.buffers.size(); ++i) {
        const etw_buffer_info &b = run.buffers[i].info;
        if (i != 2) {
            EXPECT_EQ(b.status_flags, 0u) << i;
            continue;
        }
        EXPECT_EQ(b.status_flags, unsigned(ETW_BUFFER_STATUS_WARNING));
        EXPECT_EQ(b.status, ETW_ERROR_BAD_LENGTH);
        EXPECT_EQ(b.record_count, 3u);
        EXPECT_EQ(b.filled_size, 0x180u);
        EXPECT_EQ(run.buffers[2].message, path + ": file offset 0x2030 (buffer 2 at 0x2000, offset 0x30): " + detail);
    }
}

TEST(BadInput, OffsetPastBufferSize)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    put32(bytes, 2 * kBuf + 0x30, kBuf + 8);
    put32(bytes, 2 * kBuf + 0x04, kBuf + 8);
    expect_offset_warning(dir.write("offset.etl", bytes),
                          "Offset 0x1008 and SavedOffset 0x1008 are both outside 0x48..BufferSize 0x1000: the "
                          "records framed from 0x48 are read, up to 0x180");
    // SavedOffset still right: it is taken, and said.
    put32(bytes, 2 * kBuf + 0x04, 0x180);
    expect_offset_warning(dir.write("offset2.etl", bytes), "Offset 0x1008 is outside 0x48..BufferSize 0x1000 and "
                                                           "SavedOffset 0x180 is taken as the filled end");
}

TEST(BadInput, OffsetShortOfItsRecords)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    // After the first record, then in the alignment padding after it (zeros, like fill).
    for (std::uint32_t offset : {0xB0u, 0xACu}) {
        put32(bytes, 2 * kBuf + 0x30, offset);
        expect_offset_warning(dir.write("short.etl", bytes),
                              format::text_printf("Offset 0x%X falls short of the records, which run on to 0x180: "
                                                  "they are read up to there",
                                                  offset));
    }
}

TEST(BadInput, AWarningAndAProblemInOneBufferShareItsMessage)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    const std::size_t second = 2 * kBuf + 0x48 + 0x68;
    put32(bytes, 2 * kBuf + 0x30, 0xB0);
    put16(bytes, second + 0x50, 0x7FFF); // the second record's first extended item, announced
    put16(bytes, second + 4, 0x0001);    // by EVENT_HEADER_FLAG_EXTENDED_INFO
    const std::string path = dir.write("both.etl", bytes);
    const RunResult run = check_both_orders(path);
    EXPECT_EQ(run.status, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(event_ids(run), without(all_ids(), {21}));
    ASSERT_EQ(run.buffers.size(), 5u);
    EXPECT_EQ(run.buffers[2].info.status_flags, unsigned(ETW_BUFFER_STATUS_CORRUPT | ETW_BUFFER_STATUS_WARNING));
    EXPECT_TRUE(contains(run.buffers[2].message, "; warning: Offset 0xB0 falls short of the records"))
        << run.buffers[2].message;
    EXPECT_EQ(run.message, run.buffers[2].message);
}

TEST(BadInput, RecordSizeSmallerThanItsHeader)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    const std::size_t second = 2 * kBuf + 0x48 + 0x68;
    put16(bytes, second, 0x10);
    const std::string path = dir.write("small.etl", bytes);
    const RunResult run = check_both_orders(path);
    EXPECT_EQ(run.status, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(run.message, path + ": file offset 0x20B0 (buffer 2 at 0x2000, offset 0xB0): record Size 0x10 is "
                                  "smaller than its 0x50-byte event header");
    EXPECT_EQ(event_ids(run), without(all_ids(), {21, 22}));
    EXPECT_EQ(run.buffers[2].info.record_count, 1u);
    EXPECT_EQ(run.buffers[2].info.corrupt_records, 1u);
    EXPECT_EQ(run.stats.corrupt_records, 1u);
}

TEST(BadInput, RecordCrossingTheFilledEnd)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    put16(bytes, 1 * kBuf + 0x48 + 2 * 0x68, 0x200);
    const RunResult run = check_both_orders(dir.write("cross.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_BAD_LENGTH);
    EXPECT_TRUE(contains(run.message, "record Size 0x200 crosses the filled end 0x180 of the buffer")) << run.message;
    EXPECT_EQ(event_ids(run), without(all_ids(), {12}));
}

TEST(BadInput, UnknownMarker)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    bytes[3 * kBuf + 0x48 + 3] = 0x12;
    const RunResult run = check_both_orders(dir.write("marker.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(run.message, "file offset 0x3048 (buffer 3 at 0x3000, offset 0x48): unknown record marker "
                                      "0x12130064"))
        << run.message;
    EXPECT_EQ(event_ids(run), without(all_ids(), {30, 31, 32}));
}

TEST(BadInput, CorruptCompressedStream)
{
    FileBuilder f = good_file();
    f.spec().mode = ETW_COMPRESSED_MODE;
    f.set_compressed(true);
    Bytes bytes = f.build();
    // Buffer 2's stream: start it with a match before any output.
    std::size_t at = kBuf;
    at += std::uint32_t(bytes[at] | bytes[at + 1] << 8);
    put32(bytes, at + 0x48, 0xFFFFFFFFu);
    TempDir dir;
    const RunResult run = check_both_orders(dir.write("xpress.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA);
    // The fault is in the stored bytes, so the message gives its real file offset.
    EXPECT_TRUE(contains(run.message, format::text_printf("file offset 0x%zX (buffer 2 at 0x%zX, offset 0x4E): the "
                                                          "compressed data is corrupt at stored byte 0x4E: a match "
                                                          "reaches before the start of the output",
                                                          at + 0x4E, at)))
        << run.message;
    EXPECT_EQ(event_ids(run), without(all_ids(), {20, 21, 22}));
}

TEST(BadInput, BuffersWrittenVersusTheEndOfTheFile)
{
    TempDir dir;
    {
        // Absurd: the file holds 5 buffers.
        FileBuilder f = good_file();
        f.spec().buffers_written = 0xFFFFFFFFu;
        const RunResult run = check_both_orders(dir.write("absurd.etl", f.build()));
        EXPECT_EQ(run.status, ETW_ERROR_HANDLE_EOF);
        EXPECT_TRUE(contains(run.message, "the file ends at offset 0x5000 after 5 buffers; BuffersWritten is "
                                          "4294967295"))
            << run.message;
        EXPECT_EQ(event_ids(run), all_ids());
        EXPECT_EQ(run.stats.corrupt_buffers, 0u);
    }
    {
        // Fewer than the file holds (a header not rewritten at stop): the file
        // is read by its buffers and the disagreement reported.
        FileBuilder f = good_file();
        f.spec().buffers_written = 3;
        const RunResult run = check_both_orders(dir.write("fewer.etl", f.build()));
        EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA) << run.message;
        EXPECT_TRUE(contains(run.message, "BuffersWritten 3, but the file holds 5 buffers")) << run.message;
        EXPECT_EQ(event_ids(run), all_ids());
        EXPECT_EQ(run.stats.corrupt_buffers, 0u);
    }
    {
        // A header never rewritten at stop (0): read to the end of the file.
        FileBuilder f = good_file();
        Bytes bytes = f.build();
        put32(bytes, 0x48 + 0x20 + 0x24, 0);
        const RunResult run = check_both_orders(dir.write("zero.etl", bytes));
        EXPECT_EQ(run.status, ETW_OK) << run.message;
        EXPECT_EQ(event_ids(run), all_ids());
    }
}

TEST(BadInput, SeveralProblemsAreCounted)
{
    TempDir dir;
    Bytes bytes = good_file().build();
    bytes[1 * kBuf + 0x48 + 3] = 0x12;
    bytes[3 * kBuf + 0x48 + 3] = 0x12;
    const RunResult run = check_both_orders(dir.write("two.etl", bytes));
    EXPECT_EQ(run.status, ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(run.message, "(2 problems in all)")) << run.message;
    EXPECT_EQ(run.stats.corrupt_buffers, 2u);
    EXPECT_EQ(run.stats.first_problem, ETW_ERROR_INVALID_DATA);
}

TEST(BadInput, OpenRejectsUnreadableFirstBuffers)
{
    TempDir dir;
    auto open_status = [&](const std::string &name, const Bytes &bytes, std::string &message) {
        const std::string path = dir.write(name, bytes);
        const RunResult run = run_consumer({path});
        message = run.open_message;
        EXPECT_TRUE(contains(message, path)) << message;
        return run.open_status;
    };
    std::string m;
    EXPECT_EQ(open_status("tiny.etl", Bytes(10, 0), m), ETW_ERROR_HANDLE_EOF);
    EXPECT_TRUE(contains(m, "the file has 10 bytes, fewer than one 0x48-byte buffer header")) << m;
    EXPECT_EQ(open_status("empty.etl", Bytes(), m), ETW_ERROR_HANDLE_EOF);

    Bytes zero = good_file().build();
    put32(zero, 0, 0);
    EXPECT_EQ(open_status("zero.etl", zero, m), ETW_ERROR_BAD_LENGTH);
    EXPECT_TRUE(contains(m, "file offset 0x0 (buffer 0 at 0x0, offset 0x0): BufferSize 0x0 of the header buffer")) << m;

    // The first record is something else than the logfile header.
    Bytes not_header = good_file().build();
    put16(not_header, 0x48 + 6, 0x0050);
    EXPECT_EQ(open_status("nothdr.etl", not_header, m), ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(m, "offset 0x48): the first record is not the logfile header")) << m;

    // The header record too short for a TRACE_LOGFILE_HEADER.
    Bytes short_header = good_file().build();
    put16(short_header, 0x48 + 4, 0x40);
    EXPECT_EQ(open_status("short.etl", short_header, m), ETW_ERROR_BAD_LENGTH);
    EXPECT_TRUE(contains(m, "file offset 0x68 (buffer 0 at 0x0, offset 0x68): the logfile header record has Size "
                            "0x40"))
        << m;

    // A header buffer whose first marker is garbage.
    Bytes garbage = good_file().build();
    put32(garbage, 0x48, 0x01020304);
    EXPECT_EQ(open_status("garbage.etl", garbage, m), ETW_ERROR_INVALID_DATA);
    EXPECT_TRUE(contains(m, "unknown record marker 0x01020304")) << m;
}
