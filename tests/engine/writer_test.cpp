// src/format/etl_writer: pure encoding checked byte by byte.
#include "format/etl_writer.hpp"

#include "etl_test_decoder.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace openetw;

TEST(EtlWriter, HeaderBufferFollowsTheChecklist)
{
    etl::LogfileHeaderFields f;
    f.buffer_size = 4096;
    f.number_of_processors = 3;
    f.perf_freq = 10'000'000;
    f.start_time = 1234;
    f.start_raw = 99;
    f.clock_type = 2;
    f.thread_id = 7;
    f.process_id = 8;
    f.time_zone.Bias = -60;
    f.logger_name = u"Sess";
    f.log_file_name = u"/tmp/a.etl";
    auto b = etl::encode_header_buffer(f, 5);
    ASSERT_EQ(b.size(), 4096u);
    auto d = etltest::decode_bytes(b);
    ASSERT_TRUE(d.ok()) << d.problem_text();
    EXPECT_EQ(etltest::r32(b.data() + 0x48), 0xC0020002u);
    EXPECT_EQ(etltest::r16(b.data() + 0x48 + 4), 0x20 + 0x118 + 10 + 22);
    EXPECT_EQ(d.version, 0x0501000Au);
    EXPECT_EQ(d.cpus, 3u);
    EXPECT_EQ(d.start_buffers, 1u);
    EXPECT_EQ(d.pointer_size, 8u);
    EXPECT_EQ(d.timer_res, 156250u);
    EXPECT_EQ(d.clock_type, 2u);
    EXPECT_EQ(d.start_time, 1234);
    EXPECT_EQ(d.start_raw, 99);
    EXPECT_EQ(d.tz_bias, -60);
    EXPECT_EQ(d.logger_name, u"Sess");
    EXPECT_EQ(d.log_file_name, u"/tmp/a.etl");
    EXPECT_EQ(etltest::r16(b.data() + 0x2A), 5u); // LoggerId
    EXPECT_EQ(etltest::r16(b.data() + 0x34), 0x21u);
}

TEST(EtlWriter, LongNamesAreShortenedToFitSmallBuffers)
{
    etl::LogfileHeaderFields f;
    f.buffer_size = 4096;
    f.logger_name = std::u16string(1024, u'n');
    f.log_file_name = std::u16string(1024, u'f');
    auto b = etl::encode_header_buffer(f, 1);
    auto d = etltest::decode_bytes(b);
    ASSERT_TRUE(d.ok()) << d.problem_text();
    EXPECT_LT(etltest::r16(b.data() + 0x48 + 4), 4096u - 0x48);
    EXPECT_EQ(d.logger_name, std::u16string(1024, u'n'));
}

TEST(EtlWriter, FullHeaderLayout)
{
    // The writer copies Class (at 4) and Guid (at 24) from the caller's
    // header, sets its own fields, and stores word0 last.
    std::uint8_t out[0x30] = {};
    const etw_event_class cls{10, 4, 2};
    std::memcpy(out + 4, &cls, sizeof cls);
    etw_guid guid{};
    guid.Data1 = 0x44;
    std::memcpy(out + 24, &guid, sizeof guid);
    const std::uint32_t word0 = etl::write_full_header_fields(out, 0x40, 0x11, 0x22, 0x3333, 0x5555);
    std::memcpy(out, &word0, 4);
    EXPECT_EQ(etltest::r32(out), sizeof(void *) == 8 ? 0xC0140040u : 0xC00A0040u);
    EXPECT_EQ(out[4], 10);
    EXPECT_EQ(out[5], 4);
    EXPECT_EQ(etltest::r16(out + 6), 2);
    EXPECT_EQ(etltest::r32(out + 8), 0x11u);
    EXPECT_EQ(etltest::r32(out + 12), 0x22u);
    EXPECT_EQ(etltest::r64(out + 16), 0x3333u);
    EXPECT_EQ(etltest::r32(out + 24), 0x44u);
    EXPECT_EQ(etltest::r64(out + 40), 0x5555u);
}
