// Properties: create, setters, validation rules, the block's layout, import
// of bad blocks (one test per rule, exact status and field named), round trips.
#include <openetw/openetw.h>

#include "block_builder.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using testutil::BlockBuilder;

namespace {

struct PropsDeleter {
    void operator()(etw_properties *p) const { etw_properties_destroy(p); }
};
using PropsPtr = std::unique_ptr<etw_properties, PropsDeleter>;

PropsPtr make(const char *name = "Demo Session")
{
    etw_properties *p = nullptr;
    EXPECT_EQ(etw_properties_create(&p, name), ETW_OK) << etw_last_error_message();
    return PropsPtr(p);
}

std::vector<std::uint8_t> export_block(const etw_properties *p)
{
    size_t size = 0;
    EXPECT_EQ(etw_properties_export(nullptr, 0, &size, p), ETW_ERROR_MORE_DATA);
    std::vector<std::uint8_t> block(size);
    EXPECT_EQ(etw_properties_export(block.data(), block.size(), &size, p), ETW_OK) << etw_last_error_message();
    return block;
}

etw_status import(const std::vector<std::uint8_t> &block, PropsPtr *out = nullptr)
{
    etw_properties *p = nullptr;
    etw_status s = etw_properties_import(&p, block.data(), block.size());
    if (out)
        out->reset(p);
    else
        etw_properties_destroy(p);
    if (s != ETW_OK) {
        EXPECT_EQ(p, nullptr);
    }
    return s;
}

std::u16string repeat(char16_t c, std::size_t n) { return std::u16string(n, c); }

::testing::AssertionResult message_has(const char *needle)
{
    std::string m = etw_last_error_message();
    if (m.find(needle) != std::string::npos)
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "message \"" << m << "\" does not name \"" << needle << "\"";
}

} // namespace

// ---- create and setters ----

TEST(PropertiesCreate, DefaultsMatchTheDocumentation)
{
    auto p = make();
    EXPECT_STREQ(etw_properties_session_name(p.get()), "Demo Session");
    EXPECT_STREQ(etw_properties_log_file_name(p.get()), "");
    EXPECT_EQ(etw_properties_buffer_size(p.get()), ETW_DEFAULT_BUFFER_SIZE_KB);
    EXPECT_EQ(etw_properties_clock_type(p.get()), ETW_CLOCK_QPC);
    etw_event_trace_properties rec;
    ASSERT_EQ(etw_properties_get_record(&rec, p.get()), ETW_OK);
    EXPECT_EQ(rec.Wnode.Flags, ETW_WNODE_FLAG_TRACED_GUID);
    EXPECT_EQ(rec.LoggerNameOffset, 120u);
    EXPECT_EQ(rec.LogFileNameOffset, 0u);
    EXPECT_EQ(rec.MinimumBuffers, 0u);
    EXPECT_EQ(rec.LogFileMode, 0u);
}

TEST(PropertiesCreate, RejectsBadArguments)
{
    etw_properties *p = reinterpret_cast<etw_properties *>(1);
    EXPECT_EQ(etw_properties_create(nullptr, "x"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_properties_create(&p, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(p, nullptr);
    EXPECT_TRUE(message_has("session_name"));
    EXPECT_EQ(etw_properties_create(&p, ""), ETW_ERROR_INVALID_NAME);
    EXPECT_TRUE(message_has("empty"));
    std::string long_name(1025, 'n');
    EXPECT_EQ(etw_properties_create(&p, long_name.c_str()), ETW_ERROR_INVALID_NAME);
    EXPECT_TRUE(message_has("1025"));
    long_name.pop_back();
    EXPECT_EQ(etw_properties_create(&p, long_name.c_str()), ETW_OK);
    etw_properties_destroy(p);
    EXPECT_EQ(etw_properties_create(&p, "bad \xC3("), ETW_ERROR_NO_UNICODE_TRANSLATION);
    EXPECT_EQ(etw_properties_create(&p, "overlong \xC0\xAF"), ETW_ERROR_NO_UNICODE_TRANSLATION);
    EXPECT_EQ(etw_properties_create(&p, "surrogate \xED\xA0\x80"), ETW_ERROR_NO_UNICODE_TRANSLATION);
    EXPECT_EQ(p, nullptr);
}

TEST(PropertiesCreate, LastErrorIsResetBySuccess)
{
    etw_properties *p = nullptr;
    EXPECT_EQ(etw_properties_create(&p, ""), ETW_ERROR_INVALID_NAME);
    EXPECT_EQ(etw_last_error_status(), ETW_ERROR_INVALID_NAME);
    EXPECT_NE(std::string(etw_last_error_message()), "");
    EXPECT_EQ(etw_properties_create(&p, "ok"), ETW_OK);
    EXPECT_EQ(etw_last_error_status(), ETW_OK);
    EXPECT_STREQ(etw_last_error_message(), "");
    etw_properties_destroy(p);
}

TEST(PropertiesSetters, EveryInputMemberRoundTrips)
{
    auto p = make();
    etw_guid g = {0x12345678, 0x9abc, 0xdef0, {1, 2, 3, 4, 5, 6, 7, 8}};
    ASSERT_EQ(etw_properties_set_buffer_size(p.get(), 16384), ETW_OK);
    ASSERT_EQ(etw_properties_set_minimum_buffers(p.get(), 7), ETW_OK);
    ASSERT_EQ(etw_properties_set_maximum_buffers(p.get(), 70), ETW_OK);
    ASSERT_EQ(etw_properties_set_maximum_file_size(p.get(), 123), ETW_OK);
    ASSERT_EQ(etw_properties_set_log_file_mode(p.get(), ETW_FILE_MODE_CIRCULAR), ETW_OK);
    ASSERT_EQ(etw_properties_set_flush_timer(p.get(), 9), ETW_OK);
    ASSERT_EQ(etw_properties_set_enable_flags(p.get(), ETW_FLAG_PROCESS), ETW_OK);
    ASSERT_EQ(etw_properties_set_flush_threshold(p.get(), -5), ETW_OK);
    ASSERT_EQ(etw_properties_set_guid(p.get(), &g), ETW_OK);
    ASSERT_EQ(etw_properties_set_clock_type(p.get(), ETW_CLOCK_CPU_CYCLE), ETW_OK);
    ASSERT_EQ(etw_properties_set_log_file_name(p.get(), "/tmp/x.etl"), ETW_OK);
    ASSERT_EQ(etw_properties_set_session_name(p.get(), "Renamed"), ETW_OK);
    EXPECT_EQ(etw_properties_buffer_size(p.get()), 16384u);
    EXPECT_EQ(etw_properties_minimum_buffers(p.get()), 7u);
    EXPECT_EQ(etw_properties_maximum_buffers(p.get()), 70u);
    EXPECT_EQ(etw_properties_maximum_file_size(p.get()), 123u);
    EXPECT_EQ(etw_properties_log_file_mode(p.get()), ETW_FILE_MODE_CIRCULAR);
    EXPECT_EQ(etw_properties_flush_timer(p.get()), 9u);
    EXPECT_EQ(etw_properties_enable_flags(p.get()), ETW_FLAG_PROCESS);
    EXPECT_EQ(etw_properties_flush_threshold(p.get()), -5);
    etw_guid back{};
    ASSERT_EQ(etw_properties_get_guid(&back, p.get()), ETW_OK);
    EXPECT_EQ(std::memcmp(&back, &g, sizeof g), 0);
    EXPECT_EQ(etw_properties_clock_type(p.get()), ETW_CLOCK_CPU_CYCLE);
    EXPECT_STREQ(etw_properties_log_file_name(p.get()), "/tmp/x.etl");
    EXPECT_STREQ(etw_properties_session_name(p.get()), "Renamed");
    ASSERT_EQ(etw_properties_set_log_file_name(p.get(), nullptr), ETW_OK);
    EXPECT_STREQ(etw_properties_log_file_name(p.get()), "");
}

TEST(PropertiesSetters, RangeChecksLeaveTheObjectUnchanged)
{
    auto p = make();
    EXPECT_EQ(etw_properties_set_buffer_size(p.get(), 3), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_TRUE(message_has("BufferSize"));
    EXPECT_EQ(etw_properties_set_buffer_size(p.get(), 16385), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_properties_set_buffer_size(p.get(), 0), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_properties_buffer_size(p.get()), ETW_DEFAULT_BUFFER_SIZE_KB);
    EXPECT_EQ(etw_properties_set_buffer_size(p.get(), 4), ETW_OK);
    EXPECT_EQ(etw_properties_set_clock_type(p.get(), 4), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_TRUE(message_has("ClientContext"));
    EXPECT_EQ(etw_properties_clock_type(p.get()), ETW_CLOCK_QPC);
    std::string long_file(1025, 'f');
    EXPECT_EQ(etw_properties_set_log_file_name(p.get(), long_file.c_str()), ETW_ERROR_INVALID_NAME);
    EXPECT_TRUE(message_has("log file name"));
    EXPECT_EQ(etw_properties_set_session_name(p.get(), ""), ETW_ERROR_INVALID_NAME);
    EXPECT_STREQ(etw_properties_session_name(p.get()), "Demo Session");
    EXPECT_EQ(etw_properties_set_guid(p.get(), nullptr), ETW_ERROR_INVALID_PARAMETER);
}

TEST(PropertiesSetters, NullHandles)
{
    EXPECT_EQ(etw_properties_set_buffer_size(nullptr, 64), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_TRUE(message_has("props"));
    EXPECT_EQ(etw_properties_buffer_size(nullptr), 0u);
    EXPECT_STREQ(etw_properties_session_name(nullptr), "");
    EXPECT_EQ(etw_properties_historical_context(nullptr), 0u);
    EXPECT_EQ(etw_properties_validate(nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_properties_export(nullptr, 0, nullptr, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_properties_import(nullptr, nullptr, 0), ETW_ERROR_INVALID_PARAMETER);
    etw_properties_destroy(nullptr);
}

// ---- the exported block ----

TEST(PropertiesExport, LayoutFollowsTheStructureRemarks)
{
    auto p = make("Sess");
    ASSERT_EQ(etw_properties_set_log_file_name(p.get(), "C:\\t.etl"), ETW_OK);
    auto block = export_block(p.get());
    const std::size_t expected = 120 + 2 * 5 + 2 * 9;
    ASSERT_EQ(block.size(), expected);
    etw_event_trace_properties rec;
    std::memcpy(&rec, block.data(), sizeof rec);
    EXPECT_EQ(rec.Wnode.BufferSize, expected);
    EXPECT_TRUE(rec.Wnode.Flags & ETW_WNODE_FLAG_TRACED_GUID);
    EXPECT_EQ(rec.LoggerNameOffset, 120u);
    EXPECT_EQ(rec.LogFileNameOffset, 130u);
    const std::uint8_t sess[] = {'S', 0, 'e', 0, 's', 0, 's', 0, 0, 0};
    EXPECT_EQ(std::memcmp(block.data() + 120, sess, sizeof sess), 0);
    EXPECT_EQ(block[130], 'C');
    EXPECT_EQ(block[131], 0);
    EXPECT_EQ(block[expected - 1], 0);
    EXPECT_EQ(block[expected - 2], 0);
}

TEST(PropertiesExport, NoLogFileMeansOffsetZero)
{
    auto p = make("S");
    auto block = export_block(p.get());
    ASSERT_EQ(block.size(), 124u);
    etw_event_trace_properties rec;
    std::memcpy(&rec, block.data(), sizeof rec);
    EXPECT_EQ(rec.LogFileNameOffset, 0u);
}

TEST(PropertiesExport, SmallBufferGivesMoreDataAndTheSize)
{
    auto p = make("S");
    std::vector<std::uint8_t> small(100, 0xAB);
    size_t size = 0;
    EXPECT_EQ(etw_properties_export(small.data(), small.size(), &size, p.get()), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(size, 124u);
    EXPECT_TRUE(message_has("124"));
    for (auto b : small)
        EXPECT_EQ(b, 0xAB); // nothing written
}

TEST(PropertiesExport, ReservesRoomForNewfileAndPrivateSuffixes)
{
    for (std::uint32_t mode : {ETW_FILE_MODE_NEWFILE, ETW_PRIVATE_LOGGER_MODE}) {
        auto p = make("S");
        ASSERT_EQ(etw_properties_set_log_file_name(p.get(), "f%d.etl"), ETW_OK);
        const std::size_t plain = export_block(p.get()).size();
        ASSERT_EQ(etw_properties_set_log_file_mode(p.get(), mode), ETW_OK);
        EXPECT_EQ(export_block(p.get()).size(), plain + 2 * ETW_LOG_FILE_SUFFIX_ROOM) << mode;
    }
}

TEST(PropertiesExport, UnicodeNamesRoundTrip)
{
    const char *name = "Sitzung \xCE\xA9 \xF0\x9F\x98\x80"; // Omega and an emoji (surrogate pair)
    auto p = make(name);
    ASSERT_EQ(etw_properties_set_log_file_name(p.get(), "/tmp/\xC3\xA9t\xC3\xA9.etl"), ETW_OK);
    auto block = export_block(p.get());
    PropsPtr back;
    ASSERT_EQ(import(block, &back), ETW_OK) << etw_last_error_message();
    EXPECT_STREQ(etw_properties_session_name(back.get()), name);
    EXPECT_STREQ(etw_properties_log_file_name(back.get()), "/tmp/\xC3\xA9t\xC3\xA9.etl");
    EXPECT_EQ(export_block(back.get()), block);
}

// ---- import: one rule per test case ----

struct BadBlock {
    const char *rule;
    void (*mutate)(BlockBuilder &b, std::vector<std::uint8_t> &bytes);
    etw_status status;
    const char *field;
};

class ImportRejects : public ::testing::TestWithParam<BadBlock> {};

TEST_P(ImportRejects, WithTheExactStatusAndField)
{
    BlockBuilder b(1024);
    std::vector<std::uint8_t> bytes;
    GetParam().mutate(b, bytes);
    if (bytes.empty())
        bytes = b.build();
    PropsPtr p;
    EXPECT_EQ(import(bytes, &p), GetParam().status) << GetParam().rule << ": " << etw_last_error_message();
    EXPECT_EQ(p, nullptr);
    EXPECT_TRUE(message_has(GetParam().field)) << GetParam().rule;
}

static void set_mode(BlockBuilder &b, std::uint32_t mode)
{
    b.file(400, u"/tmp/f%d.etl");
    b.rec.LogFileMode = mode;
    b.rec.MaximumFileSize = 10;
}

INSTANTIATE_TEST_SUITE_P(Rules, ImportRejects,
                         ::
                             testing::Values(BadBlock{"shorter than the structure",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &out) {
                                                          out = b.build();
                                                          out.resize(119);
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "smaller than EVENT_TRACE_PROPERTIES"},
                                             BadBlock{"Wnode.BufferSize larger than the block",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.Wnode.BufferSize = 1025;
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "Wnode.BufferSize"},
                                             BadBlock{"Wnode.BufferSize smaller than the structure",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.Wnode.BufferSize = 119;
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "Wnode.BufferSize"},
                                             BadBlock{"TRACED_GUID missing",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.Wnode.Flags = ETW_WNODE_FLAG_USE_TIMESTAMP;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "WNODE_FLAG_TRACED_GUID"},
                                             BadBlock{"LoggerNameOffset zero",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LoggerNameOffset = 0;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "LoggerNameOffset"},
                                             BadBlock{"LoggerNameOffset into the structure",
                                                      [](BlockBuilder &b,
                                                         std::vector<std::uint8_t> &) { b.rec.LoggerNameOffset = 100; },
                                                      ETW_ERROR_INVALID_PARAMETER, "LoggerNameOffset"},
                                             BadBlock{"LoggerNameOffset past the end",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LoggerNameOffset = 1024;
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "LoggerNameOffset"},
                                             BadBlock{"LoggerNameOffset misaligned",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.name_at(&b.rec.LoggerNameOffset, 201, u"S");
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "LoggerNameOffset"},
                                             BadBlock{"LogFileNameOffset into the structure",
                                                      [](BlockBuilder &b,
                                                         std::vector<std::uint8_t> &) { b.rec.LogFileNameOffset = 8; },
                                                      ETW_ERROR_INVALID_PARAMETER, "LogFileNameOffset"},
                                             BadBlock{"LogFileNameOffset past the end",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LogFileNameOffset = 5000;
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "LogFileNameOffset"},
                                             BadBlock{"LogFileNameOffset misaligned",
                                                      [](BlockBuilder &b,
                                                         std::vector<std::uint8_t> &) { b.file(401, u"f.etl"); },
                                                      ETW_ERROR_INVALID_PARAMETER, "LogFileNameOffset"},
                                             BadBlock{"names overlap",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.name_at(&b.rec.LoggerNameOffset, 120, u"LongSessionName");
                                                          b.file(130, u"f.etl");
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "overlaps"},
                                             BadBlock{"log file name before the session name",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.name_at(&b.rec.LoggerNameOffset, 600, u"S");
                                                          b.file(200, u"f.etl");
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "before the session name"},
                                             BadBlock{"session name not terminated",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.put(1016, u"ABCD", false);
                                                          b.rec.LoggerNameOffset = 1016;
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "not NUL-terminated"},
                                             BadBlock{"session name runs past Wnode.BufferSize",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.Wnode.BufferSize = 124;
                                                          b.name_at(&b.rec.LoggerNameOffset, 120, u"ABCD");
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "not NUL-terminated"},
                                             BadBlock{"log file name not terminated",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.put(1016, u"ABCD", false);
                                                          b.rec.LogFileNameOffset = 1016;
                                                      },
                                                      ETW_ERROR_BAD_LENGTH, "the log file name"},
                                             BadBlock{"session name over 1024 characters",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &out) {
                                                          b = BlockBuilder(4096);
                                                          b.name_at(&b.rec.LoggerNameOffset, 120, repeat(u'x', 1025));
                                                          out = b.build();
                                                      },
                                                      ETW_ERROR_INVALID_NAME, "1025"},
                                             BadBlock{"log file name over 1024 characters",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &out) {
                                                          b = BlockBuilder(4096);
                                                          b.file(200, repeat(u'y', 1025));
                                                          out = b.build();
                                                      },
                                                      ETW_ERROR_INVALID_NAME, "log file name"},
                                             BadBlock{"empty session name",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.name_at(&b.rec.LoggerNameOffset, 120, u"");
                                                      },
                                                      ETW_ERROR_INVALID_NAME, "empty"},
                                             BadBlock{"unpaired high surrogate",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.name_at(&b.rec.LoggerNameOffset, 120,
                                                                    u"ab\xD800"
                                                                    "c");
                                                      },
                                                      ETW_ERROR_NO_UNICODE_TRANSLATION, "surrogate"},
                                             BadBlock{"unpaired low surrogate in the file name",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.file(300, u"f\xDC00.etl");
                                                      },
                                                      ETW_ERROR_NO_UNICODE_TRANSLATION, "log file name"},
                                             BadBlock{"circular without MaximumFileSize",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_CIRCULAR);
                                                          b.rec.MaximumFileSize = 0;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "MaximumFileSize"},
                                             BadBlock{"newfile without MaximumFileSize",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_NEWFILE);
                                                          b.rec.MaximumFileSize = 0;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "MaximumFileSize"},
                                             BadBlock{"preallocate without MaximumFileSize",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_PREALLOCATE);
                                                          b.rec.MaximumFileSize = 0;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "MaximumFileSize"},
                                             BadBlock{"circular with sequential",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b,
                                                                   ETW_FILE_MODE_CIRCULAR | ETW_FILE_MODE_SEQUENTIAL);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "SEQUENTIAL with CIRCULAR"},
                                             BadBlock{"circular with newfile",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_CIRCULAR | ETW_FILE_MODE_NEWFILE);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "CIRCULAR with NEWFILE"},
                                             BadBlock{"append with circular",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_APPEND | ETW_FILE_MODE_CIRCULAR);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "CIRCULAR with APPEND"},
                                             BadBlock{"append with real-time",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_APPEND | ETW_REAL_TIME_MODE);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "APPEND with REAL_TIME"},
                                             BadBlock{"append with newfile",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_APPEND | ETW_FILE_MODE_NEWFILE);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "APPEND with NEWFILE"},
                                             BadBlock{"append with private logger",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_APPEND | ETW_PRIVATE_LOGGER_MODE);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "APPEND with PRIVATE_LOGGER"},
                                             BadBlock{"newfile with private logger",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_NEWFILE | ETW_PRIVATE_LOGGER_MODE);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "NEWFILE with PRIVATE_LOGGER"},
                                             BadBlock{"newfile with preallocate",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b,
                                                                   ETW_FILE_MODE_NEWFILE | ETW_FILE_MODE_PREALLOCATE);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "NEWFILE with PREALLOCATE"},
                                             BadBlock{"buffering with a file mode",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_BUFFERING_MODE | ETW_FILE_MODE_SEQUENTIAL);
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "BUFFERING with SEQUENTIAL"},
                                             BadBlock{"buffering with real-time",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LogFileMode = ETW_BUFFERING_MODE | ETW_REAL_TIME_MODE;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "BUFFERING with REAL_TIME"},
                                             BadBlock{"private in-proc without private logger",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LogFileMode = ETW_REAL_TIME_MODE | ETW_PRIVATE_IN_PROC;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "PRIVATE_IN_PROC"},
                                             BadBlock{"a file mode without a log file",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LogFileMode = ETW_FILE_MODE_SEQUENTIAL;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "no log file name"},
                                             BadBlock{"no destination at all",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.LogFileMode = 0;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "no destination"},
                                             BadBlock{"newfile name without %d",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          set_mode(b, ETW_FILE_MODE_NEWFILE);
                                                          b.file(400, u"/tmp/plain.etl");
                                                      },
                                                      ETW_ERROR_BAD_PATHNAME, "%d"},
                                             BadBlock{"BufferSize below 4 KB",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.BufferSize = 3;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "BufferSize"},
                                             BadBlock{"BufferSize 0",
                                                      [](BlockBuilder &b,
                                                         std::vector<std::uint8_t> &) { b.rec.BufferSize = 0; },
                                                      ETW_ERROR_INVALID_PARAMETER, "BufferSize"},
                                             BadBlock{"BufferSize above 16384 KB",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.BufferSize = 16385;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "BufferSize"},
                                             BadBlock{"EnableFlags on an ordinary session",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.EnableFlags = ETW_FLAG_PROCESS;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "EnableFlags"},
                                             BadBlock{"ClientContext 4",
                                                      [](BlockBuilder &b, std::vector<std::uint8_t> &) {
                                                          b.rec.Wnode.ClientContext = 4;
                                                      },
                                                      ETW_ERROR_INVALID_PARAMETER, "ClientContext"}),
                         [](const ::testing::TestParamInfo<BadBlock> &info) {
                             std::string name;
                             for (const char *c = info.param.rule; *c; ++c)
                                 name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
                             return name;
                         });

// ---- import: what must be accepted ----

TEST(PropertiesImport, AcceptsWhatWindowsAccepts)
{
    struct Case {
        const char *what;
        void (*setup)(BlockBuilder &);
    };
    const Case cases[] = {
        {"real-time, no file", [](BlockBuilder &) {}},
        {"buffering, no file", [](BlockBuilder &b) { b.rec.LogFileMode = ETW_BUFFERING_MODE; }},
        {"newfile|sequential (as real traces have)",
         [](BlockBuilder &b) { set_mode(b, ETW_FILE_MODE_NEWFILE | ETW_FILE_MODE_SEQUENTIAL); }},
        {"circular with real-time", [](BlockBuilder &b) { set_mode(b, ETW_FILE_MODE_CIRCULAR | ETW_REAL_TIME_MODE); }},
        {"EnableFlags on the NT Kernel Logger name",
         [](BlockBuilder &b) {
             b.name_at(&b.rec.LoggerNameOffset, 120, u"nt kernel logger");
             b.rec.EnableFlags = ETW_FLAG_PROCESS;
         }},
        {"EnableFlags on SystemTraceControlGuid",
         [](BlockBuilder &b) {
             b.rec.Wnode.Guid = ETW_SYSTEM_TRACE_CONTROL_GUID_INIT;
             b.rec.EnableFlags = ETW_FLAG_THREAD;
         }},
        {"EnableFlags with SYSTEM_LOGGER_MODE",
         [](BlockBuilder &b) {
             b.rec.LogFileMode |= ETW_SYSTEM_LOGGER_MODE;
             b.rec.EnableFlags = ETW_FLAG_THREAD;
         }},
        {"clock type 0 (default)", [](BlockBuilder &b) { b.rec.Wnode.ClientContext = 0; }},
        {"names at 1024 characters",
         [](BlockBuilder &b) {
             b = BlockBuilder(8192);
             b.name_at(&b.rec.LoggerNameOffset, 120, repeat(u's', 1024));
             b.file(4000, repeat(u'f', 1024));
         }},
        {"log file offset set but empty (space reserved)", [](BlockBuilder &b) { b.file(600, u""); }},
        {"private in-proc logger",
         [](BlockBuilder &b) {
             b.rec.LogFileMode = ETW_REAL_TIME_MODE | ETW_PRIVATE_LOGGER_MODE | ETW_PRIVATE_IN_PROC;
         }},
    };
    for (const Case &c : cases) {
        BlockBuilder b(1024);
        c.setup(b);
        EXPECT_EQ(import(b.build()), ETW_OK) << c.what << ": " << etw_last_error_message();
    }
}

TEST(PropertiesImport, ExportAfterImportGivesTheSameBytes)
{
    // Windows code typically reserves fixed space for both names.
    BlockBuilder b(120 + 2048 + 2048);
    b.name_at(&b.rec.LoggerNameOffset, 120, u"WinSession");
    b.file(120 + 2048, u"C:\\traces\\w.etl");
    b.rec.LogFileMode = ETW_FILE_MODE_SEQUENTIAL;
    b.rec.MaximumFileSize = 100;
    b.rec.NumberOfBuffers = 8;
    b.rec.EventsLost = 3;
    b.rec.Wnode.HistoricalContext = 0x1234;
    const auto original = b.build();
    PropsPtr p;
    ASSERT_EQ(import(original, &p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(export_block(p.get()), original);
    EXPECT_EQ(etw_properties_events_lost(p.get()), 3u);
    EXPECT_EQ(etw_properties_number_of_buffers(p.get()), 8u);
    EXPECT_EQ(etw_properties_historical_context(p.get()), 0x1234u);

    // Renaming within the reserved space keeps the layout; outgrowing it does not.
    ASSERT_EQ(etw_properties_set_session_name(p.get(), "Other"), ETW_OK);
    EXPECT_EQ(export_block(p.get()).size(), original.size());
    std::string big(1100, 'n');
    ASSERT_EQ(etw_properties_set_session_name(p.get(), big.c_str()), ETW_ERROR_INVALID_NAME);
    std::string fits(1024, 'n');
    ASSERT_EQ(etw_properties_set_session_name(p.get(), fits.c_str()), ETW_OK);
    auto regrown = export_block(p.get());
    PropsPtr again;
    ASSERT_EQ(import(regrown, &again), ETW_OK) << etw_last_error_message();
    EXPECT_STREQ(etw_properties_session_name(again.get()), fits.c_str());
    EXPECT_STREQ(etw_properties_log_file_name(again.get()), "C:\\traces\\w.etl");
}

TEST(PropertiesImport, OwnExportRoundTripsForEveryMode)
{
    const std::uint32_t modes[] = {ETW_FILE_MODE_SEQUENTIAL,
                                   ETW_FILE_MODE_CIRCULAR,
                                   ETW_FILE_MODE_NEWFILE,
                                   ETW_FILE_MODE_APPEND,
                                   ETW_FILE_MODE_PREALLOCATE | ETW_FILE_MODE_SEQUENTIAL,
                                   ETW_PRIVATE_LOGGER_MODE,
                                   ETW_FILE_MODE_SEQUENTIAL | ETW_REAL_TIME_MODE};
    for (std::uint32_t mode : modes) {
        auto p = make("Mode Session");
        ASSERT_EQ(etw_properties_set_log_file_name(p.get(), "/tmp/m%d.etl"), ETW_OK);
        ASSERT_EQ(etw_properties_set_log_file_mode(p.get(), mode), ETW_OK);
        ASSERT_EQ(etw_properties_set_maximum_file_size(p.get(), 5), ETW_OK);
        ASSERT_EQ(etw_properties_validate(p.get()), ETW_OK) << mode << ": " << etw_last_error_message();
        auto block = export_block(p.get());
        PropsPtr back;
        ASSERT_EQ(import(block, &back), ETW_OK) << mode << ": " << etw_last_error_message();
        EXPECT_EQ(export_block(back.get()), block) << mode;
    }
}

TEST(PropertiesValidate, ChecksTheSameRulesAsImport)
{
    auto p = make();
    EXPECT_EQ(etw_properties_validate(p.get()), ETW_ERROR_INVALID_PARAMETER); // no destination
    ASSERT_EQ(etw_properties_set_log_file_mode(p.get(), ETW_REAL_TIME_MODE), ETW_OK);
    EXPECT_EQ(etw_properties_validate(p.get()), ETW_OK);
    ASSERT_EQ(etw_properties_set_enable_flags(p.get(), ETW_FLAG_PROCESS), ETW_OK);
    EXPECT_EQ(etw_properties_validate(p.get()), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_TRUE(message_has("EnableFlags"));
}

TEST(PropertiesClone, CopiesEverything)
{
    auto p = make("Original");
    ASSERT_EQ(etw_properties_set_log_file_name(p.get(), "/tmp/o.etl"), ETW_OK);
    ASSERT_EQ(etw_properties_set_flush_timer(p.get(), 3), ETW_OK);
    etw_properties *c = nullptr;
    ASSERT_EQ(etw_properties_clone(&c, p.get()), ETW_OK);
    PropsPtr copy(c);
    EXPECT_EQ(export_block(copy.get()), export_block(p.get()));
    ASSERT_EQ(etw_properties_set_flush_timer(p.get(), 4), ETW_OK);
    EXPECT_EQ(etw_properties_flush_timer(copy.get()), 3u);
    EXPECT_EQ(etw_properties_clone(&c, nullptr), ETW_ERROR_INVALID_PARAMETER);
}

TEST(Status, NamesAndStringsArePinned)
{
    EXPECT_STREQ(etw_status_name(87), "ETW_ERROR_INVALID_PARAMETER");
    EXPECT_STREQ(etw_status_name(ETW_ERROR_ALREADY_EXISTS), "ETW_ERROR_ALREADY_EXISTS");
    EXPECT_STREQ(etw_status_name(424242), "ETW_ERROR_UNKNOWN");
    EXPECT_STREQ(etw_status_string(ETW_OK), "The operation completed successfully.");
    EXPECT_EQ(ETW_ERROR_BAD_LENGTH, 24u);
    EXPECT_EQ(ETW_ERROR_MORE_DATA, 234u);
    EXPECT_EQ(ETW_ERROR_NO_SYSTEM_RESOURCES, 1450u);
}

// EnableFlags lists through the C API: names, documented names, xperf
// groups and numbers in; names out; an unknown name refused by name with
// the mask untouched; a short buffer told the size it needs.
TEST(EnableFlags, ParseAndFormatThroughTheCApi)
{
    std::uint32_t mask = 0;
    ASSERT_EQ(etw_enable_flags_parse(&mask, "process, Thread|EVENT_TRACE_FLAG_IMAGE_LOAD"), ETW_OK)
        << etw_last_error_message();
    EXPECT_EQ(mask, ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD);
    ASSERT_EQ(etw_enable_flags_parse(&mask, "0x10117"), ETW_OK);
    EXPECT_EQ(mask, 0x10117u);
    mask = 7;
    EXPECT_EQ(etw_enable_flags_parse(&mask, "process,registri"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("registri"), std::string::npos) << etw_last_error_message();
    EXPECT_EQ(mask, 7u);
    EXPECT_EQ(etw_enable_flags_parse(&mask, ""), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_enable_flags_parse(nullptr, "process"), ETW_ERROR_INVALID_PARAMETER);

    char text[64];
    std::size_t needed = 0;
    ASSERT_EQ(etw_enable_flags_format(text, sizeof text, &needed, ETW_FLAG_PROCESS | ETW_FLAG_THREAD), ETW_OK);
    EXPECT_STREQ(text, "process,thread");
    EXPECT_EQ(needed, std::strlen("process,thread") + 1);
    EXPECT_EQ(etw_enable_flags_format(text, 5, &needed, ETW_FLAG_PROCESS | ETW_FLAG_THREAD), ETW_ERROR_MORE_DATA);
    EXPECT_STREQ(text, "proc");
    EXPECT_EQ(needed, std::strlen("process,thread") + 1);
    EXPECT_EQ(etw_enable_flags_format(nullptr, 0, &needed, 0), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(needed, 2u); // "0"
    EXPECT_EQ(etw_enable_flags_format(nullptr, 4, &needed, 0), ETW_ERROR_INVALID_PARAMETER);
    // Parsing what format gives returns the mask.
    ASSERT_EQ(etw_enable_flags_format(text, sizeof text, nullptr, 0x10117), ETW_OK);
    ASSERT_EQ(etw_enable_flags_parse(&mask, text), ETW_OK) << text;
    EXPECT_EQ(mask, 0x10117u);
}
