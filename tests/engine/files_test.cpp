// Log file modes, sizes, write errors, clocks and private sessions; every
// file is decoded with the test decoder.
#include "engine_test_util.hpp"

#include "platform/clock.hpp"
#include "platform/process.hpp"

#include <csignal>
#ifndef _WIN32
#include <sys/resource.h>
#include <sys/wait.h>
#endif
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <thread>

using namespace enginetest;

namespace {

std::uint64_t file_size(const std::string &path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 ? std::uint64_t(st.st_size) : 0;
}

// Starts a 4 KB, single-stream session on file, writes n events of payload
// bytes (flushing every flush_every), stops, and returns the final record.
struct RunResult {
    etw_event_trace_properties rec{};
    std::uint32_t ok = 0, dropped = 0;
    etw_status start_status = ETW_OK;
};

RunResult run(const std::string &file, std::uint32_t mode, std::uint32_t max_size, int n, std::size_t payload,
              std::uint32_t clock = 0, std::uint32_t buffer_kb = 4, const etw_guid *private_guid = nullptr)
{
    RunResult out;
    const etw_guid pg = private_guid ? *private_guid : make_guid(0x6000);
    Props props(unique_name("file"), file);
    etw_properties_set_buffer_size(props, buffer_kb);
    etw_properties_set_log_file_mode(props, mode | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_maximum_file_size(props, max_size);
    etw_properties_set_maximum_buffers(props, 64);
    etw_properties_set_clock_type(props, clock);
    if (private_guid)
        etw_properties_set_guid(props, private_guid);
    SessionHandle s;
    out.start_status = etw_session_start(&s.s, props);
    if (out.start_status != ETW_OK)
        return out;
    Provider prov(pg);
    if (!private_guid)
        etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    for (int i = 0; i < n; ++i) {
        Event e(pg, payload);
        std::memcpy(e.bytes + 0x30, &i, sizeof i);
        etw_status st = etw_provider_trace_event(prov, e.h());
        if (st == ETW_OK)
            ++out.ok;
        else
            ++out.dropped;
        if (i % 16 == 15)
            etw_session_flush(s, nullptr);
    }
    EXPECT_EQ(etw_session_stop(s, props), ETW_OK) << etw_last_error_message();
    out.rec = props.rec();
    return out;
}

} // namespace

TEST(Files, SequentialHeaderAndCounts)
{
    const std::string file = temp_file("seq");
    const auto before = openetw::platform::filetime_now();
    RunResult r = run(file, ETW_FILE_MODE_SEQUENTIAL, 0, 200, 100);
    const auto after = openetw::platform::filetime_now();
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.events.size(), 200u);
    EXPECT_EQ(f.buffers_written, r.rec.BuffersWritten + 1);
    EXPECT_EQ(file_size(file), std::uint64_t(f.buffers_written) * 4096);
    EXPECT_EQ(f.cpus, openetw::platform::processor_count());
    // Clock 1: 100 ns units, or the cycle counter where it is the system clock (clocks_test.cpp).
    EXPECT_EQ(f.perf_freq, openetw::platform::cycle_counter_is_system_clock()
                               ? std::int64_t(openetw::platform::cycle_counter_hz())
                               : std::int64_t(10'000'000));
    EXPECT_EQ(f.clock_type, 1u);
    EXPECT_EQ(f.buffer_size, 4096u);
    EXPECT_EQ(f.pointer_size, sizeof(void *));
    EXPECT_EQ(f.mode, ETW_FILE_MODE_SEQUENTIAL | ETW_NO_PER_PROCESSOR_BUFFERING);
    EXPECT_GE(f.start_time, before);
    EXPECT_LE(f.end_time, after);
    EXPECT_GE(f.end_time, f.start_time);
    EXPECT_GT(f.boot_time, 0);
    EXPECT_LT(f.boot_time, f.start_time);
    EXPECT_EQ(f.hdr_pid, std::uint32_t(getpid()));
    EXPECT_EQ(f.log_file_name, native_u16(file));
    EXPECT_EQ(f.events_lost, 0u);
    // Events in write order within the single stream.
    for (std::size_t i = 0; i < f.events.size(); ++i) {
        int v;
        std::memcpy(&v, f.events[i].payload.data(), sizeof v);
        EXPECT_EQ(v, int(i));
        EXPECT_EQ(f.events[i].processor, 0u);
    }
}

TEST(Files, SequentialStopsAtMaximumFileSizeAndCountsLostEvents)
{
    const std::string file = temp_file("seqmax");
    RunResult r = run(file, ETW_FILE_MODE_SEQUENTIAL | ETW_USE_KBYTES_FOR_SIZE, 40, 2000, 200);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_LE(file_size(file), 40u * 1024);
    EXPECT_EQ(f.buffers_written, 10u);
    EXPECT_GT(r.rec.EventsLost, 0u);
    EXPECT_EQ(f.events.size() + r.rec.EventsLost, 2000u);
    EXPECT_EQ(f.events_lost, r.rec.EventsLost);
    EXPECT_EQ(f.max_file_size, 40u);
}

TEST(Files, MaximumFileSizeInMegabytes)
{
    const std::string file = temp_file("seqmb");
    RunResult r = run(file, ETW_FILE_MODE_SEQUENTIAL, 1, 20000, 200);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(file_size(file), 1024u * 1024);
    EXPECT_EQ(f.events.size() + r.rec.EventsLost, 20000u);
}

TEST(Files, CircularWrapsKeepsHeaderAndRenumbers)
{
    const std::string file = temp_file("circ");
    RunResult r = run(file, ETW_FILE_MODE_CIRCULAR | ETW_USE_KBYTES_FOR_SIZE, 32, 3000, 200);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(file_size(file), 32u * 1024);
    EXPECT_EQ(f.buffers_written, 8u);
    EXPECT_EQ(r.rec.EventsLost, 0u);
    EXPECT_GT(r.rec.BuffersWritten, 7u); // wrapped
    // Ordered by SequenceNumber, the surviving events are the newest, contiguous.
    std::vector<etltest::Event> ev = f.events;
    std::stable_sort(ev.begin(), ev.end(), [](auto &a, auto &b) { return a.buffer_seq < b.buffer_seq; });
    int prev = -1;
    for (auto &e : ev) {
        int v;
        std::memcpy(&v, e.payload.data(), sizeof v);
        if (prev >= 0) {
            EXPECT_EQ(v, prev + 1);
        }
        prev = v;
    }
    EXPECT_EQ(prev, 2999);
}

TEST(Files, CircularNeedsRoomForTwoBuffers)
{
    RunResult r = run(temp_file("circsmall"), ETW_FILE_MODE_CIRCULAR | ETW_USE_KBYTES_FOR_SIZE, 4, 1, 10);
    EXPECT_EQ(r.start_status, ETW_ERROR_INVALID_PARAMETER);
}

TEST(Files, NewFileEveryFileIsComplete)
{
    const std::string pattern = temp_dir() + "/" + unique_name("newfile") + "-%d.etl";
    RunResult r = run(pattern, ETW_FILE_MODE_NEWFILE | ETW_USE_KBYTES_FOR_SIZE, 16, 500, 200);
    std::size_t total = 0;
    int files = 0;
    for (int n = 1;; ++n) {
        std::string name = pattern;
        name.replace(name.find("%d"), 2, std::to_string(n));
        if (file_size(name) == 0)
            break;
        auto f = etltest::decode(name);
        ASSERT_TRUE(f.ok()) << name << ": " << f.problem_text();
        EXPECT_EQ(f.log_file_name, native_u16(name));
        EXPECT_LE(file_size(name), 16u * 1024);
        total += f.events.size();
        ++files;
    }
    EXPECT_GT(files, 2);
    EXPECT_EQ(total + r.rec.EventsLost, 500u);
}

TEST(Files, NewFileNeedsPercentD)
{
    RunResult r = run(temp_file("nopct"), ETW_FILE_MODE_NEWFILE, 1, 1, 10);
    EXPECT_NE(r.start_status, ETW_OK);
}

TEST(Files, AppendContinuesAnExistingFile)
{
    const std::string file = temp_file("append");
    run(file, ETW_FILE_MODE_SEQUENTIAL, 0, 100, 100, ETW_CLOCK_SYSTEM_TIME);
    auto first = etltest::decode(file);
    ASSERT_TRUE(first.ok()) << first.problem_text();
    RunResult r = run(file, ETW_FILE_MODE_APPEND, 0, 50, 100, ETW_CLOCK_SYSTEM_TIME);
    ASSERT_EQ(r.start_status, ETW_OK);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.events.size(), 150u);
    EXPECT_EQ(f.buffers_written, first.buffers_written + r.rec.BuffersWritten);
    // Mismatches are refused with a clear message.
    RunResult bad_clock = run(file, ETW_FILE_MODE_APPEND, 0, 1, 10, ETW_CLOCK_QPC);
    EXPECT_EQ(bad_clock.start_status, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("clock"), std::string::npos);
    RunResult bad_size = run(file, ETW_FILE_MODE_APPEND, 0, 1, 10, ETW_CLOCK_SYSTEM_TIME, 8);
    EXPECT_EQ(bad_size.start_status, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("BufferSize"), std::string::npos);
    // The file is untouched by the refused sessions.
    EXPECT_EQ(etltest::decode(file).events.size(), 150u);
}

TEST(Files, AppendToAMissingFileCreatesIt)
{
    const std::string file = temp_file("append-new");
    RunResult r = run(file, ETW_FILE_MODE_APPEND, 0, 10, 10, ETW_CLOCK_SYSTEM_TIME);
    ASSERT_EQ(r.start_status, ETW_OK);
    EXPECT_EQ(etltest::decode(file).events.size(), 10u);
}

// A file that is not an .etl file is refused, and left as it was.
TEST(Files, AppendToAFileThatIsNotAnEtlFileIsRefusedAndLeftAlone)
{
    const std::string file = temp_file("append-foreign");
    const struct {
        std::size_t size;
        const char *said;
    } cases[] = {{10, "too short"}, {8192, "does not start with an .etl header buffer"}};
    for (const auto &c : cases) {
        SCOPED_TRACE(c.said);
        {
            FILE *f = std::fopen(file.c_str(), "wb");
            ASSERT_NE(f, nullptr);
            const std::string bytes(c.size, 'x');
            ASSERT_EQ(std::fwrite(bytes.data(), 1, bytes.size(), f), bytes.size());
            std::fclose(f);
        }
        for (std::uint32_t clock : {ETW_CLOCK_QPC, ETW_CLOCK_SYSTEM_TIME}) {
            RunResult r = run(file, ETW_FILE_MODE_APPEND, 0, 1, 10, clock);
            EXPECT_EQ(r.start_status, ETW_ERROR_INVALID_DATA);
            EXPECT_NE(std::string(etw_last_error_message()).find(c.said), std::string::npos)
                << etw_last_error_message();
            EXPECT_EQ(file_size(file), c.size);
        }
    }
}

TEST(Files, PreallocateReservesThenTrims)
{
    const std::string file = temp_file("prealloc");
    const etw_guid pg = make_guid(0x6100);
    Props props(unique_name("prealloc"), file);
    etw_properties_set_buffer_size(props, 4);
    etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL | ETW_FILE_MODE_PREALLOCATE);
    etw_properties_set_maximum_file_size(props, 1);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    struct stat st;
    ASSERT_EQ(stat(file.c_str(), &st), 0);
#ifndef _WIN32
    EXPECT_GE(std::uint64_t(st.st_blocks) * 512, 1024u * 1024 - 4096);
#endif
    Provider prov(pg);
    etw_session_enable_provider(s, &pg, 1, 0, 0, 0);
    Event e(pg, 10);
    etw_provider_trace_event(prov, e.h());
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(file_size(file), 2u * 4096);
    EXPECT_EQ(f.events.size(), 1u);
}

TEST(Files, DiskFullCountsLogBuffersLostAndKeepsFileReadable)
{
#ifdef _WIN32
    GTEST_SKIP() << "needs fork and RLIMIT_FSIZE";
#else
    const std::string file = temp_file("diskfull");
    const std::string result = file + ".result";
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit rl {
            10 * 4096 + 100, 10 * 4096 + 100
        };
        setrlimit(RLIMIT_FSIZE, &rl);
        RunResult r = run(file, ETW_FILE_MODE_SEQUENTIAL, 0, 1000, 200);
        rl.rlim_cur = rl.rlim_max = RLIM_INFINITY;
        FILE *out = fopen(result.c_str(), "w");
        if (!out)
            _exit(3);
        fprintf(out, "%u %u %u %u %u\n", r.start_status, r.rec.LogBuffersLost, r.rec.BuffersWritten, r.rec.EventsLost,
                r.ok);
        fclose(out);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_EQ(WEXITSTATUS(status), 0);
    unsigned start_st, lost, written, events_lost, ok;
    FILE *in = fopen(result.c_str(), "r");
    ASSERT_NE(in, nullptr);
    ASSERT_EQ(fscanf(in, "%u %u %u %u %u", &start_st, &lost, &written, &events_lost, &ok), 5);
    fclose(in);
    EXPECT_EQ(start_st, ETW_OK);
    EXPECT_GT(lost, 0u);
    EXPECT_EQ(written, 9u);
    EXPECT_EQ(ok, 1000u); // the session kept running
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    EXPECT_EQ(f.buffers_written, 10u);
    EXPECT_EQ(f.buffers_lost, lost);
#endif
}

namespace {
void check_clock(std::uint32_t clock)
{
    const std::string file = temp_file("clock");
    const auto before = openetw::platform::filetime_now();
    RunResult r = run(file, ETW_FILE_MODE_SEQUENTIAL, 0, 5, 10, clock);
    const auto after = openetw::platform::filetime_now();
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    const std::uint32_t expect = clock == 3 && !openetw::platform::has_cycle_counter() ? 2 : clock;
    EXPECT_EQ(f.clock_type, expect);
    EXPECT_EQ(r.rec.Wnode.ClientContext, expect);
    if (expect == 3) {
        EXPECT_GT(f.cpu_mhz, 0u);
    }
    ASSERT_EQ(f.events.size(), 5u);
    for (auto &e : f.events) {
        const auto ft = etltest::event_filetime(f, e.timestamp);
        EXPECT_GE(ft, before - 20'000) << "clock " << clock; // 2 ms slack for rounding
        EXPECT_LE(ft, after + 20'000) << "clock " << clock;
    }
}
} // namespace

TEST(Clocks, Qpc) { check_clock(ETW_CLOCK_QPC); }
TEST(Clocks, SystemTime) { check_clock(ETW_CLOCK_SYSTEM_TIME); }
TEST(Clocks, CpuCycle) { check_clock(ETW_CLOCK_CPU_CYCLE); }

TEST(Private, FileNameGuidAndProcessorTime)
{
    const std::string file = temp_file("private");
    const etw_guid pg = make_guid(0x6200);
    Props props(unique_name("private"), file);
    etw_properties_set_log_file_mode(props, ETW_PRIVATE_LOGGER_MODE | ETW_PRIVATE_IN_PROC);
    SessionHandle bad;
    EXPECT_EQ(etw_session_start(&bad.s, props), ETW_ERROR_INVALID_PARAMETER); // needs the provider GUID
    etw_properties_set_guid(props, &pg);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    const std::string actual = file + "_" + std::to_string(getpid());
    EXPECT_EQ(std::string(etw_properties_log_file_name(props)), actual);
    etw_guid g;
    etw_properties_get_guid(&g, props);
    EXPECT_EQ(std::memcmp(&g, &pg, sizeof g), 0);
    Provider prov(pg);
    EXPECT_TRUE(etw_provider_is_enabled(prov, ETW_LEVEL_VERBOSE, 0)); // enabled by the private session
    // Burn some CPU so ProcessorTime is not zero.
    volatile std::uint64_t x = 0;
    const auto t0 = openetw::platform::qpc_now();
    while (openetw::platform::qpc_now() - t0 < 400'000)
        x = x + 1;
    Event e(pg, 10);
    ASSERT_EQ(etw_provider_trace_event(prov, e.h()), ETW_OK);
    const etw_guid other = make_guid(0x6201);
    EXPECT_EQ(etw_session_enable_provider(s, &other, 1, 0, 0, 0), ETW_ERROR_INVALID_PARAMETER);
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK);
    auto f = etltest::decode(actual);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    ASSERT_EQ(f.events.size(), 1u);
    std::uint64_t kernel, user;
    openetw::platform::thread_cpu_times(&kernel, &user);
    EXPECT_GT(f.events[0].times, 0u);
    EXPECT_LE(f.events[0].times, kernel + user); // ProcessorTime, 100 ns units
    // Reusing the properties does not append the suffix twice.
    SessionHandle again;
    ASSERT_EQ(etw_session_start(&again.s, props), ETW_OK);
    EXPECT_EQ(std::string(etw_properties_log_file_name(props)), actual);
}

TEST(Files, KernelAndUserTimeInTicks)
{
    const std::string file = temp_file("ticks");
    run(file, ETW_FILE_MODE_SEQUENTIAL, 0, 3, 10);
    auto f = etltest::decode(file);
    ASSERT_TRUE(f.ok()) << f.problem_text();
    std::uint64_t kernel, user;
    openetw::platform::thread_cpu_times(&kernel, &user);
    for (auto &e : f.events) {
        EXPECT_LE(e.times & 0xFFFFFFFF, kernel / 156250 + 1);
        EXPECT_LE(e.times >> 32, user / 156250 + 1);
    }
}
