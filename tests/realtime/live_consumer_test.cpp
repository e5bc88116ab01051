// Live consumers through the public C API: etw_consumer_open_session,
// callback order, loss notifications, cancel and close from other threads,
// stop during processing, several consumers.
#include "../engine/engine_test_util.hpp"

#include <openetw/consumer.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

using namespace enginetest;

namespace {

etw_status write_numbered(etw_provider *p, const etw_guid &g, std::uint32_t n, std::size_t payload = 8)
{
    Event e(g, payload);
    std::memcpy(e.bytes + 0x30, &n, 4);
    return etw_provider_trace_event(p, e.h());
}

struct Live {
    std::string name = unique_name("live");
    etw_guid guid;
    Props props;
    SessionHandle s;
    std::unique_ptr<Provider> provider;
    explicit Live(std::uint32_t id, std::uint32_t max_buffers = 16, const etw_session_options *opt = nullptr)
        : guid(make_guid(id)), props(name)
    {
        etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE | ETW_NO_PER_PROCESSOR_BUFFERING);
        etw_properties_set_buffer_size(props, 4);
        etw_properties_set_maximum_buffers(props, max_buffers);
        EXPECT_EQ(etw_session_start_ex(&s.s, props, opt), ETW_OK) << etw_last_error_message();
        provider = std::make_unique<Provider>(guid);
        EXPECT_EQ(etw_session_enable_provider(s, &guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    }
};

// What the callbacks saw, in order.
struct Log {
    std::mutex m;
    std::vector<std::string> calls;
    std::vector<std::uint32_t> numbers;
    std::atomic<std::uint64_t> records{0}, events{0}, buffers{0}, raw{0};
    std::atomic<std::uint64_t> lost_events{0}, lost_buffers{0};
    std::atomic<int> in_callback{0};
    std::atomic<bool> entered{false};
    int sleep_ms = 0;
    std::condition_variable cv;
    void note(const char *what)
    {
        std::lock_guard<std::mutex> lock(m);
        if (calls.size() < 64)
            calls.push_back(what);
    }
};

int32_t on_raw(void *u, const uint8_t *, uint32_t size)
{
    auto *l = static_cast<Log *>(u);
    l->note("raw");
    EXPECT_EQ(size, 4096u);
    ++l->raw;
    return 0;
}

int32_t on_record(void *u, const etw_record *r)
{
    auto *l = static_cast<Log *>(u);
    ++l->in_callback;
    l->note("record");
    if (r->kind == ETW_RECORD_KIND_FULL && r->payload_size >= 4) {
        std::uint32_t n;
        std::memcpy(&n, r->payload, 4);
        std::lock_guard<std::mutex> lock(l->m);
        l->numbers.push_back(n);
    }
    ++l->records;
    {
        std::lock_guard<std::mutex> lock(l->m);
        l->entered = true;
    }
    l->cv.notify_all();
    if (l->sleep_ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(l->sleep_ms));
    --l->in_callback;
    return 0;
}

int32_t on_event(void *u, const etw_classic_event *)
{
    auto *l = static_cast<Log *>(u);
    l->note("event");
    ++l->events;
    return 0;
}

int32_t on_buffer(void *u, const etw_buffer_info *)
{
    auto *l = static_cast<Log *>(u);
    l->note("buffer");
    ++l->buffers;
    return 0;
}

int32_t on_loss(void *u, const etw_loss_info *info)
{
    auto *l = static_cast<Log *>(u);
    l->lost_events += info->events_lost;
    l->lost_buffers += info->buffers_lost;
    return 0;
}

etw_consumer_options callbacks(Log &log)
{
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.buffer = on_buffer;
    o.record = on_record;
    o.event = on_event;
    o.user_data = &log;
    return o;
}

etw_consumer *open_live(const std::string &name, Log &log)
{
    etw_consumer_options o = callbacks(log);
    etw_consumer *c = nullptr;
    EXPECT_EQ(etw_consumer_open_session(&c, name.c_str(), &o), ETW_OK) << etw_last_error_message();
    if (c) {
        EXPECT_EQ(etw_consumer_set_raw_buffer_callback(c, on_raw), ETW_OK);
        EXPECT_EQ(etw_consumer_set_loss_callback(c, on_loss), ETW_OK);
    }
    return c;
}

} // namespace

TEST(LiveConsumer, RawBufferThenRecordsThenEventsThenBufferAndSuccessAtStop)
{
    Live live(0x6001);
    Log log;
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    etw_logfile_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(etw_consumer_logfile_header(&info, c, 0), ETW_OK);
    EXPECT_EQ(std::string(info.logger_name), live.name);
    std::atomic<etw_status> result{ETW_ERROR_INTERNAL_ERROR};
    std::thread t([&] { result = etw_consumer_process(c); });
    for (std::uint32_t i = 0; i < 3; ++i)
        ASSERT_EQ(write_numbered(*live.provider, live.guid, i), ETW_OK);
    ASSERT_EQ(etw_session_flush(live.s, nullptr), ETW_OK);
    ASSERT_EQ(write_numbered(*live.provider, live.guid, 3), ETW_OK);
    ASSERT_EQ(etw_session_stop(live.s, nullptr), ETW_OK); // delivers what remains
    t.join();
    EXPECT_EQ(result.load(), ETW_OK) << etw_status_name(result.load());
    const std::vector<std::string> first = {"raw", "record", "event", "record", "event", "record", "event", "buffer"};
    ASSERT_GE(log.calls.size(), first.size());
    EXPECT_EQ(std::vector<std::string>(log.calls.begin(), log.calls.begin() + 8), first);
    EXPECT_EQ(log.numbers, (std::vector<std::uint32_t>{0, 1, 2, 3}));
    EXPECT_EQ(log.raw.load(), 2u);
    EXPECT_EQ(log.buffers.load(), 2u);
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
}

TEST(LiveConsumer, OpenChecksTheSessionAndFreesUserDataOnFailure)
{
    static int freed = 0;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.user_data = &freed;
    o.user_data_free = [](void *p) { ++*static_cast<int *>(p); };
    etw_consumer *c = nullptr;
    EXPECT_EQ(etw_consumer_open_session(&c, "no-such-session-anywhere", &o), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    EXPECT_EQ(c, nullptr);
    EXPECT_EQ(freed, 1);
    Props file(unique_name("live-file"), temp_file("live-file"));
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, file), ETW_OK);
    EXPECT_EQ(etw_consumer_open_session(&c, etw_properties_session_name(file), &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(freed, 2);
    EXPECT_EQ(etw_consumer_open_session(&c, nullptr, nullptr), ETW_ERROR_INVALID_PARAMETER);
}

TEST(LiveConsumer, NoCallbackRunsAfterCloseReturns)
{
    Live live(0x6002);
    Log log;
    log.sleep_ms = 100; // the callback is still sleeping when close is called
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    std::atomic<etw_status> result{ETW_ERROR_INTERNAL_ERROR};
    std::thread t([&] { result = etw_consumer_process(c); });
    for (std::uint32_t i = 0; i < 5; ++i)
        ASSERT_EQ(write_numbered(*live.provider, live.guid, i), ETW_OK);
    ASSERT_EQ(etw_session_flush(live.s, nullptr), ETW_OK);
    {
        std::unique_lock<std::mutex> lock(log.m);
        log.cv.wait(lock, [&] { return log.entered.load(); }); // a callback is running
    }
    std::thread closer([&] { EXPECT_EQ(etw_consumer_close(c), ETW_OK); });
    closer.join();
    // close returned: nothing runs and nothing will.
    EXPECT_EQ(log.in_callback.load(), 0);
    const std::uint64_t seen = log.records.load();
    for (std::uint32_t i = 0; i < 5; ++i)
        write_numbered(*live.provider, live.guid, 10 + i);
    ASSERT_EQ(etw_session_flush(live.s, nullptr), ETW_OK);
    t.join();
    EXPECT_EQ(result.load(), ETW_ERROR_CANCELLED);
    EXPECT_EQ(log.records.load(), seen);
    // The session keeps running without its consumer.
    EXPECT_EQ(etw_session_query(live.s, live.props), ETW_OK);
}

TEST(LiveConsumer, CancelFromAnotherThreadWakesAWaitingProcess)
{
    Live live(0x6003);
    Log log;
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    std::atomic<etw_status> result{ETW_ERROR_INTERNAL_ERROR};
    std::thread t([&] { result = etw_consumer_process(c); });
    ASSERT_EQ(write_numbered(*live.provider, live.guid, 1), ETW_OK);
    ASSERT_EQ(etw_session_flush(live.s, nullptr), ETW_OK);
    {
        std::unique_lock<std::mutex> lock(log.m);
        log.cv.wait(lock, [&] { return log.entered.load(); }); // processing, then waiting for more
    }
    EXPECT_EQ(etw_consumer_cancel(c), ETW_OK);
    t.join();
    EXPECT_EQ(result.load(), ETW_ERROR_CANCELLED);
    EXPECT_EQ(etw_consumer_process(c), ETW_ERROR_CANCELLED); // permanent
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
}

TEST(LiveConsumer, CloseFromAnotherThreadWhileWaiting)
{
    Live live(0x6004);
    Log log;
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    std::atomic<etw_status> result{ETW_ERROR_INTERNAL_ERROR};
    std::thread t([&] { result = etw_consumer_process(c); });
    ASSERT_EQ(write_numbered(*live.provider, live.guid, 1), ETW_OK);
    ASSERT_EQ(etw_session_flush(live.s, nullptr), ETW_OK);
    {
        std::unique_lock<std::mutex> lock(log.m);
        log.cv.wait(lock, [&] { return log.entered.load(); }); // process runs (it must start before close)
    }
    EXPECT_EQ(etw_consumer_close(c), ETW_OK); // cancels the wait for more, waits for process to return
    t.join();
    EXPECT_EQ(result.load(), ETW_ERROR_CANCELLED);
}

TEST(LiveConsumer, StopDuringProcessingDeliversEverythingThenSucceeds)
{
    Live live(0x6005, 64);
    Log log;
    log.sleep_ms = 1;
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    std::atomic<etw_status> result{ETW_ERROR_INTERNAL_ERROR};
    std::thread t([&] { result = etw_consumer_process(c); });
    std::uint32_t ok = 0;
    for (std::uint32_t i = 0; i < 200; ++i)
        ok += write_numbered(*live.provider, live.guid, i, 200) == ETW_OK;
    {
        std::unique_lock<std::mutex> lock(log.m);
        log.cv.wait(lock, [&] { return log.entered.load(); }); // processing is under way
    }
    ASSERT_EQ(etw_session_stop(live.s, live.props), ETW_OK);
    t.join();
    EXPECT_EQ(result.load(), ETW_OK);
    EXPECT_EQ(log.records.load() + live.props.rec().EventsLost, 200u);
    EXPECT_EQ(log.records.load(), ok);
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
}

TEST(LiveConsumer, SlowConsumerIsToldOfLossesAndDeliveredPlusLostEqualsWritten)
{
    Live live(0x6006, 4);
    Log log;
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    std::atomic<etw_status> result{ETW_ERROR_INTERNAL_ERROR};
    std::atomic<std::uint64_t> slow{0};
    std::thread t([&] { result = etw_consumer_process(c); });
    constexpr int kThreads = 3, kPerThread = 20000;
    std::vector<std::thread> producers;
    for (int p = 0; p < kThreads; ++p)
        producers.emplace_back([&, p] {
            for (int i = 0; i < kPerThread; ++i)
                write_numbered(*live.provider, live.guid, std::uint32_t(p * kPerThread + i), 40);
        });
    for (auto &p : producers)
        p.join();
    ASSERT_EQ(etw_session_stop(live.s, live.props), ETW_OK);
    t.join();
    EXPECT_EQ(result.load(), ETW_OK);
    const auto r = live.props.rec();
    EXPECT_EQ(log.records.load() + r.EventsLost, std::uint64_t(kThreads) * kPerThread);
    EXPECT_EQ(log.lost_events.load(), r.EventsLost); // every loss was notified, none twice
    EXPECT_EQ(log.lost_buffers.load(), r.RealTimeBuffersLost);
    etw_consumer_stats stats{};
    stats.struct_size = sizeof stats;
    ASSERT_EQ(etw_consumer_get_stats(&stats, c), ETW_OK);
    EXPECT_EQ(stats.events_lost, r.EventsLost);
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
    (void)slow;
}

TEST(LiveConsumer, TwoConsumersEachGetEveryEvent)
{
    Live live(0x6007);
    Log a, b;
    etw_consumer *ca = open_live(live.name, a);
    etw_consumer *cb = open_live(live.name, b);
    ASSERT_TRUE(ca && cb);
    std::thread ta([&] { EXPECT_EQ(etw_consumer_process(ca), ETW_OK); });
    std::thread tb([&] { EXPECT_EQ(etw_consumer_process(cb), ETW_OK); });
    for (std::uint32_t i = 0; i < 50; ++i)
        ASSERT_EQ(write_numbered(*live.provider, live.guid, i, 300), ETW_OK);
    ASSERT_EQ(etw_session_stop(live.s, nullptr), ETW_OK);
    ta.join();
    tb.join();
    EXPECT_EQ(a.numbers.size(), 50u);
    EXPECT_EQ(a.numbers, b.numbers);
    etw_consumer_close(ca);
    etw_consumer_close(cb);
}

TEST(LiveConsumer, CallbacksCannotChangeWhileProcessing)
{
    Live live(0x6008);
    Log log;
    etw_consumer *c = open_live(live.name, log);
    ASSERT_NE(c, nullptr);
    log.sleep_ms = 0;
    std::thread t([&] { etw_consumer_process(c); });
    ASSERT_EQ(write_numbered(*live.provider, live.guid, 1), ETW_OK);
    ASSERT_EQ(etw_session_flush(live.s, nullptr), ETW_OK);
    {
        std::unique_lock<std::mutex> lock(log.m);
        log.cv.wait(lock, [&] { return log.entered.load(); });
    }
    EXPECT_EQ(etw_consumer_set_loss_callback(c, nullptr), ETW_ERROR_BUSY);
    etw_consumer_cancel(c);
    t.join();
    etw_consumer_close(c);
}
