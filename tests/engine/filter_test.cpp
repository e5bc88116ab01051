// Filters at the source (docs/FILTERS.md): etw_session_enable_provider_ex
// with EVENT_FILTER_DESCRIPTORs, what reaches the file, and the statuses of
// bad filters.
#include "engine_test_util.hpp"

#include "engine/engine.hpp"
#include "engine/event_filter.hpp"
#include "platform/process.hpp"

#include <cctype>
#include <map>

using namespace enginetest;
using openetw::engine::EventFilter;
using openetw::engine::FilterScope;

namespace {

std::uint64_t ptr(const void *p) { return std::uint64_t(reinterpret_cast<std::uintptr_t>(p)); }

// An EVENT_FILTER_EVENT_ID of these ids.
std::vector<std::uint8_t> event_ids(bool filter_in, const std::vector<std::uint16_t> &ids)
{
    std::vector<std::uint8_t> b(4 + 2 * ids.size());
    b[0] = filter_in ? 1 : 0;
    const std::uint16_t n = std::uint16_t(ids.size());
    std::memcpy(&b[2], &n, 2);
    std::memcpy(&b[4], ids.data(), 2 * ids.size());
    return b;
}

std::vector<std::uint8_t> utf16z(const std::string &s)
{
    std::vector<std::uint8_t> b;
    for (char c : s) {
        b.push_back(std::uint8_t(c));
        b.push_back(0);
    }
    b.push_back(0);
    b.push_back(0);
    return b;
}

std::vector<std::uint8_t> event_names(bool filter_in, std::uint8_t level, std::uint64_t any,
                                      const std::vector<std::string> &names)
{
    std::vector<std::uint8_t> b(20);
    std::memcpy(&b[0], &any, 8);
    b[16] = level;
    b[17] = filter_in ? 1 : 0;
    const std::uint16_t n = std::uint16_t(names.size());
    std::memcpy(&b[18], &n, 2);
    for (const std::string &s : names) {
        b.insert(b.end(), s.begin(), s.end());
        b.push_back(0);
    }
    return b;
}

struct Pred {
    std::uint16_t op;
    std::string field, value;
};
// One etw_payload_filter; with ETW_PAYLOAD_FILTER_FLAG_EVENT in flags, for event id/version.
std::vector<std::uint8_t> payload(bool match_all, const std::vector<Pred> &preds, std::uint8_t flags = 0,
                                  std::uint16_t id = 0, std::uint8_t version = 0)
{
    std::vector<std::uint8_t> b(4);
    const std::uint16_t n = std::uint16_t(preds.size());
    std::memcpy(&b[0], &n, 2);
    b[2] = match_all ? 1 : 0;
    b[3] = flags;
    if (flags & ETW_PAYLOAD_FILTER_FLAG_EVENT) {
        const etw_payload_filter_event e{id, version, 0};
        const auto *eb = reinterpret_cast<const std::uint8_t *>(&e);
        b.insert(b.end(), eb, eb + sizeof e);
    }
    for (const Pred &p : preds) {
        while (b.size() % 4)
            b.push_back(0);
        etw_payload_filter_predicate h{p.op, std::uint16_t(p.field.size() + 1), std::uint16_t(p.value.size() + 1), 0};
        const auto *hb = reinterpret_cast<const std::uint8_t *>(&h);
        b.insert(b.end(), hb, hb + sizeof h);
        b.insert(b.end(), p.field.begin(), p.field.end());
        b.push_back(0);
        b.insert(b.end(), p.value.begin(), p.value.end());
        b.push_back(0);
    }
    return b;
}

// Several etw_payload_filters in one blob (TdhAggregatePayloadFilters): NEXT on all but the last.
std::vector<std::uint8_t> aggregate(const std::vector<std::vector<std::uint8_t>> &units)
{
    std::vector<std::uint8_t> b;
    for (std::size_t i = 0; i < units.size(); ++i) {
        while (b.size() % 4)
            b.push_back(0);
        const std::size_t at = b.size();
        b.insert(b.end(), units[i].begin(), units[i].end());
        if (i + 1 < units.size())
            b[at + 3] |= ETW_PAYLOAD_FILTER_FLAG_NEXT;
    }
    return b;
}

etw_event_filter_descriptor desc(const std::vector<std::uint8_t> &b, std::uint32_t type)
{
    return {ptr(b.data()), std::uint32_t(b.size()), type};
}

etw_enable_parameters params(const std::vector<etw_event_filter_descriptor> &filters, std::uint8_t level = 0)
{
    etw_enable_parameters p{};
    p.struct_size = sizeof p;
    p.level = level;
    p.filter_count = std::uint32_t(filters.size());
    p.filters = filters.empty() ? nullptr : filters.data();
    return p;
}

// A session in this process, lossless, with room for many events.
struct Session {
    Props props;
    SessionHandle s;
    std::string file;
    explicit Session(const char *stem, const etw_session_options *extra = nullptr)
        : props(unique_name(stem), temp_file(stem)), file(temp_file(stem))
    {
        etw_properties_set_log_file_name(props, file.c_str());
        etw_properties_set_buffer_size(props, 256);
        etw_properties_set_maximum_buffers(props, 256);
        etw_session_options o{};
        if (extra)
            o = *extra;
        o.struct_size = sizeof o;
        o.flags |= ETW_SESSION_LOSSLESS;
        status = etw_session_start_ex(&s.s, props, &o);
    }
    etw_status status;
    etltest::File stop()
    {
        EXPECT_EQ(etw_session_stop(s, nullptr), ETW_OK);
        return etltest::decode(file);
    }
};

std::uint16_t id_of(const etltest::Event &e) { return etltest::r16(&e.record[40]); }

etw_status write(etw_provider *p, std::uint16_t id, std::uint32_t count = 0,
                 const etw_event_data_descriptor *data = nullptr)
{
    const etw_event_descriptor d = {id, 0, 0, 4, 0, std::uint16_t(id * 10), 1ull << id};
    return etw_provider_write_event(p, &d, 0, nullptr, nullptr, count, data);
}

std::vector<std::uint16_t> ids_in(const etltest::File &f)
{
    std::vector<std::uint16_t> out;
    for (const etltest::Event &e : f.events)
        out.push_back(id_of(e));
    return out;
}

} // namespace

// The scenario: 1,000,000 events of 10 ids; an EVENT_ID filter
// admits one; the file holds exactly its 100,000, each with its Id, Task,
// Keyword and activity id.
TEST(Filters, EventIdFilterAdmitsExactlyTheEventsOfOneIdOutOfAMillion)
{
    const etw_guid pg = make_guid(0xF100);
    Session s("fid");
    ASSERT_EQ(s.status, ETW_OK) << etw_last_error_message();
    Provider prov(pg);
    const auto ids = event_ids(true, {7});
    const std::vector<etw_event_filter_descriptor> f = {desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID)};
    const etw_enable_parameters p = params(f);
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, ETW_CONTROL_CODE_ENABLE_PROVIDER, &p), ETW_OK)
        << etw_last_error_message();
    const std::uint32_t payload_word = 0xC0FFEE;
    const etw_event_data_descriptor data = {ptr(&payload_word), 4, 0};
    for (std::uint32_t i = 0; i < 1000000; ++i) {
        const std::uint16_t id = std::uint16_t(1 + i % 10);
        const etw_event_descriptor d = {id, 0, 0, 4, 0, std::uint16_t(id * 10), 1ull << id};
        etw_guid activity = make_guid(i);
        ASSERT_EQ(etw_provider_write_event(prov, &d, 0, &activity, nullptr, 1, &data), ETW_OK);
    }
    const etltest::File file = s.stop();
    ASSERT_TRUE(file.ok()) << file.problem_text();
    EXPECT_EQ(file.events_lost, 0u);
    ASSERT_EQ(file.events.size(), 100000u);
    std::vector<bool> seen(1000000, false);
    for (const etltest::Event &e : file.events) {
        ASSERT_EQ(id_of(e), 7);
        ASSERT_EQ(etltest::r16(&e.record[46]), 70);        // Task
        ASSERT_EQ(etltest::r64(&e.record[48]), 1ull << 7); // Keyword
        etw_guid activity;
        std::memcpy(&activity, &e.record[64], 16);
        const std::uint32_t i = activity.Data1;
        ASSERT_LT(i, 1000000u);
        ASSERT_EQ(i % 10, 6u); // the event written as number i carried id 7
        const etw_guid expected = make_guid(i);
        ASSERT_EQ(std::memcmp(&activity, &expected, 16), 0);
        ASSERT_FALSE(seen[i]);
        seen[i] = true;
        ASSERT_EQ(etltest::r32(&e.record[0x50]), payload_word);
    }
}

TEST(Filters, EventIdExcludeFilterWritesEveryOtherId)
{
    const etw_guid pg = make_guid(0xF101);
    Session s("fidx");
    ASSERT_EQ(s.status, ETW_OK) << etw_last_error_message();
    Provider prov(pg);
    const auto ids = event_ids(false, {2, 3});
    const std::vector<etw_event_filter_descriptor> f = {desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID)};
    const etw_enable_parameters p = params(f);
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_OK) << etw_last_error_message();
    for (std::uint16_t id = 1; id <= 5; ++id)
        ASSERT_EQ(write(prov, id), ETW_OK);
    // Classic events have no id: the EVENT_ID filter does not apply to them.
    Event classic(make_guid(0xF1C1), 4);
    ASSERT_EQ(etw_provider_trace_event(prov, classic.h()), ETW_OK);
    const etltest::File file = s.stop();
    ASSERT_EQ(file.events.size(), 4u);
    EXPECT_EQ((std::vector<std::uint16_t>{id_of(file.events[0]), id_of(file.events[1]), id_of(file.events[2])}),
              (std::vector<std::uint16_t>{1, 4, 5}));
    EXPECT_EQ(file.events[3].header_type, sizeof(void *) == 8 ? 0x14 : 0x0A); // the classic event: EVENT_TRACE_HEADER
}

TEST(Filters, EnablingAgainReplacesTheFiltersAndWithoutThemEveryEventIsWritten)
{
    const etw_guid pg = make_guid(0xF102);
    Session s("fre");
    ASSERT_EQ(s.status, ETW_OK);
    Provider prov(pg);
    const auto ids = event_ids(true, {1});
    const std::vector<etw_event_filter_descriptor> f = {desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID)};
    const etw_enable_parameters p = params(f);
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_OK);
    ASSERT_EQ(write(prov, 1), ETW_OK);
    ASSERT_EQ(write(prov, 2), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, nullptr), ETW_OK);
    ASSERT_EQ(write(prov, 2), ETW_OK);
    ASSERT_EQ(write(prov, 3), ETW_OK);
    EXPECT_EQ(ids_in(s.stop()), (std::vector<std::uint16_t>{1, 2, 3}));
}

TEST(Filters, PidFilterEnablesOnlyTheListedProcesses)
{
    const etw_guid pg = make_guid(0xF103);
    Session mine("fpid1"), other("fpid2");
    ASSERT_EQ(mine.status, ETW_OK);
    ASSERT_EQ(other.status, ETW_OK);
    struct Seen {
        int calls = 0;
        std::uint32_t enabled = 0;
    } seen;
    etw_provider *prov = nullptr;
    ASSERT_EQ(etw_provider_register(
                  &prov, &pg,
                  [](const etw_provider_enable_info *info, void *u) {
                      auto *s = static_cast<Seen *>(u);
                      ++s->calls;
                      s->enabled = info->is_enabled;
                  },
                  &seen, nullptr),
              ETW_OK);
    const std::uint32_t me[2] = {0x7FFFFFF0u, openetw::platform::process_id()};
    const std::uint32_t not_me[1] = {0x7FFFFFF0u};
    const std::vector<etw_event_filter_descriptor> fm = {{ptr(me), 8, ETW_EVENT_FILTER_TYPE_PID}};
    const std::vector<etw_event_filter_descriptor> fo = {{ptr(not_me), 4, ETW_EVENT_FILTER_TYPE_PID}};
    const etw_enable_parameters pm = params(fm), po = params(fo);
    ASSERT_EQ(etw_session_enable_provider_ex(other.s, &pg, 1, &po), ETW_OK);
    // A session that does not admit this process does not enable it here.
    EXPECT_EQ(etw_provider_enabled_word(prov) ? *etw_provider_enabled_word(prov) : 0u, 0u);
    EXPECT_EQ(seen.enabled, 0u);
    // A registration while only that session enables the GUID: no callback.
    {
        int calls = 0;
        etw_provider *late = nullptr;
        ASSERT_EQ(etw_provider_register(
                      &late, &pg, [](const etw_provider_enable_info *, void *u) { ++*static_cast<int *>(u); }, &calls,
                      nullptr),
                  ETW_OK);
        EXPECT_EQ(calls, 0);
        etw_provider_unregister(late);
    }
    ASSERT_EQ(etw_session_enable_provider_ex(mine.s, &pg, 1, &pm), ETW_OK);
    EXPECT_EQ(seen.enabled, 1u);
    for (std::uint16_t id = 1; id <= 3; ++id)
        ASSERT_EQ(write(prov, id), ETW_OK);
    EXPECT_EQ(mine.stop().events.size(), 3u);
    EXPECT_EQ(other.stop().events.size(), 0u);
    etw_provider_unregister(prov);
}

TEST(Filters, ExecutableNameFilterMatchesTheFileNameCaseInsensitivelyInASemicolonList)
{
    const std::string exe = openetw::platform::executable_name();
    ASSERT_FALSE(exe.empty());
    std::string upper = exe;
    for (char &c : upper)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    const etw_guid pg = make_guid(0xF104);
    Session a("fexe1"), b("fexe2"), c("fexe3");
    Provider prov(pg);
    const auto listed = utf16z("other.exe;" + upper + ";third");
    const auto with_exe = utf16z(exe + ".exe"); // "app.exe" names "app" where executables have no extension
    const auto absent = utf16z("other.exe;" + exe + "x");
    const std::vector<etw_event_filter_descriptor> fa = {desc(listed, ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME)};
    const std::vector<etw_event_filter_descriptor> fb = {desc(with_exe, ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME)};
    const std::vector<etw_event_filter_descriptor> fc = {desc(absent, ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME)};
    const etw_enable_parameters pa = params(fa), pb = params(fb), pc = params(fc);
    ASSERT_EQ(etw_session_enable_provider_ex(a.s, &pg, 1, &pa), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_enable_provider_ex(b.s, &pg, 1, &pb), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_enable_provider_ex(c.s, &pg, 1, &pc), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(write(prov, 1), ETW_OK);
    EXPECT_EQ(a.stop().events.size(), 1u);
    EXPECT_EQ(b.stop().events.size(), 1u);
    EXPECT_EQ(c.stop().events.size(), 0u);
}

TEST(Filters, SessionLevelPidFilterAppliesToEveryProviderItEnables)
{
    const etw_guid g1 = make_guid(0xF105), g2 = make_guid(0xF106);
    const std::uint32_t not_me = 0x7FFFFFF1u, me = openetw::platform::process_id();
    const etw_event_filter_descriptor fo = {ptr(&not_me), 4, ETW_EVENT_FILTER_TYPE_PID};
    const etw_event_filter_descriptor fm = {ptr(&me), 4, ETW_EVENT_FILTER_TYPE_PID};
    etw_session_options oo{}, om{};
    oo.filter_count = 1;
    oo.filters = &fo;
    om.filter_count = 1;
    om.filters = &fm;
    Session other("fsess1", &oo), mine("fsess2", &om);
    ASSERT_EQ(other.status, ETW_OK) << etw_last_error_message();
    ASSERT_EQ(mine.status, ETW_OK) << etw_last_error_message();
    Provider p1(g1), p2(g2);
    for (Session *s : {&other, &mine})
        for (const etw_guid *g : {&g1, &g2})
            ASSERT_EQ(etw_session_enable_provider(s->s, g, 1, 0, 0, 0), ETW_OK);
    ASSERT_EQ(write(p1, 1), ETW_OK);
    ASSERT_EQ(write(p2, 2), ETW_OK);
    EXPECT_EQ(other.stop().events.size(), 0u);
    EXPECT_EQ(ids_in(mine.stop()), (std::vector<std::uint16_t>{1, 2}));
}

TEST(Filters, SessionLevelFiltersArePidAndExecutableNameOnly)
{
    const auto ids = event_ids(true, {1});
    const etw_event_filter_descriptor f = desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID);
    etw_session_options o{};
    o.filter_count = 1;
    o.filters = &f;
    Session s("fsessbad", &o);
    EXPECT_EQ(s.status, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(etw_last_error_message()).find("PID and EXECUTABLE_NAME only"), std::string::npos)
        << etw_last_error_message();
    // The limits hold for a session's own filters too (EVENT_TRACE_PROPERTIES_V2.FilterDesc).
    const std::uint32_t pids[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    const etw_event_filter_descriptor nine = {ptr(pids), sizeof pids, ETW_EVENT_FILTER_TYPE_PID};
    o.filters = &nine;
    Session s2("fsessbad2", &o);
    EXPECT_EQ(s2.status, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("session filter 0"), std::string::npos);
    std::vector<etw_event_filter_descriptor> fourteen(14, f);
    o.filter_count = 14;
    o.filters = fourteen.data();
    Session s3("fsessbad3", &o);
    EXPECT_EQ(s3.status, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("MAX_EVENT_FILTERS_COUNT"), std::string::npos);
}

namespace {

// A TraceLogging event's metadata: name, then fields Count (INT32), Name
// (ANSISTRING), Wide (UNICODESTRING), Values (UINT32[], variable count), Last (UINT64).
std::vector<std::uint8_t> tl_metadata(const std::string &event_name)
{
    std::vector<std::uint8_t> m = {0, 0, 0}; // size (set below), one extension byte
    auto add = [&](const std::string &s) {
        m.insert(m.end(), s.begin(), s.end());
        m.push_back(0);
    };
    add(event_name);
    add("Count");
    m.push_back(7);
    add("Name");
    m.push_back(2);
    add("Wide");
    m.push_back(1);
    add("Values");
    m.push_back(8 | 0x40);
    add("Last");
    m.push_back(10);
    const std::uint16_t n = std::uint16_t(m.size());
    std::memcpy(m.data(), &n, 2);
    return m;
}

struct TlEvent {
    std::vector<std::uint8_t> meta;
    std::int32_t count;
    std::string name;
    std::u16string wide;
    std::uint16_t n_values = 2;
    std::uint32_t values[2] = {11, 22};
    std::uint64_t last = 0x1122334455667788ull;
    etw_event_data_descriptor data[7];
    TlEvent(const std::string &event, std::int32_t c, const std::string &nm, const std::u16string &w)
        : meta(tl_metadata(event)), count(c), name(nm), wide(w)
    {
        data[0] = {ptr(meta.data()), std::uint32_t(meta.size()), ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA};
        data[1] = {ptr(&count), 4, 0};
        data[2] = {ptr(name.c_str()), std::uint32_t(name.size() + 1), 0};
        data[3] = {ptr(wide.c_str()), std::uint32_t(2 * (wide.size() + 1)), 0};
        data[4] = {ptr(&n_values), 2, 0};
        data[5] = {ptr(values), 8, 0};
        data[6] = {ptr(&last), 8, 0};
    }
};

} // namespace

TEST(Filters, EventNameFilterMatchesTraceLoggingNamesWithinItsLevelAndKeywords)
{
    const etw_guid pg = make_guid(0xF107);
    Session in("fname1"), out("fname2");
    Provider prov(pg);
    const auto names_in = event_names(true, 0, 0, {"Alpha", "Gamma"});
    const auto names_out = event_names(false, 4, 0, {"Alpha"});
    const std::vector<etw_event_filter_descriptor> fi = {desc(names_in, ETW_EVENT_FILTER_TYPE_EVENT_NAME)};
    const std::vector<etw_event_filter_descriptor> fo = {desc(names_out, ETW_EVENT_FILTER_TYPE_EVENT_NAME)};
    const etw_enable_parameters pi = params(fi), po = params(fo);
    ASSERT_EQ(etw_session_enable_provider_ex(in.s, &pg, 1, &pi), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_enable_provider_ex(out.s, &pg, 1, &po), ETW_OK) << etw_last_error_message();
    std::uint16_t id = 1;
    for (const char *name : {"Alpha", "Beta", "Gamma"}) {
        TlEvent e(name, 1, "n", u"w");
        ASSERT_EQ(write(prov, id++, 7, e.data), ETW_OK);
    }
    // Level 5 is above the exclude filter's level 4: it passes whatever its name.
    TlEvent verbose("Alpha", 1, "n", u"w");
    const etw_event_descriptor d5 = {9, 0, 0, 5, 0, 0, 0};
    ASSERT_EQ(etw_provider_write_event(prov, &d5, 0, nullptr, nullptr, 7, verbose.data), ETW_OK);
    // No metadata: no name to list.
    ASSERT_EQ(write(prov, 10), ETW_OK);
    EXPECT_EQ(ids_in(in.stop()), (std::vector<std::uint16_t>{1, 3, 9})); // the include filter covers every level
    EXPECT_EQ(ids_in(out.stop()), (std::vector<std::uint16_t>{2, 3, 9, 10}));
}

TEST(Filters, PayloadFilterComparesTraceLoggingFields)
{
    const etw_guid pg = make_guid(0xF108);
    struct Case {
        bool all;
        std::vector<Pred> preds;
        std::vector<std::uint16_t> expect;
    };
    // Events: 1 Count 3 Name "apple" Wide "x"; 2 Count 7 Name "banana" Wide "yz"; 3 Count -2 Name "cherry".
    const std::vector<Case> cases = {
        {true, {{ETW_PAYLOADFIELD_GT, "Count", "5"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_LT, "Count", "0"}}, {3}}, // signed: -2 < 0
        {true, {{ETW_PAYLOADFIELD_BETWEEN, "Count", "-2,3"}}, {1, 3}},
        {true, {{ETW_PAYLOADFIELD_NOTBETWEEN, "Count", "-2,3"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_EQ, "Name", "banana"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_CONTAINS, "Name", "an"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_DOESNTCONTAIN, "Name", "e"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_EQ, "Wide", "yz"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_EQ, "Last", "0x1122334455667788"}}, {1, 2, 3}}, // after the array
        {true, {{ETW_PAYLOADFIELD_GE, "Count", "3"}, {ETW_PAYLOADFIELD_NE, "Name", "banana"}}, {1}},
        {false, {{ETW_PAYLOADFIELD_EQ, "Count", "3"}, {ETW_PAYLOADFIELD_EQ, "Name", "cherry"}}, {1, 3, 10}},
        {true, {{ETW_PAYLOADFIELD_EQ, "Missing", "1"}}, {10}},
        {true, {{ETW_PAYLOADFIELD_MODULO, "Count", "7"}}, {2}}, // 7 % 7 == 0; 3 and -2 are not multiples
        {true, {{ETW_PAYLOADFIELD_MODULO, "Count", "-1"}}, {1, 2, 3}},
        {true, {{ETW_PAYLOADFIELD_EQ, "Name", "BaNaNa"}}, {2}}, // strings compare case-insensitively
        {true, {{ETW_PAYLOADFIELD_CONTAINS, "Wide", "YZ"}}, {2}},
        {true, {{ETW_PAYLOADFIELD_DOESNTCONTAIN, "Name", "AN"}}, {1, 3}},
    };
    for (std::size_t k = 0; k < cases.size(); ++k) {
        SCOPED_TRACE(k);
        Session s("fpay");
        ASSERT_EQ(s.status, ETW_OK);
        Provider prov(pg);
        const auto pl = payload(cases[k].all, cases[k].preds);
        const std::vector<etw_event_filter_descriptor> f = {desc(pl, ETW_EVENT_FILTER_TYPE_PAYLOAD)};
        const etw_enable_parameters p = params(f);
        ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_OK) << etw_last_error_message();
        TlEvent e1("E", 3, "apple", u"x"), e2("E", 7, "banana", u"yz"), e3("E", -2, "cherry", u"");
        ASSERT_EQ(write(prov, 1, 7, e1.data), ETW_OK);
        ASSERT_EQ(write(prov, 2, 7, e2.data), ETW_OK);
        ASSERT_EQ(write(prov, 3, 7, e3.data), ETW_OK);
        ASSERT_EQ(write(prov, 10), ETW_OK); // not self-describing: the payload filter does not apply
        std::vector<std::uint16_t> expect = cases[k].expect;
        if (std::find(expect.begin(), expect.end(), 10) == expect.end())
            expect.push_back(10);
        EXPECT_EQ(ids_in(s.stop()), expect);
    }
}

// TdhCreatePayloadFilter's per-event filters, aggregated: each applies to
// its event's Id and Version only; of one event's filters, every
// ALL_FILTERS (EventMatchALLFlags) one must hold and one of the others.
TEST(Filters, AggregatedPayloadFiltersApplyToTheirEventIdAndVersion)
{
    const etw_guid pg = make_guid(0xF10C);
    constexpr std::uint8_t kEv = ETW_PAYLOAD_FILTER_FLAG_EVENT, kAll = ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS;
    const auto blob = aggregate({
        payload(true, {{ETW_PAYLOADFIELD_EQ, "Count", "7"}}, kEv, 1, 0),             // event 1: false
        payload(true, {{ETW_PAYLOADFIELD_EQ, "Name", "apple"}}, kEv, 1, 0),          // event 1: true (OR)
        payload(true, {{ETW_PAYLOADFIELD_GT, "Count", "5"}}, kEv | kAll, 2, 0),      // event 2: true
        payload(true, {{ETW_PAYLOADFIELD_CONTAINS, "Name", "x"}}, kEv | kAll, 2, 0), // event 2: false (AND)
        payload(false, {{ETW_PAYLOADFIELD_EQ, "Count", "-2"}, {ETW_PAYLOADFIELD_EQ, "Count", "1"}}, kEv, 3, 0),
    });
    Session s("fagg");
    ASSERT_EQ(s.status, ETW_OK);
    Provider prov(pg);
    const std::vector<etw_event_filter_descriptor> f = {desc(blob, ETW_EVENT_FILTER_TYPE_PAYLOAD)};
    const etw_enable_parameters p = params(f);
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_OK) << etw_last_error_message();
    TlEvent e1("E", 3, "apple", u"x"), e2("E", 7, "banana", u"yz"), e3("E", -2, "cherry", u""), e4("E", 9, "d", u"");
    ASSERT_EQ(write(prov, 1, 7, e1.data), ETW_OK);
    ASSERT_EQ(write(prov, 2, 7, e2.data), ETW_OK);
    ASSERT_EQ(write(prov, 3, 7, e3.data), ETW_OK);
    ASSERT_EQ(write(prov, 4, 7, e4.data), ETW_OK); // no filter names event 4
    const etw_event_descriptor v1 = {2, 1, 0, 4, 0, 20, 1ull << 2};
    ASSERT_EQ(etw_provider_write_event(prov, &v1, 0, nullptr, nullptr, 7, e2.data), ETW_OK); // event 2 version 1
    EXPECT_EQ(ids_in(s.stop()), (std::vector<std::uint16_t>{1, 3, 4, 2}));
}

TEST(Filters, SchematizedFilterReachesTheEnableCallbackAsFilterData)
{
    const etw_guid pg = make_guid(0xF109);
    Session s("fschema");
    struct Seen {
        std::vector<std::uint8_t> bytes;
        std::uint32_t type = 0;
        int calls = 0;
    } seen;
    etw_provider *prov = nullptr;
    ASSERT_EQ(etw_provider_register(
                  &prov, &pg,
                  [](const etw_provider_enable_info *info, void *u) {
                      auto *s = static_cast<Seen *>(u);
                      ++s->calls;
                      s->bytes.clear();
                      s->type = 0;
                      if (info->filter_data) {
                          const auto *p =
                              reinterpret_cast<const std::uint8_t *>(std::uintptr_t(info->filter_data->Ptr));
                          s->bytes.assign(p, p + info->filter_data->Size);
                          s->type = info->filter_data->Type;
                      }
                  },
                  &seen, nullptr),
              ETW_OK);
    const std::vector<std::uint8_t> blob = {1, 2, 3, 4, 5, 6, 7};
    const std::vector<etw_event_filter_descriptor> f = {desc(blob, ETW_EVENT_FILTER_TYPE_SCHEMATIZED)};
    const etw_enable_parameters p = params(f);
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(seen.calls, 1);
    EXPECT_EQ(seen.type, ETW_EVENT_FILTER_TYPE_SCHEMATIZED);
    EXPECT_EQ(seen.bytes, blob);
    ASSERT_EQ(etw_session_enable_provider(s.s, &pg, 1, 0, 0, 0), ETW_OK);
    EXPECT_EQ(seen.calls, 2);
    EXPECT_EQ(seen.type, 0u); // enabled again without it: no FilterData
    s.stop();
    etw_provider_unregister(prov);
}

// EventWriteEx's Filter: each session's identifier reaches the enable
// callback as EVENT_FILTER_HEADER.InstanceId in its SCHEMATIZED FilterData;
// an event written with that bit skips that session only.
TEST(Filters, WriteEventExSkipsTheSessionsWhoseInstanceIdItNames)
{
    const etw_guid pg = make_guid(0xF10D);
    Session a("fskipa"), b("fskipb");
    ASSERT_EQ(a.status, ETW_OK);
    ASSERT_EQ(b.status, ETW_OK);
    struct Seen {
        std::vector<std::pair<std::uint64_t, std::uint64_t>> ids; // session handle, InstanceId
    } seen;
    etw_provider *prov = nullptr;
    ASSERT_EQ(etw_provider_register(
                  &prov, &pg,
                  [](const etw_provider_enable_info *info, void *u) {
                      if (!info->filter_data || info->filter_data->Size < 24)
                          return;
                      std::uint64_t id;
                      std::memcpy(
                          &id, reinterpret_cast<const std::uint8_t *>(std::uintptr_t(info->filter_data->Ptr)) + 8, 8);
                      static_cast<Seen *>(u)->ids.emplace_back(info->session_handle, id);
                  },
                  &seen, nullptr),
              ETW_OK);
    // EVENT_FILTER_HEADER {Id 1, Version 0, InstanceId 0, Size 28, NextOffset 0} and 4 bytes of filter data.
    std::vector<std::uint8_t> schema(28, 0);
    schema[0] = 1;
    schema[16] = 28;
    schema[24] = 0xAB;
    const std::vector<std::uint8_t> given = schema;
    const std::vector<etw_event_filter_descriptor> f = {desc(schema, ETW_EVENT_FILTER_TYPE_SCHEMATIZED)};
    const etw_enable_parameters p = params(f);
    ASSERT_EQ(etw_session_enable_provider_ex(a.s, &pg, 1, &p), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_enable_provider_ex(b.s, &pg, 1, &p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(schema, given); // the controller's bytes are not written
    ASSERT_EQ(seen.ids.size(), 2u);
    const std::uint64_t id_a = seen.ids[0].second, id_b = seen.ids[1].second;
    EXPECT_EQ(seen.ids[0].first, etw_session_handle(a.s));
    EXPECT_NE(id_a, 0u);
    EXPECT_NE(id_b, 0u);
    EXPECT_EQ(id_a & (id_a - 1), 0u); // one bit each, distinct
    EXPECT_EQ(id_a & id_b, 0u);
    const etw_event_descriptor d1 = {1, 0, 0, 4, 0, 0, 0}, d2 = {2, 0, 0, 4, 0, 0, 0}, d3 = {3, 0, 0, 4, 0, 0, 0};
    ASSERT_EQ(etw_provider_write_event_ex(prov, &d1, id_a, 0, nullptr, nullptr, 0, nullptr), ETW_OK);
    ASSERT_EQ(etw_provider_write_event_ex(prov, &d2, 0, 0, nullptr, nullptr, 0, nullptr), ETW_OK);
    ASSERT_EQ(etw_provider_write_event_ex(prov, &d3, id_a | id_b, 0, nullptr, nullptr, 0, nullptr), ETW_OK);
    EXPECT_EQ(ids_in(a.stop()), (std::vector<std::uint16_t>{2}));
    EXPECT_EQ(ids_in(b.stop()), (std::vector<std::uint16_t>{1, 2}));
    etw_provider_unregister(prov);
}

TEST(Filters, StackwalkFilterSaysWhichIdsCarryStacks)
{
    const auto in = event_ids(true, {4, 9}), out = event_ids(false, {4});
    std::vector<std::uint8_t> blob_in, blob_out;
    const etw_event_filter_descriptor di = desc(in, ETW_EVENT_FILTER_TYPE_STACKWALK);
    const etw_event_filter_descriptor dout = desc(out, ETW_EVENT_FILTER_TYPE_STACKWALK);
    ASSERT_TRUE(openetw::engine::pack_filters(&di, 1, FilterScope::Provider, &blob_in));
    ASSERT_TRUE(openetw::engine::pack_filters(&dout, 1, FilterScope::Provider, &blob_out));
    std::shared_ptr<const EventFilter> fi, fo;
    ASSERT_TRUE(EventFilter::parse(blob_in, &fi));
    ASSERT_TRUE(EventFilter::parse(blob_out, &fo));
    openetw::engine::ProviderSnapshot::Entry e{};
    EXPECT_TRUE(e.stack_for(4)); // no filter: every id
    e.filter = fi.get();
    EXPECT_TRUE(e.stack_for(4));
    EXPECT_TRUE(e.stack_for(9));
    EXPECT_FALSE(e.stack_for(5));
    e.filter = fo.get();
    EXPECT_FALSE(e.stack_for(4));
    EXPECT_TRUE(e.stack_for(5));
    EXPECT_FALSE(fi->per_event()); // a STACKWALK filter alone costs the write path nothing
}

TEST(Filters, EnablePropertyIsKeptWithTheEnablementsEntry)
{
    using openetw::engine::Engine;
    const etw_guid pg = make_guid(0xF10A);
    Session s("fprop");
    ASSERT_EQ(s.status, ETW_OK);
    openetw::engine::Provider *prov = nullptr;
    ASSERT_TRUE(Engine::instance().register_provider(pg, nullptr, nullptr, &prov));
    etw_enable_parameters p = params({});
    p.enable_property = ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE | ETW_EVENT_ENABLE_PROPERTY_SID;
    ASSERT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_OK);
    {
        const openetw::engine::ProviderSnapshot *snap = prov->snapshot.load();
        ASSERT_NE(snap, nullptr);
        ASSERT_EQ(snap->entries.size(), 1u);
        EXPECT_EQ(snap->entries[0].enable_property, p.enable_property);
        EXPECT_EQ(snap->entries[0].filter, nullptr);
    }
    ASSERT_EQ(etw_session_enable_provider(s.s, &pg, 1, 0, 0, 0), ETW_OK);
    EXPECT_EQ(prov->snapshot.load()->entries[0].enable_property, 0u);
    Engine::instance().unregister_provider(prov);
}

TEST(Filters, BadFiltersGetWindowsStatusesAndSayWhichFilterAndWhy)
{
    const etw_guid pg = make_guid(0xF10B);
    Session s("fbad");
    ASSERT_EQ(s.status, ETW_OK);
    const auto ids = event_ids(true, {1});
    const std::uint32_t pids[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::vector<std::uint8_t> many_ids(4 + 2 * 65, 0);
    many_ids[2] = 65;
    std::vector<std::uint8_t> zero_ids = event_ids(true, {1});
    zero_ids[2] = 0;
    std::vector<std::uint8_t> short_ids = event_ids(true, {1, 2, 3});
    short_ids.resize(8); // Count 3 needs 10 bytes
    std::vector<std::uint8_t> big(1025, 0);
    auto unterminated_name = event_names(true, 0, 0, {"abc"});
    unterminated_name.pop_back();
    auto exe_unterminated = utf16z("a.exe");
    exe_unterminated.resize(exe_unterminated.size() - 2);
    const auto is_op = payload(true, {{ETW_PAYLOADFIELD_IS, "Count", "2"}});
    const auto modulo_0 = payload(true, {{ETW_PAYLOADFIELD_MODULO, "Count", "0"}});
    const auto bad_flags = payload(true, {{ETW_PAYLOADFIELD_EQ, "Count", "2"}}, 0x08);
    const auto all_no_event = payload(true, {{ETW_PAYLOADFIELD_EQ, "Count", "2"}}, ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS);
    auto next_missing = payload(true, {{ETW_PAYLOADFIELD_EQ, "Count", "2"}}, ETW_PAYLOAD_FILTER_FLAG_NEXT);
    auto second_bad = aggregate({payload(true, {{ETW_PAYLOADFIELD_EQ, "Count", "2"}}),
                                 payload(true, {{ETW_PAYLOADFIELD_EQ, "Count", "2"}, {ETW_PAYLOADFIELD_EQ, "", ""}})});
    const auto bad_op = payload(true, {{9, "Count", "2"}});
    const auto bad_between = payload(true, {{ETW_PAYLOADFIELD_BETWEEN, "Count", "2"}});
    const std::uint8_t pkg[4] = {1, 0, 0, 0};
    std::vector<std::uint8_t> zeros(ETW_MAX_EVENT_FILTER_PAYLOAD_SIZE + 8, 0);
    std::vector<std::uint8_t> many_stack_ids = many_ids;
    std::vector<std::uint8_t> no_names(24, 0); // EVENT_FILTER_EVENT_NAME, NameCount 0
    struct Case {
        std::vector<etw_event_filter_descriptor> filters;
        etw_status status;
        const char *says;
    };
    const std::vector<Case> cases = {
        {{{0, 4, ETW_EVENT_FILTER_TYPE_PID}}, ETW_ERROR_INVALID_PARAMETER, "Ptr is NULL"},
        {{{ptr(pids), 0, ETW_EVENT_FILTER_TYPE_PID}}, ETW_ERROR_INVALID_PARAMETER, "Size is 0"},
        {{{ptr(pids), 36, ETW_EVENT_FILTER_TYPE_PID}}, ETW_ERROR_INVALID_PARAMETER, "MAX_EVENT_FILTER_PID_COUNT"},
        {{{ptr(pids), 6, ETW_EVENT_FILTER_TYPE_PID}}, ETW_ERROR_INVALID_PARAMETER, "4-byte ids"},
        {{desc(many_ids, ETW_EVENT_FILTER_TYPE_EVENT_ID)},
         ETW_ERROR_INVALID_PARAMETER,
         "MAX_EVENT_FILTER_EVENT_ID_COUNT"},
        {{desc(zero_ids, ETW_EVENT_FILTER_TYPE_EVENT_ID)}, ETW_ERROR_INVALID_PARAMETER, "Count is 0"},
        {{desc(short_ids, ETW_EVENT_FILTER_TYPE_STACKWALK)}, ETW_ERROR_INVALID_PARAMETER, "does not hold Count 3"},
        {{desc(big, ETW_EVENT_FILTER_TYPE_EVENT_ID)}, ETW_ERROR_INVALID_PARAMETER, "above its limit of 1024"},
        {{desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID), desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID)},
         ETW_ERROR_INVALID_PARAMETER,
         "given twice"},
        {{desc(unterminated_name, ETW_EVENT_FILTER_TYPE_EVENT_NAME)},
         ETW_ERROR_INVALID_PARAMETER,
         "not NUL-terminated"},
        {{desc(exe_unterminated, ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME)},
         ETW_ERROR_INVALID_PARAMETER,
         "NUL-terminated"},
        {{desc(is_op, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_NOT_SUPPORTED, "IS, ISNOT"},
        {{desc(modulo_0, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_INVALID_PARAMETER, "MODULO takes"},
        {{desc(bad_flags, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_INVALID_PARAMETER, "flags 8"},
        {{desc(all_no_event, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_INVALID_PARAMETER, "with EVENT"},
        {{desc(next_missing, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_INVALID_PARAMETER, "aggregated filter 1"},
        {{desc(second_bad, ETW_EVENT_FILTER_TYPE_PAYLOAD)},
         ETW_ERROR_INVALID_PARAMETER,
         "aggregated filter 1: predicate 1"},
        {{desc(bad_op, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_INVALID_PARAMETER, "no PAYLOAD_OPERATOR"},
        {{desc(bad_between, ETW_EVENT_FILTER_TYPE_PAYLOAD)}, ETW_ERROR_INVALID_PARAMETER, "low,high"},
        {{{ptr(pkg), 4, ETW_EVENT_FILTER_TYPE_PACKAGE_ID}}, ETW_ERROR_NOT_SUPPORTED, "does not implement"},
        {{{ptr(pkg), 4, ETW_EVENT_FILTER_TYPE_CONTAINER}}, ETW_ERROR_NOT_SUPPORTED, "does not implement"},
        {{{ptr(zeros.data()), 1025, ETW_EVENT_FILTER_TYPE_SCHEMATIZED}},
         ETW_ERROR_INVALID_PARAMETER,
         "above its limit of 1024"},
        {{{ptr(zeros.data()), 1026, ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME}},
         ETW_ERROR_INVALID_PARAMETER,
         "above its limit of 1024"},
        {{{ptr(zeros.data()), 4100, ETW_EVENT_FILTER_TYPE_PAYLOAD}},
         ETW_ERROR_INVALID_PARAMETER,
         "above its limit of 4096"},
        {{{ptr(zeros.data()), 4097, ETW_EVENT_FILTER_TYPE_EVENT_NAME}},
         ETW_ERROR_INVALID_PARAMETER,
         "above its limit of 4096"},
        {{desc(many_stack_ids, ETW_EVENT_FILTER_TYPE_STACKWALK)},
         ETW_ERROR_INVALID_PARAMETER,
         "MAX_EVENT_FILTER_EVENT_ID_COUNT"},
        {{desc(no_names, ETW_EVENT_FILTER_TYPE_EVENT_NAME)}, ETW_ERROR_INVALID_PARAMETER, "NameCount is 0"},
        {{{ptr(zeros.data()), 16, ETW_EVENT_FILTER_TYPE_PAYLOAD}}, ETW_ERROR_INVALID_PARAMETER, "predicate_count is 0"},
        {{{ptr(pkg), 4, 0x80000003u}}, ETW_ERROR_INVALID_PARAMETER, "not a filter type"},
        {{{ptr(pkg), 4, ETW_EVENT_FILTER_TYPE_NONE}}, ETW_ERROR_INVALID_PARAMETER, "not a filter type"},
    };
    for (std::size_t k = 0; k < cases.size(); ++k) {
        SCOPED_TRACE(k);
        const etw_enable_parameters p = params(cases[k].filters);
        EXPECT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), cases[k].status);
        const std::string msg = etw_last_error_message();
        EXPECT_NE(msg.find(cases[k].says), std::string::npos) << msg;
        EXPECT_NE(msg.find("filter " + std::to_string(cases[k].filters.size() - 1)), std::string::npos) << msg;
    }
    // Counts and the structure itself.
    std::vector<etw_event_filter_descriptor> fourteen(14, desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID));
    etw_enable_parameters p = params(fourteen);
    EXPECT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("MAX_EVENT_FILTERS_COUNT"), std::string::npos);
    p = params({});
    p.filter_count = 1;
    EXPECT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_ERROR_INVALID_PARAMETER);
    p = params({});
    p.struct_size = 8;
    EXPECT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("struct_size"), std::string::npos);
    p = params({});
    p.enable_property = 0x80000000u;
    EXPECT_EQ(etw_session_enable_provider_ex(s.s, &pg, 1, &p), ETW_ERROR_INVALID_PARAMETER);
    // None of the refused calls enabled anything.
    Provider prov(pg);
    EXPECT_EQ(*etw_provider_enabled_word(prov), 0u);
}

// EnableTraceEx2: "Up to eight trace sessions can enable and receive events
// from the same modern provider"; more: ERROR_NO_SYSTEM_RESOURCES.
TEST(Filters, ANinthSessionCannotEnableOneProvider)
{
    const etw_guid pg = make_guid(0xF10E);
    std::vector<std::unique_ptr<Session>> sessions;
    for (int i = 0; i < 9; ++i) {
        sessions.push_back(std::make_unique<Session>("fnine"));
        ASSERT_EQ(sessions.back()->status, ETW_OK);
    }
    for (int i = 0; i < 8; ++i)
        ASSERT_EQ(etw_session_enable_provider(sessions[i]->s, &pg, 1, 0, 0, 0), ETW_OK) << i;
    EXPECT_EQ(etw_session_enable_provider(sessions[8]->s, &pg, 1, 0, 0, 0), ETW_ERROR_NO_SYSTEM_RESOURCES);
    EXPECT_NE(std::string(etw_last_error_message()).find("8 sessions"), std::string::npos);
    EXPECT_EQ(etw_session_enable_provider(sessions[0]->s, &pg, 1, 4, 0, 0), ETW_OK); // enabling again: no new one
    ASSERT_EQ(etw_session_enable_provider(sessions[1]->s, &pg, 0, 0, 0, 0), ETW_OK);
    EXPECT_EQ(etw_session_enable_provider(sessions[8]->s, &pg, 1, 0, 0, 0), ETW_OK); // a place was freed
    for (auto &s : sessions)
        s->stop();
}

TEST(Filters, ADamagedBlobIsRefusedNotTrusted)
{
    const auto ids = event_ids(true, {1, 2});
    const etw_event_filter_descriptor d = desc(ids, ETW_EVENT_FILTER_TYPE_EVENT_ID);
    std::vector<std::uint8_t> blob;
    ASSERT_TRUE(openetw::engine::pack_filters(&d, 1, FilterScope::Provider, &blob));
    std::shared_ptr<const EventFilter> f;
    ASSERT_TRUE(EventFilter::parse(blob, &f));
    for (std::size_t cut = 1; cut < blob.size(); ++cut) {
        std::vector<std::uint8_t> damaged(blob.begin(), blob.begin() + cut);
        EXPECT_FALSE(EventFilter::parse(damaged, &f)) << cut;
    }
    std::vector<std::uint8_t> big_size = blob;
    big_size[4] = 0xFF;
    big_size[5] = 0xFF;
    EXPECT_EQ(EventFilter::parse(big_size, &f).code, ETW_ERROR_INVALID_DATA);
}
