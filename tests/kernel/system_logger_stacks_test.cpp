// Stacks of tracepoint-made kernel events, live: a system logger asked for
// the stacks of SysClEnter and CSwitch follows each of those records with
// its StackWalk record (same timestamp, the thread's process and id, a
// kernel frame, and the user instruction that made the call), and no
// other record with one. Runs as root (as CI); x86-64 (the target program
// makes its calls with its own `syscall` instruction).
#include "system_logger_live.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sys/wait.h>

using namespace syslogtest;

namespace {

constexpr etw_classic_event_id kSysClEnter = {
    {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}}, 51, {}};
constexpr etw_classic_event_id kCSwitch = {
    {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}}, 36, {}};

// Runs the target program to its end: its pid, and the address it prints
// (where its system calls return to).
std::pair<pid_t, std::uint64_t> run_target(int calls)
{
    int out[2];
    EXPECT_EQ(::pipe(out), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1);
        const std::string n = std::to_string(calls);
        ::execl(std::getenv("STACK_PROGRAM"), "stack_target", n.c_str(), static_cast<char *>(nullptr));
        ::_exit(127);
    }
    ::close(out[1]);
    char line[64] = {};
    const ssize_t got = ::read(out[0], line, sizeof line - 1);
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(got > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) << "stack_target did not run: " << status;
    return {pid, std::strtoull(line, nullptr, 16)};
}

std::vector<std::uint64_t> frames(const Seen &walk)
{
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0;; ++i) {
        const long long v = number(walk, "Stacks[" + std::to_string(i) + "]");
        if (v == -1)
            return out;
        out.push_back(std::uint64_t(v));
    }
}

} // namespace

TEST(SystemLoggerStacks, SystemCallsAndContextSwitchesCarryTheirCallersStack)
{
#if !defined(__x86_64__)
    GTEST_SKIP() << "the target program's system calls are x86-64 instructions";
#endif
    const std::string file = temp_file("syslog-stacks");
    Props props("OpenETW stacks " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_SYSTEMCALL | ETW_FLAG_CSWITCH), ETW_OK) << etw_last_error_message();
    const etw_classic_event_id stacked[] = {kSysClEnter, kCSwitch};
    ASSERT_EQ(etw_session_set_stack_tracing(s, stacked, 2), ETW_OK) << etw_last_error_message();
    const auto [pid, after_syscall] = run_target(200);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::uint32_t lost = etw_properties_events_lost(props.p);

    const std::vector<Seen> all = read_back(file);
    // The stacked records by timestamp, to find each walk's event.
    std::multimap<std::int64_t, const Seen *> stacked_at;
    for (const Seen &r : all)
        if (r.event_name == "PerfInfo/SysClEnter" || r.event_name == "Thread/CSwitch")
            stacked_at.emplace(r.timestamp_raw, &r);
    std::map<std::string, int> target_walks; // by the event's name
    std::size_t walks = 0;
    for (const Seen &w : all) {
        if (w.event_name != "StackWalk/Stack")
            continue;
        ++walks;
        const std::int64_t ts = number(w, "EventTimeStamp");
        EXPECT_EQ(ts, w.timestamp_raw);
        const auto [first, last] = stacked_at.equal_range(ts);
        ASSERT_NE(first, last) << "a StackWalk at " << ts << " follows no SysClEnter or CSwitch";
        const std::vector<std::uint64_t> f = frames(w);
        ASSERT_FALSE(f.empty());
        if (number(w, "StackThread") != pid)
            continue;
        EXPECT_EQ(number(w, "StackProcess"), pid);
        // Innermost first: the kernel's frames, then the user's, whose first
        // is where the call returns to.
        EXPECT_GE(f.front(), 0xFFFF800000000000ull) << "no kernel frame first";
        if (std::find(f.begin(), f.end(), after_syscall) != f.end())
            ++target_walks[first->second->event_name];
    }
    // 200 nanosleeps: 200 calls, each a switch away while it sleeps.
    EXPECT_GE(target_walks["PerfInfo/SysClEnter"], 200 - int(lost));
    EXPECT_GE(target_walks["Thread/CSwitch"], 150 - int(lost));
    // SysClExit was not asked for: walks follow only the asked events.
    EXPECT_LE(walks, stacked_at.size());
    EXPECT_GT(named(all, "PerfInfo/SysClExit").size(), 200u);
    std::filesystem::remove(file);
}

TEST(SystemLoggerStacks, StacksCanBeTurnedOffWhileRunning)
{
    const std::string file = temp_file("syslog-stacks-off");
    Props props("OpenETW stacks off " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_CSWITCH), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_set_stack_tracing(s, &kCSwitch, 1), ETW_OK) << etw_last_error_message();
    (void)run_target(50);
    ASSERT_EQ(etw_session_flush(s, nullptr), ETW_OK);
    ASSERT_EQ(etw_session_set_stack_tracing(s, nullptr, 0), ETW_OK) << etw_last_error_message();
    const auto [pid, after] = run_target(50);
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> all = read_back(file);
    // The second run's switches (its pid) come after stacks were turned off.
    std::size_t with = 0, without = 0;
    for (const Seen &r : all)
        if (r.event_name == "StackWalk/Stack")
            (number(r, "StackThread") == pid ? without : with)++;
    EXPECT_GT(with, 20u);
    EXPECT_EQ(without, 0u);
    std::filesystem::remove(file);
}
