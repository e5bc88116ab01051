// WPP messages decoded with TMF files: message records built by hand from
// MESSAGE_TRACE_HEADER's documented layout (ETL_FORMAT.md 3.6) in every
// combination of option flags, written as .etl files and read back through
// the consumer; the CldFlt sample's messages with a TMF written by hand.
#include "../format/etl_builder.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using etltest::Bytes;

struct Decoded {
    etw_status status = ETW_OK;
    uint32_t source = 0;
    std::string name, provider, task, level, keywords;
    std::vector<std::pair<std::string, std::string>> fields;
};

struct TraceRun {
    etw_decoder *decoder = nullptr;
    std::vector<Decoded> records; // message records only
};

int on_record(void *user, const etw_record *r)
{
    auto *run = static_cast<TraceRun *>(user);
    if (r->kind != ETW_RECORD_KIND_MESSAGE)
        return 0;
    Decoded d;
    const etw_decoded_event *e = nullptr;
    d.status = etw_decoder_decode(&e, run->decoder, r);
    if (d.status == ETW_OK) {
        d.source = e->source;
        d.name = e->event_name;
        d.provider = e->provider_name;
        d.task = e->task_name;
        d.level = e->level_name;
        d.keywords = e->keywords_name;
        for (uint32_t i = 0; i < e->property_count; ++i)
            d.fields.emplace_back(e->properties[i].name, e->properties[i].value);
    }
    run->records.push_back(std::move(d));
    return 0;
}

void read(const std::string &path, TraceRun &run)
{
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.record = on_record;
    o.user_data = &run;
    etw_consumer *c = nullptr;
    const char *paths[] = {path.c_str()};
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_consumer_process(c), ETW_OK) << etw_last_error_message();
    etw_consumer_close(c);
}

std::string field(const Decoded &d, const std::string &name)
{
    for (const auto &[n, v] : d.fields)
        if (n == name)
            return v;
    return "<missing " + name + ">";
}

const etw_guid kDemo = {0x6f70656eu, 0x7770u, 0x7064u, {0x64, 0x65, 0x6d, 0x6f, 0x00, 0x00, 0x00, 0x02}};

std::string tmf(const char *name) { return std::string(OPENETW_TMF_DIR) + "/" + name; }

void w16(Bytes &b, const char16_t *s)
{
    for (; *s; ++s)
        b.push_back(uint8_t(*s)), b.push_back(uint8_t(*s >> 8));
    b.push_back(0), b.push_back(0);
}
void le(Bytes &b, uint64_t v, int n)
{
    for (int i = 0; i < n; ++i)
        b.push_back(uint8_t(v >> (8 * i)));
}

Bytes open_args(int pointer)
{
    Bytes a;
    w16(a, u"C:\\x");
    le(a, 0x1F, 4);
    le(a, 1234, 8);
    le(a, 0xDEADBEEF, pointer);
    le(a, 0xC0000034u, 4);
    le(a, 5, 4);
    le(a, 5, 1);
    return a;
}

TEST(Tmf, MessagesInEveryOptionFlagCombinationDecode)
{
    // SEQUENCE 0x01, GUID 0x02 / COMPONENTID 0x04, TIMESTAMP 0x08, SYSTEMINFO 0x20, POINTER32 0x40 / POINTER64 0x80.
    std::vector<uint16_t> combos;
    for (uint16_t seq : {0, 0x01})
        for (uint16_t id : {0x02, 0x04})
            for (uint16_t ts : {0, 0x08})
                for (uint16_t sys : {0, 0x20})
                    for (uint16_t ptr : {0x40, 0x80})
                        combos.push_back(uint16_t(seq | id | ts | sys | ptr));
    etltest::BufferSpec buffer;
    for (uint16_t flags : combos) {
        etltest::MessageSpec m;
        m.number = 10;
        m.flags = flags;
        m.sequence = 77;
        m.guid = kDemo;
        m.component = 3;
        m.ts = 132000000000000000LL + 10000;
        m.tid = 0x2A;
        m.pid = 99;
        buffer.records.push_back(etltest::message_record(m, open_args(flags & 0x40 ? 4 : 8)));
    }
    etltest::FileBuilder fb;
    fb.add(buffer);
    const std::string path = ::testing::TempDir() + "tmf_combos.etl";
    etltest::write_file(path, fb.build());

    TraceRun run;
    ASSERT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    ASSERT_EQ(etw_decoder_load_tmf(run.decoder, tmf("demo.tmf").c_str()), ETW_OK) << etw_last_error_message();
    read(path, run);
    etw_decoder_destroy(run.decoder);
    ASSERT_EQ(run.records.size(), combos.size());
    for (std::size_t i = 0; i < combos.size(); ++i) {
        const Decoded &d = run.records[i];
        SCOPED_TRACE(testing::Message() << "flags 0x" << std::hex << combos[i]);
        if (combos[i] & 0x04) {
            // A component id instead of the message GUID: no TMF matches.
            EXPECT_EQ(d.status, ETW_ERROR_NOT_FOUND);
            continue;
        }
        ASSERT_EQ(d.status, ETW_OK) << etw_last_error_message();
        EXPECT_EQ(d.source, ETW_DECODE_SOURCE_WPP);
        EXPECT_EQ(d.name, "demo_c42");
        EXPECT_EQ(d.provider, "DemoDriver");
        EXPECT_EQ(d.task, "DemoOpen");
        EXPECT_EQ(d.level, "TRACE_LEVEL_INFORMATION");
        EXPECT_EQ(d.keywords, "IO");
        ASSERT_EQ(d.fields.size(), 13u); // 7 arguments, then TDH's WPP properties
        EXPECT_EQ(d.fields[7].first, "FormattedString");
        EXPECT_EQ(field(d, "GuidName"), "DemoDriver");
        EXPECT_EQ(field(d, "GuidTypeName"), "demo_c42");
        EXPECT_EQ(field(d, "FunctionName"), "DemoOpen");
        EXPECT_EQ(field(d, "FlagsName"), "IO");
        EXPECT_EQ(field(d, "LevelName"), "TRACE_LEVEL_INFORMATION");
        EXPECT_EQ(field(d, "Path"), "C:\\x");
        EXPECT_EQ(field(d, "Flags"), "31");
        EXPECT_EQ(field(d, "Size"), "1234");
        EXPECT_EQ(field(d, "Buffer"), "0xDEADBEEF");
        EXPECT_EQ(field(d, "Status"), "0xC0000034");
        EXPECT_EQ(field(d, "Mode"), "Append");
        EXPECT_EQ(field(d, "Access"), "Rd|Del");
        const std::string ptr = combos[i] & 0x40 ? "DEADBEEF" : "00000000DEADBEEF";
        EXPECT_EQ(field(d, "FormattedString"),
                  " open C:\\x flags=0000001f size=1234 at " + ptr + " status=0xC0000034 mode=Append set=Rd|Del");
    }
}

TEST(Tmf, PrefixVariablesTrailerKeysAndPrintfSpecs)
{
    etltest::MessageSpec m;
    m.number = 11;
    m.flags = 0x01 | 0x02 | 0x08 | 0x20 | 0x80;
    m.sequence = 7;
    m.guid = kDemo;
    m.ts = 132000000000000000LL;
    m.tid = 0x2A;
    m.pid = 5;
    Bytes a;
    const uint8_t id[16] = {0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56, 1, 2, 3, 4, 5, 6, 7, 8};
    for (uint8_t x : id)
        a.push_back(x);
    le(a, 3, 2);
    a.push_back('a'), a.push_back('b'), a.push_back('c');
    le(a, uint16_t(-3), 2);
    etltest::BufferSpec buffer;
    buffer.records.push_back(etltest::message_record(m, a));
    etltest::FileBuilder fb;
    fb.add(buffer);
    const std::string path = ::testing::TempDir() + "tmf_prefix.etl";
    etltest::write_file(path, fb.build());
    TraceRun run;
    ASSERT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    ASSERT_EQ(etw_decoder_load_tmf(run.decoder, OPENETW_TMF_DIR), ETW_OK) << etw_last_error_message(); // a directory
    read(path, run);
    etw_decoder_destroy(run.decoder);
    ASSERT_EQ(run.records.size(), 1u);
    const Decoded &d = run.records[0];
    ASSERT_EQ(d.status, ETW_OK);
    EXPECT_EQ(d.name, "demo_c77");
    EXPECT_EQ(field(d, "Id"), "{12345678-1234-5678-0102-030405060708}");
    EXPECT_EQ(field(d, "Name"), "abc");
    EXPECT_EQ(field(d, "Count"), "-3");
    EXPECT_EQ(field(d, "FormattedString"),
              " guid {12345678-1234-5678-0102-030405060708} name abc count -3 [-3  ] tid 002A seq 7 in DemoInit 100%");
}

TEST(Tmf, TextLoadAndReplacement)
{
    const char *text = "6f70656e-7770-7064-6465-6d6f00000002 Other\n"
                       "#typev other_c1 10 \"%0 v=%10!u!\"\n{\nv, ItemChar -- 10\n}\n";
    etltest::MessageSpec m;
    m.number = 10;
    m.flags = 0x02 | 0x80;
    m.guid = kDemo;
    etltest::BufferSpec buffer;
    buffer.records.push_back(etltest::message_record(m, open_args(8)));
    etltest::FileBuilder fb;
    fb.add(buffer);
    const std::string path = ::testing::TempDir() + "tmf_text.etl";
    etltest::write_file(path, fb.build());
    TraceRun run;
    ASSERT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    ASSERT_EQ(etw_decoder_load_tmf(run.decoder, tmf("demo.tmf").c_str()), ETW_OK);
    ASSERT_EQ(etw_decoder_load_tmf_text(run.decoder, text, std::strlen(text)), ETW_OK) << etw_last_error_message();
    read(path, run);
    etw_decoder_destroy(run.decoder);
    ASSERT_EQ(run.records.size(), 1u);
    ASSERT_EQ(run.records[0].status, ETW_OK);
    // The later TMF replaced message 10: its one argument is the first byte ('C').
    EXPECT_EQ(run.records[0].name, "other_c1");
    ASSERT_EQ(run.records[0].fields.size(), 4u); // no trailer: no FunctionName, FlagsName, LevelName
    EXPECT_EQ(run.records[0].fields[3].first, "GuidTypeName");
    EXPECT_EQ(field(run.records[0], "FormattedString"), " v=67");
}

TEST(Tmf, CldFltSampleMessagesDecodeWithAHandWrittenTmf)
{
    TraceRun run;
    ASSERT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    read(std::string(OPENETW_SAMPLES_DIR) + "/s4_CldFlt0-2025-12-21-121418.etl", run);
    ASSERT_EQ(run.records.size(), 13u);
    for (const Decoded &d : run.records)
        EXPECT_EQ(d.status, ETW_ERROR_NOT_FOUND); // no TMF loaded: undecoded, as before
    run.records.clear();
    ASSERT_EQ(etw_decoder_load_tmf(run.decoder, tmf("cldflt_43.tmf").c_str()), ETW_OK) << etw_last_error_message();
    read(std::string(OPENETW_SAMPLES_DIR) + "/s4_CldFlt0-2025-12-21-121418.etl", run);
    etw_decoder_destroy(run.decoder);
    ASSERT_EQ(run.records.size(), 13u);
    for (const Decoded &d : run.records) {
        ASSERT_EQ(d.status, ETW_OK);
        EXPECT_EQ(d.name, "sample_c43");
        EXPECT_EQ(d.provider, "CldFlt");
        EXPECT_EQ(field(d, "Status"), "0xC01C000F");
    }
    // The first record: 10 70 aa b0 88 bb ff ff | 10 10 32 ae 88 bb ff ff | 0f 00 1c c0.
    EXPECT_EQ(field(run.records[0], "Object"), "0xFFFFBB88B0AA7010");
    EXPECT_EQ(field(run.records[0], "Context"), "0xFFFFBB88AE321010");
    EXPECT_EQ(field(run.records[0], "FormattedString"),
              " object FFFFBB88B0AA7010 context FFFFBB88AE321010 status 0xC01C000F");
}

} // namespace
