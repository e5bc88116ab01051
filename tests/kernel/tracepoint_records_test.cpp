// The tracepoint source's pure parts and its translators: PERF_RECORD_SAMPLE
// records built by hand around raw samples laid out by real format files
// (tracepoints/), parsed, and turned into a Thread/CSwitch read back through
// the consumer and decoder with exact values, and into Process/End's exit
// statuses (exit_group's code; a fatal signal's 128 + N; none for others).
#include "kernel_etl.hpp"

#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_records.hpp"
#include "kernel/tracepoint_source.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace openetw::kernel;
using kerneltest::Seen;

namespace {

TracepointFormat load(const std::string &name)
{
    const auto bytes = etltest::read_file(std::string(OPENETW_SOURCE_DIR) + "/tests/kernel/tracepoints/" + name);
    TracepointFormat f;
    EXPECT_TRUE(TracepointFormat::parse(std::string(bytes.begin(), bytes.end()), &f)) << name;
    return f;
}

void put(std::vector<std::uint8_t> &b, std::size_t at, std::uint64_t v, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        b[at + i] = std::uint8_t(v >> (8 * i));
}

// A PERF_RECORD_SAMPLE of TID|TIME|CPU|RAW around raw, padded to 8 bytes as the kernel does.
std::vector<std::uint8_t> sample_record(std::uint32_t pid, std::uint32_t tid, std::uint64_t time, std::uint32_t cpu,
                                        const std::vector<std::uint8_t> &raw)
{
    const std::size_t size = (36 + raw.size() + 7) / 8 * 8;
    std::vector<std::uint8_t> r(size, 0);
    put(r, 0, openetw::platform::kPerfRecordSample, 4);
    put(r, 6, size, 2);
    put(r, 8, pid, 4);
    put(r, 12, tid, 4);
    put(r, 16, time, 8);
    put(r, 24, cpu, 4);
    put(r, 32, raw.size(), 4);
    std::memcpy(r.data() + 36, raw.data(), raw.size());
    return r;
}

} // namespace

TEST(TracepointSource, ASampleRecordParsesIntoItsFields)
{
    const std::vector<std::uint8_t> raw = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const auto r = sample_record(100, 101, 0x1122334455, 3, raw);
    TracepointSample t;
    ASSERT_TRUE(parse_tracepoint_sample(r, &t));
    EXPECT_EQ(t.pid, 100u);
    EXPECT_EQ(t.tid, 101u);
    EXPECT_EQ(t.time, 0x1122334455u);
    EXPECT_EQ(t.cpu, 3u);
    EXPECT_EQ(std::vector<std::uint8_t>(t.raw.begin(), t.raw.end()), raw);
    // Shorter than its raw_size says, or not a sample: refused.
    EXPECT_FALSE(parse_tracepoint_sample(std::span(r.data(), 40), &t));
    auto lost = r;
    put(lost, 0, openetw::platform::kPerfRecordLost, 4);
    EXPECT_FALSE(parse_tracepoint_sample(lost, &t));
}

TEST(TracepointRecords, SchedSwitchBecomesAThreadCSwitchOnTheSessionClock)
{
    const TracepointFormat f = load("sched_switch.format");
    std::vector<std::uint8_t> raw(64, 0);
    std::memcpy(&raw[8], "yield", 5);
    put(raw, 24, 4321, 4); // prev_pid
    put(raw, 28, 120, 4);  // prev_prio: nice 0
    put(raw, 32, 0, 8);    // prev_state: runnable, gave the processor up (yield)
    put(raw, 56, 99, 4);   // next_pid
    put(raw, 60, 139, 4);  // next_prio: nice 19
    const auto rec = sample_record(4321, 4321, 123456700, 1, raw);
    TracepointSample t;
    ASSERT_TRUE(parse_tracepoint_sample(rec, &t));
    const PerfClock clock; // Monotonic: ns / 100
    const Bytes out = cswitch_from_sample(f, t, clock, 8);
    ASSERT_FALSE(out.empty());
    const std::vector<Seen> seen = kerneltest::round_trip({out}, 8);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].event_name, "Thread/CSwitch");
    EXPECT_EQ(seen[0].timestamp_raw, 1234567);
    EXPECT_EQ(seen[0].problem, "");
    const kerneltest::Pairs want = {{"NewThreadId", "0x63"},       {"OldThreadId", "0x10E1"},
                                    {"NewThreadPriority", "2"},    {"OldThreadPriority", "8"},
                                    {"PreviousCState", "0"},       {"SpareByte", "0"},
                                    {"OldThreadWaitReason", "33"}, {"OldThreadWaitMode", "0"},
                                    {"OldThreadState", "1"},       {"OldThreadWaitIdealProcessor", "0"},
                                    {"NewThreadWaitTime", "0x0"},  {"Reserved", "0"}};
    EXPECT_EQ(seen[0].values, want);
    // A sample cut short of next_prio writes nothing.
    TracepointSample cut = t;
    cut.raw = t.raw.first(62);
    EXPECT_TRUE(cswitch_from_sample(f, cut, clock, 8).empty());
}

TEST(TracepointRecords, ExitGroupGivesTheCodesLowByte)
{
    const TracepointFormat f = load("sys_enter_exit_group.format");
    std::vector<std::uint8_t> raw(24, 0);
    TracepointSample t;
    t.raw = raw;
    for (const auto &[code, want] : {std::pair<std::uint64_t, std::int32_t>{3, 3}, {5, 5}, {0x1FF, 255}, {256, 0}}) {
        put(raw, 16, code, 8);
        EXPECT_EQ(exit_status_from_sample(f, t), want) << code;
    }
    t.raw = std::span(raw.data(), 20);
    EXPECT_FALSE(exit_status_from_sample(f, t).has_value()) << "error_code cut off";
}

TEST(TracepointRecords, OnlyASignalLeftToAFatalDefaultEndsTheProcess)
{
    const TracepointFormat f = load("signal_deliver.format");
    std::vector<std::uint8_t> raw(40, 0);
    TracepointSample t;
    t.raw = raw;
    const auto status = [&](int sig, std::uint64_t handler) {
        put(raw, 8, std::uint32_t(sig), 4);
        put(raw, 24, handler, 8);
        return fatal_signal_status_from_sample(f, t);
    };
    EXPECT_EQ(status(9, 0), 137);  // SIGKILL
    EXPECT_EQ(status(15, 0), 143); // SIGTERM
    EXPECT_EQ(status(11, 0), 139); // SIGSEGV
    EXPECT_EQ(status(34, 0), 162); // SIGRTMIN
    EXPECT_FALSE(status(15, 0x401000).has_value()) << "a handler runs: the process lives on";
    EXPECT_FALSE(status(15, 1).has_value()) << "SIG_IGN";
    for (int harmless : {17, 18, 19, 20, 21, 22, 23, 28})
        EXPECT_FALSE(status(harmless, 0).has_value()) << harmless;
    t.raw = std::span(raw.data(), 30);
    EXPECT_FALSE(fatal_signal_status_from_sample(f, t).has_value()) << "sa_handler cut off";
}
