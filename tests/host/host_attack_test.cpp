// A second local user attacks root's session host through its sockets
// (docs/SYSTEM_SESSIONS.md, "Who can reach a host"): a thousand idle, slow
// and oversized connections hold up none of root's requests and cost the
// host bounded memory; under a tasks limit the host refuses instead of dying.
// Everything root does is another process (etwctl, host_helper).
#include "host_test_util.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

namespace {

using namespace hosttest;

Namespace g_ns;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kMagic = 0x4843454F; // a request frame's head: magic, kind, protocol, length
constexpr std::uint32_t kProtocol = 10;      // host/protocol.hpp's kProtocol

// The abstract socket names of the namespace: the host's and each session's.
struct Channels {
    std::string host;
    std::vector<std::string> sessions;
};

Channels channels()
{
    Channels out;
    const Proc p = run({env("OPENETW_HOSTD"), "--registry", g_ns.registry, "--print-channel"});
    std::string name = p.out.substr(0, p.out.find('\n')); // "@openetw:host:HASH"
    out.host = name.substr(1);
    const std::string hash = name.substr(name.rfind(':') + 1);
    std::ifstream unix_sockets("/proc/net/unix");
    std::string line;
    const std::string prefix = "@openetw:" + hash + ":";
    while (std::getline(unix_sockets, line)) {
        const auto at = line.find(prefix);
        if (at != std::string::npos) {
            const std::string n = line.substr(at + 1);
            if (std::find(out.sessions.begin(), out.sessions.end(), n) == out.sessions.end())
                out.sessions.push_back(n);
        }
    }
    return out;
}

int connect_to(const std::string &name)
{
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path + 1, name.data(), name.size());
    if (connect(fd, reinterpret_cast<sockaddr *>(&a), socklen_t(offsetof(sockaddr_un, sun_path) + 1 + name.size())) !=
        0) {
        close(fd);
        return -1;
    }
    return fd;
}

// How one attacking connection behaves.
enum class Style { Idle, HalfHead, HugeBody, Trickle };

// The second user's process: keeps n connections to each name open (opening
// again those the host drops), some silent, some sending half a head, some
// announcing a 16 MiB body, some trickling a byte now and then.
class Attacker {
public:
    Attacker(const passwd *pw, const std::vector<std::string> &names, int per_name, std::uint32_t kind)
    {
        int ready[2];
        if (pipe(ready) != 0)
            return;
        pid_ = fork();
        if (pid_ == 0) {
            close(ready[0]);
            if (setgroups(0, nullptr) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
                _exit(126);
            attack(names, per_name, kind, ready[1]);
        }
        close(ready[1]);
        char c = 0;
        started_ = read(ready[0], &c, 1) == 1;
        close(ready[0]);
    }
    ~Attacker()
    {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
    }
    bool started() const { return started_; }

private:
    [[noreturn]] static void attack(const std::vector<std::string> &names, int per_name, std::uint32_t kind, int ready)
    {
        struct Conn {
            std::string name;
            Style style;
            int fd = -1;
            int sent = 0;
        };
        std::vector<Conn> conns;
        for (const std::string &n : names)
            for (int i = 0; i < per_name; ++i)
                conns.push_back({n, Style(i % 4)});
        const std::uint32_t head[4] = {kMagic, kind, kProtocol, (16u << 20) + 4096};
        bool told = false;
        for (;;) {
            for (Conn &c : conns) {
                char b;
                if (c.fd >= 0 && recv(c.fd, &b, 1, MSG_DONTWAIT | MSG_PEEK) == 0) {
                    close(c.fd); // dropped by the host: come again
                    c.fd = -1;
                }
                if (c.fd < 0) {
                    c.fd = connect_to(c.name);
                    c.sent = 0;
                    if (c.fd < 0)
                        continue;
                    if (c.style == Style::HalfHead)
                        send(c.fd, head, 8, MSG_NOSIGNAL);
                    else if (c.style == Style::HugeBody)
                        send(c.fd, head, sizeof head, MSG_NOSIGNAL);
                } else if (c.style == Style::Trickle && c.sent < int(sizeof head)) {
                    send(c.fd, reinterpret_cast<const char *>(head) + c.sent++, 1, MSG_NOSIGNAL);
                }
            }
            if (!told) {
                told = write(ready, "x", 1) == 1;
            }
            usleep(200 * 1000);
        }
    }

    pid_t pid_ = -1;
    bool started_ = false;
};

long rss_kb(pid_t pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stol(line.substr(6));
    return -1;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A provider new to this process: the seconds from its registration to its
// first event taken by the session (its admission through the host's channel
// included), -1 when it was not enabled within 10 s or the write failed.
double first_event_seconds(std::uint64_t number)
{
    const auto t0 = Clock::now();
    etw_provider *p = nullptr;
    if (etw_provider_register(&p, &kProvider, nullptr, nullptr, nullptr) != ETW_OK)
        return -1;
    while (!etw_provider_is_enabled(p, 0, 0) && seconds_since(t0) < 10)
        std::this_thread::sleep_for(1ms);
    struct {
        etw_event_trace_header h;
        std::uint64_t n;
    } ev{};
    ev.h.Size = sizeof ev;
    ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    ev.h.Guid = kProvider;
    ev.h.Class.Type = ETW_TYPE_INFO;
    ev.n = number;
    const bool written = etw_provider_is_enabled(p, 0, 0) && etw_provider_trace_event(p, &ev.h) == ETW_OK;
    const double s = seconds_since(t0);
    etw_provider_unregister(p);
    return written ? s : -1;
}

TEST(HostAttack, AThousandIdleSlowAndOversizedConnectionsHoldUpNoneOfRootsRequests)
{
    std::string why;
    const passwd *pw = second_user(&why);
    if (!pw)
        GTEST_SKIP() << why;
    const std::string file = g_ns.path("flood.etl");
    ASSERT_EQ(etwctl({"start", "HostFlood", "--file", file}).status, 0);
    ASSERT_EQ(etwctl({"enable", "HostFlood", kGuid}).status, 0);
    const pid_t host = host_of("HostFlood");
    ASSERT_GT(host, 0);
    const Channels ch = channels();
    ASSERT_EQ(ch.sessions.size(), 1u) << "the session's channel was not found in /proc/net/unix";
    const long rss_before = rss_kb(host);

    // 500 connections to the session's channel and 500 to the host's own.
    Attacker session_flood(pw, ch.sessions, 500, 1 /* Query */);
    Attacker host_flood(pw, {ch.host}, 500, 50 /* Start */);
    ASSERT_TRUE(session_flood.started() && host_flood.started());
    std::this_thread::sleep_for(1s); // every connection made, and made again after a drop

    auto t0 = Clock::now();
    Proc q = etwctl({"query", "HostFlood"});
    const double query_s = seconds_since(t0);
    const double provider_s = first_event_seconds(1000);
    Proc p = provider(1000, 1); // and a provider process's 1000 events
    t0 = Clock::now();
    Proc second = etwctl({"start", "HostFlood2", "--file", g_ns.path("flood2.etl")});
    const double start_s = seconds_since(t0);
    const long rss_during = rss_kb(host);
    t0 = Clock::now();
    Proc stop = etwctl({"stop", "HostFlood"});
    const double stop_s = seconds_since(t0);
    etwctl({"stop", "HostFlood2"});
    std::printf("under 1000 connections of user %u: query %.3f s, a new provider's first event %.3f s, start %.3f s, "
                "stop %.3f s; host RSS %ld kB before, %ld kB during\n",
                unsigned(pw->pw_uid), query_s, provider_s, start_s, stop_s, rss_before, rss_during);

    EXPECT_EQ(q.status, 0) << q.out;
    EXPECT_EQ(p.status, 0) << p.out;
    EXPECT_EQ(second.status, 0) << second.out;
    EXPECT_EQ(stop.status, 0) << stop.out;
    EXPECT_LT(query_s, 1.0);
    EXPECT_GE(provider_s, 0.0) << "the new provider's event was not taken";
    EXPECT_LT(provider_s, 1.0);
    EXPECT_LT(start_s, 1.0);
    EXPECT_LT(stop_s, 1.0);
    // Quotas bound what is read at once: 32 connections of this user, none holding a body yet.
    EXPECT_LT(rss_during - rss_before, 32 * 1024) << "the attack cost the host " << (rss_during - rss_before) << " kB";
    EXPECT_EQ(count_file(file).events, 1001u);
}

// A pids cgroup of the host (v1 or v2), removed at the end; empty when none can be made.
struct PidsLimit {
    std::string dir;
    explicit PidsLimit(long max)
    {
        for (const std::string base : {"/sys/fs/cgroup/pids", "/sys/fs/cgroup"}) {
            std::ifstream controllers(base + "/cgroup.controllers");
            std::string c;
            std::getline(controllers, c);
            if (base == "/sys/fs/cgroup" && c.find("pids") == std::string::npos)
                continue;
            const std::string d = base + "/openetw-hosttest-" + std::to_string(getpid());
            if (mkdir(d.c_str(), 0755) != 0)
                continue;
            if (std::ofstream(d + "/pids.max") << max) {
                dir = d;
                return;
            }
            rmdir(d.c_str());
        }
    }
    bool add(pid_t pid) const { return bool(std::ofstream(dir + "/cgroup.procs") << pid); }
    bool set(long max) const { return bool(std::ofstream(dir + "/pids.max") << max); }
    long current() const
    {
        long n = -1;
        std::ifstream(dir + "/pids.current") >> n;
        return n;
    }
    std::string events() const
    {
        std::ifstream e(dir + "/pids.events");
        std::stringstream s;
        s << e.rdbuf();
        return s.str();
    }
    ~PidsLimit()
    {
        if (!dir.empty()) {
            for (int i = 0; i < 100 && rmdir(dir.c_str()) != 0; ++i)
                std::this_thread::sleep_for(50ms); // the killed host leaves it
        }
    }
};

TEST(HostAttack, UnderATasksLimitTheHostRefusesConnectionsInsteadOfDying)
{
    std::string why;
    const passwd *pw = second_user(&why);
    if (!pw)
        GTEST_SKIP() << why;
    const std::string file = g_ns.path("tasks.etl");
    ASSERT_EQ(etwctl({"start", "HostTasks", "--file", file}).status, 0);
    ASSERT_EQ(etwctl({"enable", "HostTasks", kGuid}).status, 0);
    const pid_t host = host_of("HostTasks");
    ASSERT_GT(host, 0);
    const PidsLimit limit(100);
    if (limit.dir.empty())
        GTEST_SKIP() << "no pids cgroup controller here (cgroup v1 /sys/fs/cgroup/pids or v2 with pids)";
    ASSERT_TRUE(limit.add(host));

    const Channels ch = channels();
    for (int round = 0; round < 3; ++round) {
        Attacker flood(pw, {ch.host}, 400, 50);
        Attacker flood_session(pw, ch.sessions, 400, 1);
        std::this_thread::sleep_for(1s);
        ASSERT_EQ(kill(host, 0), 0) << "the host died in round " << round << "; " << limit.events();
    }
    std::printf("pids cgroup of the host after the floods: %s", limit.events().c_str());
    // No thread to spare at all: root's request is refused with a status, and the host lives on.
    ASSERT_TRUE(limit.set(limit.current()));
    Proc refused = etwctl({"query", "HostTasks"});
    EXPECT_NE(refused.status, 0) << refused.out;
    EXPECT_NE(refused.out.find("NO_SYSTEM_RESOURCES"), std::string::npos) << refused.out;
    ASSERT_EQ(kill(host, 0), 0) << "the host died when it could not start a thread; " << limit.events();
    ASSERT_TRUE(limit.set(100));
    Proc q = etwctl({"query", "HostTasks"});
    EXPECT_EQ(q.status, 0) << q.out;
    EXPECT_NE(q.out.find("running"), std::string::npos) << q.out;
    EXPECT_EQ(provider(1000, 1).status, 0);
    Proc stop = etwctl({"stop", "HostTasks"});
    EXPECT_EQ(stop.status, 0) << stop.out;
    EXPECT_EQ(count_file(file).events, 1000u);
}

} // namespace
