// The live source's translation, fed hand-built perf records: fork, exec,
// mmap2, thread and process exits and a loss become exactly the Windows
// records (read back through the consumer and named and decoded by the
// decoder's kernel classes); and perf's clock onto each session clock.
#include "kernel_etl.hpp"
#include "perf_records.hpp"

#include "kernel/perf_process_source.hpp"
#include "platform/clock.hpp"

#include <openetw/constants.h>

#include <gtest/gtest.h>

#include <map>

using namespace openetw::kernel;
using kerneltest::Seen;
namespace platform = openetw::platform;

namespace {

// The system as a test says it is: what proc_read_process would read.
struct FakeProc {
    std::map<std::uint32_t, platform::ProcProcess> processes;
    ProcessLookup lookup()
    {
        return [this](std::uint32_t pid, platform::ProcProcess *out) {
            const auto it = processes.find(pid);
            if (it == processes.end())
                return etw_status(ETW_ERROR_NOT_FOUND);
            *out = it->second;
            return etw_status(ETW_OK);
        };
    }
    void add(std::uint32_t pid, std::uint32_t ppid, const std::string &exe, const std::string &cmdline,
             std::uint32_t uid, std::uint64_t start_time)
    {
        platform::ProcProcess p;
        p.pid = pid;
        p.stat.tid = pid;
        p.stat.ppid = ppid;
        p.stat.session = 77;
        p.stat.comm = exe.substr(exe.rfind('/') + 1);
        p.stat.start_time = start_time;
        p.uid = uid;
        p.executable = exe;
        p.cmdline = cmdline;
        processes[pid] = p;
    }
};

struct Collected {
    std::vector<Bytes> records;
    RecordSink sink()
    {
        return [this](Bytes &&r) { records.push_back(std::move(r)); };
    }
};

perftest::Ctx at(std::uint32_t pid, std::uint32_t tid, std::uint64_t time) { return {pid, tid, time, 1}; }

std::vector<std::string> names(const std::vector<Seen> &seen)
{
    std::vector<std::string> out;
    for (const Seen &s : seen)
        out.push_back(s.event_name);
    return out;
}

} // namespace

// bash (100) forks 200, which execs /usr/bin/true, maps it, starts and
// ends a thread, and exits; a rename, a data mapping and JIT code are no
// events; a loss is counted.
TEST(PerfSource, ForkExecMmapExitBecomeWindowsRecords)
{
    FakeProc proc;
    proc.add(100, 1, "/usr/bin/bash", std::string("bash\0-l\0", 8), 1000, 5);
    PerfSourceOptions o; // processes, threads and images; 64-bit; clock type 1
    o.read_build_id = [](const std::string &) { return std::vector<std::uint8_t>{}; }; // build_id_test.cpp's part
    PerfProcessSource source(o, proc.lookup());
    Collected run;
    const std::uint64_t t0 = 5'000'000'000'000;
    source.consume(perftest::fork(200, 100, 200, 100, at(100, 100, t0 + 100)), run.sink());
    // The child has exec'ed by the time /proc is read.
    proc.add(200, 100, "/usr/bin/true", std::string("/usr/bin/true\0--version\0", 24), 1000, 9);
    source.consume(perftest::comm(200, 200, "true", true, at(200, 200, t0 + 200)), run.sink());
    source.consume(
        perftest::mmap2(200, 200, 0x555500002000, 0x4000, 0x2000, 5, "/usr/bin/true", at(200, 200, t0 + 300)),
        run.sink());
    source.consume(perftest::mmap2(200, 200, 0x7f0000000000, 0x1000, 0, 1, "/etc/ld.so.cache", at(200, 200, t0 + 310)),
                   run.sink());
    source.consume(perftest::mmap2(200, 200, 0x7f0000100000, 0x1000, 0, 5, "//anon", at(200, 200, t0 + 320)),
                   run.sink());
    source.consume(perftest::fork(200, 200, 201, 200, at(200, 200, t0 + 400)), run.sink());
    source.consume(perftest::comm(200, 201, "worker", false, at(200, 201, t0 + 450)), run.sink());
    source.consume(perftest::exit(200, 200, 201, 201, at(200, 201, t0 + 500)), run.sink());
    source.consume(perftest::exit(200, 100, 200, 200, at(200, 200, t0 + 600)), run.sink());
    source.consume(perftest::lost(7, 42, at(0, 0, t0 + 700)), run.sink());

    const std::vector<Seen> seen = kerneltest::round_trip(run.records, 8);
    ASSERT_EQ(names(seen), (std::vector<std::string>{"Process/Start", "Thread/Start", "Thread/End", "Process/End",
                                                     "Process/Start", "Thread/Start", "Image/Load", "Thread/Start",
                                                     "Thread/End", "Thread/End", "Process/End"}));
    for (const Seen &s : seen) {
        EXPECT_EQ(s.problem, "") << s.event_name;
        EXPECT_EQ(s.consumed, s.payload_size) << s.event_name;
    }
    // The fork: the child runs bash's image until it execs; logged by its parent.
    const std::uint64_t fork_key = (t0 + 100) / 10'000'000 << 32 | 200;
    char key_text[32];
    std::snprintf(key_text, sizeof key_text, "0x%llX", static_cast<unsigned long long>(fork_key));
    const kerneltest::Pairs fork_values = {{"UniqueProcessKey", key_text},
                                           {"ProcessId", "200"},
                                           {"ParentId", "100"},
                                           {"SessionId", "77"},
                                           {"ExitStatus", "259"},
                                           {"DirectoryTableBase", "0x0"},
                                           {"Flags", "0"},
                                           {"UserSID", "S-1-22-1-1000"},
                                           {"ImageFileName", "bash"},
                                           {"CommandLine", "bash -l"},
                                           {"PackageFullName", ""},
                                           {"ApplicationId", ""}};
    EXPECT_EQ(seen[0].values, fork_values);
    EXPECT_EQ(seen[0].hook_id, 0x0301);
    EXPECT_EQ(seen[0].process_id, 100u);
    EXPECT_EQ(seen[0].thread_id, 100u);
    EXPECT_EQ(seen[0].timestamp_raw, std::int64_t((t0 + 100) / 100));
    EXPECT_EQ(seen[1].value("ProcessId"), "0xC8");
    EXPECT_EQ(seen[1].value("TThreadId"), "0xC8");
    // The exec: bash's image ends (exit status unknown: 0), true's starts, same pid and key.
    EXPECT_EQ(seen[2].value("TThreadId"), "0xC8");
    EXPECT_EQ(seen[3].value("ImageFileName"), "bash");
    EXPECT_EQ(seen[3].value("ExitStatus"), "0");
    EXPECT_EQ(seen[3].value("UniqueProcessKey"), key_text);
    EXPECT_EQ(seen[3].process_id, 200u);
    EXPECT_EQ(seen[3].timestamp_raw, std::int64_t((t0 + 200) / 100));
    EXPECT_EQ(seen[4].value("ImageFileName"), "true");
    EXPECT_EQ(seen[4].value("CommandLine"), "/usr/bin/true --version");
    EXPECT_EQ(seen[4].value("ProcessId"), "200");
    EXPECT_EQ(seen[4].value("ParentId"), "100");
    EXPECT_EQ(seen[4].value("UserSID"), "S-1-22-1-1000");
    EXPECT_EQ(seen[4].value("ExitStatus"), "259");
    EXPECT_EQ(seen[4].value("UniqueProcessKey"), key_text);
    EXPECT_EQ(seen[5].value("TThreadId"), "0xC8");
    // The executable mapping: the file's base (offset 0) to the end of its code.
    EXPECT_EQ(seen[6].hook_id, 0x030A);
    EXPECT_EQ(seen[6].value("ImageBase"), "0x555500000000");
    EXPECT_EQ(seen[6].value("ImageSize"), "0x6000");
    EXPECT_EQ(seen[6].value("ProcessId"), "200");
    EXPECT_EQ(seen[6].value("FileName"), "/usr/bin/true");
    EXPECT_EQ(seen[6].timestamp_raw, std::int64_t((t0 + 300) / 100));
    // The thread, its end, then the process's last thread and the process.
    EXPECT_EQ(seen[7].value("TThreadId"), "0xC9");
    EXPECT_EQ(seen[7].value("ProcessId"), "0xC8");
    EXPECT_EQ(seen[8].hook_id, 0x0502);
    EXPECT_EQ(seen[8].value("TThreadId"), "0xC9");
    EXPECT_EQ(seen[8].thread_id, 201u);
    EXPECT_EQ(seen[9].value("TThreadId"), "0xC8");
    EXPECT_EQ(seen[10].hook_id, 0x0302);
    EXPECT_EQ(seen[10].value("ImageFileName"), "true");
    EXPECT_EQ(seen[10].value("ExitStatus"), "0");
    EXPECT_EQ(seen[10].timestamp_raw, std::int64_t((t0 + 600) / 100));

    const PerfSourceCounts &c = source.counts();
    EXPECT_EQ(c.lost, 0u) << "a LOST record's drops are the drain's count, not consume's";
    EXPECT_EQ(c.process_starts, 2u);
    EXPECT_EQ(c.process_ends, 2u);
    EXPECT_EQ(c.thread_starts, 3u);
    EXPECT_EQ(c.thread_ends, 3u);
    EXPECT_EQ(c.execs, 1u);
    EXPECT_EQ(c.images, 1u);
    EXPECT_EQ(c.ignored, 3u); // the data mapping, the JIT code, the rename
    EXPECT_EQ(c.malformed, 0u);
}

// An exec whose /proc has gone by the drain names the image by exec's comm;
// a 32-bit layout; the flags select the classes.
TEST(PerfSource, ExecOfAVanishedProcessTakesItsComm)
{
    FakeProc proc;
    PerfSourceOptions o;
    o.threads = false;
    o.images = false;
    o.pointer_size = 4;
    PerfProcessSource source(o, proc.lookup());
    ProcessFields known;
    known.process_id = 300;
    known.parent_id = 1;
    known.image_file_name = "python3";
    known.user_sid = unix_user_sid(0);
    source.remember(known);
    Collected run;
    source.consume(perftest::comm(300, 300, "short-lived", true, at(300, 300, 1000)), run.sink());
    source.consume(perftest::mmap2(300, 300, 0x1000, 0x1000, 0, 5, "/bin/x", at(300, 300, 1100)), run.sink());
    source.consume(perftest::fork(300, 300, 301, 300, at(300, 300, 1200)), run.sink());
    const std::vector<Seen> seen = kerneltest::round_trip(run.records, 4);
    ASSERT_EQ(names(seen), (std::vector<std::string>{"Process/End", "Process/Start"}));
    EXPECT_EQ(seen[0].pointer_size, 4u);
    EXPECT_EQ(seen[0].value("ImageFileName"), "python3");
    EXPECT_EQ(seen[1].value("ImageFileName"), "short-lived");
    EXPECT_EQ(seen[1].value("CommandLine"), "short-lived");
    EXPECT_EQ(seen[1].value("ParentId"), "1");
    EXPECT_EQ(seen[1].value("UserSID"), "S-1-22-1-0");
    EXPECT_EQ(source.counts().ignored, 2u); // the mapping and the thread: not asked for
}

// Records too short for their type are counted, never read past.
TEST(PerfSource, ShortRecordsAreMalformed)
{
    FakeProc proc;
    PerfProcessSource source(PerfSourceOptions{}, proc.lookup());
    Collected run;
    Bytes fork = perftest::fork(1, 1, 1, 1, at(1, 1, 1));
    Bytes cut(fork.begin(), fork.begin() + 8 + 16 + 24); // the body lost its ptid and time
    cut[6] = std::uint8_t(cut.size());
    source.consume(cut, run.sink());
    source.consume(Bytes{1, 0, 0, 0}, run.sink());
    EXPECT_TRUE(run.records.empty());
    EXPECT_EQ(source.counts().malformed, 2u);
}

// CLOCK_MONOTONIC ns onto each session clock.
TEST(PerfClock, MapsPerfTimeOntoEachSessionClock)
{
    PerfClock mono;
    EXPECT_EQ(mono.to_session(1'234'567'890'199), 12'345'678'901);

    PerfClock ft;
    ft.base = PerfClock::Base::Filetime;
    ft.filetime_offset = 133'000'000'000'000'000;
    EXPECT_EQ(ft.to_session(1'000), 133'000'000'000'000'010);

    PerfClock cyc;
    cyc.base = PerfClock::Base::Cycles;
    cyc.anchor_ns = 10'000'000'000;
    cyc.anchor_cycles = 50'000'000'000;
    cyc.cycles_hz = 3'000'000'000;
    EXPECT_EQ(cyc.to_session(11'500'000'000), 54'500'000'000);
    EXPECT_EQ(cyc.to_session(9'000'000'000), 47'000'000'000);
    EXPECT_EQ(cyc.to_session(10'000'000'001), 50'000'000'003);

    // Captured maps agree with the clocks now.
    const std::uint64_t now_ns = std::uint64_t(platform::qpc_now()) * 100;
    EXPECT_EQ(PerfClock::capture(ETW_CLOCK_QPC, 0).base, PerfClock::Base::Monotonic);
    const std::int64_t wall = PerfClock::capture(ETW_CLOCK_SYSTEM_TIME, 0).to_session(now_ns);
    EXPECT_LT(std::llabs(wall - platform::filetime_now()), 10'000'000) << "within a second";
    if (platform::has_cycle_counter()) {
        const std::uint64_t hz = platform::cycle_counter_hz();
        const PerfClock c = PerfClock::capture(ETW_CLOCK_CPU_CYCLE, hz);
        const std::int64_t cycles = c.to_session(std::uint64_t(platform::qpc_now()) * 100);
        EXPECT_LT(std::llabs(cycles - std::int64_t(platform::cycle_counter())), std::int64_t(hz / 10));
    }
}
