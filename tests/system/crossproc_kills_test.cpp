// Hosts, providers and consumers SIGKILLed at random moments: the
// accounting holds and the session is never wedged.
#include "crossproc_fixtures.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace crossproc {
namespace {

// The host is SIGKILLed while 2 provider processes write; the test stops the
// orphan: every committed event (in the file or still in the region) is in
// the file, and every dropped one in EventsLost, exactly.
TEST(CrossProcess, HostKilledAtRandomMomentsLeavesEveryCommittedEvent)
{
    std::mt19937 rng(base_seed() + 2);
    const std::string file = g_ns.path("hostkill.etl");
    Totals grand;
    std::uint64_t grand_file = 0, grand_lost = 0;
    Soak soak{100, 10};
    for (int round = 0; soak.next(); ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::filesystem::remove(file);
        Child host;
        ASSERT_TRUE(start_host(host, {"name=XpHostKill", "file=" + file, "buf=64", "max=40"}));
        std::array<Provider, 2> providers;
        std::vector<Provider *> all;
        ASSERT_TRUE(start_enabled(providers, 1, {"min=16", "max=200"}, &all));
        for (Provider &p : providers)
            p.run();
        std::this_thread::sleep_for(std::chrono::microseconds(1000 + rng() % 39000));
        host.kill9();
        std::this_thread::sleep_for(2ms); // the providers go on writing into the orphan
        for (Provider &p : providers)
            ASSERT_TRUE(p.pause());
        const Totals t = sum(all);
        for (Provider &p : providers)
            EXPECT_EQ(p.quit(), 0);
        EXPECT_EQ(host_state("XpHostKill"), ETW_SESSION_HOST_ORPHANED);
        Props fin;
        std::string why;
        ASSERT_EQ(stop_by_name("XpHostKill", fin.p, &why), ETW_OK) << why;
        etw_session *again = nullptr;
        EXPECT_EQ(etw_session_open(&again, "XpHostKill"), ETW_ERROR_WMI_INSTANCE_NOT_FOUND) << "the name is not free";
        etw_session_close(again);
        const std::uint32_t events_lost = etw_properties_events_lost(fin.p);
        const Scan scan = scan_file(file);
        ASSERT_EQ(scan.open, ETW_OK) << scan.str();
        EXPECT_EQ(scan.process, ETW_OK) << scan.str();
        EXPECT_EQ(t.other, 0u) << t.str();
        EXPECT_EQ(t.in_flight(), 0u);
        EXPECT_EQ(scan.events, t.ok) << "events in the file != ETW_OK statuses (" << t.str()
                                     << "); committed buffers still in the dead host's region are missing?";
        EXPECT_EQ(events_lost, t.lost) << "EventsLost of the orphan's stop != dropped statuses (" << t.str() << ")";
        EXPECT_EQ(scan.bad_payload, 0u);
        EXPECT_EQ(check_keys(scan.keys, all), "");
        EXPECT_EQ(check_per_thread(scan.keys, all), "");
        grand += t;
        grand_file += scan.events;
        grand_lost += events_lost;
        if (::testing::Test::HasFailure()) {
            info("round " + std::to_string(round) + ": " + t.str() + "; file " + scan.str() + "; EventsLost " +
                 std::to_string(events_lost));
            break;
        }
    }
    info(soak.ran("host kills") + ": " + grand.str() + "; in files " + std::to_string(grand_file) + ", EventsLost " +
         std::to_string(grand_lost));
    EXPECT_GT(grand_file, 0u);
}

// One of 3 provider processes (2 threads each, 8..60 KB events in 64 KB
// buffers) is SIGKILLed mid-writing; the others finish. A record the killed
// writer had reserved but not finished is skipped and counted, never torn.
TEST(CrossProcess, ProviderKilledAtRandomMomentsIsSkippedAndCounted)
{
    std::mt19937 rng(base_seed() + 3);
    const std::string file = g_ns.path("provkill.etl");
    int uncertain_rounds = 0, lost_more_rounds = 0, written_more_rounds = 0;
    std::uint64_t total_file = 0;
    Soak soak{100, 20};
    // About one kill in ten lands where the session accounts the killed
    // writer's last event: inside a reservation of the CAS protocol, or
    // between a commit and its status (an owner's unfinished record lies past
    // its committed offset and is never counted). Rounds go on past the time
    // budget until one did.
    for (int round = 0; soak.next(uncertain_rounds > 0); ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        std::filesystem::remove(file);
        Child host;
        ASSERT_TRUE(start_host(host, {"name=XpProvKill", "file=" + file, "buf=64", "max=40"}));
        std::array<Provider, 3> providers;
        std::vector<Provider *> all;
        ASSERT_TRUE(start_enabled(providers, 2, {"min=8192", "max=61440"}, &all));
        for (Provider &p : providers)
            p.run();
        std::this_thread::sleep_for(std::chrono::microseconds(1000 + rng() % 29000));
        const int victim = int(rng() % 3);
        providers[victim].proc.kill9();
        std::this_thread::sleep_for(5ms); // the others go on
        Totals killed;
        std::uint64_t uncertain = 0;
        for (int i = 0; i < 3; ++i) {
            if (i == victim) {
                killed = providers[i].totals();
                for (int t = 0; t < providers[i].threads; ++t) {
                    const std::uint64_t f = providers[i].counters->thread(t).in_flight();
                    EXPECT_LE(f, 1u) << "thread " << t << " of the killed provider";
                    uncertain += f;
                }
                continue;
            }
            ASSERT_TRUE(providers[i].pause());
        }
        const Totals t = sum(all);
        for (int i = 0; i < 3; ++i) {
            if (i != victim) {
                EXPECT_EQ(providers[i].quit(), 0);
            }
        }
        Props fin;
        std::string why;
        ASSERT_EQ(stop_by_name("XpProvKill", fin.p, &why), ETW_OK) << why;
        EXPECT_TRUE(host.wait(5000)) << "the host did not exit after its session was stopped";
        const std::uint64_t lost = etw_properties_events_lost(fin.p);
        const Scan scan = scan_file(file);
        ASSERT_EQ(scan.open, ETW_OK) << scan.str();
        EXPECT_EQ(scan.process, ETW_OK) << scan.str() << " (a killed writer's record torn?)";
        EXPECT_EQ(scan.bad_payload, 0u) << "a record with the wrong bytes: a killed writer's partial copy was kept";
        EXPECT_EQ(t.other, 0u) << t.str();
        EXPECT_EQ(check_keys(scan.keys, all), "");
        EXPECT_EQ(check_per_thread(scan.keys, all, victim), "")
            << "(an event whose write returned ETW_OK is missing, or one never reported is there)";
        const std::uint64_t counted = t.ok + t.lost, seen = scan.events + lost;
        EXPECT_GE(scan.events, t.ok) << t.str() << "; file " << scan.str();
        EXPECT_GE(lost, t.lost) << t.str() << "; EventsLost " << lost;
        EXPECT_LE(counted, seen) << t.str() << "; file " << scan.events << " + EventsLost " << lost;
        EXPECT_LE(seen, counted + uncertain) << t.str() << "; file " << scan.events << " + EventsLost " << lost
                                             << "; uncertain " << uncertain << " (killed: " << killed.str() << ")";
        uncertain_rounds += seen > counted;
        lost_more_rounds += lost > t.lost;
        written_more_rounds += scan.events > t.ok;
        total_file += scan.events;
        if (::testing::Test::HasFailure()) {
            info("round " + std::to_string(round) + ": " + t.str() + "; file " + scan.str() + "; EventsLost " +
                 std::to_string(lost) + "; killed provider " + std::to_string(victim) + ": " + killed.str());
            break;
        }
    }
    info(soak.ran("provider kills") + ": rounds where the killed writer's last event was accounted by the session " +
         std::to_string(uncertain_rounds) +
         " (skipped or dropped, counted in EventsLost: " + std::to_string(lost_more_rounds) +
         "; written: " + std::to_string(written_more_rounds) + "); events in files " + std::to_string(total_file));
    if (!::testing::Test::HasFailure()) {
        EXPECT_GT(uncertain_rounds, 0) << "no kill landed inside a write in " << soak.done
                                       << " rounds: the skip path was not exercised";
    }
}

// A real-time + file session; a provider writes all along; 100 consumer
// processes attach and are SIGKILLed at random moments. The session goes on,
// a consumer that stays gets every event written after it attached, and the
// file accounts exactly.
TEST(CrossProcess, ConsumerKilledAtRandomMomentsNeverWedgesTheSession)
{
    std::mt19937 rng(base_seed() + 4);
    const std::string file = g_ns.path("conskill.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpConsKill", "file=" + file, "rt=1", "buf=64", "max=64", "flush=1"}));
    Provider prov;
    ASSERT_TRUE(prov.start(0, 2, {"min=16", "max=200", "pace=50", "pace_us=1000"}));
    ASSERT_TRUE(prov.wait_enabled(3000));
    prov.run();
    etw_session *ctl = nullptr;
    ASSERT_EQ(etw_session_open(&ctl, "XpConsKill"), ETW_OK);
    struct CloseCtl {
        etw_session *s;
        ~CloseCtl() { etw_session_close(s); }
    } close_ctl{ctl};
    Soak soak{100, 20};
    std::uint64_t received_by_killed = 0;
    for (int round = 0; soak.next(); ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        Counters c(g_ns.path("consumer-" + std::to_string(round)));
        Child consumer;
        ASSERT_TRUE(consumer.spawn({"consume", "name=XpConsKill", "counters=" + c.path}));
        const auto deadline = Clock::now() + 5s;
        while (!c.get(&xp_shared::attached) && consumer.running() && Clock::now() < deadline)
            std::this_thread::sleep_for(200us);
        ASSERT_TRUE(c.get(&xp_shared::attached))
            << "the consumer did not attach within 5 s: " << consumer.describe() << " " << consumer.read_all(100);
        ASSERT_EQ(c.get(&xp_shared::open_status), ETW_OK)
            << "etw_consumer_open_session from another process: " << consumer.read_all(1000);
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 30000));
        consumer.kill9();
        received_by_killed += c.get(&xp_shared::events);
        if (round % 10 == 9) {
            Props q;
            ASSERT_EQ(etw_session_query(ctl, q.p), ETW_OK) << "the session no longer answers after consumer kills";
        }
    }
    EXPECT_TRUE(host.running()) << "the host ended: " << host.describe();
    // A consumer that stays.
    Counters fc(g_ns.path("consumer-final"));
    const std::string keys_file = g_ns.path("consumer-final.keys");
    Child consumer;
    ASSERT_TRUE(consumer.spawn({"consume", "name=XpConsKill", "counters=" + fc.path, "out=" + keys_file}));
    const auto deadline = Clock::now() + 5s;
    while (!fc.get(&xp_shared::attached) && consumer.running() && Clock::now() < deadline)
        std::this_thread::sleep_for(200us);
    ASSERT_TRUE(fc.get(&xp_shared::attached));
    ASSERT_EQ(fc.get(&xp_shared::open_status), ETW_OK) << consumer.read_all(1000);
    // Events that started after this point were written after it attached.
    const std::array<std::uint64_t, 2> from{prov.started(0), prov.started(1)};
    const Totals before = prov.totals();
    std::this_thread::sleep_for(500ms);
    ASSERT_TRUE(prov.pause());
    const Totals t = prov.totals();
    const Totals last = t - before;
    EXPECT_EQ(prov.quit(), 0);
    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpConsKill", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(5000));
    ASSERT_TRUE(consumer.wait(10000)) << "the staying consumer did not return after the session stopped";
    EXPECT_EQ(consumer.code, 0) << consumer.describe() << " " << consumer.read_all(100);
    EXPECT_EQ(fc.get(&xp_shared::process_status), ETW_OK);
    const std::uint32_t events_lost = etw_properties_events_lost(fin.p);
    const Scan scan = scan_file(file);
    std::vector<std::uint64_t> got;
    if (FILE *f = std::fopen(keys_file.c_str(), "rb")) {
        std::uint64_t k;
        while (std::fread(&k, sizeof k, 1, f) == 1)
            got.push_back(k);
        std::fclose(f);
    }
    std::sort(got.begin(), got.end());
    std::uint64_t after = 0, missing = 0;
    for (const std::uint64_t k : scan.keys)
        if (key_seq(k) >= from[key_thread(k) & 1]) {
            ++after;
            missing += !std::binary_search(got.begin(), got.end(), k);
        }
    std::vector<std::uint64_t> in_file = scan.keys;
    std::sort(in_file.begin(), in_file.end());
    std::uint64_t not_in_file = 0;
    for (const std::uint64_t k : got)
        not_in_file += !std::binary_search(in_file.begin(), in_file.end(), k);
    info(soak.ran("consumer kills") + " (they received " + std::to_string(received_by_killed) + " events); writer " +
         t.str() + "; last phase " + last.str() + "; file " + scan.str() + "; EventsLost " +
         std::to_string(events_lost) + "; final consumer got " + std::to_string(got.size()) + " events, " +
         std::to_string(after) + " written after it attached, " + std::to_string(missing) + " of those missing");
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    EXPECT_EQ(scan.process, ETW_OK) << scan.str();
    EXPECT_EQ(t.other, 0u) << t.str();
    EXPECT_EQ(scan.events, t.ok) << "events in the file != ETW_OK statuses";
    EXPECT_EQ(events_lost, t.lost) << "EventsLost != dropped statuses";
    EXPECT_EQ(check_keys(scan.keys, {&prov}), "");
    EXPECT_GT(last.ok, 0u) << "no event was written after the consumer kills: the session is wedged (" << last.str()
                           << ")";
    EXPECT_GT(after, 0u) << "no event in the file was written after the final consumer attached";
    EXPECT_EQ(missing, 0u) << "events written after the final consumer attached that it did not receive";
    EXPECT_EQ(not_in_file, 0u) << "the consumer received events that are not in the file";
    EXPECT_EQ(fc.get(&xp_shared::bad_payload), 0u) << "the consumer received damaged payloads";
}

} // namespace
} // namespace crossproc
