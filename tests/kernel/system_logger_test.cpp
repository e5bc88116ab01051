// System logger sessions as a user starts them (the public API, a session in
// this process): EnableFlags record the kernel's process, thread and image
// events, with the rundown at both ends; flags no source serves are refused
// by name; an update changes the flags of a running session; a user without
// the rights is refused with the capability named. Runs as root (as CI).
#include "system_logger_live.hpp"

#include "format/etl_layout.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using kerneltest::Seen;
using namespace syslogtest;

// Runs /bin/sh -c 'exit CODE' and returns its pid.
pid_t run_shell(int code)
{
    const std::string script = "exit " + std::to_string(code);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char *>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

TEST(SystemLogger, ProcessThreadAndImageFlagsRecordAChildAndTheRundown)
{
    const std::string file = temp_file("openetw-syslog");
    Props props("OpenETW system logger test " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD), ETW_OK)
        << etw_last_error_message();
    const pid_t child = run_shell(3);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    const long long me = ::getpid(), kid = child;
    // The rundown: this process, its thread and its executable, at both ends.
    EXPECT_EQ(named(seen, "Process/DCStart", "ProcessId", me).size(), 1u);
    EXPECT_EQ(named(seen, "Process/DCEnd", "ProcessId", me).size(), 1u);
    EXPECT_FALSE(named(seen, "Thread/DCStart", "ProcessId", me).empty());
    EXPECT_FALSE(named(seen, "Image/DCStart", "ProcessId", me).empty());
    // The child, live: started by this process, ran sh, ended.
    const auto starts = named(seen, "Process/Start", "ProcessId", kid);
    ASSERT_FALSE(starts.empty()) << "no Process/Start of the child " << kid;
    EXPECT_EQ(number(*starts.front(), "ParentId"), me);
    bool ran_sh = false;
    for (const Seen *st : starts)
        ran_sh |= st->value("ImageFileName").find("sh") != std::string::npos;
    EXPECT_TRUE(ran_sh) << "no Process/Start of the child names sh";
    EXPECT_FALSE(named(seen, "Process/End", "ProcessId", kid).empty());
    EXPECT_FALSE(named(seen, "Thread/Start", "ProcessId", kid).empty());
    bool shell_image = false;
    for (const Seen *im : named(seen, "Image/Load", "ProcessId", kid))
        shell_image |= im->value("FileName").find("sh") != std::string::npos;
    EXPECT_TRUE(shell_image) << "no Image/Load of the child's shell";
    // Every record decodes, and kernel records sort with the session's clock:
    // the child's start comes after this process's DCStart.
    for (const Seen &r : seen)
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
    EXPECT_LT(named(seen, "Process/DCStart", "ProcessId", me).front()->timestamp_raw, starts.front()->timestamp_raw);
}

// Time order: each processor's records as written are in time order, so
// the reader's merge (ETW_CONSUMER_ORDER_TIME) gives them in time order
// overall; the sources are read one after another, each in order; none
// comes before the log file header.
TEST(SystemLogger, RecordsOfEverySourceAreInTimeOrder)
{
    const std::string file = temp_file("openetw-syslog-order");
    Props props("OpenETW system logger order " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    // Two threads switching all the time while the session starts: its
    // sources record from their first moment.
    std::atomic<bool> started{false};
    int ping[2], pong[2];
    ASSERT_EQ(::pipe(ping), 0);
    ASSERT_EQ(::pipe(pong), 0);
    std::thread echo([&] {
        for (char c; ::read(ping[0], &c, 1) == 1 && c == 'x';)
            (void)!::write(pong[1], &c, 1);
    });
    std::thread pinger([&] {
        char c = 'x';
        while (!started && ::write(ping[1], &c, 1) == 1 && ::read(pong[0], &c, 1) == 1) {
        }
        c = 'q';
        (void)!::write(ping[1], &c, 1);
    });
    const etw_status st =
        start(&s, props, file, ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD | ETW_FLAG_CSWITCH);
    started = true;
    pinger.join();
    echo.join();
    for (int fd : {ping[0], ping[1], pong[0], pong[1]})
        ::close(fd);
    ASSERT_EQ(st, ETW_OK) << etw_last_error_message();
    for (int i = 0; i < 20; ++i)
        run_shell(i % 5);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> seen = read_back(file);
    // The log file header, the file's first record, is stamped at the start:
    // no event comes before it (else a reader's merge, which holds a
    // processor's stream at its header, puts them after later ones).
    std::int64_t start = 0;
    {
        std::ifstream in(file, std::ios::binary);
        std::uint8_t head[openetw::etl::kBufferHeaderSize + 24] = {};
        in.read(reinterpret_cast<char *>(head), sizeof head);
        start = openetw::etl::rd_le<std::int64_t>(head + openetw::etl::kBufferHeaderSize + 16);
    }
    std::filesystem::remove(file);
    ASSERT_GT(seen.size(), 100u);
    std::size_t early = 0;
    for (const Seen &r : seen)
        if (r.timestamp_raw < start && early++ < 3)
            ADD_FAILURE() << r.event_name << " at " << r.timestamp_raw << ", before the session's start " << start;
    EXPECT_EQ(early, 0u);
    std::size_t backwards = 0;
    for (std::size_t i = 1; i < seen.size(); ++i)
        if (seen[i].timestamp_raw < seen[i - 1].timestamp_raw) {
            if (backwards++ < 3)
                ADD_FAILURE() << seen[i - 1].event_name << " at " << seen[i - 1].timestamp_raw << " before "
                              << seen[i].event_name << " at " << seen[i].timestamp_raw;
        }
    EXPECT_EQ(backwards, 0u);
}

// NETWORK_TCPIP: a loopback connection's bytes, both ways, with its ports.
TEST(SystemLogger, TcpIpRecordsSendsAndReceivesWithTheirPorts)
{
    const std::string file = temp_file("openetw-syslog-tcp");
    Props props("OpenETW system logger tcp " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_NETWORK_TCPIP), ETW_OK) << etw_last_error_message();
    const int srv = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(srv, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    ASSERT_EQ(::listen(srv, 1), 0);
    socklen_t len = sizeof a;
    ::getsockname(srv, reinterpret_cast<sockaddr *>(&a), &len);
    const int port = ntohs(a.sin_port);
    constexpr int kBytes = 300000;
    std::atomic<long> received{0};
    std::thread reader([&] {
        const int c = ::accept(srv, nullptr, nullptr);
        char buf[8192];
        for (ssize_t n; (n = ::recv(c, buf, sizeof buf, 0)) > 0;)
            received += n;
        ::close(c);
    });
    const int cl = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(::connect(cl, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    std::vector<char> data(kBytes, 't');
    for (std::size_t off = 0; off < data.size();) {
        const ssize_t n = ::send(cl, data.data() + off, data.size() - off, 0);
        ASSERT_GT(n, 0);
        off += std::size_t(n);
    }
    ::close(cl);
    reader.join();
    ::close(srv);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);
    ASSERT_EQ(received.load(), kBytes);
    long long sent = 0, got = 0;
    for (const Seen &r : seen) {
        if (r.event_name != "TcpIp/SendIPV4" && r.event_name != "TcpIp/RecvIPV4")
            continue;
        EXPECT_TRUE(r.problem.empty()) << r.problem;
        EXPECT_EQ(number(r, "PID"), ::getpid());
        if (r.event_name == "TcpIp/SendIPV4" && number(r, "dport") == port) {
            sent += number(r, "size");
            EXPECT_EQ(r.value("daddr"), "127.0.0.1");
        }
        if (r.event_name == "TcpIp/RecvIPV4" && number(r, "sport") == port)
            got += number(r, "size");
    }
    EXPECT_EQ(sent, kBytes) << "bytes sent to port " << port;
    EXPECT_EQ(got, kBytes) << "bytes received on port " << port;
}

// A child that stops itself with SIGKILL; returns its pid.
pid_t run_killed()
{
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::kill(::getpid(), SIGKILL);
        ::_exit(1);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

TEST(SystemLogger, ProcessEndCarriesTheExitStatusAndCSwitchRecordsTheScheduler)
{
    const std::string file = temp_file("openetw-syslog-tp");
    Props props("OpenETW system logger tracepoints " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_PROCESS | ETW_FLAG_CSWITCH), ETW_OK) << etw_last_error_message();
    const pid_t three = run_shell(3), five = run_shell(5), killed = run_killed();
    // Two threads passing a byte back and forth: each read blocks, so each
    // round trip switches at least twice (yielding alone need not: on an
    // idle processor sched_yield returns to the same thread).
    constexpr int kRounds = 500;
    int ping[2], pong[2];
    ASSERT_EQ(::pipe(ping), 0);
    ASSERT_EQ(::pipe(pong), 0);
    std::atomic<std::uint32_t> echo_tid{0};
    std::thread echo([&] {
        echo_tid = std::uint32_t(::syscall(SYS_gettid));
        char c;
        for (int i = 0; i < kRounds && ::read(ping[0], &c, 1) == 1; ++i)
            (void)!::write(pong[1], &c, 1);
    });
    int rounds = 0;
    for (char c = 'x'; rounds < kRounds && ::write(ping[1], &c, 1) == 1 && ::read(pong[0], &c, 1) == 1; ++rounds) {
    }
    echo.join();
    for (int fd : {ping[0], ping[1], pong[0], pong[1]})
        ::close(fd);
    ASSERT_EQ(rounds, kRounds);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    const auto status_of = [&](pid_t pid) {
        const auto ends = named(seen, "Process/End", "ProcessId", pid);
        return ends.empty() ? -1 : number(*ends.back(), "ExitStatus"); // the last: after sh's exec
    };
    EXPECT_EQ(status_of(three), 3) << "exit 3";
    EXPECT_EQ(status_of(five), 5) << "exit 5";
    EXPECT_EQ(status_of(killed), 137) << "SIGKILL: 128 + 9";
    const auto switches = named(seen, "Thread/CSwitch");
    EXPECT_GE(switches.size(), std::size_t(2 * kRounds));
    // The echo thread blocked in read (switched out waiting, UserRequest:
    // 5 and 6) when its byte had not come yet, and was switched in again
    // each time; a byte already there is read without a switch.
    const long long echo_id = echo_tid;
    std::size_t blocked = 0;
    for (const Seen *c : named(seen, "Thread/CSwitch", "OldThreadId", echo_id))
        blocked += number(*c, "OldThreadState") == 5 && number(*c, "OldThreadWaitReason") == 6;
    EXPECT_GT(blocked, 0u) << "the echo thread never switched out waiting";
    EXPECT_GE(named(seen, "Thread/CSwitch", "NewThreadId", echo_id).size(), blocked);
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    for (const Seen &r : seen)
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
}

TEST(SystemLogger, DiskIoRecordsADirectWriteAtItsCompletion)
{
    // /var/tmp, not /tmp: a tmpfs has no block device and so no disk I/O.
    const std::string data = "/var/tmp/openetw-syslog-disk-" + std::to_string(::getpid());
    const int fd = ::open(data.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_DIRECT, 0600);
    ASSERT_GE(fd, 0) << data << ": O_DIRECT refused";
    struct stat st {};
    ASSERT_EQ(::fstat(fd, &st), 0);
    const std::string sys =
        "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
    ASSERT_TRUE(major(st.st_dev) != 0 && std::filesystem::exists(sys))
        << data << " is not on a block device (" << sys << "): no disk I/O to record";

    const std::string file = temp_file("openetw-syslog-disk");
    Props props("OpenETW system logger disk " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT), ETW_OK) << etw_last_error_message();
    constexpr std::size_t kBytes = 1 << 20;
    void *buf = nullptr;
    ASSERT_EQ(::posix_memalign(&buf, 4096, kBytes), 0);
    std::memset(buf, 0x5A, kBytes);
    const ssize_t wrote = ::write(fd, buf, kBytes);
    const int synced = ::fsync(fd);
    std::free(buf);
    ::close(fd);
    std::filesystem::remove(data);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    ASSERT_EQ(wrote, ssize_t(kBytes));
    ASSERT_EQ(synced, 0);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);

    long long written = 0, timed = 0, numbered = 0;
    for (const Seen *w : named(seen, "DiskIo/Write")) {
        written += number(*w, "TransferSize");
        timed += number(*w, "HighResResponseTime") > 0;
        numbered += number(*w, "DiskNumber") >= 0 && number(*w, "DiskNumber") != 0xFFFFFFFF;
    }
    EXPECT_GE(written, (long long)kBytes) << "DiskIo/Write TransferSize sum";
    // Each write was initiated (WriteInit at its issue, DISK_IO_INIT) with the Irp its completion carries.
    std::set<std::string> inits;
    for (const Seen *i : named(seen, "DiskIo/WriteInit"))
        inits.insert(i->value("Irp"));
    std::size_t initiated = 0, writes = 0;
    for (const Seen *w : named(seen, "DiskIo/Write")) {
        if (w->value("Irp") == "0x0")
            continue; // issued before the session started: no Irp, no Init
        ++writes;
        initiated += inits.count(w->value("Irp"));
    }
    EXPECT_GT(writes, 0u);
    std::string irps;
    for (const Seen &r : seen)
        if (r.event_name.rfind("DiskIo/", 0) == 0)
            irps += " " + r.event_name.substr(7) + ":" + r.value("Irp");
    EXPECT_EQ(initiated, writes) << "a DiskIo/Write without its WriteInit:" << irps;
    EXPECT_GT(timed, 0) << "no write with a response time";
    EXPECT_GT(numbered, 0) << "no write on a disk of /sys/block";
    for (const Seen &r : seen)
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
}

// Windows runs at most eight system loggers; a ninth start is refused until one stops.
TEST(SystemLogger, ANinthSystemLoggerIsRefusedUntilOneStops)
{
    std::vector<std::unique_ptr<Props>> props;
    std::vector<etw_session *> sessions;
    auto start_one = [&](int i, etw_session **s) {
        props.push_back(std::make_unique<Props>("OpenETW system logger " + std::to_string(i) + " of " +
                                                std::to_string(::getpid())));
        return start(s, *props.back(), temp_file("openetw-syslog-limit-" + std::to_string(i)), ETW_FLAG_NO_SYSCONFIG);
    };
    for (int i = 0; i < 8; ++i) {
        etw_session *s = nullptr;
        ASSERT_EQ(start_one(i, &s), ETW_OK) << i << ": " << etw_last_error_message();
        sessions.push_back(s);
    }
    etw_session *ninth = nullptr;
    EXPECT_EQ(start_one(8, &ninth), ETW_ERROR_NO_SYSTEM_RESOURCES);
    EXPECT_NE(std::string(etw_last_error_message()).find("8 system logger sessions"), std::string::npos)
        << etw_last_error_message();
    ASSERT_EQ(etw_session_stop(sessions.back(), nullptr), ETW_OK);
    etw_session_close(sessions.back());
    sessions.pop_back();
    EXPECT_EQ(start_one(9, &ninth), ETW_OK) << etw_last_error_message();
    sessions.push_back(ninth);
    for (etw_session *s : sessions) {
        EXPECT_EQ(etw_session_stop(s, nullptr), ETW_OK);
        etw_session_close(s);
    }
    for (int i = 0; i < 10; ++i)
        std::filesystem::remove(temp_file("openetw-syslog-limit-" + std::to_string(i)));
}

TEST(SystemLogger, FlagsNoSourceServesAreRefusedByName)
{
    const std::string file = temp_file("openetw-syslog-refused");
    Props props("OpenETW system logger refusal " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    EXPECT_EQ(start(&s, props, file, ETW_FLAG_PROCESS | ETW_FLAG_REGISTRY), ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(std::string(etw_last_error_message()).find("registry"), std::string::npos) << etw_last_error_message();
    EXPECT_FALSE(std::filesystem::exists(file)) << "a refused start left a file";
}

TEST(SystemLogger, AnUpdateChangesTheFlagsOfARunningSession)
{
    const std::string file = temp_file("openetw-syslog-update");
    Props props("OpenETW system logger update " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_IMAGE_LOAD), ETW_OK) << etw_last_error_message();
    const pid_t before = run_shell(0);
    etw_properties_set_enable_flags(props.p, ETW_FLAG_PROCESS);
    ASSERT_EQ(etw_session_update(s, props.p), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_properties_enable_flags(props.p), ETW_FLAG_PROCESS);
    // Refused flags change nothing.
    etw_properties_set_enable_flags(props.p, ETW_FLAG_PROCESS | ETW_FLAG_ALPC);
    EXPECT_EQ(etw_session_update(s, props.p), ETW_ERROR_NOT_SUPPORTED);
    const pid_t after = run_shell(0);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    EXPECT_EQ(etw_properties_enable_flags(props.p), ETW_FLAG_PROCESS);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);
    const long long b = before, a = after;
    EXPECT_FALSE(named(seen, "Image/Load", "ProcessId", b).empty()) << "IMAGE_LOAD before the update";
    EXPECT_TRUE(named(seen, "Process/Start", "ProcessId", b).empty()) << "PROCESS before it was asked for";
    EXPECT_FALSE(named(seen, "Process/Start", "ProcessId", a).empty()) << "PROCESS after the update";
    EXPECT_TRUE(named(seen, "Image/Load", "ProcessId", a).empty()) << "IMAGE_LOAD after it was dropped";
}

TEST(SystemLogger, AUserWithoutTheRightsIsRefusedWithTheCapabilityNamed)
{
    ASSERT_EQ(::geteuid(), 0u) << "runs as root (as CI does) to drop to another user";
    const std::string file = temp_file("openetw-syslog-denied");
    const pid_t pid = ::fork();
    if (pid == 0) {
        // nobody, with no capabilities: system-wide kernel events are refused
        // (kernel.perf_event_paranoid above 0).
        if (::setgid(65534) != 0 || ::setuid(65534) != 0)
            ::_exit(10);
        Props props("OpenETW system logger denied " + std::to_string(::getpid()));
        etw_session *s = nullptr;
        const etw_status st = start(&s, props, "/tmp/openetw-syslog-denied-child.etl", ETW_FLAG_PROCESS);
        const std::string msg = etw_last_error_message();
        if (st != ETW_ERROR_ACCESS_DENIED)
            ::_exit(11);
        if (msg.find("CAP_PERFMON") == std::string::npos || msg.find("perf_event_paranoid") == std::string::npos)
            ::_exit(12);
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: could not become nobody; 11: not ACCESS_DENIED; 12: the message does "
                                         "not name CAP_PERFMON and perf_event_paranoid";
    EXPECT_FALSE(std::filesystem::exists("/tmp/openetw-syslog-denied-child.etl"));
}

} // namespace
