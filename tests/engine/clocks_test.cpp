// Clock type 1 (QPC): where the cycle counter is the system clock (Linux
// on x86 with clocksource "tsc") events are stamped with it and PerfFreq
// is its measured rate; elsewhere, with OPENETW_QPC_CLOCK=monotonic, and
// when appending to a file of 100 ns timestamps, in 100 ns units. Either
// way every timestamp converts to the wall time it was written at.
#include "engine_test_util.hpp"

#include "platform/clock.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

using namespace enginetest;

namespace {

constexpr std::int64_t kHundredNsPerSecond = 10'000'000;

// FILETIMEs read just before and just after one write.
struct Bracket {
    std::int64_t before = 0, after = 0;
};

struct Trace {
    etw_status start = ETW_OK;
    std::string message;
    std::vector<Bracket> at; // one per event written
};

// A clock-1 session on file (mode | single stream): one event per entry of
// gaps_ms, sleeping that long after each; then stops.
Trace trace(const std::string &file, std::uint32_t mode, std::initializer_list<int> gaps_ms)
{
    Trace out;
    const etw_guid pg = make_guid(0x6300);
    Props props(unique_name("clock"), file);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_log_file_mode(props, mode | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_clock_type(props, ETW_CLOCK_QPC);
    SessionHandle s;
    out.start = etw_session_start(&s.s, props);
    if (out.start != ETW_OK) {
        out.message = etw_last_error_message();
        return out;
    }
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    for (int gap : gaps_ms) {
        Event e(pg, 16);
        Bracket b;
        b.before = openetw::platform::filetime_now();
        EXPECT_EQ(etw_provider_trace_event(prov, e.h()), ETW_OK);
        b.after = openetw::platform::filetime_now();
        out.at.push_back(b);
        std::this_thread::sleep_for(std::chrono::milliseconds(gap));
    }
    EXPECT_EQ(etw_session_stop(s, props), ETW_OK) << etw_last_error_message();
    return out;
}

// Each event of f, from the last written ones of `at` (an appended file
// keeps its earlier events first), converts into its bracket, with `slack`
// 100 ns units for the reference pair and the rate's error.
void expect_in_brackets(const etltest::File &f, const std::vector<Bracket> &at, std::int64_t slack = 500)
{
    ASSERT_GE(f.events.size(), at.size());
    const std::size_t first = f.events.size() - at.size();
    for (std::size_t i = 0; i < at.size(); ++i) {
        const std::int64_t ft = etltest::event_filetime(f, f.events[first + i].timestamp);
        EXPECT_GE(ft, at[i].before - slack) << "event " << i << ", PerfFreq " << f.perf_freq;
        EXPECT_LE(ft, at[i].after + slack) << "event " << i << ", PerfFreq " << f.perf_freq;
    }
}

// Sets OPENETW_QPC_CLOCK for the sessions started in its scope.
struct QpcClockEnv {
#if defined(_WIN32)
    explicit QpcClockEnv(const char *value) { _putenv_s("OPENETW_QPC_CLOCK", value); }
    ~QpcClockEnv() { _putenv_s("OPENETW_QPC_CLOCK", ""); }
#else
    explicit QpcClockEnv(const char *value) { setenv("OPENETW_QPC_CLOCK", value, 1); }
    ~QpcClockEnv() { unsetenv("OPENETW_QPC_CLOCK"); }
#endif
};

} // namespace

TEST(QpcClock, IsTheCycleCounterWhereTheKernelKeepsTimeWithIt)
{
    if (!openetw::platform::cycle_counter_is_system_clock())
        GTEST_SKIP() << "the kernel's clocksource is not the cycle counter (tsc) here";
    const std::string file = temp_file("qpc-tsc");
    const Trace t = trace(file, ETW_FILE_MODE_SEQUENTIAL, {0});
    ASSERT_EQ(t.start, ETW_OK) << t.message;
    const auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.clock_type, 1u);
    EXPECT_EQ(f.perf_freq, std::int64_t(openetw::platform::cycle_counter_hz()));
    EXPECT_GT(f.perf_freq, 100 * kHundredNsPerSecond) << "a cycle counter runs at hundreds of MHz or more";
    expect_in_brackets(f, t.at);
}

// The rate is right, not only the reference pair: two events a quarter of
// a second apart each convert into their own bracket (a rate 0.1 % off
// would miss by 250 us).
TEST(QpcClock, TimestampsKeepWallTimeAcrossAQuarterSecond)
{
    const std::string file = temp_file("qpc-rate");
    const Trace t = trace(file, ETW_FILE_MODE_SEQUENTIAL, {250, 0});
    ASSERT_EQ(t.start, ETW_OK) << t.message;
    const auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 2u);
    expect_in_brackets(f, t.at);
}

TEST(QpcClock, OpenetwQpcClockMonotonicKeeps100nsUnits)
{
    const std::string file = temp_file("qpc-mono");
    Trace t;
    {
        QpcClockEnv env("monotonic");
        t = trace(file, ETW_FILE_MODE_SEQUENTIAL, {50, 0});
    }
    ASSERT_EQ(t.start, ETW_OK) << t.message;
    const auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.perf_freq, kHundredNsPerSecond);
    expect_in_brackets(f, t.at);
}

// Appending to a file whose clock-1 timestamps are 100 ns units: the
// session stamps in those units too, whatever it would choose alone.
TEST(QpcClock, AppendingTo100nsTimestampsStampsIn100nsUnits)
{
    const std::string file = temp_file("qpc-append-mono");
    {
        QpcClockEnv env("monotonic");
        ASSERT_EQ(trace(file, ETW_FILE_MODE_SEQUENTIAL, {0}).start, ETW_OK);
    }
    const Trace t = trace(file, ETW_FILE_MODE_APPEND, {20, 0});
    ASSERT_EQ(t.start, ETW_OK) << t.message;
    const auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 3u);
    EXPECT_EQ(f.perf_freq, kHundredNsPerSecond);
    expect_in_brackets(f, t.at);
}

// The other way round a session cannot follow the file: it is refused with
// a message that says why, and the file is left as it was.
TEST(QpcClock, AppendingToCycleCounterTimestampsWithout100nsIsRefused)
{
    if (!openetw::platform::cycle_counter_is_system_clock())
        GTEST_SKIP() << "the kernel's clocksource is not the cycle counter (tsc) here";
    const std::string file = temp_file("qpc-append-tsc");
    ASSERT_EQ(trace(file, ETW_FILE_MODE_SEQUENTIAL, {0}).start, ETW_OK);
    const auto before = etltest::decode(file);
    ASSERT_TRUE(before.ok()) << before.problem_text();
    Trace t;
    {
        QpcClockEnv env("monotonic");
        t = trace(file, ETW_FILE_MODE_APPEND, {0});
    }
    EXPECT_EQ(t.start, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(t.message.find("cycle-counter ticks"), std::string::npos) << t.message;
    const auto after = etltest::decode(file);
    EXPECT_EQ(after.bytes, before.bytes);
}
