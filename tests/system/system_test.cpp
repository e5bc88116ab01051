// System-wide sessions across real processes: a helper process hosts a
// session; this process (and etwctl) opens, queries, updates, flushes,
// lists and stops it, and sees it orphaned after the host is SIGKILLed.
#include <openetw/openetw.h>

#include "system_test_util.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <fcntl.h>
#include <signal.h>
#include <string>
#include <thread>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using systemtest::Props;

// Every test program gets its own registry so parallel runs never meet;
// the helpers inherit it through the environment.
struct Namespace {
    std::string path = "/dev/shm/openetw-systest-" + std::to_string(getpid());
    Namespace() { setenv("OPENETW_REGISTRY", path.c_str(), 1); }
    ~Namespace()
    {
        unlink(path.c_str());
        // The session regions orphans left behind, the lock files, and the
        // scribble test's registry ("<registry>.scribble") with its regions.
        for (const std::string &f : systemtest::registry_files(path))
            unlink(f.c_str());
    }
} g_namespace;

std::string temp_file(const std::string &name)
{
    return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".etl")).string();
}

struct Host {
    pid_t pid = -1;
    int exit_code = -1;
    // Starts system_helper host NAME FILE EVENTS and waits for its "ready".
    bool spawn(const std::string &name, const std::string &file, int events)
    {
        return start("host", name, file, events);
    }
    // system_helper stream NAME FILE: writes until killed.
    bool stream(const std::string &name, const std::string &file) { return start("stream", name, file, -1); }
    bool start(const char *mode, const std::string &name, const std::string &file, int events)
    {
        int fds[2];
        if (pipe(fds) != 0)
            return false;
        pid = fork();
        if (pid == 0) {
            dup2(fds[1], 1);
            close(fds[0]);
            const char *helper = std::getenv("SYSTEM_HELPER");
            const std::string n = std::to_string(events);
            if (events < 0)
                execl(helper, helper, mode, name.c_str(), file.c_str(), (char *)nullptr);
            else
                execl(helper, helper, mode, name.c_str(), file.c_str(), n.c_str(), (char *)nullptr);
            _exit(127);
        }
        close(fds[1]);
        char buf[16] = {};
        const ssize_t got = read(fds[0], buf, sizeof buf - 1);
        close(fds[0]);
        return got > 0 && std::string(buf).rfind("ready", 0) == 0;
    }
    void kill9()
    {
        kill(pid, SIGKILL);
        wait();
    }
    int wait()
    {
        int status = 0;
        if (pid > 0 && waitpid(pid, &status, 0) == pid)
            exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        pid = -1;
        return exit_code;
    }
    ~Host()
    {
        if (pid > 0)
            kill9();
    }
};

std::string run(const std::string &cmd, int *code)
{
    std::FILE *f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        out.append(buf, n);
    const int st = pclose(f);
    *code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return out;
}

// Reads a file through the consumer: the helper's event numbers in order,
// and the status of etw_consumer_process.
struct Read {
    etw_status open = ETW_OK, process = ETW_OK;
    std::vector<std::uint64_t> events;
    std::uint32_t buffers_written = 0; // the header's BuffersWritten
};

Read read_file(const std::string &path)
{
    Read r;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE;
    o.user_data = &r.events;
    o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
        std::uint64_t n = 0;
        if (e->payload_size == sizeof n)
            std::memcpy(&n, e->payload, sizeof n);
        static_cast<std::vector<std::uint64_t> *>(ud)->push_back(n);
        return 0;
    };
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    if ((r.open = etw_consumer_open(&c, paths, 1, &o)) != ETW_OK)
        return r;
    etw_logfile_info info{};
    info.struct_size = sizeof info;
    if (etw_consumer_logfile_header(&info, c, 0) == ETW_OK)
        r.buffers_written = info.header.BuffersWritten;
    r.process = etw_consumer_process(c);
    etw_consumer_close(c);
    return r;
}

// The numbers sorted: a writer thread that moves to another CPU goes on in
// that CPU's buffer, so file order is not always write order.
std::vector<std::uint64_t> sorted(std::vector<std::uint64_t> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

std::vector<std::uint64_t> iota(std::uint64_t n)
{
    std::vector<std::uint64_t> v(n);
    for (std::uint64_t i = 0; i < n; ++i)
        v[i] = i;
    return v;
}

TEST(System, AnotherProcessQueriesUpdatesFlushesListsAndStopsASession)
{
    const std::string file = temp_file("sys-control");
    Host host;
    ASSERT_TRUE(host.spawn("SysControl", file, 5000));

    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "sYScONTROL"), ETW_OK) << etw_last_error_message(); // case-insensitive
    etw_session_host_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(etw_session_get_host_info(&info, s), ETW_OK);
    EXPECT_EQ(info.process_id, std::uint32_t(host.pid));
    EXPECT_EQ(info.state, ETW_SESSION_HOST_RUNNING);
    EXPECT_EQ(info.is_local, 0u);
    EXPECT_NE(etw_session_handle(s), 0u);

    Props q;
    ASSERT_EQ(etw_session_query(s, q.p), ETW_OK) << etw_last_error_message();
    EXPECT_STREQ(etw_properties_session_name(q.p), "SysControl");
    EXPECT_EQ(std::filesystem::path(etw_properties_log_file_name(q.p)), std::filesystem::absolute(file));
    EXPECT_EQ(etw_properties_buffer_size(q.p), 4u);
    EXPECT_EQ(etw_properties_events_lost(q.p), 0u);
    EXPECT_GT(etw_properties_buffers_written(q.p), 0u); // the helper flushed its 5000 events

    // Update goes through the host: FlushTimer changes there.
    ASSERT_EQ(etw_properties_set_flush_timer(q.p, 7), ETW_OK);
    ASSERT_EQ(etw_session_update(s, q.p), ETW_OK) << etw_last_error_message();
    Props q2;
    ASSERT_EQ(etw_session_query(s, q2.p), ETW_OK);
    EXPECT_EQ(etw_properties_flush_timer(q2.p), 7u);
    EXPECT_EQ(etw_session_flush(s, nullptr), ETW_OK) << etw_last_error_message();

    // Names are unique across processes.
    {
        Props mine("SYSCONTROL");
        etw_properties_set_log_file_mode(mine.p, ETW_REAL_TIME_MODE);
        etw_session *dup = nullptr;
        EXPECT_EQ(etw_session_start(&dup, mine.p), ETW_ERROR_ALREADY_EXISTS);
        EXPECT_NE(std::string(etw_last_error_message()).find(std::to_string(host.pid)), std::string::npos)
            << etw_last_error_message();
    }
    // Listed with this process's own sessions.
    {
        Props mine("SysOwn");
        etw_properties_set_log_file_mode(mine.p, ETW_REAL_TIME_MODE);
        etw_session *own = nullptr;
        ASSERT_EQ(etw_session_start(&own, mine.p), ETW_OK);
        std::uint32_t count = 0;
        Props a, b, c;
        etw_properties *arr[] = {a.p, b.p, c.p};
        ASSERT_EQ(etw_session_list(&count, arr, 3), ETW_OK);
        EXPECT_EQ(count, 2u);
        EXPECT_STREQ(etw_properties_session_name(a.p), "SysOwn");
        EXPECT_STREQ(etw_properties_session_name(b.p), "SysControl");
        EXPECT_EQ(etw_properties_flush_timer(b.p), 7u);
        EXPECT_EQ(etw_session_stop(own, nullptr), ETW_OK);
        etw_session_close(own);
    }

    // Providers are enabled in another process's session through its host
    // (crossproc_test checks that they then log into it).
    const etw_guid g{1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};
    EXPECT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 4, 0x10, 0), ETW_OK)
        << etw_last_error_message();
    EXPECT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0), ETW_OK)
        << etw_last_error_message();
    EXPECT_EQ(etw_session_enable_provider(s, &g, 7, 0, 0, 0), ETW_ERROR_INVALID_PARAMETER);

    Props fin;
    ASSERT_EQ(etw_session_stop(s, fin.p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_properties_events_lost(fin.p), 0u);
    const std::uint32_t written = etw_properties_buffers_written(fin.p);
    EXPECT_GE(written, 5000u * 56 / 4096);
    EXPECT_EQ(host.wait(), 0); // the host saw its session stop and exited
    // A complete file: header buffer + every data buffer.
    EXPECT_EQ(std::filesystem::file_size(file), (1u + written) * 4096u);
    EXPECT_EQ(etw_session_query(s, q.p), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    EXPECT_EQ(etw_session_stop(s, nullptr), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    etw_session_close(s);
    etw_session *again = nullptr;
    EXPECT_EQ(etw_session_open(&again, "SysControl"), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    std::filesystem::remove(file);
}

TEST(System, AKilledHostLeavesAnOrphanThatQueriesAndStopsFreeingItsName)
{
    const std::string file = temp_file("sys-orphan");
    Host host;
    ASSERT_TRUE(host.spawn("SysOrphan", file, 1000));
    const pid_t pid = host.pid;
    host.kill9();

    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "SysOrphan"), ETW_OK) << etw_last_error_message();
    etw_session_host_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(etw_session_get_host_info(&info, s), ETW_OK);
    EXPECT_EQ(info.state, ETW_SESSION_HOST_ORPHANED);
    EXPECT_EQ(info.process_id, std::uint32_t(pid));

    Props q;
    ASSERT_EQ(etw_session_query(s, q.p), ETW_OK) << etw_last_error_message(); // what the host last published
    EXPECT_STREQ(etw_properties_session_name(q.p), "SysOrphan");
    EXPECT_EQ(etw_properties_buffer_size(q.p), 4u);
    EXPECT_EQ(etw_session_update(s, q.p), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("orphaned"), std::string::npos);
    EXPECT_EQ(etw_session_flush(s, nullptr), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);

    // The orphan keeps its name until it is stopped.
    Props mine("SysOrphan");
    etw_properties_set_log_file_mode(mine.p, ETW_REAL_TIME_MODE);
    etw_session *fresh = nullptr;
    EXPECT_EQ(etw_session_start(&fresh, mine.p), ETW_ERROR_ALREADY_EXISTS);
    EXPECT_NE(std::string(etw_last_error_message()).find("orphaned"), std::string::npos);

    // The host wrote (flushed) every event before it died; its header still
    // says no buffer was written.
    ASSERT_EQ(read_file(file).buffers_written, 1u);
    const auto on_disk = std::filesystem::file_size(file);
    {
        // A torn last write: half a buffer of garbage is cut off.
        std::FILE *f = std::fopen(file.c_str(), "ab");
        ASSERT_NE(f, nullptr);
        const std::vector<char> junk(2048, 0x5A);
        std::fwrite(junk.data(), 1, junk.size(), f);
        std::fclose(f);
    }

    Props fin;
    ASSERT_EQ(etw_session_stop(s, fin.p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_get_host_info(&info, s), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    etw_session_close(s);
    // Stopping finished the file: every buffer the host wrote is read.
    EXPECT_EQ(std::filesystem::file_size(file), on_disk);
    const std::uint32_t written = etw_properties_buffers_written(fin.p);
    EXPECT_EQ((1u + written) * 4096u, on_disk);
    const Read r = read_file(file);
    EXPECT_EQ(r.open, ETW_OK);
    EXPECT_EQ(r.process, ETW_OK);
    EXPECT_EQ(r.buffers_written, 1u + written);
    EXPECT_EQ(sorted(r.events), iota(1000));

    Props mine2("SysOrphan");
    etw_properties_set_log_file_mode(mine2.p, ETW_REAL_TIME_MODE);
    ASSERT_EQ(etw_session_start(&fresh, mine2.p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_stop(fresh, nullptr), ETW_OK);
    etw_session_close(fresh);
    std::filesystem::remove(file);
}

TEST(System, StoppingAnOrphanWithAnUnreadableFileFreesItsNameAndSaysWhy)
{
    const std::string file = temp_file("sys-orphan-bad");
    Host host;
    ASSERT_TRUE(host.spawn("SysOrphanBad", file, 100));
    host.kill9();
    std::filesystem::resize_file(file, 100); // not even a whole buffer header
    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "SysOrphanBad"), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_stop(s, nullptr), ETW_ERROR_INVALID_DATA);
    const std::string message = etw_last_error_message();
    EXPECT_NE(message.find("stopped"), std::string::npos) << message;
    EXPECT_NE(message.find(std::filesystem::absolute(file).string()), std::string::npos) << message;
    EXPECT_EQ(std::filesystem::file_size(file), 100u); // left as it was
    EXPECT_EQ(etw_session_stop(s, nullptr), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    etw_session_close(s);
    etw_session *again = nullptr;
    EXPECT_EQ(etw_session_open(&again, "SysOrphanBad"), ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
    std::filesystem::remove(file);
}

// A host killed at a random moment while writing, 100 times over: stopping
// the orphan always leaves a file every reader takes whole (no torn or
// duplicated event), and the name is free for the next round.
TEST(System, HostsKilledAtRandomMomentsAlwaysLeaveAReadableFile)
{
    const std::string file = temp_file("sys-kill");
    const unsigned seed = unsigned(std::random_device{}());
    std::mt19937 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::uint64_t total = 0;
    for (int round = 0; round < 100; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        Host host;
        ASSERT_TRUE(host.stream("SysKill", file));
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20000));
        host.kill9();
        etw_session *s = nullptr;
        ASSERT_EQ(etw_session_open(&s, "SysKill"), ETW_OK) << etw_last_error_message();
        etw_session_host_info info{};
        info.struct_size = sizeof info;
        ASSERT_EQ(etw_session_get_host_info(&info, s), ETW_OK);
        EXPECT_EQ(info.state, ETW_SESSION_HOST_ORPHANED);
        Props fin;
        ASSERT_EQ(etw_session_stop(s, fin.p), ETW_OK) << etw_last_error_message();
        etw_session_close(s);
        const Read r = read_file(file);
        ASSERT_EQ(r.open, ETW_OK);
        EXPECT_EQ(r.process, ETW_OK);
        EXPECT_EQ(r.buffers_written, 1u + etw_properties_buffers_written(fin.p));
        EXPECT_EQ(std::filesystem::file_size(file), std::uint64_t(r.buffers_written) * 4096u);
        const std::vector<std::uint64_t> numbers = sorted(r.events);
        EXPECT_EQ(std::adjacent_find(numbers.begin(), numbers.end()), numbers.end()); // no event twice
        total += numbers.size();
        if (::testing::Test::HasFailure())
            break;
    }
    EXPECT_GT(total, 0u); // rounds got past a flush: the files held events, not only headers
    std::filesystem::remove(file);
}

TEST(System, StartReplacesAnOrphanOfTheSameNameInOneCall)
{
    const std::string file = temp_file("sys-replace");
    Host live, dead;
    ASSERT_TRUE(live.spawn("SysReplaceLive", file + ".live", 10));
    ASSERT_TRUE(dead.spawn("SysReplace", file, 1000));
    dead.kill9();
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_REPLACE_ORPHAN;
    etw_session *s = nullptr;

    Props plain("SysReplace");
    etw_properties_set_log_file_mode(plain.p, ETW_REAL_TIME_MODE);
    EXPECT_EQ(etw_session_start(&s, plain.p), ETW_ERROR_ALREADY_EXISTS); // without the flag
    EXPECT_NE(std::string(etw_last_error_message()).find("ETW_SESSION_REPLACE_ORPHAN"), std::string::npos)
        << etw_last_error_message();
    Props other("SysReplaceLive"); // a live host keeps its name
    etw_properties_set_log_file_mode(other.p, ETW_REAL_TIME_MODE);
    EXPECT_EQ(etw_session_start_ex(&s, other.p, &o), ETW_ERROR_ALREADY_EXISTS);

    ASSERT_EQ(etw_session_start_ex(&s, plain.p, &o), ETW_OK) << etw_last_error_message();
    etw_session_host_info info{};
    info.struct_size = sizeof info;
    ASSERT_EQ(etw_session_get_host_info(&info, s), ETW_OK);
    EXPECT_EQ(info.is_local, 1u);
    EXPECT_EQ(sorted(read_file(file).events), iota(1000)); // the orphan's file was finished
    EXPECT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    etw_session_close(s);

    etw_session *l = nullptr;
    ASSERT_EQ(etw_session_open(&l, "SysReplaceLive"), ETW_OK);
    EXPECT_EQ(etw_session_stop(l, nullptr), ETW_OK);
    etw_session_close(l);
    EXPECT_EQ(live.wait(), 0);
    std::filesystem::remove(file);
    std::filesystem::remove(file + ".live");
}

// Runs system_helper poke; its exit code, or 128 + signal, or -1 when it
// did not return within timeout_s (then it is killed).
int poke(int timeout_s)
{
    const pid_t pid = fork();
    if (pid == 0) {
        const char *helper = std::getenv("SYSTEM_HELPER");
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execl(helper, helper, "poke", (char *)nullptr);
        _exit(127);
    }
    for (int waited = 0; waited < timeout_s * 100; ++waited) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    return -1;
}

// Another process writes garbage over the registry (slots, and sometimes the
// header) while a live host serves and an orphan waits: control calls from
// a third process always return (no crash, no hang), and the live host
// never crashes (it may see a forged stop request and exit normally).
TEST(System, AScribbledRegistryCrashesNoControllerAndNoHost)
{
    const std::string reg = g_namespace.path + ".scribble";
    setenv("OPENETW_REGISTRY", reg.c_str(), 1); // the helpers' namespace (this process keeps its own)
    struct Restore {
        const std::string &reg;
        ~Restore()
        {
            setenv("OPENETW_REGISTRY", g_namespace.path.c_str(), 1);
            unlink(reg.c_str());
        }
    } restore{reg};
    const std::string file = temp_file("sys-scribble");
    const char *fixed = std::getenv("SYSTEM_SEED"); // to replay a failure
    const unsigned seed = fixed ? unsigned(std::strtoul(fixed, nullptr, 10)) : unsigned(std::random_device{}());
    std::mt19937 rng(seed);
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (int round = 0; round < 24; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        unlink(reg.c_str());
        Host live, dead;
        ASSERT_TRUE(live.spawn("ScribLive", file + ".live", 10));
        ASSERT_TRUE(dead.spawn("ScribDead", file, 10));
        dead.kill9();
        const int fd = open(reg.c_str(), O_RDWR);
        ASSERT_GE(fd, 0);
        const off_t size = lseek(fd, 0, SEEK_END);
        const off_t from = round % 4 == 3 ? 0 : 4096; // the header too, now and then
        const int writes = std::array<int, 3>{16, 512, 16384}[round % 3];
        for (int w = 0; w < writes; ++w) {
            const std::uint32_t junk = std::uint32_t(rng());
            const off_t at = from + off_t(rng() % std::uint64_t(size - from - 4));
            const std::size_t n = 1 + rng() % 4;
            ASSERT_EQ(pwrite(fd, &junk, n, at), ssize_t(n));
        }
        close(fd);
        EXPECT_EQ(poke(60), 0);
        int status = 0;
        if (waitpid(live.pid, &status, WNOHANG) == live.pid) {
            live.pid = -1;
            EXPECT_TRUE(WIFEXITED(status)) << "the live host died of signal " << WTERMSIG(status);
        }
        if (::testing::Test::HasFailure())
            break;
    }
    std::filesystem::remove(file);
    std::filesystem::remove(file + ".live");
}

TEST(System, EtwctlListsQueriesAndStopsAnotherProcessSession)
{
    const std::string file = temp_file("sys-ctl");
    Host host;
    ASSERT_TRUE(host.spawn("SysCtl", file, 100));
    const std::string ctl = std::getenv("ETWCTL");
    int code = -1;
    const std::string list = run(ctl + " list", &code);
    EXPECT_EQ(code, 0) << list;
    EXPECT_NE(list.find("SysCtl"), std::string::npos) << list;
    const std::string query = run(ctl + " --json query SysCtl", &code);
    EXPECT_EQ(code, 0) << query;
    EXPECT_NE(query.find("\"host_pid\": " + std::to_string(host.pid)), std::string::npos) << query;
    EXPECT_NE(query.find("\"host_state\": \"running\""), std::string::npos) << query;
    const std::string stop = run(ctl + " stop SysCtl", &code);
    EXPECT_EQ(code, 0) << stop;
    EXPECT_EQ(host.wait(), 0);
    run(ctl + " query SysCtl 2>&1", &code);
    EXPECT_EQ(code, 1);
    std::filesystem::remove(file);
}

TEST(System, EtwctlGrantsRightsOverAnotherProcessSession)
{
    const std::string file = temp_file("sys-ctl-grant");
    Host host;
    ASSERT_TRUE(host.spawn("SysCtlGrant", file, 10));
    const std::string ctl = std::getenv("ETWCTL");
    int code = -1;
    std::string out = run(ctl + " --json grant SysCtlGrant 12345 log,consume", &code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("\"rights\": 6"), std::string::npos) << out;
    out = run(ctl + " grant SysCtlGrant 12345 none", &code);
    EXPECT_EQ(code, 0) << out;
    out = run(ctl + " grant SysCtlGrant 12345 everything 2>&1", &code);
    EXPECT_EQ(code, 2) << out;
    EXPECT_NE(out.find("unknown right"), std::string::npos) << out;
    out = run(ctl + " grant SysCtlGrant nobody all 2>&1", &code);
    EXPECT_EQ(code, 2) << out;
    out = run(ctl + " grant NoSuchSession 1 all 2>&1", &code);
    EXPECT_EQ(code, 1) << out;
    run(ctl + " stop SysCtlGrant", &code);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(host.wait(), 0);
    std::filesystem::remove(file);
}

TEST(System, EtwctlReportsAnOrphan)
{
    const std::string file = temp_file("sys-ctl-orphan");
    Host host;
    ASSERT_TRUE(host.spawn("SysCtlOrphan", file, 10));
    host.kill9();
    const std::string ctl = std::getenv("ETWCTL");
    int code = -1;
    const std::string query = run(ctl + " query SysCtlOrphan", &code);
    EXPECT_EQ(code, 0) << query;
    EXPECT_NE(query.find("orphaned"), std::string::npos) << query;
    run(ctl + " stop SysCtlOrphan", &code);
    EXPECT_EQ(code, 0);
    run(ctl + " query SysCtlOrphan 2>&1", &code);
    EXPECT_EQ(code, 1);
    std::filesystem::remove(file);
}

} // namespace
