// Buffering mode's free reserve (docs/ENGINE.md, "Buffering mode"): the
// logger recycles ahead of the writers and is woken at the pool's low-water
// mark, so writers find free buffers without recycling under the ring's
// mutex themselves; the ring still keeps the newest events, in order.
#include "engine_test_util.hpp"

#include "engine_session.hpp"
#include "engine/session.hpp"

#include <chrono>
#include <memory>
#include <thread>

// Page faults counted per thread (Linux); sanitizers fault their own shadow pages.
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define RING_COUNTS_FAULTS 1
#include <sys/resource.h>
#endif

using namespace enginetest;

namespace {

// One stream, 4 KB buffers, 64 of them: the logger keeps 8 free and is woken
// when at most 5 are (3 x streams + 2; a 64-buffer pool is large enough for
// the reserve, which costs at most a quarter of the ring).
constexpr std::uint32_t kBuffers = 64;
constexpr std::uint32_t kReserve = 8;
constexpr std::uint32_t kLowWater = 5;
// A 4 KB buffer holds exactly two events of this payload (2 x 2008 <= 4024).
constexpr std::size_t kHalfBufferPayload = 2008 - 0x30;
// Each write that finds its buffer full takes a new one while more than
// 2 x streams are free: then all buffers are the one writing thread's owned
// ones, and the file keeps the order they were written in.
constexpr std::uint32_t kBuffersWritten = 160; // the ring wraps twice

struct Ring {
    etw_guid guid;
    Props props;
    SessionHandle s;
    etw_provider *provider = nullptr;
    std::unique_ptr<Event> event;
    std::uint32_t next = 0; // number of the next event

    explicit Ring(std::uint32_t id) : guid(make_guid(id)), props(unique_name("ring-reserve"))
    {
        etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE | ETW_NO_PER_PROCESSOR_BUFFERING);
        etw_properties_set_buffer_size(props, 4);
        etw_properties_set_minimum_buffers(props, kBuffers);
        EXPECT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
        engine = engine_session_ref(s.s);
        EXPECT_EQ(etw_provider_register(&provider, &guid, nullptr, nullptr, nullptr), ETW_OK);
        EXPECT_EQ(etw_session_enable_provider(s, &guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
        event = std::make_unique<Event>(guid, kHalfBufferPayload);
    }
    ~Ring() { etw_provider_unregister(provider); }
    // Held from the start: a test may look at it after the stop.
    std::shared_ptr<openetw::engine::Session> engine;
    openetw::engine::Session &session() { return *engine; }
    etw_event_trace_properties query()
    {
        EXPECT_EQ(etw_session_query(s, props), ETW_OK);
        return props.rec();
    }
    // Waits (bounded: a liveness check, not a timing) until the logger has
    // left at least n buffers free. Once it did not, the rounds go on
    // without waiting, so the writers' recycling shows too.
    bool lagging = false;
    void wait_for_free(std::uint32_t n, std::uint32_t round)
    {
        if (!lagging && !free_at_least(n)) {
            ADD_FAILURE() << "round " << round << ": the logger keeps " << query().FreeBuffers << " buffers free";
            lagging = true;
        }
    }
    bool free_at_least(std::uint32_t n)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (query().FreeBuffers < n) {
            if (std::chrono::steady_clock::now() > deadline)
                return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return true;
    }
    void burst(std::uint32_t buffers)
    {
        for (std::uint32_t i = 0; i < 2 * buffers; ++i, ++next) {
            std::memcpy(event->bytes + 0x30, &next, 4);
            ASSERT_EQ(etw_provider_trace_event(provider, event->h()), ETW_OK) << "event " << next;
        }
    }
    // The snapshot holds the newest events, contiguous, oldest first, and at
    // least three quarters of the pool (two events per buffer).
    void check_snapshot(const char *stem)
    {
        const std::string file = temp_file(stem);
        ASSERT_EQ(etw_session_flush_to_file(s, file.c_str(), props), ETW_OK) << etw_last_error_message();
        auto f = etltest::decode(file);
        EXPECT_TRUE(f.ok()) << f.problem_text();
        ASSERT_GE(f.events.size(), 2 * (kBuffers - kBuffers / 4));
        ASSERT_LT(f.events.size(), next); // the ring wrapped
        const std::uint32_t first = next - std::uint32_t(f.events.size());
        for (std::size_t i = 0; i < f.events.size(); ++i)
            ASSERT_EQ(etltest::r32(f.events[i].payload.data()), first + i) << "event " << i;
        EXPECT_EQ(props.rec().EventsLost, 0u);
    }
};

} // namespace

// A logger that does not run during a burst (as if it never got the CPU in
// time): the buffers it freed ahead carry the writer through, so no writer
// recycles, and nothing is refused.
TEST(BufferingReserve, BurstsFitTheFreeReserveWithoutWriterRecycling)
{
    Ring r(0x5101);
    // Four buffers a round: 8 free down to 4 (each taken with more than 2 free).
    for (std::uint32_t round = 0; round < kBuffersWritten / 4; ++round) {
        r.wait_for_free(kReserve, round); // no write meanwhile: the logger refilled it
        r.session().hold_logger(true);
        r.burst(4);
        r.session().hold_logger(false);
        if (::testing::Test::HasFatalFailure())
            return;
    }
    EXPECT_EQ(r.session().writer_recycles(), 0u);
    EXPECT_EQ(r.query().EventsLost, 0u);
    r.check_snapshot("ring-reserve-held");
}

// The logger is woken only by the hand-offs (buffering mode has no flush
// timer), once the free count is down to the low-water mark: then it
// refills the reserve. A hand-off that leaves it asleep leaves more than the
// mark free (the owner takes its next buffer after the hand-off), so the
// writer always finds the mark free before its next buffer.
TEST(BufferingReserve, LowWaterMarkWakesTheLoggerToRefillTheReserve)
{
    Ring r(0x5102);
    for (std::uint32_t round = 0; round < kBuffersWritten; ++round) {
        r.wait_for_free(kLowWater, round);
        r.burst(1);
        if (::testing::Test::HasFatalFailure())
            return;
    }
    EXPECT_EQ(r.session().writer_recycles(), 0u);
    EXPECT_EQ(r.query().EventsLost, 0u);
    r.check_snapshot("ring-reserve-woken");
}

#if defined(RING_COUNTS_FAULTS)
// The start backs and writes every buffer of a buffering session (the ring
// cycles through all of them): the writer's first pass through the pool
// takes no page fault.
TEST(BufferingReserve, WritersTakeNoPageFaultOnTheFirstPass)
{
    constexpr std::uint32_t kPoolBuffers = 64, kBufferKb = 64;
    Props props(unique_name("ring-prefault"));
    etw_properties_set_log_file_mode(props, ETW_BUFFERING_MODE | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_buffer_size(props, kBufferKb);
    etw_properties_set_minimum_buffers(props, kPoolBuffers);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    const etw_guid g = make_guid(0x5103);
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    auto e = std::make_unique<Event>(g, 64);
    for (int i = 0; i < 10; ++i) // the thread's own first touches (slot, cursor, clock)
        ASSERT_EQ(etw_provider_trace_event(p, e->h()), ETW_OK);
    // Most of the pool, less the free reserve: no buffer is used twice yet.
    const std::uint32_t events = (kPoolBuffers - 16) * ((kBufferKb * 1024 - 0x48) / (0x30 + 64));
    rusage before{}, after{};
    ASSERT_EQ(getrusage(RUSAGE_THREAD, &before), 0);
    for (std::uint32_t i = 0; i < events; ++i)
        ASSERT_EQ(etw_provider_trace_event(p, e->h()), ETW_OK);
    ASSERT_EQ(getrusage(RUSAGE_THREAD, &after), 0);
    // 768 pages written; a page fault each without the prefault.
    EXPECT_LT(after.ru_minflt - before.ru_minflt, 16) << "page faults while writing " << events << " events";
    etw_provider_unregister(p);
}
#endif
