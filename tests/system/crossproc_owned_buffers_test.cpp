// Buffers that writer threads of another process own (OwnedBuffers) reach
// the file when their owners idle, exit, leave the session or die.
#include "crossproc_fixtures.hpp"

#include <array>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace crossproc {
namespace {

// A file session hosted by another process, and one provider process whose
// two threads wrote 100 events each into buffers they own and then idle
// (paused), their buffers still theirs; `s` is the session, opened by name.
struct IdleOwners {
    std::string name, file;
    Child host;
    std::array<Provider, 1> providers;
    std::vector<Provider *> all;
    Totals t;
    etw_session *s = nullptr;

    ::testing::AssertionResult start(const std::string &session, std::vector<std::string> provider_args = {})
    {
        name = session;
        file = g_ns.path(session + ".etl");
        if (auto r = start_host(host, {"name=" + name, "file=" + file, "buf=64"}); !r)
            return r;
        provider_args.push_back("events=100");
        if (auto r = start_enabled(providers, 2, provider_args, &all); !r)
            return r;
        if (auto r = run_to_the_end(providers); !r)
            return r;
        t = sum(all);
        if (t.ok != 200)
            return ::testing::AssertionFailure() << "the provider wrote " << t.str();
        if (etw_session_open(&s, name.c_str()) != ETW_OK)
            return ::testing::AssertionFailure() << "etw_session_open: " << etw_last_error_message();
        return ::testing::AssertionSuccess();
    }
    // Stops the session: every event written is in the file, once, and none lost.
    void stop_and_check()
    {
        etw_session_close(s);
        s = nullptr;
        Props fin;
        std::string why;
        ASSERT_EQ(stop_by_name(name, fin.p, &why), ETW_OK) << why;
        EXPECT_TRUE(host.wait(5000));
        const Scan scan = scan_file(file);
        EXPECT_EQ(scan.events, t.ok) << scan.str();
        EXPECT_EQ(check_keys(scan.keys, all), "");
        EXPECT_EQ(etw_properties_events_lost(fin.p), 0u);
    }
    ~IdleOwners() { etw_session_close(s); }
};

// Polls the session's BuffersWritten until it reaches `want` (or the time is up).
std::uint32_t wait_buffers_written(etw_session *s, std::uint32_t want, std::chrono::milliseconds within = 5s)
{
    Props q;
    const auto deadline = Clock::now() + within;
    std::uint32_t written = 0;
    while (etw_session_query(s, q.p) == ETW_OK && (written = etw_properties_buffers_written(q.p)) < want &&
           Clock::now() < deadline)
        std::this_thread::sleep_for(50ms);
    return written;
}

// A writer thread of another process owns its buffer (OwnedBuffers): when it
// goes idle with its buffer partly filled, a flush by a third process has
// the host's logger take that buffer (the owner never writes again to hand
// it on): every event is in the file before the stop.
TEST(CrossProcess, AFlushTakesTheBuffersOfIdleWritersOfAnotherProcess)
{
    IdleOwners o;
    ASSERT_TRUE(o.start("XpIdleOwner"));
    EXPECT_EQ(etw_session_flush(o.s, nullptr), ETW_OK) << etw_last_error_message();
    const Scan flushed = scan_file(o.file);
    EXPECT_EQ(flushed.events, o.t.ok) << "after the flush, while the writers idle: " << flushed.str();
    EXPECT_EQ(o.providers[0].quit(), 0);
    o.stop_and_check();
}

// A writer thread of another process that exits leaves its slot marked: the
// host's logger takes its buffer at its next wake, with no flush, while the
// process lives on (without the mark only the process's death or the stop
// would hand the buffer on).
TEST(CrossProcess, TheBuffersOfExitedWriterThreadsOfAnotherProcessReachTheFile)
{
    IdleOwners o;
    ASSERT_TRUE(o.start("XpExitedOwner", {"linger_ms=8000"}));
    // (longer than the logger's look at its writers, twice a second)
    EXPECT_EQ(wait_buffers_written(o.s, 1, 700ms), 0u) << "the owners' buffers were written before their threads ended";
    xp_store(&o.providers[0].counters->s->cmd, XP_CMD_QUIT); // its threads exit; it lingers
    // Each thread's buffer (two, partly filled): no flush, no file read of a live session.
    EXPECT_EQ(wait_buffers_written(o.s, 2), 2u) << "with the writers' threads gone, the process still alive";
    EXPECT_TRUE(o.providers[0].proc.running()) << "the provider process ended: the test shows nothing";
    EXPECT_EQ(o.providers[0].quit(10000), 0);
    o.stop_and_check();
}

// A writer process whose providers the session no longer enables leaves it:
// its threads' buffers go to the host's logger at their committed offsets
// (their slots freed), with no flush, while the process lives on (without
// that, only the stop would hand them on).
TEST(CrossProcess, AWriterProcessLeavingTheSessionHandsOnItsBuffers)
{
    IdleOwners o;
    ASSERT_TRUE(o.start("XpLeaving"));
    EXPECT_EQ(wait_buffers_written(o.s, 1, 700ms), 0u) << "the owners' buffers were written before the process left";
    const etw_guid g = xp_guid(0);
    ASSERT_EQ(etw_session_enable_provider(o.s, &g, ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0), ETW_OK)
        << etw_last_error_message();
    EXPECT_EQ(wait_buffers_written(o.s, 2), 2u) << "the process left the session, its buffers stayed";
    EXPECT_TRUE(o.providers[0].proc.running()) << "the provider process ended: the test shows nothing";
    EXPECT_EQ(o.providers[0].quit(), 0);
    o.stop_and_check();
}

// A writer process killed while its threads own buffers: the host's logger
// takes them at their committed offsets at its next dead-writer check, while
// the session runs (not only at the stop).
TEST(CrossProcess, TheBuffersOfAKilledWriterProcessReachTheFileWhileTheSessionRuns)
{
    IdleOwners o;
    ASSERT_TRUE(o.start("XpKilledOwner"));
    EXPECT_EQ(wait_buffers_written(o.s, 1, 700ms), 0u) << "the owners' buffers were written before the process died";
    o.providers[0].proc.kill9();
    EXPECT_EQ(wait_buffers_written(o.s, 2), 2u) << "the writer process died, its buffers stayed";
    o.stop_and_check();
}

} // namespace
} // namespace crossproc
