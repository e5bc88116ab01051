// Enable properties (EVENT_ENABLE_PROPERTY_*): the extended data items each
// adds to EVENT_HEADER events, byte for byte against the documented structs
// (EVENT_HEADER_EXTENDED_DATA_ITEM, SID, EVENT_EXTENDED_ITEM_TS_ID,
// _PROCESS_START_KEY, _EVENT_KEY, _STACK_TRACE64), per session; keyword 0
// ignored; classic events untouched; the read-back helpers; and a stack
// named by etwdump down to the writing function. Sessions run in this
// process; the engine's enable_provider takes the properties (the public
// EnableTraceEx2 parameters are another change's).
#include "../engine/engine_session.hpp"
#include "../engine/engine_test_util.hpp"

#include "engine/engine.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

using namespace enginetest;

namespace {

struct Item {
    std::uint16_t ext_type, linkage, item_size, data_size;
    std::vector<std::uint8_t> data;
};

struct Rec {
    std::uint32_t kind = 0;
    std::uint16_t event_id = 0, event_flags = 0;
    std::uint64_t keyword = 0;
    std::uint32_t pid = 0;
    std::vector<std::uint8_t> payload;
    std::vector<Item> items;
    std::vector<etw_extended_item> raw; // pointing into items' data (kept alive with the Rec)
    std::string guid_text;
    etw_guid guid{};
};

std::uint32_t rd32(const std::uint8_t *p)
{
    return std::uint32_t(p[0] | p[1] << 8 | p[2] << 16 | std::uint32_t(p[3]) << 24);
}
std::uint64_t rd64(const std::uint8_t *p) { return rd32(p) | std::uint64_t(rd32(p + 4)) << 32; }

std::vector<Rec> read_records(const std::string &file)
{
    std::vector<Rec> out;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.user_data = &out;
    o.record = [](void *user, const etw_record *r) -> int32_t {
        auto &v = *static_cast<std::vector<Rec> *>(user);
        if (r->kind != ETW_RECORD_KIND_EVENT && r->kind != ETW_RECORD_KIND_FULL)
            return 0;
        Rec x;
        x.kind = r->kind;
        x.event_id = r->event_id;
        x.event_flags = r->event_flags;
        x.keyword = r->keyword;
        x.pid = r->process_id;
        x.guid = r->guid;
        x.payload.assign(r->payload, r->payload + r->payload_size);
        for (std::uint32_t i = 0; i < r->extended_count; ++i) {
            const etw_extended_item &e = r->extended[i];
            x.items.push_back({e.ext_type, e.linkage, e.item_size, e.data_size,
                               std::vector<std::uint8_t>(e.data, e.data + e.data_size)});
        }
        v.push_back(std::move(x));
        return 0;
    };
    etw_consumer *c = nullptr;
    const char *paths[] = {file.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    if (c) {
        EXPECT_EQ(etw_consumer_process(c), ETW_OK) << etw_last_error_message();
        etw_consumer_close(c);
    }
    for (Rec &r : out)
        for (Item &i : r.items)
            r.raw.push_back({i.ext_type, i.linkage, i.item_size, i.data_size, i.data.data()});
    return out;
}

// A file session of this process with the provider enabled through the
// engine with the given properties.
struct PropSession {
    std::string file;
    Props props;
    SessionHandle s;
    PropSession(const etw_guid &provider, std::uint32_t property, std::uint64_t any = 0)
        : file(temp_file("props")), props(unique_name("props"), file)
    {
        EXPECT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
        const openetw::Status st = openetw::engine::Engine::instance().enable_provider(
            engine_session_ref(s.s), provider, true, 0, any, 0, property);
        EXPECT_TRUE(st) << st.message;
    }
    std::vector<Rec> stop_and_read()
    {
        EXPECT_EQ(etw_session_stop(s, nullptr), ETW_OK);
        etw_session_close(s.s);
        s.s = nullptr;
        return read_records(file);
    }
};

etw_event_descriptor descriptor(std::uint16_t id, std::uint64_t keyword = 0)
{
    etw_event_descriptor d{};
    d.Id = id;
    d.Level = 4;
    d.Keyword = keyword;
    return d;
}

etw_status write(etw_provider *p, std::uint16_t id, std::uint64_t keyword = 0, const etw_guid *related = nullptr)
{
    const etw_event_descriptor d = descriptor(id, keyword);
    std::uint32_t payload = 0xC0FFEE00u + id;
    etw_event_data_descriptor data{reinterpret_cast<std::uintptr_t>(&payload), sizeof payload, 0};
    return etw_provider_write_event(p, &d, 0, nullptr, related, 1, &data);
}

std::vector<const Rec *> events(const std::vector<Rec> &recs)
{
    std::vector<const Rec *> out;
    for (const Rec &r : recs)
        if (r.kind == ETW_RECORD_KIND_EVENT)
            out.push_back(&r);
    return out;
}

std::string run(const std::string &command)
{
    std::string out;
    if (FILE *f = popen(command.c_str(), "r")) {
        char buf[4096];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
            out.append(buf, n);
        pclose(f);
    }
    return out;
}

std::uint64_t expected_start_key()
{
    // /proc/self/stat field 22, clock ticks after boot (as the engine reads it).
    FILE *f = std::fopen("/proc/self/stat", "r");
    char buf[1024] = {};
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char *p = std::strrchr(buf, ')');
    int field = 2;
    for (++p; *p && field < 22; ++p)
        if (*p == ' ')
            ++field;
    const std::uint64_t ticks = std::strtoull(p, nullptr, 10);
    return (ticks + 1) << 22 | std::uint32_t(getpid());
}

} // namespace

// The writing function of the stack test: its name must show in etwdump's frames.
extern "C" __attribute__((noinline)) etw_status openetw_stack_test_named_writer(etw_provider *p)
{
    const etw_status st = write(p, 7);
    asm volatile("" ::: "memory"); // no tail call: this frame stays on the stack
    return st;
}

TEST(EventProperties, StackResolvesToTheWritingFunctionInEtwdump)
{
    const etw_guid g = make_guid(0x57AC0001);
    Provider provider(g);
    PropSession session(g, ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE);
    ASSERT_EQ(openetw_stack_test_named_writer(provider), ETW_OK);
    const std::string file = session.file;
    const std::vector<Rec> recs = session.stop_and_read();
    const auto evs = events(recs);
    ASSERT_EQ(evs.size(), 1u);
    ASSERT_EQ(evs[0]->items.size(), 1u);
    EXPECT_EQ(evs[0]->items[0].ext_type,
              sizeof(void *) == 8 ? ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 : ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32);
    // The module map came before the event: this program's own image among its Image records.
    bool image = false;
    for (const Rec &r : recs)
        image |= r.kind == ETW_RECORD_KIND_FULL && r.guid.Data1 == 0x2cb15d1d;
    EXPECT_TRUE(image) << "no Image/DCStart record before the stack";

    const char *etwdump = std::getenv("ETWDUMP");
    if (!etwdump)
        GTEST_SKIP() << "ETWDUMP is not set (meson test sets it)";
    const std::string out = run(std::string(etwdump) + " --format text " + file + " 2>&1");
    EXPECT_NE(out.find("!openetw_stack_test_named_writer+0x"), std::string::npos) << out;
    EXPECT_NE(out.find("Image/DCStart"), std::string::npos) << out;
    // The frames of the test program itself are named too (the caller of the writer).
    EXPECT_NE(out.find("EventProperties_StackResolvesToTheWritingFunctionInEtwdump"), std::string::npos) << out;
    // JSON Lines: "stack": ["0xADDRESS module!function+0xoff", ...].
    const std::string jsonl = run(std::string(etwdump) + " --format jsonl " + file + " 2>&1");
    const std::size_t stack = jsonl.find("\"stack\": [");
    ASSERT_NE(stack, std::string::npos) << jsonl;
    EXPECT_NE(jsonl.find("!openetw_stack_test_named_writer+0x", stack), std::string::npos) << jsonl;
}

// Writers on several threads: each event has its own thread's stack, and
// the module map is written once for the process, whichever thread came first.
TEST(EventProperties, ManyThreadsEachTheirStackAndOneModuleMap)
{
    const etw_guid g = make_guid(0x57AC0007);
    Provider provider(g);
    PropSession session(g, ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE, 0);
    constexpr int kThreads = 4, kEach = 200;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&provider, t] {
            for (int i = 0; i < kEach; ++i)
                EXPECT_EQ(write(provider, std::uint16_t(100 + t)), ETW_OK);
        });
    for (std::thread &t : threads)
        t.join();
    const auto recs = session.stop_and_read();
    const auto evs = events(recs);
    ASSERT_EQ(evs.size(), std::size_t(kThreads * kEach));
    for (const Rec *e : evs) {
        ASSERT_EQ(e->items.size(), 1u);
        std::uint32_t count = 0;
        ASSERT_EQ(etw_extended_item_stack(&e->raw[0], nullptr, nullptr, 0, &count), ETW_ERROR_MORE_DATA);
        EXPECT_GE(count, 3u); // the library's frames, the test's write(), the thread's lambda...
    }
    std::vector<std::string> images; // the Image records' payloads: each image once
    for (const Rec &r : recs)
        if (r.kind == ETW_RECORD_KIND_FULL && r.guid.Data1 == 0x2cb15d1d)
            images.emplace_back(r.payload.begin(), r.payload.end());
    ASSERT_FALSE(images.empty());
    std::sort(images.begin(), images.end());
    EXPECT_EQ(std::adjacent_find(images.begin(), images.end()), images.end()) << "an image was written twice";
}

TEST(EventProperties, SidIsTheWritersUnixUser)
{
    const etw_guid g = make_guid(0x57AC0002);
    Provider provider(g);
    PropSession session(g, ETW_EVENT_ENABLE_PROPERTY_SID);
    ASSERT_EQ(write(provider, 1), ETW_OK);
    const std::vector<Rec> recs = session.stop_and_read();
    const auto evs = events(recs);
    ASSERT_EQ(evs.size(), 1u);
    ASSERT_EQ(evs[0]->items.size(), 1u);
    const Item &sid = evs[0]->items[0];
    EXPECT_EQ(sid.ext_type, ETW_EVENT_HEADER_EXT_TYPE_SID);
    // SID: Revision 1, SubAuthorityCount 2, IdentifierAuthority {0,0,0,0,0,22}, SubAuthority {1, uid}.
    const std::uint32_t uid = geteuid();
    const std::array<std::uint8_t, 16> want = {1,
                                               2,
                                               0,
                                               0,
                                               0,
                                               0,
                                               0,
                                               22,
                                               1,
                                               0,
                                               0,
                                               0,
                                               std::uint8_t(uid),
                                               std::uint8_t(uid >> 8),
                                               std::uint8_t(uid >> 16),
                                               std::uint8_t(uid >> 24)};
    ASSERT_EQ(sid.data.size(), want.size());
    EXPECT_EQ(std::memcmp(sid.data.data(), want.data(), want.size()), 0);
    char text[64];
    std::uint32_t length = 0;
    ASSERT_EQ(etw_extended_item_sid_string(&evs[0]->raw[0], text, sizeof text, &length), ETW_OK);
    EXPECT_EQ(std::string(text), "S-1-22-1-" + std::to_string(uid));
    EXPECT_EQ(length, std::strlen(text));
    if (const char *etwdump = std::getenv("ETWDUMP")) {
        const std::string out = run(std::string(etwdump) + " --format text " + session.file + " 2>&1");
        EXPECT_NE(out.find(" sid=S-1-22-1-" + std::to_string(uid) + " "), std::string::npos) << out;
        const std::string jsonl = run(std::string(etwdump) + " --format jsonl " + session.file + " 2>&1");
        EXPECT_NE(jsonl.find("\"sid\": \"S-1-22-1-" + std::to_string(uid) + "\""), std::string::npos) << jsonl;
    }
}

TEST(EventProperties, EveryItemInOrderWithItsDocumentedLayout)
{
    const etw_guid g = make_guid(0x57AC0003);
    Provider provider(g);
    const std::uint32_t all = ETW_EVENT_ENABLE_PROPERTY_SID | ETW_EVENT_ENABLE_PROPERTY_TS_ID |
                              ETW_EVENT_ENABLE_PROPERTY_PROCESS_START_KEY | ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY |
                              ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE;
    PropSession a(g, all), b(g, ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY);
    const etw_guid related = make_guid(0xAE1A7ED);
    ASSERT_EQ(write(provider, 1, 0, &related), ETW_OK);
    ASSERT_EQ(write(provider, 2), ETW_OK);
    const auto ra = a.stop_and_read(), rb = b.stop_and_read();
    const auto ea = events(ra), eb = events(rb);
    ASSERT_EQ(ea.size(), 2u);
    ASSERT_EQ(eb.size(), 2u);
    const Rec &e = *ea[0];
    EXPECT_NE(e.event_flags & ETW_EVENT_HEADER_FLAG_EXTENDED_INFO, 0);
    const std::uint16_t stack =
        sizeof(void *) == 8 ? ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 : ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32;
    const std::vector<std::uint16_t> order = {ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID,
                                              ETW_EVENT_HEADER_EXT_TYPE_SID,
                                              ETW_EVENT_HEADER_EXT_TYPE_TS_ID,
                                              ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY,
                                              ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY,
                                              stack};
    ASSERT_EQ(e.items.size(), order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(e.items[i].ext_type, order[i]);
        // Linkage on every item but the last; ItemSize: the 8-byte header and the data padded to 8.
        EXPECT_EQ(e.items[i].linkage, i + 1 < order.size() ? 1 : 0);
        EXPECT_EQ(e.items[i].item_size, 8 + ((e.items[i].data_size + 7) & ~7));
    }
    EXPECT_EQ(std::memcmp(e.items[0].data.data(), &related, 16), 0);
    ASSERT_EQ(e.items[2].data.size(), 4u); // EVENT_EXTENDED_ITEM_TS_ID: ULONG SessionId
    EXPECT_EQ(rd32(e.items[2].data.data()), std::uint32_t(getsid(0)));
    ASSERT_EQ(e.items[3].data.size(), 8u); // EVENT_EXTENDED_ITEM_PROCESS_START_KEY: ULONG64
    EXPECT_EQ(rd64(e.items[3].data.data()), expected_start_key());
    ASSERT_EQ(e.items[4].data.size(), 8u); // EVENT_EXTENDED_ITEM_EVENT_KEY: ULONG64 Key
    // EVENT_EXTENDED_ITEM_STACK_TRACE64: ULONG64 MatchId, then ULONG64 Address[]; MatchId 0.
    const Item &st = e.items[5];
    ASSERT_GE(st.data.size(), 8u + sizeof(void *));
    EXPECT_EQ((st.data.size() - 8) % sizeof(void *), 0u);
    EXPECT_EQ(rd64(st.data.data()), 0u);
    std::uint64_t match = 1;
    std::uint32_t count = 0;
    std::vector<std::uint64_t> addresses(256);
    ASSERT_EQ(etw_extended_item_stack(&e.raw[5], &match, addresses.data(), 256, &count), ETW_OK);
    EXPECT_EQ(match, 0u);
    EXPECT_EQ(count, (st.data.size() - 8) / sizeof(void *));
    EXPECT_EQ(addresses[0], rd64(st.data.data() + 8));
    EXPECT_LE(count, 192u);
    // The user data after the items, as written.
    ASSERT_EQ(e.payload.size(), 4u);
    EXPECT_EQ(rd32(e.payload.data()), 0xC0FFEE01u);

    // The event key: one per event, the same in every session that takes it.
    ASSERT_EQ(eb[0]->items.size(), 2u); // the related activity id, then the key
    ASSERT_EQ(eb[1]->items.size(), 1u);
    ASSERT_EQ(ea[1]->items.size(), 5u); // no related activity id
    EXPECT_EQ(eb[0]->items[1].data, e.items[4].data);
    EXPECT_EQ(eb[1]->items[0].data, ea[1]->items[3].data);
    EXPECT_NE(eb[0]->items[1].data, eb[1]->items[0].data);
}

TEST(EventProperties, EachPropertyAloneAddsItsItemAndNoneAddsNothing)
{
    const etw_guid g = make_guid(0x57AC0004);
    Provider provider(g);
    const std::uint16_t stack =
        sizeof(void *) == 8 ? ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 : ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32;
    const std::pair<std::uint32_t, std::uint16_t> cases[] = {
        {ETW_EVENT_ENABLE_PROPERTY_SID, ETW_EVENT_HEADER_EXT_TYPE_SID},
        {ETW_EVENT_ENABLE_PROPERTY_TS_ID, ETW_EVENT_HEADER_EXT_TYPE_TS_ID},
        {ETW_EVENT_ENABLE_PROPERTY_PROCESS_START_KEY, ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY},
        {ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY, ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY},
        {ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE, stack},
        {0, 0},
        {ETW_EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0, 0}};
    for (const auto &[property, type] : cases) {
        SCOPED_TRACE(property);
        // Beside a session without properties, which gets the event as before.
        PropSession with(g, property), without(g, 0);
        ASSERT_EQ(write(provider, 3, 0x10), ETW_OK);
        const auto rw = with.stop_and_read(), ro = without.stop_and_read();
        const auto ew = events(rw), eo = events(ro);
        ASSERT_EQ(ew.size(), 1u);
        ASSERT_EQ(eo.size(), 1u);
        EXPECT_TRUE(eo[0]->items.empty());
        EXPECT_EQ(eo[0]->event_flags & ETW_EVENT_HEADER_FLAG_EXTENDED_INFO, 0);
        if (type == 0) {
            EXPECT_TRUE(ew[0]->items.empty());
            EXPECT_EQ(ew[0]->event_flags & ETW_EVENT_HEADER_FLAG_EXTENDED_INFO, 0);
        } else {
            ASSERT_EQ(ew[0]->items.size(), 1u);
            EXPECT_EQ(ew[0]->items[0].ext_type, type);
            EXPECT_EQ(ew[0]->items[0].linkage, 0);
        }
        EXPECT_EQ(ew[0]->payload, eo[0]->payload);
    }
}

// A STACKWALK filter that leaves an event's only item out leaves its
// EXTENDED_INFO flag clear too: a reader would look for items that are not there.
TEST(EventProperties, StackwalkFilterWithoutItemsLeavesNoExtendedFlag)
{
    const etw_guid g = make_guid(0x57AC0008);
    Provider provider(g);
    const std::string file = temp_file("stackwalk");
    Props props(unique_name("stackwalk"), file);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    const unsigned char ids[] = {1, 0, 1, 0, 3, 0}; // FilterIn 1, Count 1, id 3
    etw_event_filter_descriptor filter{reinterpret_cast<std::uintptr_t>(ids), sizeof ids,
                                       ETW_EVENT_FILTER_TYPE_STACKWALK};
    etw_enable_parameters params{};
    params.struct_size = sizeof params;
    params.enable_property = ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE;
    params.filter_count = 1;
    params.filters = &filter;
    ASSERT_EQ(etw_session_enable_provider_ex(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, &params), ETW_OK)
        << etw_last_error_message();
    ASSERT_EQ(write(provider, 3), ETW_OK);
    ASSERT_EQ(write(provider, 4), ETW_OK);
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    const auto recs = read_records(file);
    const auto ev = events(recs);
    ASSERT_EQ(ev.size(), 2u);
    for (const Rec *r : ev) {
        SCOPED_TRACE(r->event_id);
        const bool stack = r->event_id == 3;
        EXPECT_EQ(r->items.size(), stack ? 1u : 0u);
        EXPECT_EQ((r->event_flags & ETW_EVENT_HEADER_FLAG_EXTENDED_INFO) != 0, stack);
        EXPECT_EQ(r->payload.size(), 4u);
    }
}

TEST(EventProperties, IgnoreKeyword0DropsKeywordlessEventsForThatSessionOnly)
{
    const etw_guid g = make_guid(0x57AC0005);
    Provider provider(g);
    PropSession ignoring(g, ETW_EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0), taking(g, 0);
    ASSERT_EQ(write(provider, 1, 0), ETW_OK);
    ASSERT_EQ(write(provider, 2, 0x4), ETW_OK);
    // Classic events have no keyword: the property leaves them alone.
    Event classic(g, 8);
    ASSERT_EQ(etw_provider_trace_event(provider, classic.h()), ETW_OK);
    const auto ri = ignoring.stop_and_read(), rt = taking.stop_and_read();
    const auto ei = events(ri), et = events(rt);
    ASSERT_EQ(ei.size(), 1u);
    EXPECT_EQ(ei[0]->event_id, 2);
    ASSERT_EQ(et.size(), 2u);
    auto classics = [](const std::vector<Rec> &v) {
        std::size_t n = 0;
        for (const Rec &r : v)
            n += r.kind == ETW_RECORD_KIND_FULL;
        return n;
    };
    EXPECT_EQ(classics(ri), 1u);
    EXPECT_EQ(classics(rt), 1u);
}

TEST(EventProperties, ClassicEventsCarryNoItems)
{
    const etw_guid g = make_guid(0x57AC0006);
    Provider provider(g);
    PropSession session(g, ETW_EVENT_ENABLE_PROPERTY_SID | ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE |
                               ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY);
    Event classic(g, 16);
    ASSERT_EQ(etw_provider_trace_event(provider, classic.h()), ETW_OK);
    const auto recs = session.stop_and_read();
    std::size_t n = 0;
    for (const Rec &r : recs) {
        if (r.kind != ETW_RECORD_KIND_FULL || std::memcmp(&r.guid, &g, sizeof g) != 0)
            continue;
        ++n;
        EXPECT_TRUE(r.items.empty());
        EXPECT_EQ(r.payload.size(), 16u);
    }
    EXPECT_EQ(n, 1u);
}

TEST(EventProperties, StackItemReaderStatuses)
{
    alignas(8) std::uint8_t bytes[8 + 3 * 8] = {};
    bytes[0] = 5; // MatchId 5
    for (int i = 0; i < 3; ++i)
        bytes[8 + 8 * i] = std::uint8_t(0x10 + i);
    etw_extended_item item{ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64, 0, 8 + sizeof bytes, sizeof bytes, bytes};
    std::uint64_t a[3] = {};
    std::uint32_t count = 0;
    std::uint64_t match = 0;
    EXPECT_EQ(etw_extended_item_stack(&item, &match, a, 2, &count), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(count, 3u);
    EXPECT_EQ(a[1], 0x11u);
    EXPECT_NE(std::string(etw_last_error_message()).find("3 addresses"), std::string::npos);
    EXPECT_EQ(etw_extended_item_stack(&item, &match, a, 3, &count), ETW_OK);
    EXPECT_EQ(match, 5u);
    EXPECT_EQ(a[2], 0x12u);
    // 32-bit addresses: the same bytes are 6 of them.
    item.ext_type = ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32;
    EXPECT_EQ(etw_extended_item_stack(&item, nullptr, nullptr, 0, &count), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(count, 6u);
    item.ext_type = ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64;
    item.data_size = 12; // a MatchId and half an address
    EXPECT_EQ(etw_extended_item_stack(&item, nullptr, a, 3, &count), ETW_ERROR_INVALID_DATA);
    EXPECT_NE(std::string(etw_last_error_message()).find("12 bytes"), std::string::npos);
    item.ext_type = ETW_EVENT_HEADER_EXT_TYPE_SID;
    EXPECT_EQ(etw_extended_item_stack(&item, nullptr, a, 3, &count), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("not a stack"), std::string::npos);
    EXPECT_EQ(etw_extended_item_stack(nullptr, nullptr, a, 3, &count), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_extended_item_stack(&item, nullptr, nullptr, 3, &count), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("addresses is NULL"), std::string::npos);
}

TEST(EventProperties, SidStringStatuses)
{
    // S-1-5-21-1-2-3-500: a Windows domain account.
    std::uint8_t sid[8 + 5 * 4] = {1, 5, 0, 0, 0, 0, 0, 5};
    const std::uint32_t subs[5] = {21, 1, 2, 3, 500};
    for (int i = 0; i < 5; ++i)
        for (int k = 0; k < 4; ++k)
            sid[8 + 4 * i + k] = std::uint8_t(subs[i] >> (8 * k));
    etw_extended_item item{ETW_EVENT_HEADER_EXT_TYPE_SID, 0, 8 + sizeof sid, sizeof sid, sid};
    char text[64];
    std::uint32_t length = 0;
    ASSERT_EQ(etw_extended_item_sid_string(&item, text, sizeof text, &length), ETW_OK);
    EXPECT_STREQ(text, "S-1-5-21-1-2-3-500");
    EXPECT_EQ(etw_extended_item_sid_string(&item, text, 18, &length), ETW_ERROR_INSUFFICIENT_BUFFER);
    EXPECT_EQ(length, 18u);
    EXPECT_NE(std::string(etw_last_error_message()).find("19 bytes"), std::string::npos);
    EXPECT_EQ(etw_extended_item_sid_string(&item, text, 19, &length), ETW_OK);
    item.data_size = 20; // SubAuthorityCount 5 needs 28 bytes
    EXPECT_EQ(etw_extended_item_sid_string(&item, text, sizeof text, &length), ETW_ERROR_INVALID_DATA);
    EXPECT_NE(std::string(etw_last_error_message()).find("no SID"), std::string::npos);
    item.data_size = sizeof sid;
    sid[0] = 2; // revision 2 is no SID
    EXPECT_EQ(etw_extended_item_sid_string(&item, text, sizeof text, &length), ETW_ERROR_INVALID_DATA);
    item.ext_type = ETW_EVENT_HEADER_EXT_TYPE_TS_ID;
    EXPECT_EQ(etw_extended_item_sid_string(&item, text, sizeof text, &length), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("not a SID"), std::string::npos);
    EXPECT_EQ(etw_extended_item_sid_string(&item, nullptr, 8, &length), ETW_ERROR_INVALID_PARAMETER);
}
