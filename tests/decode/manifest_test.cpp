// Instrumentation manifests through the shared library: our demo
// provider's manifest against a trace our library writes, a real Windows
// manifest (Microsoft-Windows-HttpService) against a real Windows trace of
// it, and the status and message of every kind of bad manifest.
#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace {

const std::string kManifests = OPENETW_MANIFESTS_DIR;

struct Decoded {
    etw_status status = ETW_OK;
    uint32_t kind = 0, source = 0;
    uint16_t id = 0;
    uint8_t opcode = 0;
    std::string name, provider, task, opcode_name, level, keywords;
    std::vector<std::pair<std::string, std::string>> fields; // name, value (arrays/structs: "")
    uint32_t payload_used = 0, payload_size = 0;
    std::vector<uint8_t> payload;
};

struct TraceRun {
    etw_decoder *decoder = nullptr;
    std::vector<Decoded> records;
};

int32_t on_record(void *user, const etw_record *r)
{
    auto *run = static_cast<TraceRun *>(user);
    Decoded d;
    d.kind = r->kind;
    d.id = r->event_id;
    d.opcode = r->opcode;
    d.payload_size = r->payload_size;
    if (r->payload)
        d.payload.assign(r->payload, r->payload + r->payload_size);
    const etw_decoded_event *e = nullptr;
    d.status = etw_decoder_decode(&e, run->decoder, r);
    if (d.status == ETW_OK) {
        d.source = e->source;
        d.name = e->event_name;
        d.provider = e->provider_name;
        d.task = e->task_name;
        d.opcode_name = e->opcode_name;
        d.level = e->level_name;
        d.keywords = e->keywords_name;
        d.payload_used = e->payload_used;
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

std::string field(const Decoded &d, const std::string &name, int nth = 0)
{
    for (const auto &[n, v] : d.fields)
        if (n == name && nth-- == 0)
            return v;
    return "<missing " + name + ">";
}

// ---- our demo provider: a trace written by our library ----

const etw_guid kDemo = {0x6f70656eu, 0x6574u, 0x7764u, {0x64, 0x65, 0x6d, 0x6f, 0x00, 0x00, 0x00, 0x01}};

etw_status write_classic(etw_provider *p, uint8_t type, uint8_t version, const std::vector<uint8_t> &payload)
{
    std::vector<uint8_t> buf(sizeof(etw_event_trace_header) + payload.size());
    auto *h = reinterpret_cast<etw_event_trace_header *>(buf.data());
    h->Size = static_cast<uint16_t>(buf.size());
    h->Class.Type = type;
    h->Class.Level = ETW_LEVEL_INFORMATION;
    h->Class.Version = version;
    h->Guid = kDemo;
    h->Flags = ETW_WNODE_FLAG_TRACED_GUID;
    if (!payload.empty())
        std::memcpy(buf.data() + sizeof *h, payload.data(), payload.size());
    return etw_provider_trace_event(p, h);
}

template <class T>
void put(std::vector<uint8_t> &out, T v)
{
    const auto *b = reinterpret_cast<const uint8_t *>(&v);
    out.insert(out.end(), b, b + sizeof v);
}

void put_utf16(std::vector<uint8_t> &out, const char *ascii, bool terminator)
{
    for (const char *c = ascii; *c; ++c)
        put<uint16_t>(out, static_cast<uint16_t>(*c));
    if (terminator)
        put<uint16_t>(out, 0);
}

// The demo's payload (tools/demo/writers.c): the index, then zeros to 64 bytes.
std::vector<uint8_t> demo_payload(uint64_t index)
{
    std::vector<uint8_t> p(64, 0);
    std::memcpy(p.data(), &index, sizeof index);
    return p;
}

std::vector<uint8_t> rich_payload()
{
    std::vector<uint8_t> p;
    put<uint16_t>(p, 3);                                                     // Count
    put<uint32_t>(p, 7), put<uint32_t>(p, 8), put<uint32_t>(p, 4000000000u); // Values
    put_utf16(p, "demo", true);                                              // Name
    p.insert(p.end(), {'A', 'B', 'C', 'D'});                                 // Tag: 4 characters, no terminator
    put<uint32_t>(p, 2);                                                     // Color: Blue
    put<uint32_t>(p, 5);                                                     // Flags: Fast|Safe
    put<int32_t>(p, -1), put<int32_t>(p, 2), put<int32_t>(p, 30), put<int32_t>(p, -40); // Points
    const uint8_t guid[16] = {0x78, 0x56, 0x34, 0x12, 0x34, 0x12, 0x78, 0x56,
                              0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x02, 0x03, 0x04};
    p.insert(p.end(), guid, guid + 16);    // Id
    put<uint32_t>(p, 5);                   // Status: ERROR_ACCESS_DENIED
    p.push_back(0x1F), p.push_back(0x90);  // Port 8080, network order
    p.insert(p.end(), {192, 168, 1, 20});  // Address
    put<uint32_t>(p, 1);                   // Ok
    p.push_back(3);                        // Size
    p.insert(p.end(), {0xDE, 0xAD, 0x01}); // Blob
    put<uint16_t>(p, 4);                   // Note: 4 bytes
    put_utf16(p, "hi", false);
    return p;
}

TEST(Manifest, DemoProviderTraceWrittenByOurLibrary)
{
    const std::string base =
        (std::filesystem::temp_directory_path() /
         ("openetw-manifest-demo-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed())))
            .string();
    etw_properties *props = nullptr;
    ASSERT_EQ(etw_properties_create(&props, ("ManifestDemo" + base.substr(base.size() - 6)).c_str()), ETW_OK);
    ASSERT_EQ(etw_properties_set_log_file_name(props, (base + ".etl").c_str()), ETW_OK);
    ASSERT_EQ(etw_properties_set_log_file_mode(props, ETW_PRIVATE_LOGGER_MODE | ETW_PRIVATE_IN_PROC), ETW_OK);
    ASSERT_EQ(etw_properties_set_guid(props, &kDemo), ETW_OK);
    etw_session *session = nullptr;
    ASSERT_EQ(etw_session_start(&session, props), ETW_OK) << etw_last_error_message();
    etw_provider *provider = nullptr;
    ASSERT_EQ(etw_provider_register(&provider, &kDemo, nullptr, nullptr, nullptr), ETW_OK) << etw_last_error_message();
    // As openetw-demo --threads 2: Class.Type 10 + thread index, payload = index.
    for (uint64_t i = 0; i < 3; ++i) {
        ASSERT_EQ(write_classic(provider, 10, 0, demo_payload(i)), ETW_OK);
        ASSERT_EQ(write_classic(provider, 11, 0, demo_payload(100 + i)), ETW_OK);
    }
    ASSERT_EQ(write_classic(provider, 20, 1, rich_payload()), ETW_OK);
    ASSERT_EQ(write_classic(provider, 20, 0, rich_payload()), ETW_OK); // version 0: no such event
    ASSERT_EQ(write_classic(provider, 1, 0, {}), ETW_OK);              // win:Start, no template
    etw_provider_unregister(provider);
    ASSERT_EQ(etw_session_stop(session, props), ETW_OK) << etw_last_error_message();
    const std::string file = etw_properties_log_file_name(props);
    etw_session_close(session);
    etw_properties_destroy(props);

    TraceRun run;
    ASSERT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    ASSERT_EQ(etw_decoder_load_manifest(run.decoder, (kManifests + "/openetw-demo.man").c_str()), ETW_OK)
        << etw_last_error_message();
    read(file, run);
    etw_decoder_destroy(run.decoder);
    std::remove(file.c_str());

    std::vector<const Decoded *> demo;
    for (const Decoded &d : run.records)
        if (d.kind == ETW_RECORD_KIND_FULL)
            demo.push_back(&d);
    ASSERT_EQ(demo.size(), 9u);
    for (int i = 0; i < 6; ++i) {
        const Decoded &d = *demo[i];
        ASSERT_EQ(d.status, ETW_OK) << i;
        EXPECT_EQ(d.source, ETW_DECODE_SOURCE_MANIFEST);
        EXPECT_EQ(d.provider, "OpenETW-Demo");
        EXPECT_EQ(d.name, i % 2 ? "DemoWriter1" : "DemoWriter0");
        EXPECT_EQ(d.task, "Write");
        EXPECT_EQ(d.opcode_name, i % 2 ? "Second writer" : "First writer");
        EXPECT_EQ(d.level, "Information");
        EXPECT_EQ(d.keywords, "Writer threads"); // en-US, not the fr-FR table listed first
        ASSERT_EQ(d.fields.size(), 2u);
        EXPECT_EQ(field(d, "Index"), std::to_string((i % 2 ? 100 : 0) + i / 2));
        EXPECT_EQ(field(d, "Filler"), "0x" + std::string(112, '0'));
        EXPECT_EQ(d.payload_used, 64u);
    }
    const Decoded &rich = *demo[6];
    ASSERT_EQ(rich.status, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(rich.name, "DemoRich");
    EXPECT_EQ(rich.task, "Shape"); // no message: the name
    EXPECT_EQ(rich.opcode_name, "Rich & varied");
    EXPECT_EQ(rich.level, "Chatty");
    EXPECT_EQ(rich.keywords, "Shapes, Response Time");
    EXPECT_EQ(field(rich, "Count"), "3");
    EXPECT_EQ(field(rich, "Values"), ""); // the array
    EXPECT_EQ(field(rich, "Values", 1), "7");
    EXPECT_EQ(field(rich, "Values", 2), "8");
    EXPECT_EQ(field(rich, "Values", 3), "4000000000");
    EXPECT_EQ(field(rich, "Name"), "demo");
    EXPECT_EQ(field(rich, "Tag"), "ABCD");
    EXPECT_EQ(field(rich, "Color"), "Blue");
    EXPECT_EQ(field(rich, "Flags"), "Fast|Safe");
    EXPECT_EQ(field(rich, "X"), "-1");
    EXPECT_EQ(field(rich, "Y"), "2");
    EXPECT_EQ(field(rich, "X", 1), "30");
    EXPECT_EQ(field(rich, "Y", 1), "-40");
    EXPECT_EQ(field(rich, "Id"), "{12345678-1234-5678-9ABC-DEF001020304}");
    EXPECT_EQ(field(rich, "Status"), "0x00000005");
    EXPECT_EQ(field(rich, "Port"), "8080");
    EXPECT_EQ(field(rich, "Address"), "192.168.1.20");
    EXPECT_EQ(field(rich, "Ok"), "true");
    EXPECT_EQ(field(rich, "Blob"), "0xDEAD01");
    EXPECT_EQ(field(rich, "Note"), "hi");
    EXPECT_EQ(rich.payload_used, rich.payload_size);
    EXPECT_EQ(demo[7]->status, ETW_ERROR_NOT_FOUND); // matched by version too
    ASSERT_EQ(demo[8]->status, ETW_OK);
    EXPECT_EQ(demo[8]->opcode_name, "Start");
    EXPECT_EQ(demo[8]->task, "None");
    EXPECT_EQ(demo[8]->level, "Verbose");
    EXPECT_EQ(demo[8]->name, "None/Start"); // no symbol: task/opcode
    EXPECT_TRUE(demo[8]->fields.empty());
}

// ---- a real provider: Windows 7's HTTP Server trace and its manifest ----

TEST(Manifest, HttpServiceSampleDecodesWithItsManifest)
{
    TraceRun run;
    ASSERT_EQ(etw_decoder_create(&run.decoder), ETW_OK);
    ASSERT_EQ(etw_decoder_load_manifest(run.decoder, (kManifests + "/Microsoft-Windows-HttpService.xml").c_str()),
              ETW_OK)
        << etw_last_error_message();
    read(std::string(OPENETW_SAMPLES_DIR) + "/tx_HTTP_Server.etl", run);
    etw_decoder_destroy(run.decoder);
    std::map<uint16_t, int> decoded;
    std::size_t events = 0;
    for (const Decoded &d : run.records) {
        if (d.kind != ETW_RECORD_KIND_EVENT)
            continue;
        ++events;
        ASSERT_EQ(d.status, ETW_OK) << "event " << d.id;
        EXPECT_EQ(d.source, ETW_DECODE_SOURCE_MANIFEST);
        EXPECT_EQ(d.provider, "Microsoft-Windows-HttpService");
        EXPECT_EQ(d.payload_used, d.payload_size) << "event " << d.id; // every byte described
        ++decoded[d.id];
    }
    EXPECT_EQ(events, 2041u); // golden: event:2041
    EXPECT_EQ(decoded[1], 291);
    EXPECT_EQ(decoded[12], 289);
    // Values read by hand from the payload bytes of the first record of some events.
    // The record of event `id` whose payload starts with the bytes `hex`.
    auto first = [&](uint16_t id, const std::string &hex) -> const Decoded & {
        for (const Decoded &d : run.records) {
            std::string start;
            for (std::size_t i = 0; i < d.payload.size() && start.size() < hex.size(); ++i) {
                char b[3];
                std::snprintf(b, sizeof b, "%02x", d.payload[i]);
                start += b;
            }
            if (d.kind == ETW_RECORD_KIND_EVENT && d.id == id && start == hex)
                return d;
        }
        static const Decoded none;
        return none;
    };
    const Decoded &parse =
        first(2, "30457c0380faffff04000000"); // 30457c0380faffff 04000000 "http://georgis2:80/windir.txt" (UTF-16, ends
                                              // the payload)
    EXPECT_EQ(parse.name, "HTTPRequestTraceTaskParse");
    EXPECT_EQ(parse.task, "HTTPRequestTraceTask");
    EXPECT_EQ(parse.opcode_name, "Parse");
    EXPECT_EQ(parse.level, "Information");
    EXPECT_EQ(parse.keywords, "HTTP_KEYWORD_REQUEST");
    EXPECT_EQ(field(parse, "RequestObj"), "0xFFFFFA80037C4530");
    EXPECT_EQ(field(parse, "HttpVerb"), "4");
    EXPECT_EQ(field(parse, "Url"), "http://georgis2:80/windir.txt");
    const Decoded &resp =
        first(4, "0d060080000000ff0c060060000000ffc80047455400a5000000"); // 0d060080000000ff 0c060060000000ff c800
                                                                          // "GET\0" a5000000 0100 00000000
    EXPECT_EQ(resp.keywords, "HTTP_KEYWORD_REQUEST, HTTP_KEYWORD_RESPONSE");
    EXPECT_EQ(field(resp, "RequestId"), "18374686481819108877");
    EXPECT_EQ(field(resp, "ConnectionId"), "18374686481282237964");
    EXPECT_EQ(field(resp, "StatusCode"), "200");
    EXPECT_EQ(field(resp, "Verb"), "GET");
    EXPECT_EQ(field(resp, "HeaderLength"), "165");
    EXPECT_EQ(field(resp, "EntityChunkCount"), "1");
    const Decoded &connect = first(
        21, "1020e90380faffff1c000000"); // a pointer, then two UINT32 lengths (28) each before its SOCKADDR_IN6 bytes
    EXPECT_EQ(field(connect, "ConnectionObj"), "0xFFFFFA8003E92010");
    EXPECT_EQ(field(connect, "LocalAddrLength"), "28");
    EXPECT_EQ(field(connect, "LocalAddr"), "0x17000050000000002001489800000FFF00005EFE0A78109D00000000");
    EXPECT_EQ(field(connect, "RemoteAddr"), "0x170093CD000000002001489800000FFF00005EFE0A50E41000000000");
    const Decoded &write =
        first(51, "00000000280e0080ffffffff"); // 00000000 280e0080ffffffff 0 0 0 "CacheMiss\0" 00000000
    EXPECT_EQ(field(write, "Handle"), "0xFFFFFFFF80000E28");
    EXPECT_EQ(field(write, "ResType"), "CacheMiss");
    EXPECT_EQ(field(write, "SiteId"), "0");
}

} // namespace
