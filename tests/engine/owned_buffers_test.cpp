// Owned buffers (engine/owned_buffers.hpp): a thread of this process writes
// into a buffer it owns; the logger takes idle owners' buffers at a flush,
// a migrated thread seals its buffer (ProcessorNumber stays true), exited
// threads' slots are reused, and writers racing flushes, the flush timer and
// a stop lose nothing they committed. Every buffer holding one thread's
// events shows the owned path was taken. Run under ThreadSanitizer in the CI.
#include "engine_test_util.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <sched.h>
#endif

using namespace enginetest;

namespace {

// The payload names the writer and numbers its events (and says on which
// processor it was written, when the writer knows).
struct Tag {
    std::uint32_t writer, seq, cpu;
};

void write_tagged(etw_provider *prov, const etw_guid &g, std::uint32_t writer, std::uint32_t seq, std::uint32_t cpu = 0)
{
    struct {
        etw_event_trace_header h;
        Tag t;
    } ev{};
    ev.h.Size = sizeof ev;
    ev.h.Class.Type = 1;
    ev.h.Class.Level = 4;
    ev.h.Guid = g;
    ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    ev.t = {writer, seq, cpu};
    EXPECT_EQ(etw_provider_trace_event(prov, &ev.h), ETW_OK);
}

Tag tag_of(const etltest::Event &e)
{
    Tag t{};
    if (e.payload.size() >= sizeof t)
        std::memcpy(&t, e.payload.data(), sizeof t);
    return t;
}

// A file of a running session: its header says BuffersWritten 1 until the
// stop; the buffers in the file are counted instead.
etltest::File decode_running(const std::string &path)
{
    std::vector<std::uint8_t> b = etltest::read_all(path);
    if (b.size() >= 0x90) {
        const std::uint32_t bs = etltest::r32(b.data() + 0x68);
        const std::uint32_t n = bs != 0 ? std::uint32_t(b.size() / bs) : 0;
        std::memcpy(b.data() + 0x68 + 0x24, &n, 4);
    }
    return etltest::decode_bytes(std::move(b));
}

// Writer -> the sequence numbers found.
std::map<std::uint32_t, std::multiset<std::uint32_t>> by_writer(const etltest::File &f)
{
    std::map<std::uint32_t, std::multiset<std::uint32_t>> out;
    for (const etltest::Event &e : f.events)
        out[tag_of(e).writer].insert(tag_of(e).seq);
    return out;
}

// True when no buffer holds events of two writers (the owned path).
bool one_writer_per_buffer(const etltest::File &f)
{
    std::map<std::uint64_t, std::uint32_t> writer_of;
    for (const etltest::Event &e : f.events) {
        auto [it, fresh] = writer_of.emplace(e.buffer_seq, tag_of(e).writer);
        if (!fresh && it->second != tag_of(e).writer)
            return false;
    }
    return true;
}

struct Session {
    std::string file;
    Props props;
    SessionHandle s;
    explicit Session(const char *stem, std::uint32_t flush_timer = 0, std::uint32_t max_buffers = 0)
        : file(temp_file(stem)), props(unique_name(stem), file)
    {
        etw_properties_set_flush_timer(props, flush_timer);
        if (max_buffers != 0) {
            EXPECT_EQ(etw_properties_set_maximum_buffers(props, max_buffers), ETW_OK);
            EXPECT_EQ(etw_properties_set_buffer_size(props, 4), ETW_OK);
        }
        EXPECT_EQ(etw_session_start(&s.s, props), ETW_OK);
    }
    void enable(const etw_guid &g) { EXPECT_EQ(etw_session_enable_provider(s, &g, 1, 0, 0, 0), ETW_OK); }
    etw_event_trace_properties stop()
    {
        Props q("q");
        EXPECT_EQ(etw_session_stop(s, q), ETW_OK);
        etw_session_close(s.s);
        s.s = nullptr;
        return q.rec();
    }
};

} // namespace

TEST(OwnedBuffers, IdleOwnersEventsAreInTheFileAfterAFlush)
{
    const etw_guid g = make_guid(0x0B01);
    Session sess("owned-idle");
    sess.enable(g);
    Provider prov(g);
    constexpr std::uint32_t kWriters = 3, kEvents = 200;
    std::atomic<std::uint32_t> done{0};
    std::atomic<bool> release{false};
    std::vector<std::thread> ts;
    for (std::uint32_t w = 0; w < kWriters; ++w)
        ts.emplace_back([&, w] {
            for (std::uint32_t i = 0; i < kEvents / (w + 1); ++i)
                write_tagged(prov, g, w, i);
            done.fetch_add(1);
            while (!release.load()) // alive and idle: its buffer stays its own until the logger takes it
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        });
    while (done.load() != kWriters)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    Props q("q");
    EXPECT_EQ(etw_session_flush(sess.s, q), ETW_OK);
    // Read while the session runs (its header is finished only at the stop).
    const etltest::File f = decode_running(sess.file);
    release.store(true);
    for (auto &t : ts)
        t.join();
    EXPECT_TRUE(f.ok()) << f.problems.front();
    auto found = by_writer(f);
    for (std::uint32_t w = 0; w < kWriters; ++w) {
        ASSERT_EQ(found[w].size(), kEvents / (w + 1)) << "writer " << w << ": its idle owned buffer was not flushed";
        for (std::uint32_t i = 0; i < kEvents / (w + 1); ++i)
            EXPECT_EQ(found[w].count(i), 1u) << "writer " << w << " event " << i;
    }
    EXPECT_TRUE(one_writer_per_buffer(f)) << "the writers did not own their buffers";
    EXPECT_EQ(sess.stop().EventsLost, 0u);
}

#if defined(__linux__)
TEST(OwnedBuffers, AMigratedThreadSealsSoEveryBufferNamesItsProcessor)
{
    if (std::thread::hardware_concurrency() < 2)
        GTEST_SKIP() << "one processor";
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
        if (CPU_ISSET(c, &allowed))
            cpus.push_back(c);
    if (cpus.size() < 2)
        GTEST_SKIP() << "one processor allowed";
    const etw_guid g = make_guid(0x0B02);
    Session sess("owned-migrate");
    sess.enable(g);
    Provider prov(g);
    std::thread t([&] {
        std::uint32_t seq = 0;
        for (int round = 0; round < 8; ++round) {
            const int cpu = cpus[round % 2];
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
            while (sched_getcpu() != cpu)
                std::this_thread::yield();
            for (int i = 0; i < 25; ++i, ++seq)
                write_tagged(prov, g, 0, seq, std::uint32_t(cpu));
        }
    });
    t.join();
    sess.stop();
    const etltest::File f = etltest::decode(sess.file);
    EXPECT_TRUE(f.ok()) << f.problems.front();
    ASSERT_EQ(f.events.size(), 200u);
    std::set<std::uint64_t> buffers;
    for (const etltest::Event &e : f.events) {
        EXPECT_EQ(e.processor, tag_of(e).cpu) << "event " << tag_of(e).seq << " in a buffer of another processor";
        buffers.insert(e.buffer_seq);
    }
    EXPECT_GE(buffers.size(), 8u) << "one buffer per stay on a processor";
}
#endif

TEST(OwnedBuffers, ExitedThreadsSlotsAreReused)
{
    // More short-lived writers than a session has thread slots: each owns
    // a buffer only if the slots of those that exited come back.
    const etw_guid g = make_guid(0x0B03);
    Session sess("owned-exit", 0, 400);
    sess.enable(g);
    Provider prov(g);
    constexpr std::uint32_t kThreads = 100, kEvents = 5;
    for (std::uint32_t w = 0; w < kThreads; ++w)
        std::thread([&, w] {
            for (std::uint32_t i = 0; i < kEvents; ++i)
                write_tagged(prov, g, w, i);
        }).join();
    const etw_event_trace_properties r = sess.stop();
    EXPECT_EQ(r.EventsLost, 0u);
    const etltest::File f = etltest::decode(sess.file);
    EXPECT_TRUE(f.ok()) << f.problems.front();
    EXPECT_EQ(f.events.size(), std::size_t(kThreads) * kEvents);
    EXPECT_TRUE(one_writer_per_buffer(f)) << "later threads found no slot (exited owners' slots not reused)";
}

TEST(OwnedBuffers, WritersRacingFlushesTheTimerAndStopLoseNothingCommitted)
{
    const etw_guid g = make_guid(0x0B04);
    Session sess("owned-race", 1, 400);
    sess.enable(g);
    Provider prov(g);
    constexpr std::uint32_t kWriters = 4;
    std::atomic<bool> stopping{false}, quit{false};
    std::vector<std::atomic<std::uint32_t>> before_stop(kWriters);
    std::vector<std::thread> ts;
    for (std::uint32_t w = 0; w < kWriters; ++w)
        ts.emplace_back([&, w] {
            std::uint32_t i = 0;
            while (!quit.load()) {
                write_tagged(prov, g, w, i);
                ++i;
                if (!stopping.load())
                    before_stop[w].store(i); // returned before the stop began: must be in the file
                if (i % 97 == w)
                    std::this_thread::sleep_for(std::chrono::milliseconds(2)); // idle now and then
                if (w == 0 && i == 3000)
                    return; // an owner that exits while the others write
            }
        });
    for (int k = 0; k < 15; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        Props q("q");
        ASSERT_EQ(etw_session_flush(sess.s, q), ETW_OK);
    }
    stopping.store(true);
    const etw_event_trace_properties r = sess.stop();
    quit.store(true);
    for (auto &t : ts)
        t.join();
    const etltest::File f = etltest::decode(sess.file);
    EXPECT_TRUE(f.ok()) << f.problems.front();
    auto found = by_writer(f);
    std::uint64_t total = 0;
    for (std::uint32_t w = 0; w < kWriters; ++w) {
        const std::multiset<std::uint32_t> &seqs = found[w];
        total += seqs.size();
        ASSERT_GE(seqs.size(), before_stop[w].load()) << "writer " << w << " lost committed events";
        // Every event once, none missing below the last one written.
        std::uint32_t expect = 0;
        for (std::uint32_t s : seqs)
            ASSERT_EQ(s, expect++) << "writer " << w;
    }
    EXPECT_EQ(r.EventsLost, 0u);
    EXPECT_GT(total, 0u);
}
