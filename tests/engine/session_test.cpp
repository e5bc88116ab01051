// Session lifecycle, buffer-pool rules, statistics and provider/event rules,
// through the public C API; files are checked with the test decoder.
#include "engine_test_util.hpp"

#include "engine_session.hpp"
#include "platform/process.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <thread>

using namespace enginetest;

namespace {

const std::uint32_t kCpus = openetw::platform::processor_count();

etw_status start(SessionHandle &s, Props &props) { return etw_session_start(&s.s, props); }

} // namespace

TEST(Session, StartReportsAdjustedValuesAndHandle)
{
    Props props(unique_name("start"), temp_file("start"));
    etw_properties_set_minimum_buffers(props, 1);
    etw_properties_set_maximum_buffers(props, 1);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
    auto r = props.rec();
    EXPECT_EQ(r.MinimumBuffers, 2 * kCpus);         // at least 2 per processor
    EXPECT_EQ(r.MaximumBuffers, r.MinimumBuffers);  // at least the adjusted minimum
    EXPECT_EQ(r.NumberOfBuffers, r.MinimumBuffers); // starts with the minimum
    EXPECT_EQ(r.FreeBuffers, r.MinimumBuffers);
    EXPECT_EQ(r.Wnode.HistoricalContext, etw_session_handle(s));
    EXPECT_NE(r.Wnode.HistoricalContext, 0u);
    EXPECT_NE(r.LoggerThreadId, 0u);
    EXPECT_EQ(r.Wnode.ClientContext, 1u); // default clock QPC
    etw_guid zero{};
    EXPECT_NE(std::memcmp(&r.Wnode.Guid, &zero, sizeof zero), 0); // generated
    EXPECT_EQ(r.EventsLost + r.BuffersWritten + r.LogBuffersLost + r.RealTimeBuffersLost, 0u);
}

TEST(Session, NoPerProcessorBufferingNeedsTwoBuffersInAll)
{
    Props props(unique_name("noppb"), temp_file("noppb"));
    etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(props.rec().MinimumBuffers, 2u);
    EXPECT_EQ(props.rec().MaximumBuffers, 256u); // MaximumBuffers 0: 16 MiB of 64 KB buffers
}

// MaximumBuffers left 0 follows Windows' rule: the (adjusted) minimum plus 20,
// and at least 16 MiB of buffers; a value given is kept; buffering mode uses
// the minimum; a failing start leaves the 0 in place.
TEST(Session, DefaultMaximumBuffersIsTheMinimumPlusTwentyAndSixteenMegabytes)
{
    {
        Props props(unique_name("defmax-small"), temp_file("defmax-small"));
        SessionHandle s;
        ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(props.rec().MinimumBuffers, 2 * kCpus);
        EXPECT_EQ(props.rec().MaximumBuffers, std::max(2 * kCpus + 20, 256u)); // 64 KB buffers
    }
    {
        Props props(unique_name("defmax-large"), temp_file("defmax-large"));
        etw_properties_set_buffer_size(props, 4096); // 16 MiB is 4 buffers: the minimum plus 20 wins
        etw_properties_set_minimum_buffers(props, 2 * kCpus + 3);
        SessionHandle s;
        ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(props.rec().MaximumBuffers, 2 * kCpus + 3 + 20);
    }
    {
        Props props(unique_name("defmax-given"), temp_file("defmax-given"));
        etw_properties_set_maximum_buffers(props, 2 * kCpus + 1);
        SessionHandle s;
        ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(props.rec().MaximumBuffers, 2 * kCpus + 1);
    }
    {
        Props props(unique_name("defmax-buffering"), temp_file("defmax-buffering"));
        etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE);
        SessionHandle s;
        ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(props.rec().MaximumBuffers, props.rec().MinimumBuffers);
    }
    {
        Props props(unique_name("defmax-fails"), temp_file("no/such/folder/x"));
        SessionHandle s;
        ASSERT_EQ(start(s, props), ETW_ERROR_PATH_NOT_FOUND);
        EXPECT_EQ(props.rec().MaximumBuffers, 0u); // unchanged on failure
    }
}

TEST(Session, BufferCountsAreCapped)
{
    // Both caps bind through the same limit; shown with the fewest bytes
    // allocated, since MinimumBuffers are prefaulted at the start (4 GiB of
    // them took a minute under ThreadSanitizer).
    // The count cap: 4 KB buffers, both counts past ETW_MAX_BUFFERS (256 MB).
    Props by_count(unique_name("capn"), temp_file("capn"));
    etw_properties_set_buffer_size(by_count, 4);
    etw_properties_set_minimum_buffers(by_count, ETW_MAX_BUFFERS + 1);
    etw_properties_set_maximum_buffers(by_count, 0xFFFFFFFFu);
    SessionHandle s1;
    ASSERT_EQ(start(s1, by_count), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(by_count.rec().MinimumBuffers, ETW_MAX_BUFFERS);
    EXPECT_EQ(by_count.rec().MaximumBuffers, ETW_MAX_BUFFERS);
    // The memory cap: 4 GiB of 16 MB buffers is 256 (MaximumBuffers are not
    // allocated at the start).
    Props by_memory(unique_name("capm"), temp_file("capm"));
    etw_properties_set_buffer_size(by_memory, 16384);
    etw_properties_set_maximum_buffers(by_memory, ETW_MAX_BUFFERS);
    SessionHandle s2;
    ASSERT_EQ(start(s2, by_memory), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(by_memory.rec().MaximumBuffers, 256u);
}

TEST(Session, NamesAreUniqueCaseInsensitively)
{
    const std::string name = unique_name("Dup");
    Props a(name, temp_file("dup")), b(name, temp_file("dup"));
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    Props c(upper, temp_file("dup"));
    SessionHandle s1, s2, s3;
    ASSERT_EQ(start(s1, a), ETW_OK);
    EXPECT_EQ(start(s2, b), ETW_ERROR_ALREADY_EXISTS);
    EXPECT_EQ(start(s3, c), ETW_ERROR_ALREADY_EXISTS);
    EXPECT_NE(std::string(etw_last_error_message()), "");
    // Free again after a stop.
    ASSERT_EQ(etw_session_stop(s1, nullptr), ETW_OK);
    EXPECT_EQ(start(s2, b), ETW_OK);
}

TEST(Session, GuidsAreUnique)
{
    Props a(unique_name("g1"), temp_file("g")), b(unique_name("g2"), temp_file("g"));
    SessionHandle s1, s2;
    ASSERT_EQ(start(s1, a), ETW_OK);
    etw_guid g;
    etw_properties_get_guid(&g, a);
    etw_properties_set_guid(b, &g);
    EXPECT_EQ(start(s2, b), ETW_ERROR_ALREADY_EXISTS);
}

TEST(Session, MaximumNumberOfSessions)
{
    EXPECT_EQ(etw_session_max_sessions(), ETW_DEFAULT_MAX_SESSIONS);
    EXPECT_EQ(etw_session_set_max_sessions(0), ETW_ERROR_INVALID_PARAMETER);
    uint32_t running = 0;
    etw_session_list(&running, nullptr, 0);
    ASSERT_EQ(etw_session_set_max_sessions(running + 2), ETW_OK);
    Props a(unique_name("m"), temp_file("m")), b(unique_name("m"), temp_file("m")), c(unique_name("m"), temp_file("m"));
    SessionHandle s1, s2, s3;
    EXPECT_EQ(start(s1, a), ETW_OK);
    EXPECT_EQ(start(s2, b), ETW_OK);
    EXPECT_EQ(start(s3, c), ETW_ERROR_NO_SYSTEM_RESOURCES);
    etw_session_set_max_sessions(ETW_DEFAULT_MAX_SESSIONS);
    EXPECT_EQ(start(s3, c), ETW_OK);
}

TEST(Session, MissingFolderIsPathNotFound)
{
    Props props(unique_name("nofolder"), temp_dir() + "/no/such/folder/x.etl");
    SessionHandle s;
    EXPECT_EQ(start(s, props), ETW_ERROR_PATH_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("folder"), std::string::npos);
}

TEST(Session, RealTimeAndBufferingStartWithoutFileButNotTogether)
{
    Props rt(unique_name("rt"));
    etw_properties_set_log_file_mode(rt, ETW_REAL_TIME_MODE);
    SessionHandle s;
    EXPECT_EQ(start(s, rt), ETW_OK) << etw_last_error_message();
    Props buf(unique_name("buf"));
    etw_properties_set_log_file_mode(buf, ETW_BUFFERING_MODE);
    SessionHandle b;
    EXPECT_EQ(start(b, buf), ETW_OK) << etw_last_error_message();
    Props both(unique_name("both"));
    etw_properties_set_log_file_mode(both, ETW_BUFFERING_MODE | ETW_REAL_TIME_MODE);
    SessionHandle x;
    EXPECT_EQ(start(x, both), ETW_ERROR_INVALID_PARAMETER);
}

TEST(Session, OpenByNameQueryListCloseAndStop)
{
    const std::string name = unique_name("open");
    Props props(name, temp_file("open"));
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    etw_session *o = nullptr;
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(), ::toupper);
    ASSERT_EQ(etw_session_open(&o, upper.c_str()), ETW_OK);
    EXPECT_EQ(etw_session_handle(o), etw_session_handle(s));
    Props q("x");
    ASSERT_EQ(etw_session_query(o, q), ETW_OK);
    EXPECT_EQ(std::string(etw_properties_session_name(q)), name);
    EXPECT_EQ(q.rec().Wnode.HistoricalContext, etw_session_handle(s));
    etw_session_close(o); // closing a handle does not stop the session
    EXPECT_EQ(etw_session_query(s, q), ETW_OK);

    uint32_t count = 0;
    const etw_status list_st = etw_session_list(&count, nullptr, 0);
    EXPECT_EQ(list_st, ETW_ERROR_MORE_DATA);
    ASSERT_GE(count, 1u);
    std::vector<Props *> objs;
    std::vector<etw_properties *> arr;
    for (uint32_t i = 0; i < count; ++i) {
        objs.push_back(new Props("slot"));
        arr.push_back(*objs.back());
    }
    uint32_t count2 = 0;
    EXPECT_EQ(etw_session_list(&count2, arr.data(), count), ETW_OK);
    bool found = false;
    for (auto *p : objs) {
        found = found || std::string(etw_properties_session_name(*p)) == name;
        delete p;
    }
    EXPECT_TRUE(found);

    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    EXPECT_EQ(etw_session_query(s, q), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    EXPECT_EQ(etw_session_stop(s, nullptr), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    EXPECT_EQ(etw_session_open(&o, name.c_str()), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    etw_session_close(nullptr);
}

TEST(Session, StopLeavesNoStaleOutputsForReuse)
{
    const etw_guid pg = make_guid(0x5100);
    Provider prov(pg);
    Props props(unique_name("reuse"), temp_file("reuse"));
    etw_properties_set_buffer_size(props, 4);
    // A file that holds one data buffer: further events are lost, deterministically.
    etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING | ETW_FILE_MODE_SEQUENTIAL |
                                                ETW_USE_KBYTES_FOR_SIZE);
    etw_properties_set_maximum_file_size(props, 8);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    for (int i = 0; i < 2000; ++i) {
        Event e(pg, 100);
        etw_provider_trace_event(prov, e.h());
    }
    const uint64_t first_handle = etw_session_handle(s);
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK);
    auto r = props.rec();
    EXPECT_GT(r.BuffersWritten, 0u);
    EXPECT_GT(r.EventsLost, 0u);
    EXPECT_EQ(r.Wnode.HistoricalContext, first_handle);
    etw_session_close(s.s);
    s.s = nullptr;
    ASSERT_EQ(start(s, props), ETW_OK) << etw_last_error_message();
    r = props.rec();
    EXPECT_EQ(r.BuffersWritten, 0u);
    EXPECT_EQ(r.EventsLost, 0u);
    EXPECT_NE(r.Wnode.HistoricalContext, first_handle);
    EXPECT_EQ(r.Wnode.HistoricalContext, etw_session_handle(s));
}

// ---- Providers and events ----

struct CallbackLog {
    std::vector<etw_provider_enable_info> calls;
    std::vector<std::thread::id> threads;
    int freed = 0;
};

static void on_enable(const etw_provider_enable_info *info, void *user)
{
    auto *log = static_cast<CallbackLog *>(user);
    log->calls.push_back(*info);
    log->threads.push_back(std::this_thread::get_id());
}
static void on_free(void *user) { static_cast<CallbackLog *>(user)->freed++; }

TEST(Provider, EnableBeforeAndAfterRegistrationWithNotifications)
{
    const etw_guid pg = make_guid(0x5200);
    Props props(unique_name("notify"), temp_file("notify"));
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    // Enabled before the provider registers.
    ASSERT_EQ(etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_WARNING, 0x5, 0), ETW_OK);
    CallbackLog log;
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &pg, on_enable, &log, on_free), ETW_OK);
    ASSERT_EQ(log.calls.size(), 1u); // told at registration, on this thread
    EXPECT_EQ(log.threads[0], std::this_thread::get_id());
    EXPECT_EQ(log.calls[0].is_enabled, 1u);
    EXPECT_EQ(log.calls[0].level, ETW_LEVEL_WARNING);
    EXPECT_EQ(log.calls[0].match_any_keyword, 0x5u);
    EXPECT_EQ(log.calls[0].struct_size, sizeof(etw_provider_enable_info));
    EXPECT_TRUE(etw_provider_is_enabled(p, ETW_LEVEL_ERROR, 0));
    EXPECT_TRUE(etw_provider_is_enabled(p, ETW_LEVEL_WARNING, 0x4));
    EXPECT_FALSE(etw_provider_is_enabled(p, ETW_LEVEL_VERBOSE, 0));
    EXPECT_FALSE(etw_provider_is_enabled(p, ETW_LEVEL_ERROR, 0x2));
    // Disable, then re-enable from another thread: called on that thread.
    ASSERT_EQ(etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0), ETW_OK);
    ASSERT_EQ(log.calls.size(), 2u);
    EXPECT_EQ(log.calls[1].is_enabled, 0u);
    EXPECT_FALSE(etw_provider_is_enabled(p, 0, 0));
    std::thread::id other;
    std::thread([&] {
        other = std::this_thread::get_id();
        etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0);
    }).join();
    ASSERT_EQ(log.calls.size(), 3u);
    EXPECT_EQ(log.threads[2], other);
    // Stopping the session notifies on the stopping thread.
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    ASSERT_EQ(log.calls.size(), 4u);
    EXPECT_EQ(log.calls[3].is_enabled, 0u);
    etw_provider_unregister(p);
    EXPECT_EQ(log.freed, 1);
    EXPECT_EQ(log.calls.size(), 4u);
    EXPECT_EQ(etw_session_enable_provider(s, &pg, 1, 0, 0, 0), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    etw_provider_unregister(nullptr);
}

// The enabled word follows enablement from every path: enable, disable,
// the last session's stop; a session that does not enable it leaves it 0.
TEST(Provider, EnabledWordFollowsEnablement)
{
    const etw_guid pg = make_guid(0x5210);
    EXPECT_EQ(etw_provider_enabled_word(nullptr), nullptr);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &pg, nullptr, nullptr, nullptr), ETW_OK);
    const volatile uint32_t *word = etw_provider_enabled_word(p);
    ASSERT_NE(word, nullptr);
    EXPECT_EQ(*word, 0u);
    Props props(unique_name("word"), temp_file("word"));
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    EXPECT_EQ(*word, 0u); // a session alone does not enable it
    ASSERT_EQ(etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_ERROR, 0, 0), ETW_OK);
    EXPECT_NE(*word, 0u);
    EXPECT_EQ(etw_provider_enabled_word(p), word); // one word for the registration's life
    ASSERT_EQ(etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0), ETW_OK);
    EXPECT_EQ(*word, 0u);
    ASSERT_EQ(etw_session_enable_provider(s, &pg, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    EXPECT_NE(*word, 0u);
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    EXPECT_EQ(*word, 0u);
    etw_provider_unregister(p);
}

struct Reentrant {
    etw_provider *self = nullptr;
    int calls = 0;
    int freed = 0;
};
static void unregister_inside(const etw_provider_enable_info *, void *user)
{
    auto *r = static_cast<Reentrant *>(user);
    r->calls++;
    etw_provider_unregister(r->self); // allowed: no library lock is held
}
static void reentrant_free(void *user) { static_cast<Reentrant *>(user)->freed++; }

TEST(Provider, CallbackMayCallBackIntoTheLibrary)
{
    const etw_guid pg = make_guid(0x5300);
    Props props(unique_name("reenter"), temp_file("reenter"));
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Reentrant r;
    ASSERT_EQ(etw_provider_register(&r.self, &pg, unregister_inside, &r, reentrant_free), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(s, &pg, 1, 0, 0, 0), ETW_OK);
    EXPECT_EQ(r.calls, 1);
    EXPECT_EQ(r.freed, 1);
}

TEST(Provider, UnregisterWaitsForRunningCallbacks)
{
    const etw_guid pg = make_guid(0x5400);
    Props props(unique_name("race"), temp_file("race"));
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    struct Slow {
        std::atomic<int> in{0};
        std::atomic<bool> after_unregister{false};
        std::atomic<bool> violated{false};
    } slow;
    auto cb = [](const etw_provider_enable_info *, void *u) {
        auto *sl = static_cast<Slow *>(u);
        sl->in++;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (sl->after_unregister)
            sl->violated = true;
    };
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &pg, cb, &slow, nullptr), ETW_OK);
    std::thread t([&] { etw_session_enable_provider(s, &pg, 1, 0, 0, 0); });
    while (slow.in == 0)
        std::this_thread::yield();
    etw_provider_unregister(p); // must wait for the running callback
    slow.after_unregister = true;
    t.join();
    EXPECT_FALSE(slow.violated);
}

// etw_provider_write_event's records in the file, byte for byte
// (ETL_FORMAT.md 3.5): HeaderType 0x13 in a 64-bit process, 0x12 in a
// 32-bit one (the i686 build runs this too), the writer checklist kept.
TEST(Provider, EventHeaderRecordsInTheFile)
{
    const etw_guid pg = make_guid(0x5600);
    const std::string file = temp_file("evhdr");
    Props props(unique_name("evhdr"), file);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    ASSERT_EQ(etw_session_enable_provider(s, &pg, 1, 0, 0, 0), ETW_OK);
    const etw_event_descriptor d = {0x1234, 5, 0x11, 3, 2, 0x4321, 0x8000000000000007ull};
    const etw_guid activity = make_guid(0xAC), related = make_guid(0xAD);
    const char part1[] = "abc", part2[] = "defgh";
    const etw_event_data_descriptor data[3] = {{std::uint64_t(reinterpret_cast<std::uintptr_t>(part1)), 3, 0},
                                               {0, 0, 0},
                                               {std::uint64_t(reinterpret_cast<std::uintptr_t>(part2)), 5, 0}};
    ASSERT_EQ(etw_provider_write_event(prov, &d, 0, &activity, &related, 3, data), ETW_OK);
    ASSERT_EQ(etw_provider_write_event(prov, &d, 0, nullptr, nullptr, 1, data), ETW_OK);
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    const etltest::File f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 2u);
    const std::uint8_t type = sizeof(void *) == 8 ? 0x13 : 0x12;
    const std::vector<std::uint8_t> &a = f.events[0].record, &b = f.events[1].record;
    ASSERT_EQ(a.size(), 0x50u + 24 + 8);
    ASSERT_EQ(b.size(), 0x50u + 3);
    EXPECT_EQ(a[2], type);
    EXPECT_EQ(a[3], 0xC0);
    EXPECT_EQ(etltest::r16(&a[4]), 0x0001); // EXTENDED_INFO: the related activity id's item follows
    EXPECT_EQ(etltest::r16(&b[4]), 0x0000);
    EXPECT_EQ(etltest::r16(&a[6]), 0);
    EXPECT_EQ(std::memcmp(&a[24], &pg, 16), 0);
    EXPECT_EQ(std::memcmp(&a[40], &d, 16), 0); // EVENT_DESCRIPTOR as given (little-endian target)
    EXPECT_EQ(std::memcmp(&a[64], &activity, 16), 0);
    const std::uint8_t item[8] = {24, 0, 1, 0, 0, 0, 16, 0}; // ItemSize 24, RELATED_ACTIVITYID, last, 16 bytes
    EXPECT_EQ(std::memcmp(&a[80], item, 8), 0);
    EXPECT_EQ(std::memcmp(&a[88], &related, 16), 0);
    EXPECT_EQ(std::string(a.begin() + 104, a.end()), "abcdefgh");
    etw_guid zero{};
    EXPECT_EQ(std::memcmp(&b[64], &zero, 16), 0); // the thread's activity id: none set
    EXPECT_EQ(std::string(b.begin() + 0x50, b.end()), "abc");
}

TEST(Provider, TraceEventRulesAndFileContents)
{
    const etw_guid pg = make_guid(0x5500);
    const etw_guid class_guid = make_guid(0x5501);
    const std::string file = temp_file("rules");
    Props props(unique_name("rules"), file);
    etw_properties_set_buffer_size(props, 4);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    {
        Event e(class_guid, 8);
        EXPECT_EQ(etw_provider_trace_event(prov, e.h()), ETW_OK); // not enabled: nothing written
    }
    ASSERT_EQ(etw_session_enable_provider(s, &pg, 1, ETW_LEVEL_INFORMATION, 0, 0), ETW_OK);
    EXPECT_EQ(etw_provider_trace_event(nullptr, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_provider_trace_event(prov, nullptr), ETW_ERROR_INVALID_PARAMETER);
    {
        Event e(class_guid, 8);
        e.h()->Flags = 0;
        EXPECT_EQ(etw_provider_trace_event(prov, e.h()), ETW_ERROR_INVALID_FLAG_NUMBER);
        e.h()->Flags = ETW_WNODE_FLAG_TRACED_GUID;
        e.h()->Size = 47;
        EXPECT_EQ(etw_provider_trace_event(prov, e.h()), ETW_ERROR_INVALID_PARAMETER);
    }
    {
        // Size must be below BufferSize - 72.
        Event big(class_guid, 4096 - 72 - 0x30);
        EXPECT_EQ(etw_provider_trace_event(prov, big.h()), ETW_ERROR_MORE_DATA);
        Event fits(class_guid, 4096 - 73 - 0x30, ETW_LEVEL_ERROR, 11);
        EXPECT_EQ(etw_provider_trace_event(prov, fits.h()), ETW_OK);
    }
    // Inline payload; HeaderType/MarkerFlags are overwritten.
    Event inl(class_guid, 13, ETW_LEVEL_WARNING, 12);
    inl.h()->HeaderType = 0x55;
    inl.h()->MarkerFlags = 0x11;
    inl.h()->ThreadId = 1;
    inl.h()->ProcessId = 2;
    inl.h()->TimeStamp = 3;
    ASSERT_EQ(etw_provider_trace_event(prov, inl.h()), ETW_OK);
    EXPECT_EQ(inl.h()->HeaderType, sizeof(void *) == 8 ? 0x14 : 0x0A);
    EXPECT_EQ(inl.h()->MarkerFlags, 0xC0);
    // Level filter: VERBOSE is above the session's INFORMATION.
    Event verbose(class_guid, 4, ETW_LEVEL_VERBOSE, 13);
    ASSERT_EQ(etw_provider_trace_event(prov, verbose.h()), ETW_OK);
    // GUID through GuidPtr, payload gathered from MOF fields.
    struct {
        etw_event_trace_header h;
        etw_mof_field f[3];
    } mof{};
    const char a[] = "abc", b[] = "defgh";
    const std::uint32_t c = 0xDEADBEEF;
    mof.h.Size = sizeof mof;
    mof.h.Class.Type = 14;
    mof.h.Flags = ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_MOF_PTR;
    etw_event_trace_header_set_guid_ptr(&mof.h, &class_guid);
    mof.f[0] = {reinterpret_cast<std::uint64_t>(a), 3, 0};
    mof.f[1] = {reinterpret_cast<std::uint64_t>(b), 5, 0};
    mof.f[2] = {reinterpret_cast<std::uint64_t>(&c), 4, 0};
    ASSERT_EQ(etw_provider_trace_event(prov, &mof.h), ETW_OK);
    // More than 16 MOF fields.
    struct {
        etw_event_trace_header h;
        etw_mof_field f[17];
    } many{};
    many.h.Size = sizeof many;
    many.h.Flags = ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_MOF_PTR;
    many.h.Guid = class_guid;
    EXPECT_EQ(etw_provider_trace_event(prov, &many.h), ETW_ERROR_INVALID_PARAMETER);
    many.h.Size = sizeof(etw_event_trace_header) + 16 * sizeof(etw_mof_field);
    EXPECT_EQ(etw_provider_trace_event(prov, &many.h), ETW_OK);
    many.h.Size = sizeof(etw_event_trace_header) + 8; // not whole MOF fields
    EXPECT_EQ(etw_provider_trace_event(prov, &many.h), ETW_ERROR_INVALID_PARAMETER);

    ASSERT_EQ(etw_session_stop(s, props), ETW_OK);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 4u); // fits, inline, mof, 16 empty MOF fields
    std::map<int, etltest::Event> by_type;
    for (auto &e : f.events)
        by_type[e.type] = e;
    EXPECT_EQ(by_type.count(13), 0u); // filtered by level
    auto &ie = by_type.at(12);
    EXPECT_EQ(ie.size, 0x30 + 13);
    EXPECT_EQ(ie.level, ETW_LEVEL_WARNING);
    EXPECT_EQ(ie.tid, openetw::platform::thread_id());
    EXPECT_EQ(ie.pid, std::uint32_t(getpid()));
    EXPECT_NE(ie.timestamp, 3);
    EXPECT_EQ(std::memcmp(ie.guid, &class_guid, 16), 0);
    EXPECT_EQ(std::vector<std::uint8_t>(inl.bytes + 0x30, inl.bytes + 0x30 + 13), ie.payload);
    auto &me = by_type.at(14);
    EXPECT_EQ(me.size, 0x30 + 12);
    EXPECT_EQ(std::memcmp(me.guid, &class_guid, 16), 0); // the real GUID, not the pointer
    EXPECT_EQ(std::string(me.payload.begin(), me.payload.begin() + 8), "abcdefgh");
    EXPECT_EQ(etltest::r32(me.payload.data() + 8), c);
    EXPECT_EQ(by_type.at(11).size, 4096 - 73);
    EXPECT_EQ(by_type.at(0).size, 0x30); // 16 empty MOF fields
}

TEST(Provider, EventAboveFFFFIsInvalidParameter)
{
    const etw_guid pg = make_guid(0x5600);
    Props props(unique_name("ffff"), temp_file("ffff"));
    etw_properties_set_buffer_size(props, 128);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    ASSERT_EQ(etw_session_enable_provider(s, &pg, 1, 0, 0, 0), ETW_OK);
    static std::uint8_t data[70000];
    struct {
        etw_event_trace_header h;
        etw_mof_field f[1];
    } ev{};
    ev.h.Size = sizeof ev;
    ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_MOF_PTR;
    ev.f[0] = {reinterpret_cast<std::uint64_t>(data), 0x10000 - 0x30, 0};
    EXPECT_EQ(etw_provider_trace_event(prov, &ev.h), ETW_ERROR_INVALID_PARAMETER);
    ev.f[0].Length = 0xFFFF - 0x30;
    EXPECT_EQ(etw_provider_trace_event(prov, &ev.h), ETW_OK);
}

TEST(Provider, EventGoesToEverySessionThatEnabledIt)
{
    const etw_guid pg = make_guid(0x5700);
    const std::string f1 = temp_file("multi"), f2 = temp_file("multi"), f3 = temp_file("multi");
    Props p1(unique_name("multi"), f1), p2(unique_name("multi"), f2), p3(unique_name("multi"), f3);
    SessionHandle s1, s2, s3;
    ASSERT_EQ(start(s1, p1), ETW_OK);
    ASSERT_EQ(start(s2, p2), ETW_OK);
    ASSERT_EQ(start(s3, p3), ETW_OK);
    Provider prov(pg);
    etw_session_enable_provider(s1, &pg, 1, 0, 0, 0);
    etw_session_enable_provider(s2, &pg, 1, ETW_LEVEL_ERROR, 0, 0);
    for (std::uint8_t lvl = 1; lvl <= 5; ++lvl) {
        Event e(pg, 16, lvl);
        ASSERT_EQ(etw_provider_trace_event(prov, e.h()), ETW_OK);
    }
    etw_session_stop(s1, nullptr);
    etw_session_stop(s2, nullptr);
    etw_session_stop(s3, nullptr);
    EXPECT_EQ(etltest::decode(f1).events.size(), 5u);
    EXPECT_EQ(etltest::decode(f2).events.size(), 2u);
    EXPECT_EQ(etltest::decode(f3).events.size(), 0u);
}

// ---- Buffer pool and statistics ----

TEST(Pool, DropsPastTheMaximumAndCountsEventsLostExactly)
{
    const etw_guid pg = make_guid(0x5800);
    const std::string file = temp_file("lost");
    Props props(unique_name("lost"), file);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_maximum_buffers(props, 1); // raised to the minimum
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    ASSERT_EQ(props.rec().MaximumBuffers, 2u); // one stream: the minimum of 2 is also the maximum
    engine_session(s.s).hold_logger(true);     // a stalled logger: nothing is emptied while we write
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    std::uint32_t ok = 0, dropped = 0;
    for (int i = 0; i < 20000; ++i) {
        Event e(pg, 200);
        etw_status st = etw_provider_trace_event(prov, e.h());
        if (st == ETW_OK)
            ++ok;
        else if (st == ETW_ERROR_NOT_ENOUGH_MEMORY)
            ++dropped;
        else
            FAIL() << st;
    }
    // Two 4 KB buffers of 248-byte records hold exactly this many; the rest is lost.
    const std::uint32_t per_buffer = (4096 - 0x48) / 248;
    EXPECT_EQ(ok, 2 * per_buffer);
    EXPECT_EQ(dropped, 20000 - 2 * per_buffer);
    Props q("q");
    ASSERT_EQ(etw_session_query(s, q), ETW_OK);
    EXPECT_EQ(q.rec().EventsLost, dropped);
    EXPECT_EQ(q.rec().NumberOfBuffers, 2u);
    EXPECT_EQ(q.rec().FreeBuffers, 0u);
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK);
    auto r = props.rec();
    EXPECT_EQ(r.EventsLost, dropped);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.events.size(), ok);
    EXPECT_EQ(f.events_lost, dropped);
    EXPECT_EQ(f.buffers_written, r.BuffersWritten + 1);
    EXPECT_EQ(r.NumberOfBuffers, 2u);
    EXPECT_EQ(r.FreeBuffers, 2u);
}

// A thread whose write found no buffer drops its next writes at once
// (OwnedBuffers::starved) only until a buffer may be had again.
namespace {
struct Starved {
    const etw_guid pg = make_guid(0x5880);
    Props props{unique_name("starved"), temp_file("starved")};
    SessionHandle s;
    std::unique_ptr<Provider> prov;
    std::uint32_t dropped = 0;
    // A two-buffer session with its logger stalled, written until 10 writes were dropped.
    void start_and_starve()
    {
        etw_properties_set_buffer_size(props, 4);
        etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING);
        etw_properties_set_maximum_buffers(props, 2);
        ASSERT_EQ(start(s, props), ETW_OK);
        engine_session(s.s).hold_logger(true);
        prov = std::make_unique<Provider>(pg);
        etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
        for (int i = 0; i < 1000 && dropped < 10; ++i)
            if (write() == ETW_ERROR_NOT_ENOUGH_MEMORY)
                ++dropped;
        ASSERT_EQ(dropped, 10u);
    }
    etw_status write()
    {
        Event e(pg, 200);
        return etw_provider_trace_event(*prov, e.h());
    }
    std::uint32_t events_lost()
    {
        Props q("q");
        EXPECT_EQ(etw_session_query(s, q), ETW_OK);
        return q.rec().EventsLost;
    }
};
} // namespace

TEST(Pool, AWriterOutOfBuffersWritesAgainOnceTheLoggerFreesOne)
{
    Starved t;
    ASSERT_NO_FATAL_FAILURE(t.start_and_starve());
    EXPECT_EQ(t.write(), ETW_ERROR_NOT_ENOUGH_MEMORY);
    EXPECT_EQ(t.events_lost(), 11u);
    engine_session(t.s.s).hold_logger(false);
    ASSERT_EQ(etw_session_flush(t.s, nullptr), ETW_OK); // written, and freed
    EXPECT_EQ(t.write(), ETW_OK);
    EXPECT_EQ(t.events_lost(), 11u);
}

TEST(Pool, RaisingMaximumBuffersEndsTheDropsAtOnce)
{
    Starved t;
    ASSERT_NO_FATAL_FAILURE(t.start_and_starve());
    // The logger still stalled: no buffer is freed, but the pool may grow.
    Props more("more");
    etw_properties_set_maximum_buffers(more, 8);
    ASSERT_EQ(etw_session_update(t.s, more), ETW_OK);
    EXPECT_EQ(t.write(), ETW_OK);
    EXPECT_EQ(t.events_lost(), 10u);
    engine_session(t.s.s).hold_logger(false);
}

TEST(Pool, GrowsFromMinimumToMaximum)
{
    const etw_guid pg = make_guid(0x5900);
    Props props(unique_name("grow"), temp_file("grow"));
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_maximum_buffers(props, 50);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    EXPECT_EQ(props.rec().NumberOfBuffers, 2u);
    engine_session(s.s).hold_logger(true); // buffers fill faster than they are emptied
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    std::uint32_t ok = 0, dropped = 0;
    Props q("q");
    for (int i = 0; i < 5000; ++i) {
        Event e(pg, 1000);
        if (etw_provider_trace_event(prov, e.h()) == ETW_OK)
            ++ok;
        else
            ++dropped;
        if (i == 10) { // after 11 records of 1048 bytes (3 a buffer): 4 buffers
            ASSERT_EQ(etw_session_query(s, q), ETW_OK);
            EXPECT_EQ(q.rec().NumberOfBuffers, 4u);
        }
    }
    ASSERT_EQ(etw_session_query(s, q), ETW_OK);
    EXPECT_EQ(q.rec().NumberOfBuffers, 50u);
    EXPECT_EQ(ok, 50u * ((4096 - 0x48) / 1048));
    EXPECT_EQ(q.rec().EventsLost, dropped);
    EXPECT_EQ(dropped, 5000 - ok);
}

TEST(Pool, StressWrittenPlusLostEqualsAttempted)
{
    const etw_guid pg = make_guid(0x5A00);
    const std::string file = temp_file("stress");
    Props props(unique_name("stress"), file);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_maximum_buffers(props, 3 * kCpus);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    const int threads = 8, per_thread = 20000;
    std::atomic<std::uint64_t> ok{0}, dropped{0};
    std::vector<std::thread> ts;
    std::thread controller([&] {
        Props q("q");
        for (int i = 0; i < 20; ++i) {
            etw_session_query(s, q);
            etw_session_flush(s, nullptr);
        }
    });
    for (int t = 0; t < threads; ++t)
        ts.emplace_back([&, t] {
            for (int i = 0; i < per_thread; ++i) {
                Event e(pg, std::size_t(8 + (i % 64)), 4, std::uint8_t(t));
                std::memcpy(e.bytes + 0x30, &i, sizeof i);
                etw_status st = etw_provider_trace_event(prov, e.h());
                (st == ETW_OK ? ok : dropped)++;
            }
        });
    for (auto &t : ts)
        t.join();
    controller.join();
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK);
    auto r = props.rec();
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.events.size() + r.EventsLost, std::uint64_t(threads) * per_thread);
    EXPECT_EQ(r.EventsLost, dropped.load());
    EXPECT_EQ(f.events.size(), ok.load());
    // Each thread's events are complete and unique.
    std::set<std::pair<int, int>> seen;
    for (auto &e : f.events) {
        int i;
        std::memcpy(&i, e.payload.data(), sizeof i);
        EXPECT_TRUE(seen.insert({e.type, i}).second);
        EXPECT_EQ(e.size, 0x30 + 8 + (i % 64));
    }
    EXPECT_EQ(f.buffers_written, r.BuffersWritten + 1);
    EXPECT_EQ(r.FreeBuffers, r.NumberOfBuffers);
}

TEST(Pool, FlushWritesWhileRunningAndStatisticsFollow)
{
    const etw_guid pg = make_guid(0x5B00);
    const std::string file = temp_file("flush");
    Props props(unique_name("flush"), file);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    Event e(pg, 32);
    for (int i = 0; i < 10; ++i)
        etw_provider_trace_event(prov, e.h());
    Props q("q");
    ASSERT_EQ(etw_session_flush(s, q), ETW_OK);
    EXPECT_GE(q.rec().BuffersWritten, 1u);
    EXPECT_EQ(q.rec().FreeBuffers, q.rec().NumberOfBuffers);
    // The file is readable with the events while the session runs (the
    // header still says BuffersWritten 1 until stop).
    auto bytes = etltest::read_all(file);
    EXPECT_EQ(bytes.size() % (64 * 1024), 0u);
    EXPECT_GE(bytes.size(), 2u * 64 * 1024);
}

TEST(Pool, FlushTimerFlushesWithoutAsking)
{
    const etw_guid pg = make_guid(0x5C00);
    Props props(unique_name("timer"), temp_file("timer"));
    etw_properties_set_flush_timer(props, 1);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    Event e(pg, 32);
    etw_provider_trace_event(prov, e.h());
    Props q("q");
    for (int i = 0; i < 40; ++i) {
        etw_session_query(s, q);
        if (q.rec().BuffersWritten > 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(q.rec().BuffersWritten, 1u);
}

TEST(Pool, FlushTimerZeroDoesNotFlush)
{
    const etw_guid pg = make_guid(0x5D00);
    Props props(unique_name("notimer"), temp_file("notimer"));
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    Event e(pg, 32);
    etw_provider_trace_event(prov, e.h());
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    Props q("q");
    etw_session_query(s, q);
    EXPECT_EQ(q.rec().BuffersWritten, 0u);
}

TEST(Session, UpdateChangesWhatEtwAllows)
{
    const etw_guid pg = make_guid(0x5E00);
    const std::string f1 = temp_file("upd"), f2 = temp_file("upd2");
    Props props(unique_name("upd"), f1);
    SessionHandle s;
    ASSERT_EQ(start(s, props), ETW_OK);
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    Event e(pg, 32);
    etw_provider_trace_event(prov, e.h());
    etw_properties_set_flush_timer(props, 5);
    etw_properties_set_maximum_buffers(props, props.rec().MaximumBuffers + 10);
    const auto want_max = props.rec().MaximumBuffers;
    etw_properties_set_log_file_name(props, f2.c_str());
    ASSERT_EQ(etw_session_update(s, props), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(props.rec().FlushTimer, 5u);
    EXPECT_EQ(props.rec().MaximumBuffers, want_max);
    EXPECT_EQ(std::string(etw_properties_log_file_name(props)), f2);
    etw_provider_trace_event(prov, e.h());
    etw_provider_trace_event(prov, e.h());
    // EnableFlags only on system loggers.
    etw_properties_set_enable_flags(props, ETW_FLAG_PROCESS);
    EXPECT_EQ(etw_session_update(s, props), ETW_ERROR_INVALID_PARAMETER);
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    auto a = etltest::decode(f1), b = etltest::decode(f2);
    ASSERT_TRUE(a.ok()) << a.problem_text();
    ASSERT_TRUE(b.ok()) << b.problem_text();
    EXPECT_EQ(a.events.size(), 1u);
    EXPECT_EQ(b.events.size(), 2u);
}
