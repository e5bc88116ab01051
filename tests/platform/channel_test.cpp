// Local channels (src/platform/channel.hpp) on POSIX: round trips, peer
// credentials from the kernel, names, timeouts, descriptor passing, peer
// death and shutdown. Child processes only connect, send, sleep and _exit.
#include "platform/channel.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace openetw::platform;
using Clock = std::chrono::steady_clock;

namespace {

std::string unique_name(const char *what) { return "channel-test-" + std::to_string(getpid()) + "-" + what; }

int open_fd_count()
{
    DIR *d = opendir("/proc/self/fd");
    if (d == nullptr)
        return -1;
    int n = 0;
    while (dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            ++n;
    closedir(d);
    return n - 1; // the directory's own descriptor
}

// A listener, and a connected pair through it, closed at the end.
struct Pair {
    ChannelHandle listener = kNoChannel, client = kNoChannel, server = kNoChannel;

    explicit Pair(const std::string &name)
    {
        EXPECT_EQ(channel_listen(name, &listener), ETW_OK);
        EXPECT_EQ(channel_connect(name, &client), ETW_OK);
        EXPECT_EQ(channel_accept(listener, 5000, &server, nullptr), ETW_OK);
    }
    ~Pair()
    {
        channel_close(&server);
        channel_close(&client);
        channel_close(&listener);
    }
};

// A memfd holding text, for descriptor passing.
int memfd_with(const char *text)
{
    const int fd = memfd_create("channel-test", MFD_CLOEXEC);
    if (fd >= 0 && write(fd, text, std::strlen(text)) != ssize_t(std::strlen(text))) {
        close(fd);
        return -1;
    }
    return fd;
}

std::string read_all(int fd)
{
    char buf[256];
    const ssize_t n = pread(fd, buf, sizeof buf, 0);
    return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

// Forks a child that connects to name and then runs body (whose value is
// its exit status); the child never returns into the test.
template <class Body>
pid_t fork_client(const std::string &name, Body body)
{
    const pid_t pid = fork();
    if (pid == 0) {
        ChannelHandle c = kNoChannel;
        if (channel_connect(name, &c) != ETW_OK)
            _exit(100);
        _exit(body(c));
    }
    return pid;
}

int wait_exit(pid_t pid)
{
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace

TEST(Channel, RoundTripBothWays)
{
    Pair p(unique_name("roundtrip"));
    const char hello[] = "hello host";
    ASSERT_EQ(channel_send(p.client, hello, sizeof hello, 1000), ETW_OK);
    char got[sizeof hello] = {};
    std::intptr_t fd = 123;
    ASSERT_EQ(channel_recv(p.server, got, sizeof got, 1000, &fd), ETW_OK);
    EXPECT_STREQ(got, hello);
    EXPECT_EQ(fd, -1);

    const std::uint64_t answer = 0x0123456789abcdefULL;
    ASSERT_EQ(channel_send(p.server, &answer, sizeof answer, 1000), ETW_OK);
    std::uint64_t back = 0;
    ASSERT_EQ(channel_recv(p.client, &back, sizeof back, 1000), ETW_OK);
    EXPECT_EQ(back, answer);

    channel_close(&p.client);
    EXPECT_EQ(p.client, kNoChannel);
    channel_close(&p.client); // no-op on a closed handle
}

TEST(Channel, PeerCredentialsComeFromTheKernel)
{
    const std::string name = unique_name("creds");
    ChannelHandle listener = kNoChannel;
    ASSERT_EQ(channel_listen(name, &listener), ETW_OK);
    const pid_t child = fork_client(name, [](ChannelHandle c) {
        // Stays connected until the host has read its credentials.
        char byte;
        return channel_recv(c, &byte, 1, 10000) == ETW_OK ? 0 : 1;
    });
    ASSERT_GT(child, 0);
    ChannelHandle server = kNoChannel;
    PeerCredentials peer;
    ASSERT_EQ(channel_accept(listener, 10000, &server, &peer), ETW_OK);
    EXPECT_EQ(peer.pid, std::uint32_t(child));
    EXPECT_NE(peer.pid, std::uint32_t(getpid()));
    EXPECT_EQ(peer.uid, std::uint32_t(getuid()));
    EXPECT_EQ(peer.gid, std::uint32_t(getgid()));
    const char byte = 1;
    EXPECT_EQ(channel_send(server, &byte, 1, 1000), ETW_OK);
    EXPECT_EQ(wait_exit(child), 0);
    channel_close(&server);
    channel_close(&listener);
}

TEST(Channel, SecondListenerIsRefused)
{
    const std::string name = unique_name("twice");
    ChannelHandle a = kNoChannel, b = 42;
    ASSERT_EQ(channel_listen(name, &a), ETW_OK);
    EXPECT_EQ(channel_listen(name, &b), ETW_ERROR_ALREADY_EXISTS);
    EXPECT_EQ(b, kNoChannel);
    channel_close(&a);
    // The abstract name goes with its socket: free again at once.
    ASSERT_EQ(channel_listen(name, &b), ETW_OK);
    channel_close(&b);
}

TEST(Channel, ConnectWithoutListenerIsFileNotFound)
{
    const std::string name = unique_name("nobody");
    ChannelHandle c = 42;
    EXPECT_EQ(channel_connect(name, &c), ETW_ERROR_FILE_NOT_FOUND);
    EXPECT_EQ(c, kNoChannel);
    // Nor after the listener closed (a host that died).
    ChannelHandle l = kNoChannel;
    ASSERT_EQ(channel_listen(name, &l), ETW_OK);
    channel_close(&l);
    EXPECT_EQ(channel_connect(name, &c), ETW_ERROR_FILE_NOT_FOUND);
}

TEST(Channel, AcceptTimesOut)
{
    ChannelHandle l = kNoChannel, s = 42;
    ASSERT_EQ(channel_listen(unique_name("accept-timeout"), &l), ETW_OK);
    const auto t0 = Clock::now();
    EXPECT_EQ(channel_accept(l, 50, &s, nullptr), ETW_ERROR_TIMEOUT);
    const auto waited = Clock::now() - t0;
    EXPECT_GE(waited, std::chrono::milliseconds(50));
    EXPECT_LT(waited, std::chrono::seconds(5));
    EXPECT_EQ(s, kNoChannel);
    EXPECT_EQ(channel_accept(l, 0, &s, nullptr), ETW_ERROR_TIMEOUT);
    channel_close(&l);
}

TEST(Channel, RecvAndSendTimeOut)
{
    Pair p(unique_name("recv-timeout"));
    char buf[4];
    auto t0 = Clock::now();
    EXPECT_EQ(channel_recv(p.server, buf, sizeof buf, 50), ETW_ERROR_TIMEOUT);
    auto waited = Clock::now() - t0;
    EXPECT_GE(waited, std::chrono::milliseconds(50));
    EXPECT_LT(waited, std::chrono::seconds(5));

    // Nobody reads: the socket buffers fill and the send gives up in time.
    std::vector<char> big(std::size_t(16) << 20, 'x');
    t0 = Clock::now();
    EXPECT_EQ(channel_send(p.client, big.data(), big.size(), 50), ETW_ERROR_TIMEOUT);
    waited = Clock::now() - t0;
    EXPECT_GE(waited, std::chrono::milliseconds(50));
    EXPECT_LT(waited, std::chrono::seconds(5));
}

TEST(Channel, DescriptorTravelsWithMessage)
{
    Pair p(unique_name("fd"));
    const int memfd = memfd_with("region contents");
    ASSERT_GE(memfd, 0);
    const std::uint32_t msg = 7;
    ASSERT_EQ(channel_send(p.server, &msg, sizeof msg, 1000, memfd), ETW_OK);
    close(memfd); // the one in flight is the receiver's now
    std::uint32_t got = 0;
    std::intptr_t fd = -1;
    ASSERT_EQ(channel_recv(p.client, &got, sizeof got, 1000, &fd), ETW_OK);
    EXPECT_EQ(got, msg);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(read_all(int(fd)), "region contents");
    EXPECT_NE(fcntl(int(fd), F_GETFD) & FD_CLOEXEC, 0);
    close(int(fd));
}

TEST(Channel, UnwantedDescriptorsAreClosed)
{
    Pair p(unique_name("fd-leak"));
    const int before = open_fd_count();
    ASSERT_GT(before, 0);

    // Received without a place to put it.
    int memfd = memfd_with("unwanted");
    ASSERT_GE(memfd, 0);
    const std::uint32_t msg = 9;
    ASSERT_EQ(channel_send(p.server, &msg, sizeof msg, 1000, memfd), ETW_OK);
    close(memfd);
    std::uint32_t got = 0;
    ASSERT_EQ(channel_recv(p.client, &got, sizeof got, 1000), ETW_OK);
    EXPECT_EQ(got, msg);
    EXPECT_EQ(open_fd_count(), before);

    // Two messages with a descriptor each, read as one: the first is kept.
    const int first = memfd_with("first");
    const int second = memfd_with("second");
    ASSERT_GE(first, 0);
    ASSERT_GE(second, 0);
    ASSERT_EQ(channel_send(p.server, &msg, sizeof msg, 1000, first), ETW_OK);
    ASSERT_EQ(channel_send(p.server, &msg, sizeof msg, 1000, second), ETW_OK);
    close(first);
    close(second);
    std::uint32_t two[2] = {};
    std::intptr_t fd = -1;
    ASSERT_EQ(channel_recv(p.client, two, sizeof two, 1000, &fd), ETW_OK);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(read_all(int(fd)), "first");
    close(int(fd));
    EXPECT_EQ(open_fd_count(), before);

    // A descriptor whose message never completes is closed too.
    memfd = memfd_with("partial");
    ASSERT_GE(memfd, 0);
    ASSERT_EQ(channel_send(p.server, &msg, sizeof msg, 1000, memfd), ETW_OK);
    close(memfd);
    fd = 42;
    EXPECT_EQ(channel_recv(p.client, two, sizeof two, 50, &fd), ETW_ERROR_TIMEOUT);
    EXPECT_EQ(fd, -1);
    EXPECT_EQ(open_fd_count(), before);
}

TEST(Channel, PeerExitEndsBlockedRecv)
{
    const std::string name = unique_name("exit");
    ChannelHandle listener = kNoChannel, server = kNoChannel;
    ASSERT_EQ(channel_listen(name, &listener), ETW_OK);
    const pid_t child = fork_client(name, [](ChannelHandle c) {
        // Half a message, then gone.
        const char half[2] = {1, 2};
        channel_send(c, half, sizeof half, 1000);
        usleep(100 * 1000);
        return 0;
    });
    ASSERT_GT(child, 0);
    ASSERT_EQ(channel_accept(listener, 10000, &server, nullptr), ETW_OK);
    char buf[8];
    EXPECT_EQ(channel_recv(server, buf, sizeof buf, -1), ETW_ERROR_HANDLE_EOF);
    EXPECT_EQ(wait_exit(child), 0);
    channel_close(&server);
    channel_close(&listener);
}

TEST(Channel, PeerKilledEndsBlockedSendWithoutSigpipe)
{
    const std::string name = unique_name("kill");
    ChannelHandle listener = kNoChannel, server = kNoChannel;
    ASSERT_EQ(channel_listen(name, &listener), ETW_OK);
    const pid_t child = fork_client(name, [](ChannelHandle) {
        for (;;)
            pause(); // reads nothing until killed
        return 0;
    });
    ASSERT_GT(child, 0);
    ASSERT_EQ(channel_accept(listener, 10000, &server, nullptr), ETW_OK);
    std::thread killer([child] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        kill(child, SIGKILL);
    });
    // More than the socket buffers hold: blocks until the child dies.
    std::vector<char> big(std::size_t(8) << 20, 'y');
    EXPECT_EQ(channel_send(server, big.data(), big.size(), -1), ETW_ERROR_HANDLE_EOF);
    killer.join();
    EXPECT_EQ(wait_exit(child), 128 + SIGKILL);
    // And once more on the dead channel, still without SIGPIPE.
    EXPECT_EQ(channel_send(server, big.data(), 16, -1), ETW_ERROR_HANDLE_EOF);
    char byte;
    EXPECT_EQ(channel_recv(server, &byte, 1, -1), ETW_ERROR_HANDLE_EOF);
    channel_close(&server);
    channel_close(&listener);
}

TEST(Channel, ShutdownWakesBlockedRecv)
{
    Pair p(unique_name("shutdown"));
    std::atomic<bool> done{false};
    std::atomic<etw_status> result{ETW_OK};
    std::thread reader([&] {
        char buf[4];
        result = channel_recv(p.server, buf, sizeof buf, -1);
        done = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(done);
    channel_shutdown(p.server);
    const auto t0 = Clock::now();
    while (!done && Clock::now() - t0 < std::chrono::seconds(5))
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(done) << "channel_shutdown did not wake the reader";
    if (!done)
        channel_close(&p.client); // unblock it anyway, to join
    reader.join();
    EXPECT_EQ(result.load(), ETW_ERROR_HANDLE_EOF);
    // The handle stays open until closed; sending on it is EOF.
    const char byte = 0;
    EXPECT_EQ(channel_send(p.server, &byte, 1, 100), ETW_ERROR_HANDLE_EOF);
}

TEST(Channel, InvalidNames)
{
    // sun_path holds 108 bytes: "\0openetw:" takes 9.
    const std::string longest(99, 'n');
    ChannelHandle l = kNoChannel, c = 42;
    ASSERT_EQ(channel_listen(longest, &l), ETW_OK);
    ASSERT_EQ(channel_connect(longest, &c), ETW_OK);
    channel_close(&c);
    channel_close(&l);

    const std::string too_long(100, 'n');
    l = 42;
    EXPECT_EQ(channel_listen(too_long, &l), ETW_ERROR_INVALID_NAME);
    EXPECT_EQ(l, kNoChannel);
    EXPECT_EQ(channel_connect(too_long, &c), ETW_ERROR_INVALID_NAME);
    EXPECT_EQ(c, kNoChannel);

    const std::string with_nul = unique_name("nul") + std::string(1, '\0') + "x";
    EXPECT_EQ(channel_listen(with_nul, &l), ETW_ERROR_INVALID_NAME);
    EXPECT_EQ(channel_connect(with_nul, &c), ETW_ERROR_INVALID_NAME);
}

TEST(Channel, LargeMessageArrivesWhole)
{
    Pair p(unique_name("large"));
    std::vector<std::uint8_t> out(std::size_t(1) << 20), in(out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = std::uint8_t(i * 131 + (i >> 12));
    std::atomic<etw_status> received{ETW_OK};
    std::thread reader([&] { received = channel_recv(p.server, in.data(), in.size(), 10000); });
    EXPECT_EQ(channel_send(p.client, out.data(), out.size(), 10000), ETW_OK);
    reader.join();
    EXPECT_EQ(received.load(), ETW_OK);
    EXPECT_TRUE(in == out);
}

TEST(Channel, BadArguments)
{
    ChannelHandle c = kNoChannel;
    char byte = 0;
    EXPECT_EQ(channel_send(c, &byte, 1, 0), ETW_ERROR_INVALID_HANDLE);
    EXPECT_EQ(channel_recv(c, &byte, 1, 0), ETW_ERROR_INVALID_HANDLE);
    EXPECT_EQ(channel_listen("x", nullptr), ETW_ERROR_INVALID_PARAMETER);
    channel_shutdown(c); // harmless
    channel_close(&c);
    EXPECT_EQ(c, kNoChannel);
}
