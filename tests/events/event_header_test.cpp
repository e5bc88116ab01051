// EVENT_HEADER events (etw_provider_write_event): the record's layout byte
// for byte, the read back through the consumer from files and real-time
// sessions of this process and of the session host, level and keyword
// matching session by session, activity ids, and the statuses.
#include "../host/host_test_util.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

namespace {

// Every session of this program is system-wide (hosted by openetw-hostd)
// unless started with ETW_SESSION_IN_PROCESS.
hosttest::Namespace g_namespace;
hosttest::Namespace *const g_ns = &g_namespace;

std::uint16_t r16(const std::uint8_t *p) { return std::uint16_t(p[0] | p[1] << 8); }
std::uint32_t r32(const std::uint8_t *p) { return std::uint32_t(r16(p)) | std::uint32_t(r16(p + 2)) << 16; }
std::uint64_t r64(const std::uint8_t *p) { return std::uint64_t(r32(p)) | std::uint64_t(r32(p + 4)) << 32; }

etw_guid guid_of(std::uint32_t n)
{
    etw_guid g{};
    g.Data1 = n;
    g.Data2 = 0xE7E7;
    g.Data3 = 0x4A4A;
    for (int i = 0; i < 8; ++i)
        g.Data4[i] = std::uint8_t(0x10 * i + 3);
    return g;
}

bool same(const etw_guid &a, const etw_guid &b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bytes(const std::uint8_t *p, const etw_guid &g) { return std::memcmp(p, &g, 16) == 0; }

std::string file_name(const char *stem)
{
    static int n = 0;
    return g_ns->path(std::string(stem) + "-" + std::to_string(n++) + ".etl");
}

std::string session_name(const char *stem)
{
    static int n = 0;
    return std::string("evhdr-") + stem + "-" + std::to_string(getpid()) + "-" + std::to_string(n++);
}

// A running session; stopped (if still running) and closed at the end.
struct Session {
    etw_session *s = nullptr;
    std::string name, file;
    Session(const char *stem, bool in_process, bool realtime, std::uint32_t buffer_kb = 64)
    {
        name = session_name(stem);
        etw_properties *p = nullptr;
        EXPECT_EQ(etw_properties_create(&p, name.c_str()), ETW_OK);
        if (!realtime) {
            file = file_name(stem);
            EXPECT_EQ(etw_properties_set_log_file_name(p, file.c_str()), ETW_OK);
        } else {
            EXPECT_EQ(etw_properties_set_log_file_mode(p, ETW_REAL_TIME_MODE), ETW_OK);
        }
        EXPECT_EQ(etw_properties_set_buffer_size(p, buffer_kb), ETW_OK);
        etw_session_options o{};
        o.struct_size = sizeof o;
        o.flags = in_process ? ETW_SESSION_IN_PROCESS : 0;
        EXPECT_EQ(etw_session_start_ex(&s, p, &o), ETW_OK) << etw_last_error_message();
        if (!file.empty())
            file = etw_properties_log_file_name(p);
        etw_properties_destroy(p);
        if (!in_process) {
            EXPECT_NE(hosttest::host_of(name), 0) << "not hosted"; // (its host is killed at the end)
        }
    }
    void enable(const etw_guid &g, std::uint8_t level, std::uint64_t any, std::uint64_t all)
    {
        ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, level, any, all), ETW_OK)
            << etw_last_error_message();
    }
    bool stopped = false;
    void stop()
    {
        if (s && !stopped) {
            EXPECT_EQ(etw_session_stop(s, nullptr), ETW_OK) << etw_last_error_message();
            stopped = true;
        }
    }
    ~Session()
    {
        if (s) {
            if (!stopped)
                etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
    }
};

struct Provider {
    etw_provider *p = nullptr;
    explicit Provider(const etw_guid &g)
    {
        EXPECT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    }
    ~Provider() { etw_provider_unregister(p); }
};

// What the consumer delivered: each record's bytes and its two views.
struct Seen {
    std::vector<std::uint8_t> bytes;
    std::uint32_t kind = 0, pointer_size = 0;
    std::uint8_t header_type = 0;
    bool has_event_record = false;
    etw_event_record ev{};
    std::vector<std::pair<std::uint16_t, std::vector<std::uint8_t>>> items; // from the event record
    std::vector<std::uint8_t> user_data;
};

struct ReadBack {
    etw_guid provider{};
    std::vector<Seen> events; // records of provider, in delivery order
    std::vector<std::string> problems;
};

int32_t on_record(void *ud, const etw_record *r)
{
    auto *rb = static_cast<ReadBack *>(ud);
    if (r->kind != ETW_RECORD_KIND_EVENT && r->kind != ETW_RECORD_KIND_FULL)
        return 0;
    if (!same(r->guid, rb->provider))
        return 0;
    Seen s;
    s.bytes.assign(r->bytes, r->bytes + r->size);
    s.kind = r->kind;
    s.pointer_size = r->pointer_size;
    s.header_type = r->header_type;
    rb->events.push_back(std::move(s));
    return 0;
}

int32_t on_event_record(void *ud, const etw_event_record *e)
{
    auto *rb = static_cast<ReadBack *>(ud);
    if (!same(e->provider_id, rb->provider))
        return 0;
    if (rb->events.empty() || rb->events.back().has_event_record) {
        rb->problems.push_back("an event record callback without its record");
        return 0;
    }
    Seen &s = rb->events.back();
    s.has_event_record = true;
    s.ev = *e;
    for (std::uint16_t i = 0; i < e->extended_data_count; ++i)
        s.items.emplace_back(e->extended_data[i].ext_type,
                             std::vector<std::uint8_t>(e->extended_data[i].data,
                                                       e->extended_data[i].data + e->extended_data[i].data_size));
    s.user_data.assign(e->user_data, e->user_data + e->user_data_length);
    return 0;
}

// Every buffer as the writer checklist (ETL_FORMAT.md 9) wants it: the
// reader finds no problem and no warning in it.
int32_t on_buffer(void *ud, const etw_buffer_info *b)
{
    auto *rb = static_cast<ReadBack *>(ud);
    if (b->status != ETW_OK || b->status_flags != 0)
        rb->problems.push_back("buffer " + std::to_string(b->buffer_index) + ": status " + std::to_string(b->status) +
                               " flags " + std::to_string(b->status_flags));
    return 0;
}

etw_consumer_options options(ReadBack &rb)
{
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.buffer = on_buffer;
    o.record = on_record;
    o.event_record = on_event_record;
    o.user_data = &rb;
    return o;
}

ReadBack read_file(const std::string &path, const etw_guid &provider)
{
    ReadBack rb;
    rb.provider = provider;
    const etw_consumer_options o = options(rb);
    etw_consumer *c = nullptr;
    const char *paths[1] = {path.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    if (c) {
        EXPECT_EQ(etw_consumer_process(c), ETW_OK) << etw_last_error_message();
        etw_consumer_close(c);
    }
    return rb;
}

// The events one writes in the layout tests.
struct Written {
    etw_event_descriptor d{};
    etw_guid activity{}, related{};
    bool has_related = false;
    std::uint32_t flags = 0;
    std::vector<std::uint8_t> data;
    std::uint32_t tid = 0;
};

std::vector<Written> write_set(etw_provider *p)
{
    std::vector<Written> out;
    const etw_guid thread_activity = guid_of(0xAC71);
    etw_guid old{};
    EXPECT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &old), ETW_OK);
    etw_guid set = thread_activity;
    EXPECT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_SET_ID, &set), ETW_OK);
    for (int i = 0; i < 40; ++i) {
        Written w;
        w.d = {std::uint16_t(0x1200 + i),
               std::uint8_t(i % 4),
               std::uint8_t(0x10 + i),
               std::uint8_t(1 + i % 5),
               std::uint8_t(i % 3),
               std::uint16_t(0xAB00 + i),
               0x8000000000000000ull | std::uint64_t(i + 1)};
        const bool own_activity = i % 2 == 0;
        w.activity = own_activity ? guid_of(0xA000 + std::uint32_t(i)) : thread_activity;
        w.has_related = i % 3 == 0;
        w.related = guid_of(0xB000 + std::uint32_t(i));
        w.tid = std::uint32_t(syscall(SYS_gettid));
        // Pieces of uneven sizes, an empty one among them.
        std::vector<std::vector<std::uint8_t>> pieces(std::size_t(i % 4));
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            pieces[k].resize(k == 1 ? 0 : std::size_t(i * 7 + int(k) * 13) % 97);
            for (std::size_t b = 0; b < pieces[k].size(); ++b)
                pieces[k][b] = std::uint8_t(b * 29 + k * 7 + std::size_t(i));
            w.data.insert(w.data.end(), pieces[k].begin(), pieces[k].end());
        }
        std::vector<etw_event_data_descriptor> dd;
        for (auto &pc : pieces)
            dd.push_back({std::uint64_t(reinterpret_cast<std::uintptr_t>(pc.data())), std::uint32_t(pc.size()), 0});
        EXPECT_EQ(etw_provider_write_event(p, &w.d, 0, own_activity ? &w.activity : nullptr,
                                           w.has_related ? &w.related : nullptr, std::uint32_t(dd.size()), dd.data()),
                  ETW_OK);
        out.push_back(std::move(w));
    }
    // A string-only event (EventWriteString's form).
    Written s;
    s.d.Level = 2;
    s.d.Keyword = 0x4;
    s.flags = ETW_EVENT_WRITE_STRING_ONLY;
    s.activity = thread_activity;
    s.tid = std::uint32_t(syscall(SYS_gettid));
    const char16_t text[] = u"shipped";
    s.data.assign(reinterpret_cast<const std::uint8_t *>(text),
                  reinterpret_cast<const std::uint8_t *>(text) + sizeof text);
    etw_event_data_descriptor one = {std::uint64_t(reinterpret_cast<std::uintptr_t>(text)), sizeof text, 0};
    EXPECT_EQ(etw_provider_write_event(p, &s.d, s.flags, nullptr, nullptr, 1, &one), ETW_OK);
    out.push_back(std::move(s));
    EXPECT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_SET_ID, &old), ETW_OK);
    return out;
}

// The record, byte for byte (ETL_FORMAT.md 3.5), and the consumer's views of it.
void check(const std::vector<Written> &written, const ReadBack &rb, const etw_guid &provider)
{
    EXPECT_TRUE(rb.problems.empty()) << rb.problems.front();
    ASSERT_EQ(rb.events.size(), written.size());
    for (std::size_t i = 0; i < written.size(); ++i) {
        SCOPED_TRACE("event " + std::to_string(i));
        const Written &w = written[i];
        const Seen &s = rb.events[i];
        const std::uint8_t *b = s.bytes.data();
        const std::uint32_t items = w.has_related ? 24 : 0;
        ASSERT_EQ(s.bytes.size(), 0x50 + items + w.data.size());
        EXPECT_EQ(s.kind, ETW_RECORD_KIND_EVENT);
        EXPECT_EQ(r16(b), 0x50 + items + w.data.size());               // Size
        EXPECT_EQ(b[2], sizeof(void *) == 8 ? 0x13 : 0x12);            // HeaderType
        EXPECT_EQ(b[3], 0xC0);                                         // MarkerFlags
        EXPECT_EQ(r16(b + 4), (w.has_related ? 0x0001 : 0) | w.flags); // Flags as stored: EXTENDED_INFO, STRING_ONLY
        EXPECT_EQ(r16(b + 6), 0);                                      // EventProperty
        EXPECT_EQ(r32(b + 8), w.tid);                                  // ThreadId
        EXPECT_EQ(r32(b + 12), std::uint32_t(getpid()));               // ProcessId
        EXPECT_NE(r64(b + 16), 0u);                                    // TimeStamp
        if (i > 0) {
            EXPECT_GE(r64(b + 16), r64(rb.events[i - 1].bytes.data() + 16)); // one thread: in order
        }
        EXPECT_TRUE(same_bytes(b + 24, provider)); // ProviderId
        EXPECT_EQ(r16(b + 40), w.d.Id);            // EVENT_DESCRIPTOR
        EXPECT_EQ(b[42], w.d.Version);
        EXPECT_EQ(b[43], w.d.Channel);
        EXPECT_EQ(b[44], w.d.Level);
        EXPECT_EQ(b[45], w.d.Opcode);
        EXPECT_EQ(r16(b + 46), w.d.Task);
        EXPECT_EQ(r64(b + 48), w.d.Keyword);
        EXPECT_TRUE(same_bytes(b + 64, w.activity)); // ActivityId
        if (w.has_related) {                         // RELATED_ACTIVITYID item
            EXPECT_EQ(r16(b + 80), 24);              // ItemSize
            EXPECT_EQ(r16(b + 82), 1);               // ExtType
            EXPECT_EQ(r16(b + 84), 0);               // Linkage: the last item
            EXPECT_EQ(r16(b + 86), 16);              // DataSize
            EXPECT_TRUE(same_bytes(b + 88, w.related));
        }
        EXPECT_EQ(std::vector<std::uint8_t>(b + 0x50 + items, b + s.bytes.size()), w.data);
        // The consumer's event record says the same.
        ASSERT_TRUE(s.has_event_record);
        const etw_event_record &e = s.ev;
        EXPECT_EQ(e.id, w.d.Id);
        EXPECT_EQ(e.version, w.d.Version);
        EXPECT_EQ(e.channel, w.d.Channel);
        EXPECT_EQ(e.level, w.d.Level);
        EXPECT_EQ(e.opcode, w.d.Opcode);
        EXPECT_EQ(e.task, w.d.Task);
        EXPECT_EQ(e.keyword, w.d.Keyword);
        EXPECT_EQ(e.flags, r16(b + 4));
        EXPECT_TRUE(same(e.activity_id, w.activity));
        EXPECT_EQ(e.thread_id, w.tid);
        EXPECT_EQ(s.pointer_size, sizeof(void *));
        ASSERT_EQ(s.items.size(), w.has_related ? 1u : 0u);
        if (w.has_related) {
            EXPECT_EQ(s.items[0].first, 1);
            ASSERT_EQ(s.items[0].second.size(), 16u);
            EXPECT_TRUE(same_bytes(s.items[0].second.data(), w.related));
        }
        EXPECT_EQ(s.user_data, w.data);
    }
}

void file_round_trip(bool in_process)
{
    const etw_guid g = guid_of(in_process ? 0x100 : 0x101);
    Session s("file", in_process, false);
    Provider p(g);
    s.enable(g, 0, 0, 0);
    const std::vector<Written> w = write_set(p.p);
    s.stop();
    check(w, read_file(s.file, g), g);
}

TEST(EventHeader, FileRecordsKeepTheirDescriptorInProcess) { file_round_trip(true); }
TEST(EventHeader, FileRecordsKeepTheirDescriptorInAHostedSession) { file_round_trip(false); }

void realtime_round_trip(bool in_process)
{
    const etw_guid g = guid_of(in_process ? 0x200 : 0x201);
    Session s("rt", in_process, true);
    Provider p(g);
    s.enable(g, 0, 0, 0);
    ReadBack rb;
    rb.provider = g;
    const etw_consumer_options o = options(rb);
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open_session(&c, s.name.c_str(), &o), ETW_OK) << etw_last_error_message();
    const std::vector<Written> w = write_set(p.p);
    std::thread stopper([&] { s.stop(); });
    EXPECT_EQ(etw_consumer_process(c), ETW_OK) << etw_last_error_message();
    stopper.join();
    etw_consumer_close(c);
    check(w, rb, g);
}

TEST(EventHeader, RealTimeRecordsKeepTheirDescriptorInProcess) { realtime_round_trip(true); }
TEST(EventHeader, RealTimeRecordsKeepTheirDescriptorInAHostedSession) { realtime_round_trip(false); }

// ---- Decoded by a manifest; shown by etwdump ----

// The manifest of guid_of(0x600)'s event 4711 version 2: found by provider,
// Id and Version, as Windows' TDH finds a manifest event.
const char kManifest[] = R"(<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
                         xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="OpenETW-Orders" guid="{00000600-E7E7-4A4A-0313-233343536373}" symbol="ORDERS">
      <keywords><keyword name="Orders" mask="0x10"/></keywords>
      <tasks><task name="Ship" value="9"/></tasks>
      <templates><template tid="Shipped">
        <data name="OrderId" inType="win:UInt32"/>
        <data name="Customer" inType="win:UnicodeString"/>
      </template></templates>
      <events>
        <event value="4711" version="2" task="Ship" opcode="win:Start" level="win:Informational" keywords="Orders"
               template="Shipped" symbol="OrderShipped"/>
        <event value="4711" version="1" task="Ship" level="win:Informational" symbol="OldOrderShipped"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
)";

struct Decoded {
    etw_decoder *decoder = nullptr;
    std::vector<std::string> lines; // event name, task, opcode, keywords, then name=value
    std::vector<etw_status> statuses;
};

int32_t on_record_decode(void *ud, const etw_record *r)
{
    auto *d = static_cast<Decoded *>(ud);
    if (r->kind != ETW_RECORD_KIND_EVENT)
        return 0;
    const etw_decoded_event *e = nullptr;
    d->statuses.push_back(etw_decoder_decode(&e, d->decoder, r));
    if (e) {
        std::string line =
            std::string(e->event_name) + " " + e->task_name + " " + e->opcode_name + " " + e->keywords_name;
        for (std::uint32_t i = 0; i < e->property_count; ++i)
            line += std::string(" ") + e->properties[i].name + "=" + e->properties[i].value;
        d->lines.push_back(line);
    }
    return 0;
}

TEST(EventHeader, AManifestDecodesTheEventsByIdAndVersion)
{
    const etw_guid g = guid_of(0x600);
    Session s("decode", true, false);
    Provider p(g);
    s.enable(g, 0, 0, 0);
    const std::uint32_t order = 4711;
    const char16_t customer[] = u"Fabrikam";
    const etw_event_data_descriptor data[2] = {
        {std::uint64_t(reinterpret_cast<std::uintptr_t>(&order)), sizeof order, 0},
        {std::uint64_t(reinterpret_cast<std::uintptr_t>(customer)), sizeof customer, 0}};
    const etw_event_descriptor shipped = {4711, 2, 0, 4, 1, 9, 0x10};
    const etw_event_descriptor old = {4711, 1, 0, 4, 0, 9, 0};
    ASSERT_EQ(etw_provider_write_event(p.p, &shipped, 0, nullptr, nullptr, 2, data), ETW_OK);
    ASSERT_EQ(etw_provider_write_event(p.p, &old, 0, nullptr, nullptr, 0, nullptr), ETW_OK);
    s.stop();

    Decoded d;
    ASSERT_EQ(etw_decoder_create(&d.decoder), ETW_OK);
    ASSERT_EQ(etw_decoder_load_manifest_text(d.decoder, kManifest, sizeof kManifest - 1), ETW_OK)
        << etw_last_error_message();
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.record = on_record_decode;
    o.user_data = &d;
    etw_consumer *c = nullptr;
    const char *paths[1] = {s.file.c_str()};
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK);
    EXPECT_EQ(etw_consumer_process(c), ETW_OK);
    etw_consumer_close(c);
    etw_decoder_destroy(d.decoder);
    EXPECT_EQ(d.statuses, (std::vector<etw_status>{ETW_OK, ETW_OK}));
    ASSERT_EQ(d.lines.size(), 2u);
    EXPECT_EQ(d.lines[0], "OrderShipped Ship Start Orders OrderId=4711 Customer=Fabrikam");
    EXPECT_EQ(d.lines[1].substr(0, 16), "OldOrderShipped ");
}

// etwdump (the tool) prints what the consumer delivers: every descriptor
// member and both activity ids, in jsonl and in text.
std::vector<std::string> run_etwdump(const std::string &args)
{
    std::vector<std::string> lines;
    const char *tool = std::getenv("ETWDUMP");
    if (tool == nullptr)
        return lines;
    std::FILE *f = popen((std::string("\"") + tool + "\" " + args + " 2>/dev/null").c_str(), "r");
    char buf[8192];
    while (f && std::fgets(buf, sizeof buf, f))
        lines.emplace_back(buf);
    if (f)
        pclose(f);
    return lines;
}

TEST(EventHeader, EtwdumpShowsTheDescriptorAndActivityIds)
{
    ASSERT_NE(std::getenv("ETWDUMP"), nullptr);
    const etw_guid g = guid_of(0x601);
    Session s("etwdump", true, false);
    Provider p(g);
    s.enable(g, 0, 0, 0);
    const etw_event_descriptor d = {4711, 2, 16, 4, 1, 9, 0x8000000000000010ull};
    const etw_guid activity = guid_of(0xA1), related = guid_of(0xB2);
    ASSERT_EQ(etw_provider_write_event(p.p, &d, 0, &activity, &related, 0, nullptr), ETW_OK);
    s.stop();
    const auto jsonl = run_etwdump("--format jsonl --no-decode " + s.file);
    std::string line;
    for (const std::string &l : jsonl)
        if (l.find("\"kind\": \"event\"") != std::string::npos)
            line = l;
    ASSERT_FALSE(line.empty());
    for (const char *want :
         {"\"activity_id\": \"000000a1-e7e7-4a4a-0313-233343536373\"", "\"channel\": 16", "\"event_flags\": 1",
          "\"event_id\": 4711", "\"header_type\": 19", "\"keyword\": \"0x8000000000000010\"", "\"level\": 4",
          "\"opcode\": 1", "\"related_activity_id\": \"000000b2-e7e7-4a4a-0313-233343536373\"", "\"task\": 9",
          "\"version\": 2"})
        EXPECT_NE(line.find(want), std::string::npos) << want << " in " << line;
    const auto text = run_etwdump("--format text --no-decode " + s.file);
    ASSERT_FALSE(text.empty());
    EXPECT_NE(text.back().find(" id=4711 opcode=1 level=4 version=2 task=9 channel=16 keyword=0x8000000000000010 "
                               "activity=000000a1-e7e7-4a4a-0313-233343536373 "
                               "related_activity=000000b2-e7e7-4a4a-0313-233343536373"),
              std::string::npos)
        << text.back();
}

// ---- Level and keyword, session by session ----

struct Rule {
    const char *what;
    std::uint8_t session_level;
    std::uint64_t any, all;
    std::uint8_t event_level;
    std::uint64_t keyword;
    bool taken;
};

const Rule kRules[] = {
    {"session level 0 takes every level", 0, 0, 0, 5, 0x1, true},
    {"a level above the session's is not taken", 3, 0, 0, 4, 0x1, false},
    {"the session's level is taken", 3, 0, 0, 3, 0x1, true},
    {"event level 0 is always taken", 3, 0, 0, 0, 0x1, true},
    {"MatchAnyKeyword 0 takes every keyword", 5, 0, 0, 1, 0x10, true},
    {"a keyword without a MatchAny bit is not taken", 5, 0x1, 0, 1, 0x10, false},
    {"one MatchAny bit suffices", 5, 0x11, 0, 1, 0x10, true},
    {"keyword 0 passes MatchAnyKeyword", 5, 0x1, 0, 1, 0, true},
    {"keyword 0 passes MatchAllKeyword", 5, 0x1, 0x3, 1, 0, true},
    {"a keyword missing a MatchAll bit is not taken", 5, 0x30, 0x30, 1, 0x10, false},
    {"a keyword with every MatchAll bit is taken", 5, 0x30, 0x30, 1, 0x30, true},
};

void check_rules(bool in_process, std::uint32_t guids)
{
    Session s("rules", in_process, false);
    std::vector<std::unique_ptr<Provider>> providers;
    const std::size_t n = sizeof kRules / sizeof kRules[0];
    for (std::size_t i = 0; i < n; ++i) {
        const Rule &r = kRules[i];
        const etw_guid g = guid_of(guids + std::uint32_t(i));
        providers.push_back(std::make_unique<Provider>(g));
        s.enable(g, r.session_level, r.any, r.all);
        EXPECT_EQ(etw_provider_is_enabled(providers.back()->p, r.event_level, r.keyword), r.taken ? 1 : 0) << r.what;
        const etw_event_descriptor d = {std::uint16_t(i), 0, 0, r.event_level, 0, 0, r.keyword};
        EXPECT_EQ(etw_provider_write_event(providers.back()->p, &d, 0, nullptr, nullptr, 0, nullptr), ETW_OK);
    }
    s.stop();
    for (std::size_t i = 0; i < n; ++i) {
        const ReadBack rb = read_file(s.file, guid_of(guids + std::uint32_t(i)));
        EXPECT_EQ(rb.events.size(), kRules[i].taken ? 1u : 0u) << kRules[i].what;
    }
}

TEST(EventHeader, LevelAndKeywordMatchAsWindowsDoes) { check_rules(true, 0x300); }
// The enablement travels through the session host to the writer's process.
TEST(EventHeader, LevelAndKeywordMatchAsWindowsDoesInAHostedSession) { check_rules(false, 0x380); }

// A level one session takes and a keyword another takes do not make an
// event either takes; each session gets what it asked for.
TEST(EventHeader, EachSessionTakesWhatItsOwnLevelAndKeywordsAdmit)
{
    const etw_guid g = guid_of(0x400);
    Session a("per-a", true, false), b("per-b", true, false);
    Provider p(g);
    a.enable(g, 5, 0x1, 0);
    b.enable(g, 1, 0x2, 0);
    EXPECT_EQ(etw_provider_is_enabled(p.p, 5, 0x2), 0);
    EXPECT_EQ(etw_provider_is_enabled(p.p, 5, 0x1), 1);
    EXPECT_EQ(etw_provider_is_enabled(p.p, 1, 0x2), 1);
    const etw_event_descriptor none = {1, 0, 0, 5, 0, 0, 0x2}; // a's level, b's keyword
    const etw_event_descriptor to_a = {2, 0, 0, 5, 0, 0, 0x1};
    const etw_event_descriptor to_b = {3, 0, 0, 1, 0, 0, 0x2};
    for (const etw_event_descriptor *d : {&none, &to_a, &to_b})
        EXPECT_EQ(etw_provider_write_event(p.p, d, 0, nullptr, nullptr, 0, nullptr), ETW_OK);
    // A classic event has no keyword: its level alone decides.
    alignas(8) etw_event_trace_header h{};
    h.Size = sizeof h;
    h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    h.Class.Level = 4;
    h.Guid = g;
    EXPECT_EQ(etw_provider_trace_event(p.p, &h), ETW_OK);
    a.stop();
    b.stop();
    const ReadBack ra = read_file(a.file, g), rb = read_file(b.file, g);
    ASSERT_EQ(ra.events.size(), 2u);
    EXPECT_EQ(r16(ra.events[0].bytes.data() + 40), 2);
    EXPECT_EQ(ra.events[1].kind, ETW_RECORD_KIND_FULL);
    ASSERT_EQ(rb.events.size(), 1u);
    EXPECT_EQ(r16(rb.events[0].bytes.data() + 40), 3);
}

// ---- Activity ids ----

TEST(EventHeader, ActivityIdControlFollowsEventActivityIdControl)
{
    std::thread([] {
        const etw_guid zero{};
        etw_guid id = guid_of(1);
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &id), ETW_OK);
        EXPECT_TRUE(same(id, zero)) << "a thread starts with the zero GUID";

        const etw_guid a = guid_of(0xA);
        id = a;
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_SET_ID, &id), ETW_OK);
        etw_guid got{};
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &got), ETW_OK);
        EXPECT_TRUE(same(got, a));

        etw_guid c1{}, c2{};
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_CREATE_ID, &c1), ETW_OK);
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_CREATE_ID, &c2), ETW_OK);
        EXPECT_FALSE(same(c1, zero));
        EXPECT_FALSE(same(c1, c2)) << "CREATE makes a new id each time";
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &got), ETW_OK);
        EXPECT_TRUE(same(got, a)) << "CREATE leaves the thread's id";

        const etw_guid b = guid_of(0xB);
        id = b;
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_SET_ID, &id), ETW_OK);
        EXPECT_TRUE(same(id, a)) << "GET_SET returns the old id";
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &got), ETW_OK);
        EXPECT_TRUE(same(got, b)) << "GET_SET sets the given one";

        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_CREATE_SET_ID, &id), ETW_OK);
        EXPECT_TRUE(same(id, b)) << "CREATE_SET returns the old id";
        ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &got), ETW_OK);
        EXPECT_FALSE(same(got, b));
        EXPECT_FALSE(same(got, zero));
        EXPECT_FALSE(same(got, c1));
        EXPECT_FALSE(same(got, c2));

        // Another thread's id is its own.
        std::thread([] {
            etw_guid other = guid_of(5);
            ASSERT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, &other), ETW_OK);
            EXPECT_TRUE(same(other, etw_guid{}));
        }).join();

        EXPECT_EQ(etw_activity_id_control(0, &id), ETW_ERROR_INVALID_PARAMETER);
        EXPECT_EQ(etw_activity_id_control(6, &id), ETW_ERROR_INVALID_PARAMETER);
        EXPECT_EQ(etw_activity_id_control(ETW_ACTIVITY_CTRL_GET_ID, nullptr), ETW_ERROR_INVALID_PARAMETER);
    }).join();
}

// ---- Statuses ----

TEST(EventHeader, BadArgumentsHaveWindowsStatuses)
{
    const etw_guid g = guid_of(0x500);
    Session s("status", true, false, 64);
    Provider p(g);
    s.enable(g, 0, 0, 0);
    const etw_event_descriptor d = {1, 0, 0, 4, 0, 0, 0};
    std::vector<std::uint8_t> big(0x10000);
    etw_event_data_descriptor one = {std::uint64_t(reinterpret_cast<std::uintptr_t>(big.data())), 8, 0};
    EXPECT_EQ(etw_provider_write_event(nullptr, &d, 0, nullptr, nullptr, 0, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_write_event(p.p, nullptr, 0, nullptr, nullptr, 0, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, nullptr, 1, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0x1, nullptr, nullptr, 1, &one), ETW_ERROR_INVALID_PARAMETER);
    etw_event_data_descriptor null_ptr = {0, 4, 0};
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, nullptr, 1, &null_ptr), ETW_ERROR_INVALID_PARAMETER);
    std::vector<etw_event_data_descriptor> many(ETW_MAX_EVENT_DATA_DESCRIPTORS + 1, one);
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, nullptr, std::uint32_t(many.size()), many.data()),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, nullptr, ETW_MAX_EVENT_DATA_DESCRIPTORS, many.data()),
              ETW_OK);
    // Header and data above 0xFFFF: whatever the buffers.
    one.Size = 0xFFFF - 0x50 + 1;
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, nullptr, 1, &one), ETW_ERROR_ARITHMETIC_OVERFLOW);
    // The related activity item counts too.
    const etw_guid rel = guid_of(7);
    one.Size = 0xFFFF - 0x50 - 24 + 1;
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, &rel, 1, &one), ETW_ERROR_ARITHMETIC_OVERFLOW);
    // Fits the 16-bit Size, not a 64 KB buffer.
    one.Size = 0xFFFF - 0x50;
    EXPECT_EQ(etw_provider_write_event(p.p, &d, 0, nullptr, nullptr, 1, &one), ETW_ERROR_MORE_DATA);
    EXPECT_STREQ(etw_status_name(ETW_ERROR_ARITHMETIC_OVERFLOW), "ETW_ERROR_ARITHMETIC_OVERFLOW");
}

} // namespace
