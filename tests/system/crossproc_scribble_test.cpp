// Random bytes written over a running session's regions by another process
// crash no host, consumer or controller.
#include "crossproc_fixtures.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace crossproc {
namespace {

// Runs f on another thread and waits at most timeout_ms. A call that does
// not return is a hang: said so, and this process ends at once (f's thread
// still uses the caller's locals, so the test cannot go on).
void with_deadline(const char *what, const std::function<void()> &f, int timeout_ms)
{
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([f, done] {
        f();
        done->store(true);
    });
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (!done->load() && Clock::now() < deadline)
        std::this_thread::sleep_for(1ms);
    if (!done->load()) {
        std::printf("[ crossproc ] FATAL: %s did not return within %d ms (the controller hangs); seed %s\n", what,
                    timeout_ms, std::getenv("CROSSPROC_SEED") ? std::getenv("CROSSPROC_SEED") : "(printed above)");
        std::fflush(stdout);
        std::_Exit(1);
    }
    t.join();
}

// Another process writes random bytes over the session regions (control
// block, stream slots, buffer descriptors, buffers) while a host logs, a
// provider writes and a real-time consumer reads. The host, the consumer and
// this process (the controller) never die of a signal; the stop returns; the
// file, if there is one, is read without crashing (statuses may be errors).
// ThreadSanitizer in the children reports nothing while they run here: a
// scribbled region hands one buffer to two threads of a process on purpose,
// whose copies then race for real; a report's halt (exit 66) after seconds of
// symbolizing would read as a wedged writer. The other tests keep the reports.
struct QuietRaceReportsInChildren {
    std::string saved;
    bool had = false;
    QuietRaceReportsInChildren()
    {
        if (const char *v = std::getenv("TSAN_OPTIONS")) {
            had = true;
            saved = v;
        }
        ::setenv("TSAN_OPTIONS", (saved + (saved.empty() ? "" : ":") + "report_bugs=0").c_str(), 1);
    }
    ~QuietRaceReportsInChildren()
    {
        if (had)
            ::setenv("TSAN_OPTIONS", saved.c_str(), 1);
        else
            ::unsetenv("TSAN_OPTIONS");
    }
};

TEST(CrossProcess, ScribbledSessionRegionCrashesNoHostConsumerOrController)
{
    const QuietRaceReportsInChildren quiet; // (before any child: they read it at exec)
    const unsigned seed = base_seed();
    std::mt19937 rng(seed + 8);
    Soak soak{24, 6}; // 6: each write count below twice
    int wedged_providers = 0;
    for (int round = 0; soak.next(); ++round) {
        SCOPED_TRACE("round " + std::to_string(round) + ", seed " + std::to_string(seed));
        const std::string name = "XpScrib" + std::to_string(round);
        const std::string file = g_ns.path("scrib" + std::to_string(round) + ".etl");
        Child host;
        ASSERT_TRUE(start_host(host, {"name=" + name, "file=" + file, "rt=1", "buf=64", "max=32", "flush=1"}));
        Provider prov;
        ASSERT_TRUE(prov.start(0, 2, {"min=16", "max=4000", "pace=20", "pace_us=500"}));
        ASSERT_TRUE(prov.wait_enabled(3000));
        prov.run();
        Counters cc(g_ns.path("scrib-consumer-" + std::to_string(round)));
        Child consumer;
        ASSERT_TRUE(consumer.spawn({"consume", "name=" + name, "counters=" + cc.path}));
        const auto deadline = Clock::now() + 5s;
        while (!cc.get(&xp_shared::attached) && consumer.running() && Clock::now() < deadline)
            std::this_thread::sleep_for(200us);
        ASSERT_EQ(cc.get(&xp_shared::attached), 1u) << consumer.describe();
        ASSERT_EQ(cc.get(&xp_shared::open_status), ETW_OK) << consumer.read_all(1000);
        std::this_thread::sleep_for(20ms);

        const unsigned round_seed = seed + unsigned(round);
        const int writes = std::array<int, 3>{4, 64, 1024}[round % 3];
        const int bursts = 10 + int(rng() % 40);
        Child scribbler;
        ASSERT_TRUE(
            scribbler.spawn({"scribble", "registry=" + g_ns.registry, "seed=" + std::to_string(round_seed),
                             "bursts=" + std::to_string(bursts), "writes=" + std::to_string(writes), "sleep_us=500"}));
        const bool scribbled = scribbler.wait(30000);
        const std::string said = scribbler.read_all(200);
        if (!scribbled)
            scribbler.kill9();
        ASSERT_NE(scribbler.code, 5) << "no session region to scribble over: " << said;
        std::this_thread::sleep_for(20ms);

        std::ostringstream log;
        log << "round " << round << " seed " << round_seed << " (" << bursts << " x " << writes << " writes, scribbler "
            << scribbler.describe() << ")";
        if (!prov.pause(5000)) {
            log << "; provider did not pause (a thread stayed inside etw_provider_trace_event for 5 s)";
            ++wedged_providers;
            info("the wedged provider's threads:\n" + thread_stacks(prov.proc.pid));
        }
        const int pq = prov.quit(1000);
        log << "; provider " << (pq < 0 ? "killed after not quitting" : prov.proc.describe());

        // The controller: open and stop, bounded.
        etw_status open_st = ETW_OK, stop_st = ETW_OK;
        std::string stop_msg;
        with_deadline(
            "etw_session_open + etw_session_stop of a scribbled session",
            [&] {
                etw_session *s = nullptr;
                open_st = etw_session_open(&s, name.c_str());
                if (open_st == ETW_OK) {
                    Props fin;
                    stop_st = etw_session_stop(s, fin.p);
                    stop_msg = etw_last_error_message();
                }
                etw_session_close(s);
            },
            30000);
        log << "; open " << status_text(open_st) << ", stop " << status_text(stop_st);
        if (stop_st != ETW_OK)
            log << " (" << stop_msg << ")";

        if (!host.wait(5000)) {
            log << "; host still running after the stop: killed";
            host.kill9();
        } else {
            EXPECT_FALSE(host.signaled) << "the host died: " << host.describe();
            log << "; host " << host.describe();
        }
        if (!consumer.wait(5000)) {
            log << "; consumer still running: killed";
            consumer.kill9();
        } else {
            EXPECT_FALSE(consumer.signaled) << "the consumer died: " << consumer.describe();
            log << "; consumer " << consumer.describe() << " after " << cc.get(&xp_shared::events) << " events";
        }
        // Whatever is left of the session is stopped too (an orphan now).
        with_deadline(
            "stopping what is left of a scribbled session", [&] { stop_by_name(name, nullptr); }, 30000);

        std::error_code ec;
        if (std::filesystem::exists(file, ec) && std::filesystem::file_size(file, ec) > 0) {
            const Scan scan = scan_file(file);
            log << "; file " << scan.str();
        } else {
            log << "; no file";
        }
        info(log.str());
        std::filesystem::remove(file, ec);
        if (::testing::Test::HasFailure())
            break;
    }
    info(soak.ran("scribble rounds") +
         "; rounds where the provider stayed stuck in a write: " + std::to_string(wedged_providers));
    // Writers bound everything they read from the region: a scribble never traps one in a loop.
    EXPECT_EQ(wedged_providers, 0) << "a provider stayed inside a write after the region was scribbled over";
}

} // namespace
} // namespace crossproc
