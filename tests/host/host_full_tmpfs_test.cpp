// The session host on a full tmpfs (any user can fill /dev/shm): a start
// that finds no room for its region runs with private buffers, the host
// and the sessions it already hosts go on (docs/SYSTEM_SESSIONS.md, "Limits
// and what is left alone"). Separate processes only: etwctl, host_helper,
// openetw-hostd. Needs root (mount); skipped with the reason otherwise.
#include "host_test_util.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const char kGuidA[] = "6f2c1a3e-9b4d-4e21-8c7a-0123456789b0";
const char kGuidB[] = "6f2c1a3e-9b4d-4e21-8c7a-0123456789b1";
const etw_guid kProviderA = {0x6f2c1a3e, 0x9b4d, 0x4e21, {0x8c, 0x7a, 0x01, 0x23, 0x45, 0x67, 0x89, 0xb0}};

using hosttest::env;
using hosttest::Proc;

Proc etwctl(const std::string &args) { return hosttest::sh(env("ETWCTL") + " " + args); }

// Neither gone nor a zombie (a dead daemon waits for init to reap it).
bool alive(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

pid_t host_pid(const std::string &session)
{
    const Proc q = etwctl("query " + session);
    const auto at = q.out.find("host_pid:");
    return at == std::string::npos ? 0 : pid_t(std::atoi(q.out.c_str() + at + 9));
}

// A small tmpfs in this process's own mount namespace (gone with it, and
// with the hosts it starts), holding a namespace's registry and regions.
class FullTmpfsNamespace : public ::testing::Test {
protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/openetw-fulltmpfs-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        shm_ = dir_ + "/shm";
        fs::create_directories(shm_);
        static const bool private_mounts =
            ::unshare(CLONE_NEWNS) == 0 && ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0;
        (void)private_mounts;
        if (::mount("tmpfs", shm_.c_str(), "tmpfs", 0, "size=8m") != 0)
            GTEST_SKIP() << "mount -t tmpfs " << shm_ << ": " << std::strerror(errno) << " (needs root)";
        mounted_ = true;
        fs::create_directories(shm_ + "/ns");
        setenv("OPENETW_REGISTRY", (shm_ + "/ns/registry").c_str(), 1);
        unsetenv("OPENETW_HOST");
    }
    void TearDown() override
    {
        for (pid_t h : hosts_)
            kill(h, SIGKILL);
        if (mounted_)
            ::umount2(shm_.c_str(), MNT_DETACH);
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    void fill() const
    {
        std::ofstream out(shm_ + "/filler", std::ios::binary);
        const std::string block(65536, 'x');
        while (out.write(block.data(), std::streamsize(block.size())))
            out.flush();
    }
    std::string dir_, shm_;
    bool mounted_ = false;
    std::vector<pid_t> hosts_;
};

TEST_F(FullTmpfsNamespace, AStartWithoutRoomRunsWithPrivateBuffersAndTheHostKeepsItsSessions)
{
    const std::string file_a = dir_ + "/a.etl", file_b = dir_ + "/b.etl";
    Proc r = etwctl("start HostFullA --file " + file_a);
    ASSERT_EQ(r.status, 0) << r.out;
    const pid_t host = host_pid("HostFullA");
    ASSERT_GT(host, 0);
    hosts_.push_back(host);

    fill();
    r = etwctl("start HostFullB --file " + file_b);
    EXPECT_EQ(r.status, 0) << r.out;
    ASSERT_TRUE(alive(host)) << "the host died when a session was started on a full tmpfs";
    const pid_t host_b = host_pid("HostFullB");
    if (host_b > 0 && host_b != host)
        hosts_.push_back(host_b); // a second host, started when the first died
    EXPECT_EQ(host_b, host);

    // The session already running still logs another process's events.
    ASSERT_EQ(etwctl(std::string("enable HostFullA ") + kGuidA).status, 0);
    r = hosttest::sh(env("HOST_HELPER") + " write " + kGuidA + " 1000 1");
    EXPECT_EQ(r.status, 0) << r.out;
    // The one with private buffers admits no provider of another process.
    ASSERT_EQ(etwctl(std::string("enable HostFullB ") + kGuidB).status, 0);
    r = hosttest::sh(env("HOST_HELPER") + " write " + kGuidB + " 10 1");
    EXPECT_EQ(r.status, 3) << "a provider process was admitted into private buffers: " << r.out;

    r = etwctl("stop HostFullA");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("events_lost:             0"), std::string::npos) << r.out;
    r = etwctl("stop HostFullB");
    EXPECT_EQ(r.status, 0) << r.out;
    const hosttest::FileCount fa = hosttest::count_file(file_a, kProviderA);
    EXPECT_EQ(fa.open, ETW_OK);
    EXPECT_EQ(fa.process, ETW_OK);
    EXPECT_EQ(fa.events, 1000u);
    EXPECT_TRUE(alive(host)) << "the host died";
}

} // namespace
