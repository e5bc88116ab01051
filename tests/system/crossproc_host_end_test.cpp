// What follows a host's end: the feeds of a host that exits or dies, and
// an orphan another process takes over.
#include "crossproc_fixtures.hpp"

#include <array>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace crossproc {
namespace {

// A host that exits right after another process stopped its session still
// sends a slow consumer of a third process every buffer the stop flushed:
// its feeds are answers in progress, and exit waits for them.
TEST(CrossProcess, AHostExitingAfterTheStopStillSendsTheFeedsTail)
{
    const std::string file = g_ns.path("tail.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpTail", "file=" + file, "rt=1", "buf=16", "max=400"}));
    Counters cc(g_ns.path("tail-consumer"));
    const std::string keys_file = g_ns.path("tail-consumer.keys");
    Child consumer;
    ASSERT_TRUE(consumer.spawn({"consume", "name=XpTail", "counters=" + cc.path, "out=" + keys_file, "slow_us=3000"}));
    const auto deadline = Clock::now() + 5s;
    while (!cc.get(&xp_shared::attached) && consumer.running() && Clock::now() < deadline)
        std::this_thread::sleep_for(200us);
    ASSERT_TRUE(cc.get(&xp_shared::attached)) << consumer.describe() << " " << consumer.read_all(100);
    ASSERT_EQ(cc.get(&xp_shared::open_status), ETW_OK) << consumer.read_all(1000);
    std::array<Provider, 1> providers;
    std::vector<Provider *> all;
    ASSERT_TRUE(start_enabled(providers, 1, {"events=30000", "min=64", "max=64"}, &all));
    ASSERT_TRUE(run_to_the_end(providers));
    EXPECT_EQ(providers[0].quit(), 0);
    // The consumer is far behind (3 ms a buffer): most of the feed is still to send.
    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpTail", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(10000)) << "the host did not exit after its session was stopped";
    ASSERT_TRUE(consumer.wait(10000)) << "the consumer did not return after the session stopped";
    const Scan scan = scan_file(file);
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    info("file " + scan.str() + "; consumer got " + std::to_string(cc.get(&xp_shared::events)) + " events in " +
         std::to_string(cc.get(&xp_shared::buffers)) + " buffers");
    EXPECT_EQ(cc.get(&xp_shared::process_status), ETW_OK)
        << "the feed ended before the session's end (the host exited while sending its tail)";
    EXPECT_EQ(scan.events, 30000u);
    EXPECT_EQ(cc.get(&xp_shared::events), scan.events) << "the consumer missed events the file has";
}

// A live feed from a host that dies ends at once, and says why.
TEST(CrossProcess, ALiveFeedWhoseHostDiesEndsWithHandleEof)
{
    const std::string file = g_ns.path("feedhost.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpFeedHost", "file=" + file, "rt=1", "buf=64", "max=64", "flush=1"}));
    Counters c(g_ns.path("feedhost-consumer"));
    Child consumer;
    ASSERT_TRUE(consumer.spawn({"consume", "name=XpFeedHost", "counters=" + c.path}));
    const auto deadline = Clock::now() + 5s;
    while (!c.get(&xp_shared::attached) && consumer.running() && Clock::now() < deadline)
        std::this_thread::sleep_for(200us);
    ASSERT_TRUE(c.get(&xp_shared::attached)) << consumer.describe() << " " << consumer.read_all(100);
    ASSERT_EQ(c.get(&xp_shared::open_status), ETW_OK) << consumer.read_all(1000);
    host.kill9();
    ASSERT_TRUE(consumer.wait(10000)) << "the consumer still waits for a feed whose host died";
    const std::string out = consumer.read_all(1000);
    EXPECT_EQ(c.get(&xp_shared::process_status), ETW_ERROR_HANDLE_EOF) << out;
    Props fin;
    std::string why;
    EXPECT_EQ(stop_by_name("XpFeedHost", fin.p, &why), ETW_OK) << why; // the orphan
    std::filesystem::remove(file);
}

// The host dies; the test takes the orphan over: what the orphan had is in
// the file, the session logs on in this process, and the provider process
// that kept running is enabled again and goes on logging into it.
TEST(CrossProcess, TakeOverAnOrphanGoesOnLogging)
{
    const std::string file = g_ns.path("takeover.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpTakeOver", "file=" + file, "buf=64", "max=200"}));
    Provider prov;
    ASSERT_TRUE(prov.start(0, 2, {"min=16", "max=200", "pace=20", "pace_us=1000"}));
    ASSERT_TRUE(prov.wait_enabled(3000));
    prov.run();
    std::this_thread::sleep_for(100ms);
    host.kill9();
    std::this_thread::sleep_for(20ms); // still writing, into the orphan
    ASSERT_TRUE(prov.pause());
    const Totals first = prov.totals();
    const std::array<std::uint64_t, 2> from{prov.started(0), prov.started(1)};
    const std::uint64_t calls = prov.counters->get(&xp_shared::enable_calls);
    ASSERT_EQ(host_state("XpTakeOver"), ETW_SESSION_HOST_ORPHANED);

    Props props("XpTakeOver");
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_TAKE_OVER_ORPHAN;
    etw_session *s = nullptr;
    const etw_status st = etw_session_start_ex(&s, props.p, &o);
    ASSERT_EQ(st, ETW_OK) << "taking over the orphan: " << status_text(st) << ": " << etw_last_error_message();
    struct StopGuard {
        etw_session *s;
        ~StopGuard()
        {
            etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
    } guard{s};
    etw_session_host_info hi{};
    hi.struct_size = sizeof hi;
    ASSERT_EQ(etw_session_get_host_info(&hi, s), ETW_OK);
    EXPECT_EQ(hi.is_local, 1u);
    EXPECT_EQ(hi.state, ETW_SESSION_HOST_RUNNING);
    EXPECT_EQ(std::filesystem::path(etw_properties_log_file_name(props.p)), std::filesystem::absolute(file))
        << "the taken-over session must go on in the orphan's file";
    EXPECT_EQ(etw_properties_buffer_size(props.p), 64u);
    ASSERT_TRUE(prov.wait_enabled(3000, calls + 1)) << "the provider's enable callback did not fire again";
    prov.run();
    std::this_thread::sleep_for(100ms);
    ASSERT_TRUE(prov.pause());
    const Totals t = prov.totals();
    const Totals second = t - first;
    Props fin;
    ASSERT_EQ(etw_session_stop(s, fin.p), ETW_OK) << etw_last_error_message();
    // The provider sees the stop.
    const auto deadline = Clock::now() + 3s;
    while (prov.counters->get(&xp_shared::enabled) && Clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    EXPECT_EQ(prov.counters->get(&xp_shared::enabled), 0u) << "no is_enabled 0 callback within 3 s of the stop";
    EXPECT_EQ(prov.quit(), 0);
    const Scan scan = scan_file(file);
    std::uint64_t after = 0;
    for (const std::uint64_t k : scan.keys)
        after += key_seq(k) >= from[key_thread(k) & 1];
    info("before the takeover " + first.str() + "; after " + second.str() + "; file " + scan.str() +
         "; EventsLost of the stop " + std::to_string(etw_properties_events_lost(fin.p)) + "; " +
         std::to_string(after) + " events written after the takeover");
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    EXPECT_EQ(scan.process, ETW_OK) << scan.str();
    EXPECT_EQ(t.other, 0u) << t.str();
    EXPECT_EQ(scan.events, t.ok) << "events in the file != ETW_OK statuses of both phases";
    EXPECT_EQ(after, second.ok) << "events written after the takeover (in the file) != their ETW_OK statuses";
    EXPECT_GT(second.ok, 0u);
    EXPECT_GE(etw_properties_events_lost(fin.p), second.lost);
    EXPECT_EQ(check_keys(scan.keys, {&prov}), "");
}

} // namespace
} // namespace crossproc
