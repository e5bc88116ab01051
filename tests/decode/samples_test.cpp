// Every TraceLogging record of the shared Windows samples decodes, with the
// field names and values read by hand from the record bytes (see the
// comments for the bytes).
#include "decode_helpers.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <string>

using namespace dectest;

namespace {

struct Seen {
    std::string event_name, provider_name;
    Source source = Source::None;
    Pairs values;
    etw_status status = ETW_OK;
    std::string message;
    std::uint32_t consumed = 0, payload_size = 0;
};

struct Collect {
    EventDecoder decoder;
    DecodedEvent event;
    std::vector<Seen> seen;
    std::uint32_t tl_records = 0; // records that carry TraceLogging metadata
};

int32_t on_record(void *user, const etw_record *r)
{
    auto *c = static_cast<Collect *>(user);
    for (std::uint32_t i = 0; i < r->extended_count; ++i)
        c->tl_records += r->extended[i].ext_type == kExtTypeEventSchemaTl;
    openetw::format::Problem problem;
    Seen s;
    if (!c->decoder.decode(*r, c->event, problem)) {
        if (problem.code == ETW_ERROR_NOT_FOUND)
            return 0;
        s.status = problem.code;
        s.message = problem.detail;
    } else {
        s.values = flatten(*c->event.schema, c->event.nodes, c->event.payload, c->event.pointer_size);
    }
    if (c->event.schema) {
        s.event_name = c->event.schema->event_name;
        s.provider_name = c->event.schema->provider_name;
    }
    s.source = c->event.source;
    s.consumed = c->event.consumed;
    s.payload_size = r->payload_size;
    c->seen.push_back(std::move(s));
    return 0;
}

void read_sample(const char *name, Collect &c)
{
    const std::string path = std::string(OPENETW_SAMPLES_DIR) + "/" + name;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.record = on_record;
    o.user_data = &c;
    etw_consumer *consumer = nullptr;
    const char *paths[] = {path.c_str()};
    ASSERT_EQ(etw_consumer_open(&consumer, paths, 1, &o), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_consumer_process(consumer), ETW_OK) << etw_last_error_message();
    etw_consumer_close(consumer);
}

// lxcore: two "BreakPoint" events of Microsoft.Windows.Subsystem.LxCore.
// Metadata: ErrorLevel UINT8, instanceId GUID, LxPid/LxTid/LxNs INT32,
// ExecutablePath COUNTEDANSISTRING, Function ANSISTRING, Line UINT32,
// Message ANSISTRING. Payload of the first: 02 | 16 x 00 | ff ff ff ff |
// ff ff ff ff | 00 00 00 00 | 00 00 | "LxpInstanceStart" 00 | 63 0a 00 00 |
// "[0xc0000034] LxpInstanceInitialize\n" 00.
TEST(DecodeSamples, LxCoreTraceLoggingEvents)
{
    Collect c;
    read_sample("etlparser_lxcore_kernel.etl", c);
    ASSERT_EQ(c.seen.size(), 2u);
    EXPECT_EQ(c.tl_records, 2u);
    const Pairs common = {{"ErrorLevel", "2"}, {"instanceId", "{00000000-0000-0000-0000-000000000000}"},
                          {"LxPid", "-1"},     {"LxTid", "-1"},
                          {"LxNs", "0"},       {"ExecutablePath", ""}};
    Pairs first = common, second = common;
    first.insert(
        first.end(),
        {{"Function", "LxpInstanceStart"}, {"Line", "2659"}, {"Message", "[0xc0000034] LxpInstanceInitialize\n"}});
    // Second: ... "LxpDrvFsTypeMount" 00 | 20 29 00 00 | "Failed to open volume ..." 00.
    second.insert(second.end(), {{"Function", "LxpDrvFsTypeMount"},
                                 {"Line", "10528"},
                                 {"Message", "Failed to open volume C:\\WINDOWS\\system32\\lxss\\tools, result -2\n"}});
    for (const Seen &s : c.seen) {
        EXPECT_EQ(s.status, ETW_OK) << s.message;
        EXPECT_EQ(s.source, Source::TraceLogging);
        EXPECT_EQ(s.event_name, "BreakPoint");
        EXPECT_EQ(s.provider_name, "Microsoft.Windows.Subsystem.LxCore");
    }
    EXPECT_EQ(c.seen[0].values, first);
    EXPECT_EQ(c.seen[1].values, second);
}

// PerfView's self-describing EventSource event: metadata 17 00 | 00 |
// "TestEvent" 00 | "a" 00 98 02 (struct, 2 members) | "b" 00 01 | "c" 00 01;
// payload "Hello" and "World!" as NUL-terminated UTF-16.
TEST(DecodeSamples, SelfDescribingEventSourceStruct)
{
    Collect c;
    read_sample("pv_SelfDescribingSingleEvent.etl", c);
    EXPECT_EQ(c.tl_records, 1u);
    ASSERT_EQ(c.seen.size(), 1u);
    EXPECT_EQ(c.seen[0].status, ETW_OK) << c.seen[0].message;
    EXPECT_EQ(c.seen[0].event_name, "TestEvent");
    EXPECT_EQ(c.seen[0].provider_name, "MySource");
    EXPECT_EQ(c.seen[0].values, (Pairs{{"a.b", "Hello"}, {"a.c", "World!"}}));
}

// AMSI: 19 "AmsiScript" events of provider AmsiTrace. Metadata:
// "Engine" 00 01 (UNICODESTRING), "Script" 00 01, "Raw Script" 00 c6 02
// (UINT16 | VCOUNT | CHAIN, out-type STRING: a counted UTF-16 char array).
// Payload of the second: "PowerShell_C:\...\powershell.exe_10.0.18362.1" 00 00 |
// "$global:?" 00 00 | 09 00 | "$global:?" (9 UTF-16 units, no NUL).
TEST(DecodeSamples, AmsiTraceLoggingEvents)
{
    Collect c;
    read_sample("etlparser_AMSITrace.etl", c);
    EXPECT_EQ(c.tl_records, 19u);
    ASSERT_EQ(c.seen.size(), 19u);
    int powershell = 0, vbscript = 0;
    const std::string engine = "PowerShell_C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe_10.0.18362.1";
    for (const Seen &s : c.seen) {
        EXPECT_EQ(s.status, ETW_OK) << s.message;
        EXPECT_EQ(s.event_name, "AmsiScript");
        EXPECT_EQ(s.provider_name, "AmsiTrace");
        EXPECT_EQ(s.consumed, s.payload_size); // every byte belongs to a field
        ASSERT_EQ(s.values.size(), 3u);
        EXPECT_EQ(s.values[0].first, "Engine");
        powershell += s.values[0].second == engine;
        vbscript += s.values[0].second == "VBScript";
    }
    // 15 payloads begin "P\0o\0w\0..." and 4 "V\0B\0S\0c\0r\0i\0p\0t\0\0\0".
    EXPECT_EQ(powershell, 15);
    EXPECT_EQ(vbscript, 4);
    EXPECT_EQ(c.seen[1].values[1], (std::pair<std::string, std::string>{"Script", "$global:?"}));
    EXPECT_EQ(c.seen[1].values[2], (std::pair<std::string, std::string>{"Raw Script", "$global:?"}));
    // Third: ... | "Get-Alias" 00 00 | 09 00 | "Get-Alias".
    EXPECT_EQ(c.seen[2].values[1], (std::pair<std::string, std::string>{"Script", "Get-Alias"}));
    EXPECT_EQ(c.seen[2].values[2], (std::pair<std::string, std::string>{"Raw Script", "Get-Alias"}));
}

// No other sample carries TraceLogging metadata, and with no other source
// loaded nothing else decodes.
TEST(DecodeSamples, OtherSamplesHaveNoTraceLoggingRecords)
{
    for (const char *name : {"krabs_powershell.etl", "pv_gcevents_PerfViewData.etl", "tx_BondEtwSample.etl",
                             "tx_HTTP_Server.etl", "s4_CldFlt0-2025-12-21-121418.etl"}) {
        Collect c;
        read_sample(name, c);
        EXPECT_EQ(c.tl_records, 0u) << name;
        EXPECT_TRUE(c.seen.empty()) << name;
    }
}

} // namespace
