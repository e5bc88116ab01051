// Provider processes writing into a session another process hosts: every
// event they attempt is in the file or counted lost, exactly.
#include "crossproc_fixtures.hpp"

#include <array>
#include <chrono>
#include <ctime>
#include <string>
#include <vector>

namespace crossproc {
namespace {

// Now as a FILETIME (100 ns units since 1601, UTC), as the consumer delivers timestamps.
std::int64_t filetime_now()
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t(ts.tv_sec) * 10'000'000 + ts.tv_nsec / 100 + 116'444'736'000'000'000;
}

// 4 provider processes x 2 threads x 250,000 events into one session with
// few buffers: every event is either in the file or counted lost.
TEST(CrossProcess, SeveralProviderProcessesAccountExactly)
{
    const std::string file = g_ns.path("account.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpAccount", "file=" + file, "buf=64", "max=40"}));
    EXPECT_FALSE(g_ns.region_files().empty()) << "no session region file " << g_ns.registry << ".<slot>.<generation>";
    std::array<Provider, 4> providers;
    std::vector<Provider *> all;
    const std::int64_t began = filetime_now();
    ASSERT_TRUE(start_enabled(providers, 2, {"events=250000", "min=16", "max=200"}, &all));
    const auto t0 = Clock::now();
    ASSERT_TRUE(run_to_the_end(providers));
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    const std::int64_t ended = filetime_now();
    const Totals t = sum(all);
    for (Provider &p : providers)
        EXPECT_EQ(p.quit(), 0);
    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpAccount", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(5000)) << "the host did not exit after its session was stopped";
    const std::uint32_t events_lost = etw_properties_events_lost(fin.p);
    const Scan scan = scan_file(file);
    info("attempted " + std::to_string(t.started) + " in " + std::to_string(secs) + " s: " + t.str() +
         "; file: " + scan.str() + "; EventsLost " + std::to_string(events_lost));
    EXPECT_EQ(t.started, 2000000u);
    EXPECT_EQ(t.other, 0u) << t.str();
    EXPECT_EQ(t.refused, 0u) << "ETW_ERROR_WMI_INSTANCE_NOT_FOUND while the session ran";
    EXPECT_EQ(t.in_flight(), 0u);
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    EXPECT_EQ(scan.process, ETW_OK) << scan.str();
    EXPECT_EQ(scan.events, t.ok) << "events in the file != ETW_OK statuses";
    EXPECT_EQ(events_lost, t.lost) << "EventsLost != dropped statuses (NOT_ENOUGH_MEMORY + LOG_FILE_FULL)";
    EXPECT_EQ(scan.events + events_lost, t.started) << "written + lost != attempted";
    EXPECT_EQ(scan.bad_payload, 0u);
    EXPECT_EQ(check_keys(scan.keys, all), "");
    EXPECT_EQ(check_per_thread(scan.keys, all), "");
    EXPECT_GT(t.ok, 0u);
    // The provider processes stamped with the host's clock (ControlBlock::
    // cycle_hz): their events fall within the run by the file's own header
    // (1 ms of slack for the conversion's reference pair).
    EXPECT_GE(scan.first_time, began - 10'000);
    EXPECT_LE(scan.last_time, ended + 10'000);
}

// A buffering session's ring recycles its oldest buffer for writers of
// other processes too (its host's logger does, while they wait for it): a
// pool far smaller than what they write refuses nothing.
TEST(CrossProcess, BufferingRingLosesNothingForWritersOfAnotherProcess)
{
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpRing", "buffering=1", "buf=4", "min=8"}));
    std::array<Provider, 1> providers;
    std::vector<Provider *> all;
    ASSERT_TRUE(start_enabled(providers, 2, {"events=40000"}, &all));
    ASSERT_TRUE(run_to_the_end(providers));
    const Totals t = sum(all);
    for (Provider &p : providers)
        EXPECT_EQ(p.quit(), 0);
    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpRing", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(5000)) << "the host did not exit after its session was stopped";
    info("buffering ring, another process: " + t.str() + "; EventsLost " +
         std::to_string(etw_properties_events_lost(fin.p)));
    EXPECT_EQ(t.started, 80000u);
    EXPECT_EQ(t.ok, t.started) << t.str();
    EXPECT_EQ(t.lost, 0u) << t.str();
    EXPECT_EQ(etw_properties_events_lost(fin.p), 0u);
}

} // namespace
} // namespace crossproc
