// Real-time delivery, the backlog and its limit, RealTimeBuffersLost,
// FlushTimer in real-time mode, file + real-time, buffering mode and
// lossless sessions, driven through the public C API and the engine's
// real-time reader (the cursor a live consumer uses).
#include "../engine/engine_test_util.hpp"

#include "../engine/engine_session.hpp"
#include "engine/session.hpp"
#include "format/etl_layout.hpp"
#include "platform/files.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

using namespace enginetest;
using openetw::engine::LossReport;
using openetw::engine::RealtimeReader;
using Next = RealtimeReader::Next;

namespace {

// Events carry a 32-bit number at the start of their payload.
etw_status write_numbered(etw_provider *p, const etw_guid &g, std::uint32_t n, std::size_t payload = 8)
{
    Event e(g, payload);
    std::memcpy(e.bytes + 0x30, &n, 4);
    return etw_provider_trace_event(p, e.h());
}

// The numbers of the events in one delivered buffer (records in offset order).
std::vector<std::uint32_t> numbers_in(const std::vector<std::uint8_t> &b)
{
    namespace etl = openetw::etl;
    std::vector<std::uint32_t> out;
    const std::uint32_t filled = etltest::r32(b.data() + etl::buf::Offset);
    std::size_t off = etl::kBufferHeaderSize;
    while (off + 0x30 <= filled) {
        const std::uint16_t size = etltest::r16(b.data() + off);
        if (size < 0x30)
            break;
        if (size >= 0x34)
            out.push_back(etltest::r32(b.data() + off + 0x30));
        off += (size + 7u) & ~7u;
    }
    return out;
}

struct Rt {
    std::string name = unique_name("rt");
    etw_guid guid;
    Props props;
    SessionHandle s;
    std::unique_ptr<Provider> provider;
    explicit Rt(std::uint32_t mode_extra = 0, const etw_session_options *opt = nullptr, std::uint32_t id = 0x5001,
                const std::string &file = {}, std::uint32_t max_buffers = 16)
        : guid(make_guid(id)), props(name, file)
    {
        etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE | ETW_NO_PER_PROCESSOR_BUFFERING | mode_extra);
        etw_properties_set_buffer_size(props, 4);
        etw_properties_set_maximum_buffers(props, max_buffers);
        EXPECT_EQ(etw_session_start_ex(&s.s, props, opt), ETW_OK) << etw_last_error_message();
        engine = engine_session_ref(s.s);
        provider = std::make_unique<Provider>(guid);
        EXPECT_EQ(etw_session_enable_provider(s, &guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    }
    // Held from the start: a test may look at it after the stop.
    std::shared_ptr<openetw::engine::Session> engine;
    openetw::engine::Session &session() { return *engine; }
    std::unique_ptr<RealtimeReader> attach()
    {
        std::unique_ptr<RealtimeReader> r;
        EXPECT_TRUE(session().attach(&r).is_ok());
        return r;
    }
    etw_event_trace_properties query()
    {
        EXPECT_EQ(etw_session_query(s, props), ETW_OK);
        return props.rec();
    }
};

etw_session_options options(std::uint32_t flags, std::uint32_t backlog = 0, std::uint32_t timeout_ms = 0)
{
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = flags;
    o.realtime_backlog_buffers = backlog;
    o.lossless_timeout_ms = timeout_ms;
    return o;
}

// Runs body on a thread and interrupts reader if it has not returned in a
// generous time (liveness only: a bug shows as a failure, not a hang).
struct Watchdog {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread t;
    Watchdog(RealtimeReader &r, std::chrono::seconds limit)
    {
        t = std::thread([this, &r, limit] {
            std::unique_lock<std::mutex> lock(m);
            if (!cv.wait_for(lock, limit, [this] { return done; }))
                r.interrupt();
        });
    }
    ~Watchdog()
    {
        {
            std::lock_guard<std::mutex> lock(m);
            done = true;
        }
        cv.notify_all();
        t.join();
    }
};

// A 4 KB buffer holds exactly two events of this payload (2 x 2008 <= 4024).
constexpr std::size_t kHalfBufferPayload = 2008 - 0x30;

} // namespace

TEST(RealTime, ExplicitFlushDeliversAtOnce)
{
    Rt rt;
    auto reader = rt.attach();
    for (std::uint32_t i = 0; i < 5; ++i)
        ASSERT_EQ(write_numbered(*rt.provider, rt.guid, i), ETW_OK);
    std::vector<std::uint8_t> b;
    EXPECT_EQ(reader->try_next(b, nullptr), Next::Interrupted); // nothing flushed yet
    ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    ASSERT_EQ(reader->try_next(b, nullptr), Next::Buffer); // already queued when flush returned
    EXPECT_EQ(numbers_in(b), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
    EXPECT_EQ(etltest::r64(b.data() + openetw::etl::buf::SequenceNumber), 1u);
    EXPECT_EQ(b.size(), 4096u);
}

TEST(RealTime, BacklogIsKeptUntilAConsumerAttachesThenRefusedWithLogFileFull)
{
    auto opt = options(0, 3);
    Rt rt(0, &opt);
    etw_session_options got{};
    got.struct_size = sizeof got;
    ASSERT_EQ(etw_session_get_options(&got, rt.s), ETW_OK);
    EXPECT_EQ(got.realtime_backlog_buffers, 3u);
    // Three flushed buffers of two events each: the backlog is full.
    std::uint32_t n = 0;
    for (int b = 0; b < 3; ++b) {
        ASSERT_EQ(write_numbered(*rt.provider, rt.guid, n++), ETW_OK);
        ASSERT_EQ(write_numbered(*rt.provider, rt.guid, n++), ETW_OK);
        ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    }
    EXPECT_EQ(write_numbered(*rt.provider, rt.guid, 999), ETW_ERROR_LOG_FILE_FULL);
    EXPECT_EQ(write_numbered(*rt.provider, rt.guid, 999), ETW_ERROR_LOG_FILE_FULL);
    auto r = rt.query();
    EXPECT_EQ(r.EventsLost, 2u);
    EXPECT_EQ(r.RealTimeBuffersLost, 0u);
    // A consumer attaches: the backlog comes oldest first, with the losses.
    auto reader = rt.attach();
    std::vector<std::uint32_t> seen;
    std::vector<std::uint8_t> b;
    LossReport loss;
    ASSERT_EQ(reader->try_next(b, &loss), Next::Buffer);
    EXPECT_EQ(loss.events_lost, 0u); // counted before it attached: not news to it
    for (auto x : numbers_in(b))
        seen.push_back(x);
    for (int i = 0; i < 2; ++i) {
        ASSERT_EQ(reader->try_next(b, nullptr), Next::Buffer);
        for (auto x : numbers_in(b))
            seen.push_back(x);
    }
    EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(reader->try_next(b, nullptr), Next::Interrupted);
    // Events are accepted again.
    EXPECT_EQ(write_numbered(*rt.provider, rt.guid, 6), ETW_OK);
}

TEST(RealTime, BufferArrivingAtAFullBacklogIsLostExactly)
{
    auto opt = options(0, 1);
    Rt rt(0, &opt);
    // Two events fill buffer A; the third opens B and hands A to the logger,
    // which fills the backlog (limit 1).
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 0, kHalfBufferPayload), ETW_OK);
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 1, kHalfBufferPayload), ETW_OK);
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 2, kHalfBufferPayload), ETW_OK);
    // The flush brings B: the backlog is full and nobody reads, so B is lost.
    ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    auto r = rt.query();
    EXPECT_EQ(r.RealTimeBuffersLost, 1u);
    EXPECT_EQ(r.EventsLost, 1u); // the event in B
    EXPECT_EQ(write_numbered(*rt.provider, rt.guid, 3), ETW_ERROR_LOG_FILE_FULL);
    // Stopping with no consumer attached: the backlog (A) is lost too.
    ASSERT_EQ(etw_session_stop(rt.s, rt.props), ETW_OK);
    r = rt.props.rec();
    EXPECT_EQ(r.RealTimeBuffersLost, 2u);
    EXPECT_EQ(r.EventsLost, 4u); // 2 in A + 1 in B + 1 refused
}

// A writer checks the refusal only when it renews its buffer (a flush, a
// full buffer, another processor): when the backlog fills, every owner is
// asked to renew, so one holding a buffer with room is refused too.
TEST(RealTime, AWriterHoldingABufferWithRoomIsRefusedOnceTheBacklogFills)
{
    auto opt = options(0, 1);
    Rt rt(0, &opt);
    std::atomic<int> step{0};
    etw_status late = ETW_OK;
    std::thread holder([&] {
        EXPECT_EQ(write_numbered(*rt.provider, rt.guid, 100), ETW_OK); // its own buffer, with room
        step = 1;
        while (step.load() != 2)
            std::this_thread::yield();
        late = write_numbered(*rt.provider, rt.guid, 101);
    });
    while (step.load() != 1)
        std::this_thread::yield();
    // This thread fills a buffer; handed to the logger, it fills the
    // backlog (limit 1), and nobody reads: writes are refused from then on.
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 0, kHalfBufferPayload), ETW_OK);
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 1, kHalfBufferPayload), ETW_OK);
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 2, kHalfBufferPayload), ETW_OK);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    etw_status st = ETW_OK;
    while ((st = write_numbered(*rt.provider, rt.guid, 3)) == ETW_OK && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(st, ETW_ERROR_LOG_FILE_FULL);
    step = 2;
    holder.join();
    EXPECT_EQ(late, ETW_ERROR_LOG_FILE_FULL) << "the holder wrote on into its buffer";
}

TEST(RealTime, SeveralConsumersEachGetEveryBufferAndDetachingDoesNotStop)
{
    Rt rt;
    auto a = rt.attach();
    auto b = rt.attach();
    for (std::uint32_t i = 0; i < 3; ++i) {
        ASSERT_EQ(write_numbered(*rt.provider, rt.guid, i), ETW_OK);
        ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    }
    std::vector<std::uint8_t> buf;
    for (RealtimeReader *r : {a.get(), b.get()}) {
        for (std::uint32_t i = 0; i < 3; ++i) {
            ASSERT_EQ(r->try_next(buf, nullptr), Next::Buffer);
            EXPECT_EQ(numbers_in(buf), std::vector<std::uint32_t>{i});
        }
        EXPECT_EQ(r->try_next(buf, nullptr), Next::Interrupted);
    }
    const std::uint32_t free_before = rt.query().FreeBuffers;
    a.reset(); // detach
    auto r = rt.query();
    EXPECT_EQ(r.FreeBuffers, free_before); // every buffer was already released
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 7), ETW_OK);
    ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    ASSERT_EQ(b->try_next(buf, nullptr), Next::Buffer);
    EXPECT_EQ(numbers_in(buf), std::vector<std::uint32_t>{7});
    b.reset();
    EXPECT_EQ(etw_session_query(rt.s, rt.props), ETW_OK); // still running
    EXPECT_EQ(rt.props.rec().RealTimeBuffersLost, 0u);
}

TEST(RealTime, StopDeliversWhatRemainsThenEnds)
{
    Rt rt;
    auto reader = rt.attach();
    for (std::uint32_t i = 0; i < 9; ++i)
        ASSERT_EQ(write_numbered(*rt.provider, rt.guid, i, kHalfBufferPayload), ETW_OK);
    ASSERT_EQ(etw_session_stop(rt.s, rt.props), ETW_OK);
    std::vector<std::uint32_t> seen;
    std::vector<std::uint8_t> b;
    Next n;
    while ((n = reader->next(b, nullptr)) == Next::Buffer)
        for (auto x : numbers_in(b))
            seen.push_back(x);
    EXPECT_EQ(n, Next::End);
    EXPECT_EQ(seen.size(), 9u);
    for (std::uint32_t i = 0; i < seen.size(); ++i)
        EXPECT_EQ(seen[i], i);
    EXPECT_EQ(rt.props.rec().EventsLost, 0u);
    EXPECT_EQ(rt.props.rec().RealTimeBuffersLost, 0u);
    // Attaching to a stopped session fails.
    std::unique_ptr<RealtimeReader> late;
    EXPECT_EQ(rt.session().attach(&late).code, ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
}

TEST(RealTime, FlushTimerZeroMeansOneSecond)
{
    Rt rt; // FlushTimer 0
    EXPECT_EQ(rt.query().FlushTimer, 0u);
    auto reader = rt.attach();
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 42), ETW_OK);
    std::vector<std::uint8_t> b;
    Watchdog w(*reader, std::chrono::seconds(60)); // liveness bound only
    ASSERT_EQ(reader->next(b, nullptr), Next::Buffer) << "the timed flush never came";
    EXPECT_EQ(numbers_in(b), std::vector<std::uint32_t>{42});
}

TEST(RealTime, NonZeroFlushTimerBoundsLatencyOnAQuietSession)
{
    const std::string name = unique_name("rt-timer");
    Props props(name);
    etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE);
    etw_properties_set_flush_timer(props, 2);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK);
    const etw_guid g = make_guid(0x5101);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    std::unique_ptr<RealtimeReader> reader;
    ASSERT_TRUE(engine_session(s.s).attach(&reader).is_ok());
    for (std::uint32_t round = 0; round < 2; ++round) {
        ASSERT_EQ(write_numbered(p, g, round), ETW_OK);
        std::vector<std::uint8_t> b;
        Watchdog w(*reader, std::chrono::seconds(60));
        ASSERT_EQ(reader->next(b, nullptr), Next::Buffer);
        EXPECT_EQ(numbers_in(b), std::vector<std::uint32_t>{round});
    }
}

TEST(RealTime, FileAndRealTimeWriteTheFileAndDeliverWithoutRefusing)
{
    const std::string file = temp_file("rtfile");
    auto opt = options(0, 1);
    Rt rt(0, &opt, 0x5002, file);
    // No consumer, backlog 1: the file takes everything, nothing is refused.
    for (std::uint32_t i = 0; i < 3; ++i) {
        ASSERT_EQ(write_numbered(*rt.provider, rt.guid, i), ETW_OK);
        ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    }
    auto r = rt.query();
    EXPECT_EQ(r.EventsLost, 0u);
    EXPECT_EQ(r.RealTimeBuffersLost, 2u); // not kept for real time
    EXPECT_EQ(r.BuffersWritten, 3u);
    auto reader = rt.attach();
    std::vector<std::uint8_t> b;
    ASSERT_EQ(reader->try_next(b, nullptr), Next::Buffer);
    EXPECT_EQ(numbers_in(b), std::vector<std::uint32_t>{0}); // the oldest was kept
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 3), ETW_OK);
    ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    ASSERT_EQ(reader->try_next(b, nullptr), Next::Buffer);
    EXPECT_EQ(numbers_in(b), std::vector<std::uint32_t>{3});
    ASSERT_EQ(etw_session_stop(rt.s, rt.props), ETW_OK);
    EXPECT_EQ(reader->next(b, nullptr), Next::End);
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 4u);
    for (std::uint32_t i = 0; i < 4; ++i)
        EXPECT_EQ(etltest::r32(f.events[i].payload.data()), i);
}

TEST(RealTime, SlowConsumerDeliveredPlusLostEqualsWritten)
{
    // Small pool, four producers, a consumer that is slower than they are.
    Rt rt(0, nullptr, 0x5003, {}, 4);
    auto reader = rt.attach();
    std::atomic<std::uint64_t> delivered{0};
    std::thread consumer([&] {
        std::vector<std::uint8_t> b;
        while (reader->next(b, nullptr) == Next::Buffer) {
            delivered += numbers_in(b).size();
            std::this_thread::sleep_for(std::chrono::microseconds(300));
        }
    });
    constexpr int kThreads = 4, kPerThread = 20000;
    std::atomic<std::uint64_t> ok{0}, failed{0};
    std::vector<std::thread> producers;
    for (int t = 0; t < kThreads; ++t)
        producers.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                etw_status st = write_numbered(*rt.provider, rt.guid, std::uint32_t(t * kPerThread + i), 40);
                (st == ETW_OK ? ok : failed)++;
                EXPECT_TRUE(st == ETW_OK || st == ETW_ERROR_NOT_ENOUGH_MEMORY) << st;
            }
        });
    for (auto &p : producers)
        p.join();
    ASSERT_EQ(etw_session_stop(rt.s, rt.props), ETW_OK);
    consumer.join();
    const auto r = rt.props.rec();
    EXPECT_EQ(delivered.load() + r.EventsLost, std::uint64_t(kThreads) * kPerThread);
    EXPECT_EQ(failed.load(), r.EventsLost);
    EXPECT_EQ(delivered.load(), ok.load());
    EXPECT_EQ(r.RealTimeBuffersLost, 0u);
    EXPECT_GT(r.EventsLost, 0u) << "the consumer was meant to be too slow";
}

TEST(Lossless, ZeroLossUnderPressureWithASlowConsumer)
{
    auto opt = options(ETW_SESSION_LOSSLESS, 0, 120000);
    Rt rt(0, &opt, 0x5004, {}, 4);
    auto reader = rt.attach();
    std::atomic<std::uint64_t> delivered{0};
    std::thread consumer([&] {
        std::vector<std::uint8_t> b;
        while (reader->next(b, nullptr) == Next::Buffer) {
            delivered += numbers_in(b).size();
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    });
    constexpr int kThreads = 4, kPerThread = 5000;
    std::vector<std::thread> producers;
    for (int t = 0; t < kThreads; ++t)
        producers.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i)
                EXPECT_EQ(write_numbered(*rt.provider, rt.guid, std::uint32_t(t * kPerThread + i), 40), ETW_OK);
        });
    for (auto &p : producers)
        p.join();
    ASSERT_EQ(etw_session_stop(rt.s, rt.props), ETW_OK);
    consumer.join();
    EXPECT_EQ(rt.props.rec().EventsLost, 0u);
    EXPECT_EQ(delivered.load(), std::uint64_t(kThreads) * kPerThread);
}

TEST(Lossless, WriterWaitsForTheLoggerInsteadOfDropping)
{
    const std::string file = temp_file("lossless");
    Props props(unique_name("lossless"), file);
    etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_maximum_buffers(props, 2);
    auto opt = options(ETW_SESSION_LOSSLESS, 0, 120000);
    SessionHandle s;
    ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK);
    const etw_guid g = make_guid(0x5005);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    engine_session(s.s).hold_logger(true); // a stalled disk: nothing is freed
    // Two buffers of two events fill the pool; the fifth event must wait.
    std::thread writer([&] {
        for (std::uint32_t i = 0; i < 6; ++i)
            EXPECT_EQ(write_numbered(p, g, i, kHalfBufferPayload), ETW_OK);
    });
    while (engine_session(s.s).space_waiters() == 0) // the writer is blocked, not dropping
        openetw::platform::sleep_ms(1);
    EXPECT_EQ(props.rec().EventsLost, 0u);
    engine_session(s.s).hold_logger(false);
    writer.join();
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK);
    EXPECT_EQ(props.rec().EventsLost, 0u);
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.events.size(), 6u);
}

TEST(Lossless, WaitIsBoundedThenTheEventIsCounted)
{
    Props props(unique_name("lossless-timeout"), temp_file("lossless-timeout"));
    etw_properties_set_log_file_mode(props, ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_maximum_buffers(props, 2);
    auto opt = options(ETW_SESSION_LOSSLESS, 0, 20);
    SessionHandle s;
    ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK);
    const etw_guid g = make_guid(0x5006);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    engine_session(s.s).hold_logger(true);
    for (std::uint32_t i = 0; i < 4; ++i)
        ASSERT_EQ(write_numbered(p, g, i, kHalfBufferPayload), ETW_OK);
    EXPECT_EQ(write_numbered(p, g, 4, kHalfBufferPayload), ETW_ERROR_NOT_ENOUGH_MEMORY);
    ASSERT_EQ(etw_session_query(s, props), ETW_OK);
    EXPECT_EQ(props.rec().EventsLost, 1u);
}

TEST(Lossless, OptionsAreCheckedAndReported)
{
    Props props(unique_name("opts"));
    etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE);
    SessionHandle s;
    etw_session_options bad = options(0x80);
    EXPECT_EQ(etw_session_start_ex(&s.s, props, &bad), ETW_ERROR_INVALID_PARAMETER);
    bad = options(0);
    bad.struct_size = 4;
    EXPECT_EQ(etw_session_start_ex(&s.s, props, &bad), ETW_ERROR_INVALID_PARAMETER);
    auto opt = options(ETW_SESSION_LOSSLESS);
    ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK);
    etw_session_options got{};
    got.struct_size = sizeof got;
    ASSERT_EQ(etw_session_get_options(&got, s), ETW_OK);
    EXPECT_EQ(got.flags, ETW_SESSION_LOSSLESS);
    EXPECT_EQ(got.lossless_timeout_ms, 1000u);
    EXPECT_GT(got.realtime_backlog_buffers, 0u);
}

TEST(Buffering, MinimumAllocatedOnceMaximumAndTimerIgnoredNoFileUntilFlush)
{
    const std::string file = temp_file("ring");
    Props props(unique_name("ring"), file);
    etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_minimum_buffers(props, 5);
    etw_properties_set_maximum_buffers(props, 50);
    etw_properties_set_flush_timer(props, 1);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    auto r = props.rec();
    EXPECT_EQ(r.MinimumBuffers, 5u);
    EXPECT_EQ(r.NumberOfBuffers, 5u);
    EXPECT_EQ(r.MaximumBuffers, 5u); // ignored: never grows
    EXPECT_FALSE(openetw::platform::file_exists(file));
    const etw_guid g = make_guid(0x5007);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    // Updating MaximumBuffers changes nothing either.
    etw_properties_set_maximum_buffers(props, 80);
    ASSERT_EQ(etw_session_update(s, props), ETW_OK);
    EXPECT_EQ(props.rec().MaximumBuffers, 5u);
    for (std::uint32_t i = 0; i < 100; ++i)
        write_numbered(p, g, i, kHalfBufferPayload);
    ASSERT_EQ(etw_session_query(s, props), ETW_OK);
    EXPECT_EQ(props.rec().NumberOfBuffers, 5u);
    EXPECT_FALSE(openetw::platform::file_exists(file)); // FlushTimer ignored, nothing written
    ASSERT_EQ(etw_session_flush(s, props), ETW_OK) << etw_last_error_message();
    EXPECT_TRUE(openetw::platform::file_exists(file));
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
}

TEST(Buffering, FlushWritesTheNewestBuffersOldestFirstAsAValidFile)
{
    // Lossless, so the writer never drops while the logger recycles: the
    // snapshot must be exactly the newest events, contiguous, oldest first.
    Props props(unique_name("ring2"));
    etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_minimum_buffers(props, 6);
    auto opt = options(ETW_SESSION_LOSSLESS, 0, 120000);
    SessionHandle s;
    ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK) << etw_last_error_message();
    const etw_guid g = make_guid(0x5008);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    constexpr std::uint32_t kEvents = 41; // 20 full buffers and one event
    for (std::uint32_t i = 0; i < kEvents; ++i)
        ASSERT_EQ(write_numbered(p, g, i, kHalfBufferPayload), ETW_OK);
    // No file name: a plain flush cannot write.
    EXPECT_EQ(etw_session_flush(s, nullptr), ETW_ERROR_INVALID_PARAMETER);
    const std::string file = temp_file("snapshot");
    ASSERT_EQ(etw_session_flush_to_file(s, file.c_str(), props), ETW_OK) << etw_last_error_message();
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
    // 6 buffers, 1 kept free: 5 kept, the newest partial (1 event) among them.
    ASSERT_EQ(f.events.size(), 9u);
    for (std::uint32_t i = 0; i < 9; ++i)
        EXPECT_EQ(etltest::r32(f.events[i].payload.data()), kEvents - 9 + i);
    EXPECT_EQ(f.buffers_written, 6u); // header + 5
    EXPECT_EQ(props.rec().EventsLost, 0u);
    // A second flush writes the same contents again (the buffers are kept).
    ASSERT_EQ(etw_session_flush_to_file(s, file.c_str(), nullptr), ETW_OK);
    EXPECT_EQ(etltest::decode(file).events.size(), 9u);
    // Not for other modes.
    Props plain(unique_name("plain"), temp_file("plain"));
    SessionHandle s2;
    ASSERT_EQ(etw_session_start(&s2.s, plain), ETW_OK);
    EXPECT_EQ(etw_session_flush_to_file(s2, file.c_str(), nullptr), ETW_ERROR_INVALID_PARAMETER);
}

// A stalled logger recycles nothing: the writer itself reuses the oldest
// buffer when none is free, so nothing is refused and the ring holds exactly
// the newest events, oldest first.
TEST(Buffering, WriterRecyclesTheOldestBufferWhenNoneIsFree)
{
    Props props(unique_name("ring-writer"));
    etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_minimum_buffers(props, 6);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    const etw_guid g = make_guid(0x5009);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    engine_session(s.s).hold_logger(true);
    constexpr std::uint32_t kEvents = 41; // 20 full buffers and one event: the pool wraps three times
    for (std::uint32_t i = 0; i < kEvents; ++i)
        ASSERT_EQ(write_numbered(p, g, i, kHalfBufferPayload), ETW_OK) << "event " << i;
    ASSERT_EQ(etw_session_query(s, props), ETW_OK);
    EXPECT_EQ(props.rec().EventsLost, 0u);
    engine_session(s.s).hold_logger(false);
    const std::string file = temp_file("ring-writer");
    ASSERT_EQ(etw_session_flush_to_file(s, file.c_str(), props), ETW_OK) << etw_last_error_message();
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
    // 6 buffers, the logger keeps 1 free: 4 full and the partial one kept.
    ASSERT_EQ(f.events.size(), 9u);
    for (std::uint32_t i = 0; i < 9; ++i)
        EXPECT_EQ(etltest::r32(f.events[i].payload.data()), kEvents - 9 + i);
    EXPECT_EQ(props.rec().EventsLost, 0u);
}

// Two threads writing much more than the pool holds, per-processor buffers
// (the bench's buffering workload, smaller): none refused, and the ring ends
// with the newest event and a pool's worth of full buffers.
TEST(Buffering, TwoWritersLoseNothingWhileThePoolSuffices)
{
    const std::uint32_t cpus = openetw::platform::processor_count();
    Props props(unique_name("ring-two"));
    etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_minimum_buffers(props, 8 * cpus);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(props.rec().MinimumBuffers, 8 * cpus);
    const etw_guid g = make_guid(0x500A);
    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    engine_session(s.s).hold_logger(true); // a logger that never gets the CPU in time
    constexpr std::uint32_t kPerThread = 20000;
    std::atomic<std::uint32_t> refused{0};
    auto writer = [&](std::uint32_t base) {
        for (std::uint32_t i = 0; i < kPerThread; ++i)
            if (write_numbered(p, g, base + i, 64) != ETW_OK)
                refused.fetch_add(1);
    };
    std::thread t1(writer, 0u), t2(writer, 1u << 24);
    t1.join();
    t2.join();
    constexpr std::uint32_t kLast = 0xFFFFFFFFu;
    ASSERT_EQ(write_numbered(p, g, kLast, 64), ETW_OK);
    EXPECT_EQ(refused.load(), 0u);
    ASSERT_EQ(etw_session_query(s, props), ETW_OK);
    EXPECT_EQ(props.rec().EventsLost, 0u);
    engine_session(s.s).hold_logger(false);
    const std::string file = temp_file("ring-two");
    ASSERT_EQ(etw_session_flush_to_file(s, file.c_str(), props), ETW_OK) << etw_last_error_message();
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
    ASSERT_FALSE(f.events.empty());
    bool last = false;
    for (const auto &e : f.events)
        last |= etltest::r32(e.payload.data()) == kLast;
    EXPECT_TRUE(last);
    // The pool less the logger's free reserve (one per stream) is kept, of
    // which at most one partial buffer per stream (sealed by the flush).
    const std::uint32_t per_buffer = (4096 - 0x48) / (0x30 + 64);
    EXPECT_GE(f.events.size(), (8 * cpus - 2 * cpus) * per_buffer);
    EXPECT_LT(f.events.size(), 2 * kPerThread); // the ring wrapped
}

TEST(RealTime, InterruptWakesABlockedReader)
{
    Rt rt;
    auto reader = rt.attach();
    std::atomic<int> result{-1};
    std::thread t([&] {
        std::vector<std::uint8_t> b;
        result = int(reader->next(b, nullptr));
    });
    reader->interrupt();
    t.join();
    EXPECT_EQ(result.load(), int(Next::Interrupted));
}

TEST(RealTime, UpdateWithAFileNameStartsWritingAFile)
{
    Rt rt;
    auto reader = rt.attach();
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 1), ETW_OK);
    ASSERT_EQ(etw_session_flush(rt.s, nullptr), ETW_OK);
    const std::string file = temp_file("rt-update");
    ASSERT_EQ(etw_properties_set_log_file_name(rt.props, file.c_str()), ETW_OK);
    ASSERT_EQ(etw_session_update(rt.s, rt.props), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(write_numbered(*rt.provider, rt.guid, 2), ETW_OK);
    ASSERT_EQ(etw_session_stop(rt.s, rt.props), ETW_OK);
    std::vector<std::uint8_t> b;
    std::vector<std::uint32_t> seen;
    while (reader->next(b, nullptr) == Next::Buffer)
        for (auto x : numbers_in(b))
            seen.push_back(x);
    EXPECT_EQ(seen, (std::vector<std::uint32_t>{1, 2}));
    auto f = etltest::decode(file);
    EXPECT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 1u);
    EXPECT_EQ(etltest::r32(f.events[0].payload.data()), 2u);
}
