// The session host (openetw-hostd) with real, separate processes only: the
// logman workflow, a killed host, a start that fails, and a second user who
// attacks the namespace (docs/SYSTEM_SESSIONS.md, "The session host").
// Every process is a new one: etwctl for control, host_helper for providers.
#include "host_test_util.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ; // posix_spawn

namespace {

using namespace hosttest;

Namespace g_ns;

// ---- The logman workflow ----

TEST(Host, ASessionOutlivesItsStarterAndEveryStepIsAnotherProcess)
{
    const std::string file = g_ns.path("logman.etl");
    // Buffers for the whole burst (100000 records of 56 bytes: 5.6 MB): its
    // two writer threads take both cores of a 2-core machine for the few
    // milliseconds it lasts, and with fewer buffers no loss would depend on
    // the host's logger being scheduled meanwhile (it was not in 2 of 8 runs).
    Proc r = etwctl({"start", "HostLogman", "--file", file, "--buffer-size", "64", "--max-buffers", "128"});
    ASSERT_EQ(r.status, 0) << r.out;
    ASSERT_TRUE(listed("HostLogman")) << "the session ended with the etwctl that started it";
    const pid_t host = host_of("HostLogman");
    ASSERT_NE(host, 0);
    EXPECT_NE(host, getpid());
    r = etwctl({"enable", "HostLogman", kGuid});
    ASSERT_EQ(r.status, 0) << r.out;
    r = provider(100000, 2);
    ASSERT_EQ(r.status, 0) << r.out;
    r = etwctl({"query", "HostLogman"});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("host_pid:                " + std::to_string(host)), std::string::npos) << r.out;
    r = etwctl({"stop", "HostLogman"});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("events_lost:             0"), std::string::npos) << r.out;
    EXPECT_FALSE(listed("HostLogman"));
    const FileCount fc = count_file(file);
    ASSERT_EQ(fc.open, ETW_OK);
    EXPECT_EQ(fc.process, ETW_OK);
    EXPECT_EQ(fc.events, 100000u);
    EXPECT_EQ(fc.numbers.size(), 100000u) << "an event is missing or appears twice";
}

// Capture state through openetw-hostd (issue #31): a provider process that
// `etwctl providers` lists, with the session enabling it, gets the
// capture-state request another etwctl makes, and the event it writes in
// answer is in the session's file.
TEST(Host, CaptureStateReachesAProviderProcessThatEtwctlProvidersLists)
{
    const std::string file = g_ns.path("capture.etl");
    Proc r = etwctl({"start", "HostCapture", "--file", file});
    ASSERT_EQ(r.status, 0) << r.out;
    r = etwctl({"enable", "HostCapture", kGuid, "--level", "4", "--flags", "0x30"});
    ASSERT_EQ(r.status, 0) << r.out;
    Proc helper;
    std::thread t([&] { helper = run({env("HOST_HELPER"), "rundown", kGuid}, nullptr, 30s); });
    bool listed_there = false;
    for (int i = 0; i < 1000 && !listed_there; ++i) {
        r = etwctl({"providers", kGuid});
        listed_there = r.status == 0 && r.out.find("(host_helper): 1 registration") != std::string::npos;
        if (!listed_there)
            std::this_thread::sleep_for(10ms);
    }
    EXPECT_TRUE(listed_there) << r.out;
    EXPECT_NE(r.out.find("enabled by HostCapture: level 4, keywords any 0x30 all 0x0"), std::string::npos) << r.out;
    r = etwctl({"capture-state", "HostCapture", kGuid, "--level", "2"});
    EXPECT_EQ(r.status, 0) << r.out;
    t.join();
    EXPECT_EQ(helper.status, 0) << helper.out;
    r = etwctl({"stop", "HostCapture"});
    ASSERT_EQ(r.status, 0) << r.out;
    const FileCount fc = count_file(file);
    ASSERT_EQ(fc.open, ETW_OK);
    EXPECT_EQ(fc.events, 1u);
    EXPECT_EQ(fc.numbers.count(900000002u), 1u) << "the answer to the capture request (level 2) is not in the file";
    r = etwctl({"providers", kGuid});
    EXPECT_EQ(r.status, 1) << "the exited provider or the stopped session is still listed: " << r.out;
}

TEST(Host, OneHostServesEveryStarterOfTheNamespace)
{
    ASSERT_EQ(etwctl({"start", "HostOneA", "--file", g_ns.path("a.etl")}).status, 0);
    ASSERT_EQ(etwctl({"start", "HostOneB", "--file", g_ns.path("b.etl")}).status, 0);
    const pid_t a = host_of("HostOneA"), b = host_of("HostOneB");
    EXPECT_NE(a, 0);
    EXPECT_EQ(a, b) << "a second host was started although one was running";
    // A name in use stays in use across processes.
    const Proc dup = etwctl({"start", "hostonea", "--file", g_ns.path("c.etl")});
    EXPECT_NE(dup.status, 0);
    EXPECT_NE(dup.out.find("ETW_ERROR_ALREADY_EXISTS"), std::string::npos) << dup.out;
    EXPECT_EQ(etwctl({"stop", "HostOneA"}).status, 0);
    EXPECT_EQ(etwctl({"stop", "HostOneB"}).status, 0);
}

// The SampledProfile records of a system logger's file, and the StackWalk
// records among them.
struct SampleCounts {
    unsigned samples = 0, stacks = 0;
};
SampleCounts count_samples(const std::string &file)
{
    SampleCounts counts;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.user_data = &counts;
    o.record = [](void *user, const etw_record *rec) -> int32_t {
        auto *c = static_cast<SampleCounts *>(user);
        if (rec->kind == ETW_RECORD_KIND_PERFINFO && rec->hook_id == 0x0F2E)
            ++c->samples;
        if (rec->kind == ETW_RECORD_KIND_PERFINFO && rec->hook_id == 0x1820)
            ++c->stacks;
        return 0;
    };
    etw_consumer *consumer = nullptr;
    const char *paths[] = {file.c_str()};
    EXPECT_EQ(etw_consumer_open(&consumer, paths, 1, &o), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_consumer_process(consumer), ETW_OK) << etw_last_error_message();
    etw_consumer_close(consumer);
    return counts;
}

void spin_for(std::chrono::milliseconds ms)
{
    const auto until = std::chrono::steady_clock::now() + ms;
    volatile unsigned long spin = 0;
    while (std::chrono::steady_clock::now() < until)
        spin = spin + 1;
}

// Stack tracing asked of a system logger that runs in the host (the
// StackTracing request): its samples carry stacks; what it cannot serve is
// refused through the host with the reason.
TEST(Host, StackTracingReachesASystemLoggerThroughItsHost)
{
    const std::string file = g_ns.path("stacks.etl");
    Proc r = etwctl({"start", "HostStacks", "--file", file, "--mode", "sequential,system-logger", "--enable-flags",
                     "profile,thread"});
    ASSERT_EQ(r.status, 0) << r.out;
    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "HostStacks"), ETW_OK) << etw_last_error_message();
    const etw_classic_event_id profile = {
        {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}},
        46,
        {}};
    // Thread/Start (type 1): from perf's side-band records, with no stack.
    const etw_classic_event_id thread_start = {
        {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}},
        1,
        {}};
    EXPECT_EQ(etw_session_set_stack_tracing(s, &thread_start, 1), ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(etw_last_error_message()).find("type 1 "), std::string::npos) << etw_last_error_message();
    ASSERT_EQ(etw_session_set_stack_tracing(s, &profile, 1), ETW_OK) << etw_last_error_message();
    spin_for(std::chrono::milliseconds(250)); // something to sample
    etw_session_close(s);
    ASSERT_EQ(etwctl({"stop", "HostStacks"}).status, 0);

    const SampleCounts counts = count_samples(file);
    EXPECT_GT(counts.samples, 100u);
    EXPECT_GT(counts.stacks, 100u) << "the samples carry no stacks: the request did not reach the host's logger";
}

TEST(Host, TheProfileIntervalOfASystemLoggerChangesThroughItsHost)
{
    Proc r = etwctl({"start", "HostInterval", "--file", g_ns.path("interval.etl"), "--mode", "sequential,system-logger",
                     "--enable-flags", "profile"});
    ASSERT_EQ(r.status, 0) << r.out;
    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "HostInterval"), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_set_profile_interval(s, 50000), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    // Another opening asks the host afresh: the host's session holds the new interval.
    ASSERT_EQ(etw_session_open(&s, "HostInterval"), ETW_OK) << etw_last_error_message();
    etw_session_options o{};
    o.struct_size = sizeof o;
    ASSERT_EQ(etw_session_get_options(&o, s), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(o.profile_interval, 50000u);
    etw_session_close(s);

    // Without the control right the host refuses; with it, it takes the change.
    std::string why;
    if (const passwd *pw = second_user(&why)) {
        auto attempt = [&] {
            etw_session *other = nullptr;
            etw_status st = etw_session_open(&other, "HostInterval");
            if (st == ETW_OK) {
                st = etw_session_set_profile_interval(other, 20000);
                etw_session_close(other);
            }
            return st == ETW_ERROR_ACCESS_DENIED ? 5 : st == ETW_OK ? 0 : 1;
        };
        EXPECT_EQ(as_user(pw, attempt), 5) << "a user without the control right changed the interval";
        ASSERT_EQ(etw_session_open(&s, "HostInterval"), ETW_OK);
        ASSERT_EQ(etw_session_grant(s, pw->pw_uid, ETW_SESSION_RIGHT_CONTROL), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(as_user(pw, attempt), 0) << "the control right does not allow the change";
        ASSERT_EQ(etw_session_get_options(&o, s), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(o.profile_interval, 20000u);
        etw_session_close(s);
    }
    ASSERT_EQ(etwctl({"stop", "HostInterval"}).status, 0);

    // A hosted session that is no system logger: the host says why.
    ASSERT_EQ(etwctl({"start", "HostNoProfile", "--file", g_ns.path("noprofile.etl")}).status, 0);
    ASSERT_EQ(etw_session_open(&s, "HostNoProfile"), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_set_profile_interval(s, 10000), ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(etw_last_error_message()).find("system logger"), std::string::npos)
        << etw_last_error_message();
    etw_session_close(s);
    ASSERT_EQ(etwctl({"stop", "HostNoProfile"}).status, 0);
    if (why.size())
        GTEST_SKIP() << "the control right was not checked: " << why;
}

// etwctl's --stackwalk and --profile-interval (xperf's -stackwalk and
// -setprofint): at start and on a running session, through the host.
TEST(Host, EtwctlChoosesStacksAndTheProfileInterval)
{
    const std::string file = g_ns.path("etwctl-stacks.etl");
    Proc r = etwctl({"start", "HostCtlStacks", "--file", file, "--mode", "sequential,system-logger", "--enable-flags",
                     "profile", "--stackwalk", "Profile", "--profile-interval", "20000"});
    ASSERT_EQ(r.status, 0) << r.out;
    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "HostCtlStacks"), ETW_OK) << etw_last_error_message();
    etw_session_options o{};
    o.struct_size = sizeof o;
    ASSERT_EQ(etw_session_get_options(&o, s), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(o.profile_interval, 20000u);
    spin_for(std::chrono::milliseconds(250));
    // An event this system cannot take stacks of: refused by name, nothing changes.
    r = etwctl({"update", "HostCtlStacks", "--stackwalk", "ThreadCreate"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("ETW_ERROR_NOT_SUPPORTED"), std::string::npos) << r.out;
    r = etwctl({"update", "HostCtlStacks", "--profile-interval", "30000"});
    ASSERT_EQ(r.status, 0) << r.out;
    ASSERT_EQ(etw_session_get_options(&o, s), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(o.profile_interval, 30000u);
    etw_session_close(s);
    EXPECT_EQ(etwctl({"update", "HostCtlStacks", "--profile-interval", "1000"}).status, 1) << "below the range";
    EXPECT_EQ(etwctl({"update", "HostCtlStacks", "--stackwalk", "NoSuchEvent"}).status, 2);
    ASSERT_EQ(etwctl({"stop", "HostCtlStacks"}).status, 0);
    const SampleCounts counts = count_samples(file);
    EXPECT_GT(counts.samples, 20u);
    EXPECT_GT(counts.stacks, 20u) << "--stackwalk Profile did not reach the host's logger";

    // A start whose stacks are refused does not leave its session running.
    r = etwctl({"start", "HostCtlNoStacks", "--file", g_ns.path("no-stacks.etl"), "--mode", "sequential,system-logger",
                "--enable-flags", "thread", "--stackwalk", "ThreadCreate"});
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find("the session was stopped"), std::string::npos) << r.out;
    EXPECT_FALSE(listed("HostCtlNoStacks"));
}

// ---- Faults ----

TEST(Host, AStartWhoseLogFileCannotBeCreatedLeavesNothingBehind)
{
    const std::vector<std::string> before = g_ns.region_files();
    // A folder that does not exist, and a log file name that is a folder.
    Proc r = etwctl({"start", "HostBadFile", "--file", g_ns.path("missing/x.etl")});
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("ETW_ERROR_PATH_NOT_FOUND"), std::string::npos) << r.out;
    r = etwctl({"start", "HostBadFile", "--file", g_ns.dir});
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_FALSE(listed("HostBadFile"));
    EXPECT_EQ(g_ns.region_files(), before) << "a failed start left its region file";
    // The name is free: the same start with a good file works.
    r = etwctl({"start", "HostBadFile", "--file", g_ns.path("good.etl")});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(etwctl({"stop", "HostBadFile"}).status, 0);
}

TEST(Host, AKilledHostLeavesAReadableFileAndTheNextHostFinishesIt)
{
    const std::string file = g_ns.path("killed.etl");
    ASSERT_EQ(etwctl({"start", "HostKilled", "--file", file, "--max-buffers", "64", "--flush-timer", "1"}).status, 0);
    ASSERT_EQ(etwctl({"enable", "HostKilled", kGuid}).status, 0);
    Proc r = provider(20000, 2);
    ASSERT_EQ(r.status, 0) << r.out;
    std::this_thread::sleep_for(1500ms); // a flush timer tick: some buffers reach the file
    bool orphaned = true;
    const pid_t host = host_of("HostKilled", &orphaned);
    ASSERT_GT(host, 0);
    EXPECT_FALSE(orphaned);
    ASSERT_EQ(kill(host, SIGKILL), 0);
    for (int i = 0; i < 200 && kill(host, 0) == 0; ++i)
        std::this_thread::sleep_for(10ms);
    // Before anyone finishes it: the buffers written so far read whole.
    FileCount early = count_file(file);
    EXPECT_EQ(early.open, ETW_OK);
    EXPECT_GT(early.events, 0u) << "no buffer reached the file before the kill";
    EXPECT_LE(early.events, 20000u);
    ASSERT_TRUE(host_of("HostKilled", &orphaned) != 0);
    EXPECT_TRUE(orphaned);
    // Stopping it (a new host comes up and finishes it): every event is there.
    r = etwctl({"stop", "HostKilled"});
    EXPECT_EQ(r.status, 0) << r.out;
    const FileCount fc = count_file(file);
    EXPECT_EQ(fc.open, ETW_OK);
    EXPECT_EQ(fc.events, 20000u);
    EXPECT_EQ(fc.numbers.size(), 20000u);
    EXPECT_FALSE(listed("HostKilled"));
    // The name is free again.
    ASSERT_EQ(etwctl({"start", "HostKilled", "--file", g_ns.path("again.etl")}).status, 0);
    EXPECT_NE(host_of("HostKilled"), host);
    EXPECT_EQ(etwctl({"stop", "HostKilled"}).status, 0);
}

TEST(Host, TheNextHostFinishesOrphansWhenItStarts)
{
    const std::string file = g_ns.path("sweep.etl");
    ASSERT_EQ(etwctl({"start", "HostSweep", "--file", file}).status, 0);
    ASSERT_EQ(etwctl({"enable", "HostSweep", kGuid}).status, 0);
    ASSERT_EQ(provider(5000, 1).status, 0);
    const pid_t host = host_of("HostSweep");
    ASSERT_GT(host, 0);
    ASSERT_EQ(kill(host, SIGKILL), 0);
    for (int i = 0; i < 200 && kill(host, 0) == 0; ++i)
        std::this_thread::sleep_for(10ms);
    // Any start brings up a host, which finishes the orphan first.
    ASSERT_EQ(etwctl({"start", "HostSweepNext", "--file", g_ns.path("next.etl")}).status, 0);
    EXPECT_FALSE(listed("HostSweep ")) << "the new host left the orphan";
    EXPECT_EQ(count_file(file).events, 5000u);
    EXPECT_EQ(etwctl({"stop", "HostSweepNext"}).status, 0);
}

TEST(Host, ASecondUserHarmsNoSessionOfAnother)
{
    std::string why;
    const passwd *pw = second_user(&why);
    if (!pw)
        GTEST_SKIP() << why;
    const std::string file = g_ns.path("victim.etl");
    ASSERT_EQ(etwctl({"start", "HostVictim", "--file", file, "--max-buffers", "64"}).status, 0);
    ASSERT_EQ(etwctl({"enable", "HostVictim", kGuid}).status, 0);
    ASSERT_GT(host_of("HostVictim"), 0);

    // Truncating, scribbling or locking the registry; opening a session region.
    const std::string reg = g_ns.registry;
    std::vector<std::string> regions;
    for (const std::string &f : g_ns.region_files())
        regions.push_back(std::filesystem::path(reg).parent_path().string() + "/" + f);
    ASSERT_FALSE(regions.empty());
    EXPECT_EQ(as_user(pw, [&] { return truncate(reg.c_str(), 0) == 0 ? 1 : 0; }), 0) << "the registry was truncated";
    EXPECT_EQ(as_user(pw, [&] { return open(reg.c_str(), O_RDWR) >= 0 ? 1 : 0; }), 0) << "the registry is writable";
    for (const std::string &region : regions)
        EXPECT_EQ(as_user(pw, [&] { return open(region.c_str(), O_RDONLY) >= 0 ? 1 : 0; }), 0)
            << region << " is readable by another user";
    EXPECT_EQ(as_user(pw, [&] { return open((reg + "-host.lock").c_str(), O_RDONLY) >= 0 ? 1 : 0; }), 0);

    // A lock held on the registry (it is readable) holds nobody up.
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t locker = fork();
    if (locker == 0) {
        if (setgroups(0, nullptr) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
            _exit(126);
        const int fd = open(reg.c_str(), O_RDONLY);
        if (fd < 0 || flock(fd, LOCK_EX) != 0)
            _exit(3);
        if (write(ready[1], "x", 1) != 1)
            _exit(4);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char c = 0;
    const bool locked = read(ready[0], &c, 1) == 1;
    close(ready[0]);
    if (locked) {
        EXPECT_EQ(etwctl({"list"}).status, 0) << "a lock another user holds on the registry hangs etwctl";
        Proc st = etwctl({"start", "HostVictim2", "--file", g_ns.path("victim2.etl")});
        EXPECT_EQ(st.status, 0) << st.out;
        EXPECT_EQ(etwctl({"stop", "HostVictim2"}).status, 0);
    }
    kill(locker, SIGKILL);
    waitpid(locker, nullptr, 0);

    // Requests without rights: control, starting through the victim's host,
    // logging (the provider is not admitted: nothing of it in the file).
    Proc r = etwctl({"stop", "HostVictim"}, pw);
    EXPECT_NE(r.status, 0);
    EXPECT_NE(r.out.find("ACCESS_DENIED"), std::string::npos) << r.out;
    r = etwctl({"enable", "HostVictim", "11111111-2222-3333-4444-555555555555"}, pw);
    EXPECT_NE(r.out.find("ACCESS_DENIED"), std::string::npos) << r.out;
    r = etwctl({"start", "HostIntruder", "--file", "/tmp/openetw-hosttest-intruder.etl"}, pw);
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_FALSE(listed("HostIntruder"));
    r = provider(1000, 1, pw);
    EXPECT_EQ(r.status, 3) << "the second user's provider was admitted: " << r.out;

    // The victim's own provider still logs everything, and the file is whole.
    r = provider(10000, 2);
    EXPECT_EQ(r.status, 0) << r.out;
    r = etwctl({"stop", "HostVictim"});
    ASSERT_EQ(r.status, 0) << r.out;
    const FileCount fc = count_file(file);
    EXPECT_EQ(fc.process, ETW_OK);
    EXPECT_EQ(fc.events, 10000u);
}

// ---- Filters reach providers of other processes (docs/FILTERS.md) ----

// host_helper writing events of kProvider, started and not waited for.
pid_t start_writer(unsigned events)
{
    const std::string helper = env("HOST_HELPER"), n = std::to_string(events);
    std::vector<std::string> args = {helper, "write", kGuid, n, "1"};
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, helper.c_str(), nullptr, nullptr, argv.data(), environ) != 0)
        return 0;
    return pid;
}

int wait_writer(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(HostFilters, APidFilterAdmitsOneOfTwoWriterProcessesAllItsEventsAndNoOthers)
{
    const std::string file_a = g_ns.path("pid_a.etl"), file_b = g_ns.path("pid_b.etl");
    etw_properties *pa = nullptr, *pb = nullptr;
    ASSERT_EQ(etw_properties_create(&pa, "HostPidA"), ETW_OK);
    ASSERT_EQ(etw_properties_create(&pb, "HostPidB"), ETW_OK);
    for (etw_properties *p : {pa, pb}) {
        etw_properties_set_buffer_size(p, 64);
        etw_properties_set_maximum_buffers(p, 128);
    }
    etw_properties_set_log_file_name(pa, file_a.c_str());
    etw_properties_set_log_file_name(pb, file_b.c_str());
    etw_session *a = nullptr, *b = nullptr;
    ASSERT_EQ(etw_session_start(&a, pa), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_start(&b, pb), ETW_OK) << etw_last_error_message();
    etw_session_host_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(etw_session_get_host_info(&info, a), ETW_OK);
    ASSERT_EQ(info.is_local, 0u) << "the session must be hosted by another process";

    // The writers wait (5 s at most) for a session to enable them.
    constexpr unsigned kEvents = 20000;
    const pid_t w1 = start_writer(kEvents), w2 = start_writer(kEvents);
    ASSERT_NE(w1, 0);
    ASSERT_NE(w2, 0);
    // Session a admits w1 only, and enables before b: every event of w1 finds it.
    const std::uint32_t admitted = std::uint32_t(w1);
    const etw_event_filter_descriptor f = {std::uint64_t(reinterpret_cast<std::uintptr_t>(&admitted)), 4,
                                           ETW_EVENT_FILTER_TYPE_PID};
    etw_enable_parameters p{};
    p.struct_size = sizeof p;
    p.filter_count = 1;
    p.filters = &f;
    ASSERT_EQ(etw_session_enable_provider_ex(a, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, &p), ETW_OK)
        << etw_last_error_message();
    // Session b, unfiltered, enables both (w2 starts writing only then).
    std::this_thread::sleep_for(200ms);
    ASSERT_EQ(etw_session_enable_provider(b, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    // The listing names a's filter (read from the registry), none for b.
    etw_provider_process procs[8];
    etw_provider_session listed[4];
    std::uint32_t processes = 0, sessions = 0;
    ASSERT_EQ(etw_provider_query(&kProvider, procs, 8, &processes, listed, 4, &sessions), ETW_OK)
        << etw_last_error_message();
    ASSERT_EQ(sessions, 2u);
    for (std::uint32_t i = 0; i < sessions; ++i)
        EXPECT_EQ(listed[i].filter_count, listed[i].session_handle == etw_session_handle(a) ? 1u : 0u)
            << listed[i].session_name;
    EXPECT_EQ(wait_writer(w1), 0);
    EXPECT_EQ(wait_writer(w2), 0);
    ASSERT_EQ(etw_session_stop(a, nullptr), ETW_OK);
    ASSERT_EQ(etw_session_stop(b, nullptr), ETW_OK);
    etw_session_close(a);
    etw_session_close(b);
    etw_properties_destroy(pa);
    etw_properties_destroy(pb);

    const FileCount ca = count_file(file_a), cb = count_file(file_b);
    ASSERT_EQ(ca.open, ETW_OK);
    ASSERT_EQ(cb.open, ETW_OK);
    // a: every event of w1, none of w2.
    ASSERT_EQ(ca.by_process.size(), 1u);
    ASSERT_EQ(ca.by_process.count(std::uint32_t(w1)), 1u);
    EXPECT_EQ(ca.by_process.at(std::uint32_t(w1)).size(), kEvents);
    EXPECT_EQ(ca.events, kEvents);
    // b, unfiltered: every event of w2 (which waited for it) and some of w1's.
    ASSERT_EQ(cb.by_process.count(std::uint32_t(w2)), 1u);
    EXPECT_EQ(cb.by_process.at(std::uint32_t(w2)).size(), kEvents);
}

} // namespace
