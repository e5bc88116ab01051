// The first record: TRACE_LOGFILE_HEADER in both session forms, the names.
#include "etl_builder.hpp"
#include "format/logfile_header.hpp"

#include <gtest/gtest.h>

using namespace openetw::format;
using namespace etltest;

namespace {

bool parse(const Bytes &record, LogfileHeader &out, Problem &p)
{
    BufferSpec spec;
    spec.records = {record};
    const Bytes image = make_buffer(spec);
    RecordReader reader(image, std::uint32_t(image[0x30] | image[0x31] << 8));
    Record rec;
    std::vector<ExtendedItem> items;
    if (reader.next(rec, items, p) != RecordReader::Step::Record)
        return false;
    EXPECT_TRUE(is_logfile_header_record(rec));
    return parse_logfile_header(std::span<const std::uint8_t>(image).subspan(rec.offset, rec.size), rec, out, p);
}

LogfileSpec spec_with(std::uint32_t pointer_size)
{
    LogfileSpec s;
    s.buffer_size = 65536;
    s.version = 0x0501000A;
    s.provider_version = 22000;
    s.processors = 12;
    s.end_time = 132949636386242009;
    s.maximum_file_size = 100;
    s.mode = 0x08000002;
    s.buffers_written = 42;
    s.pointer_size = pointer_size;
    s.events_lost = 3;
    s.cpu_mhz = 3192;
    s.boot_time = 132943176705000000;
    s.perf_freq = 2337949;
    s.start_time = 132949636352722435;
    s.clock = 3;
    s.buffers_lost = 2;
    s.logger_name = "Relogger";
    s.log_file_name = "[multiple files]";
    s.reference_raw = 6459791009101;
    return s;
}

void expect_fields(const LogfileHeader &h, const LogfileSpec &s)
{
    const etw_trace_logfile_header64 &f = h.fields;
    EXPECT_EQ(f.BufferSize, s.buffer_size);
    EXPECT_EQ(f.Version, s.version);
    EXPECT_EQ(f.ProviderVersion, s.provider_version);
    EXPECT_EQ(f.NumberOfProcessors, s.processors);
    EXPECT_EQ(f.EndTime, s.end_time);
    EXPECT_EQ(f.TimerResolution, s.timer_resolution);
    EXPECT_EQ(f.MaximumFileSize, s.maximum_file_size);
    EXPECT_EQ(f.LogFileMode, s.mode);
    EXPECT_EQ(f.BuffersWritten, s.buffers_written);
    EXPECT_EQ(f.StartBuffers, 1u);
    EXPECT_EQ(f.PointerSize, s.pointer_size);
    EXPECT_EQ(f.EventsLost, s.events_lost);
    EXPECT_EQ(f.CpuSpeedInMHz, s.cpu_mhz);
    EXPECT_EQ(f.LoggerName, 7u);
    EXPECT_EQ(f.LogFileName, 9u);
    EXPECT_EQ(f.TimeZone.Bias, -60);
    EXPECT_EQ(f.TimeZone.StandardName[0], 'S');
    EXPECT_EQ(f.TimeZone.StandardDate.wMonth, 10);
    EXPECT_EQ(f.TimeZone.DaylightName[0], 'D');
    EXPECT_EQ(f.TimeZone.DaylightBias, -60);
    EXPECT_EQ(f.BootTime, s.boot_time);
    EXPECT_EQ(f.PerfFreq, s.perf_freq);
    EXPECT_EQ(f.StartTime, s.start_time);
    EXPECT_EQ(f.ReservedFlags, s.clock);
    EXPECT_EQ(f.BuffersLost, s.buffers_lost);
    EXPECT_EQ(h.logger_name, s.logger_name);
    EXPECT_EQ(h.log_file_name, s.log_file_name);
    EXPECT_EQ(h.reference_timestamp, s.reference_raw);
    EXPECT_EQ(h.thread_id, s.tid);
    EXPECT_EQ(h.process_id, s.pid);
}

} // namespace

TEST(LogfileHeader, SixtyFourBitSession)
{
    const LogfileSpec s = spec_with(8);
    const Bytes rec = logfile_header_record(s);
    EXPECT_EQ(rec.size(), 0x20u + 0x118 + 2 * 9 + 2 * 17); // no inner padding
    LogfileHeader h;
    Problem p;
    ASSERT_TRUE(parse(rec, h, p)) << p.detail;
    EXPECT_EQ(h.system_header_type, 0x02);
    EXPECT_EQ(h.stored_size, 0x118u);
    expect_fields(h, s);
}

TEST(LogfileHeader, ThirtyTwoBitSession)
{
    const LogfileSpec s = spec_with(4);
    const Bytes rec = logfile_header_record(s);
    EXPECT_EQ(rec[2], 0x01);
    LogfileHeader h;
    Problem p;
    ASSERT_TRUE(parse(rec, h, p)) << p.detail;
    EXPECT_EQ(h.stored_size, 0x110u);
    expect_fields(h, s);
}

TEST(LogfileHeader, TooShortForTheHeader)
{
    Bytes rec = logfile_header_record(spec_with(8));
    rec.resize(0x20 + 0x100);
    put16(rec, 4, std::uint16_t(rec.size()));
    LogfileHeader h;
    Problem p;
    EXPECT_FALSE(parse(rec, h, p));
    EXPECT_EQ(p.code, ETW_ERROR_BAD_LENGTH);
    EXPECT_EQ(p.at, 0x20u);
}

TEST(LogfileHeader, NamesAreBoundedByTheRecord)
{
    // No NUL at all after the logger name: it ends with the record, the file name is empty.
    Bytes rec = logfile_header_record(spec_with(8));
    rec.resize(0x20 + 0x118 + 6);
    put16(rec, 4, std::uint16_t(rec.size()));
    LogfileHeader h;
    Problem p;
    ASSERT_TRUE(parse(rec, h, p));
    EXPECT_EQ(h.logger_name, "Rel");
    EXPECT_EQ(h.log_file_name, "");
    // Unpaired surrogates are replaced, not rejected.
    Bytes odd = logfile_header_record(spec_with(8));
    put16(odd, 0x20 + 0x118, 0xD800);
    ASSERT_TRUE(parse(odd, h, p));
    EXPECT_EQ(h.logger_name, "\xEF\xBF\xBD"
                             "elogger");
}
