// What the crossproc_*_test.cpp files share: providers, consumers and
// controllers in other processes than a session's host (docs/
// SYSTEM_SESSIONS.md, step 3 and access control). Provider processes write
// into a session hosted by crossproc_helper, processes are SIGKILLed at
// random moments, and every test checks exact accounting against counters
// the helpers keep in shared files (crossproc_common.h):
//   events of the provider GUID in the file == sum of ETW_OK statuses,
//   EventsLost (the stop's properties) == sum of dropped statuses,
// with one uncertain event per thread of a killed provider.
// CROSSPROC_SEED=<n> replays the random choices of every test.
#pragma once

#include <openetw/openetw.h>

#include "crossproc_common.h"
#include "system_test_util.hpp"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

struct passwd;

namespace crossproc {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using systemtest::Props;

// This program's own registry (exported: every helper inherits it), and a
// scratch folder a second user's helper may write in too.
struct Namespace {
    std::string registry = "/dev/shm/openetw-crossproc-" + std::to_string(getpid()) + ".registry";
    std::string dir;
    Namespace();
    ~Namespace();
    // The session regions: "<registry>.<slot>.<generation>".
    std::vector<std::string> region_files() const;
    std::string path(const std::string &name) const { return dir + "/" + name; }
};
extern Namespace g_ns;

// Printed once, with how to replay it.
unsigned base_seed();
void info(const std::string &text);
std::string status_text(etw_status st);

// The kill and scribble soaks run up to their round count, but stop early
// (after a minimum that still exercises their paths) once their time budget
// is spent: under ThreadSanitizer one round costs 10-30x, and the suite's
// timeout bounds the whole binary. CROSSPROC_SOAK_SECONDS changes the budget.
struct Soak {
    int max_rounds, min_rounds;
    Clock::time_point t0 = Clock::now();
    std::chrono::duration<double> budget{budget_seconds()};
    int done = 0;
    bool next();
    // As next(), but past the time budget (never past max_rounds) until
    // `seen`: what a soak is to show happened at least once.
    bool next(bool seen);
    double seconds() const;
    // "100 host kills in 3.2 s", or "23 of 100 host kills (time budget 60 s) in 61.0 s".
    std::string ran(const std::string &what) const;
    static double budget_seconds();
};

// A crossproc_helper process.
struct Child {
    pid_t pid = -1;
    int out = -1;       // read end of the child's stdout
    std::string output; // what was read so far
    int code = -1;      // exit code, or 128 + signal
    bool signaled = false;
    int signal = 0;

    Child() = default;
    Child(const Child &) = delete;
    Child &operator=(const Child &) = delete;
    ~Child();

    // Runs the helper with args; as user pw when given (setgroups, setgid,
    // setuid, then exec).
    bool spawn(const std::vector<std::string> &args, const passwd *pw = nullptr);
    // Reads stdout until a whole line starting with prefix arrives (true),
    // EOF or the timeout (false).
    bool wait_line(const std::string &prefix, int timeout_ms);
    // Everything until EOF (or the timeout).
    std::string read_all(int timeout_ms);
    bool read_some(Clock::time_point deadline);
    bool running();
    // Waits for the exit; false on timeout (the child keeps running).
    bool wait(int timeout_ms);
    void kill9();
    void record(int status);
    std::string describe() const;
};

// The stacks of every thread of process pid (gdb attached in batch mode),
// to say where a wedged child is; a line saying why when there are none.
std::string thread_stacks(pid_t pid);

// Starts `crossproc_helper host ...` and waits for its "ready" line.
::testing::AssertionResult start_host(Child &host, const std::vector<std::string> &args);

// What writer threads' statuses add up to.
struct Totals {
    std::uint64_t started = 0, ok = 0, lost = 0, refused = 0, other = 0, first_other = 0;
    Totals &operator+=(const Totals &t);
    Totals operator-(const Totals &t) const;
    // Attempts that did not report (killed between started and the status).
    std::uint64_t in_flight() const { return started - ok - lost - refused - other; }
    std::string str() const;
};

// A counters file (xp_shared), mapped.
struct Counters {
    std::string path;
    xp_shared *s = nullptr;
    explicit Counters(const std::string &p);
    ~Counters();
    std::uint64_t get(std::uint64_t xp_shared::*m) const { return xp_load(&(s->*m)); }
    Totals thread(int t) const;
};

// A provider process (`crossproc_helper provider`) and its counters.
struct Provider {
    int index = 0, threads = 1;
    std::unique_ptr<Counters> counters;
    Child proc;

    // Spawns it and waits until it registered.
    ::testing::AssertionResult start(int idx, int nthreads, std::vector<std::string> args);
    // Waits until the provider saw at least `calls` enable callbacks and is enabled.
    ::testing::AssertionResult wait_enabled(int timeout_ms, std::uint64_t calls = 1);
    void run() { xp_store(&counters->s->cmd, XP_CMD_RUN); }
    // Stops the writers and waits until every thread acknowledged: no write
    // is in progress afterwards.
    ::testing::AssertionResult pause(int timeout_ms = 5000);
    ::testing::AssertionResult wait_done(int timeout_ms);
    // Ends the process (cmd QUIT); its exit code or 128 + signal, -1 on timeout (then killed).
    int quit(int timeout_ms = 5000);
    Totals totals() const;
    std::uint64_t started(int t) const { return xp_load(&counters->s->threads[t].started); }
};

// Starts providers[i] as provider process i with `threads` threads each and
// waits until every one is enabled; `all` receives them for sum().
::testing::AssertionResult start_enabled(std::span<Provider> providers, int threads,
                                         const std::vector<std::string> &args, std::vector<Provider *> *all);

Totals sum(const std::vector<Provider *> &ps);

// Every provider writes all its events (at most 2 minutes) and is paused,
// so its counters are final.
template <std::size_t N>
::testing::AssertionResult run_to_the_end(std::array<Provider, N> &providers)
{
    for (Provider &p : providers)
        p.run();
    for (Provider &p : providers)
        if (auto done = p.wait_done(120000); !done)
            return done;
    for (Provider &p : providers)
        if (auto paused = p.pause(); !paused)
            return paused;
    return ::testing::AssertionSuccess();
}

// Opens the session by name and stops it; props receives the final statistics.
etw_status stop_by_name(const std::string &name, etw_properties *props, std::string *message = nullptr);

// The host state of the named session; 0 when it cannot be opened.
std::uint32_t host_state(const std::string &name);

// An event's identity in a file: provider process, thread, sequence number.
constexpr std::uint64_t key(std::uint64_t provider, std::uint64_t thread, std::uint64_t seq)
{
    return provider << 56 | thread << 48 | (seq & 0xFFFFFFFFFFFFull);
}
constexpr std::uint32_t key_provider(std::uint64_t k) { return std::uint32_t(k >> 56); }
constexpr std::uint32_t key_thread(std::uint64_t k) { return std::uint32_t(k >> 48) & 0xFF; }
constexpr std::uint64_t key_seq(std::uint64_t k) { return k & 0xFFFFFFFFFFFFull; }

// What a file holds of one provider GUID, read by the consumer.
struct Scan {
    etw_status open = ETW_OK, process = ETW_OK;
    std::string message;
    std::uint64_t events = 0;      // of the GUID
    std::uint64_t bad_payload = 0; // wrong magic, short, or wrong fill bytes
    std::uint64_t rundown = 0;     // rundown events (XP_RUNDOWN_MAGIC), not in keys
    std::vector<std::uint64_t> keys;
    std::array<std::uint64_t, 256> levels{};
    std::uint32_t header_events_lost = 0, buffers_written = 0;
    std::int64_t first_time = INT64_MAX, last_time = INT64_MIN; // FILETIMEs of the GUID's events
    etw_consumer_stats stats{};
    std::string str() const;
};

Scan scan_file(const std::string &path, const etw_guid &guid = xp_guid(0));

// No key twice; each from a known provider and thread, with seq < started.
// Returns a description of what is wrong, "" when all is well.
std::string check_keys(std::vector<std::uint64_t> keys, const std::vector<Provider *> &providers);

// Per provider thread: events in the file == its ETW_OK statuses, or for a
// killed provider (killed_index) between ok and ok + the attempt in flight.
// Returns "" when all hold, else a table of every thread.
std::string check_per_thread(const std::vector<std::uint64_t> &keys, const std::vector<Provider *> &providers,
                             int killed_index = -1);

} // namespace crossproc
