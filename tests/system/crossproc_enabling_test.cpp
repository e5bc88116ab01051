// Enable callbacks from a session hosted in another process: level and
// keywords, providers registered before and after, the stop.
#include "crossproc_fixtures.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace crossproc {
namespace {

// Level, match-any and match-all keywords reach provider processes that
// registered before and after the session enabled them; events above the
// level are not logged; stopping fires is_enabled 0; another GUID is never
// enabled.
TEST(CrossProcess, EnableCallbacksCarryLevelAndKeywordsAcrossProcesses)
{
    const std::string file = g_ns.path("enable.etl");
    Provider early, other;
    ASSERT_TRUE(early.start(0, 1, {"events=1000", "levels=1", "min=16", "max=64"}));
    ASSERT_TRUE(other.start(2, 1, {"events=1000", "levels=1", "guid=1"}));
    Child host;
    ASSERT_TRUE(
        start_host(host, {"name=XpEnable", "file=" + file, "buf=64", "max=64", "level=3", "any=0xF0", "all=0x30"}));
    Provider late;
    ASSERT_TRUE(late.start(1, 1, {"events=1000", "levels=1", "min=16", "max=64"}));
    EXPECT_TRUE(late.wait_enabled(3000)) << "(registered after the session enabled its GUID)";
    EXPECT_TRUE(early.wait_enabled(3000)) << "(registered before the session enabled its GUID)";
    if (::testing::Test::HasFailure())
        return;
    for (Provider *p : {&early, &late}) {
        SCOPED_TRACE("provider " + std::to_string(p->index));
        EXPECT_EQ(p->counters->get(&xp_shared::last_level), 3u);
        EXPECT_EQ(p->counters->get(&xp_shared::last_any), 0xF0u);
        EXPECT_EQ(p->counters->get(&xp_shared::last_all), 0x30u);
        const auto deadline = Clock::now() + 1s; // polled every 2 ms by the helper
        while (p->counters->get(&xp_shared::level_mask) != 0x0F && Clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
        EXPECT_EQ(p->counters->get(&xp_shared::level_mask), 0x0Fu)
            << "etw_provider_is_enabled(level) for levels 0..7 (bit per level): levels 0..3 only";
    }
    for (Provider *p : {&early, &late, &other})
        p->run();
    for (Provider *p : {&early, &late, &other})
        ASSERT_TRUE(p->wait_done(30000));
    for (Provider *p : {&early, &late, &other})
        ASSERT_TRUE(p->pause());
    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpEnable", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(5000));
    for (Provider *p : {&early, &late}) {
        SCOPED_TRACE("provider " + std::to_string(p->index));
        const auto deadline = Clock::now() + 3s;
        while ((p->counters->get(&xp_shared::enabled) || !p->counters->get(&xp_shared::disable_calls)) &&
               Clock::now() < deadline)
            std::this_thread::sleep_for(1ms);
        EXPECT_GE(p->counters->get(&xp_shared::disable_calls), 1u) << "no is_enabled 0 callback within 3 s of the stop";
        EXPECT_EQ(p->counters->get(&xp_shared::enabled), 0u);
        const Totals t = p->totals();
        EXPECT_EQ(t.ok, 1000u) << t.str();
    }
    EXPECT_EQ(other.counters->get(&xp_shared::enable_calls), 0u) << "a GUID the session never enabled was enabled";
    for (Provider *p : {&early, &late, &other})
        EXPECT_EQ(p->quit(), 0);
    const Scan scan = scan_file(file);
    const Scan stray = scan_file(file, xp_guid(1));
    info("file: " + scan.str() + "; events of the other GUID " + std::to_string(stray.events));
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    EXPECT_EQ(scan.process, ETW_OK) << scan.str();
    EXPECT_EQ(stray.events, 0u);
    EXPECT_EQ(etw_properties_events_lost(fin.p), 0u);
    std::uint64_t above = 0;
    for (std::size_t l = 4; l < scan.levels.size(); ++l)
        above += scan.levels[l];
    EXPECT_EQ(above, 0u) << "events above level 3 were logged";
    // Exactly the events of levels 1..3 (seq % 5 < 3), 600 per provider.
    std::vector<std::uint64_t> expected;
    for (std::uint64_t p = 0; p < 2; ++p)
        for (std::uint64_t seq = 0; seq < 1000; ++seq)
            if (1 + seq % 5 <= 3)
                expected.push_back(key(p, 0, seq));
    std::vector<std::uint64_t> got = scan.keys;
    std::sort(got.begin(), got.end());
    EXPECT_EQ(got.size(), expected.size());
    EXPECT_TRUE(got == expected) << "the file does not hold exactly the events of levels 1..3";
}

} // namespace
} // namespace crossproc
