// NETWORK_TCPIP's UdpIp records, live (root): datagrams of known sizes
// over loopback, IPv4 and IPv6, sent and received with sendto/recvfrom
// (each with an address buffer of its own), send/recv and write/read on
// connected sockets, and sendmmsg/recvmmsg; each record's size, ends and
// PID. And the rules that an unconnected send's route lookup names its
// destination, and that a receive's buffer the program passed again before
// the drain gives no address (its bytes are the later call's by then).
#include "system_logger_live.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <array>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using kerneltest::Seen;
using namespace syslogtest;

// A UDP socket bound to the loopback address of family, on a port of its own.
struct Udp {
    int fd = -1;
    sockaddr_storage addr{};
    socklen_t len = 0;
    int port = 0;
    explicit Udp(int family)
    {
        fd = ::socket(family, SOCK_DGRAM, 0);
        if (family == AF_INET) {
            auto *a = reinterpret_cast<sockaddr_in *>(&addr);
            a->sin_family = AF_INET;
            a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            len = sizeof(sockaddr_in);
        } else {
            auto *a = reinterpret_cast<sockaddr_in6 *>(&addr);
            a->sin6_family = AF_INET6;
            a->sin6_addr = in6addr_loopback;
            len = sizeof(sockaddr_in6);
        }
        EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr *>(&addr), len), 0);
        ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len);
        port = ntohs(family == AF_INET ? reinterpret_cast<sockaddr_in *>(&addr)->sin_port
                                       : reinterpret_cast<sockaddr_in6 *>(&addr)->sin6_port);
    }
    ~Udp() { ::close(fd); }
    const sockaddr *sa() const { return reinterpret_cast<const sockaddr *>(&addr); }
};

// What one record should say, found by its event and size (each datagram's
// size is unique in a test).
struct Expected {
    std::string event;
    int size;
    int sport, dport;
};

void check(const std::vector<Seen> &seen, const std::vector<Expected> &want, const std::string &loopback)
{
    std::map<std::pair<std::string, long long>, std::vector<const Seen *>> by_size;
    for (const Seen &r : seen)
        if (r.event_name.rfind("UdpIp/", 0) == 0 && number(r, "PID") == ::getpid())
            by_size[{r.event_name, number(r, "size")}].push_back(&r);
    for (const Expected &e : want) {
        const auto &found = by_size[{e.event, e.size}];
        ASSERT_EQ(found.size(), 1u) << e.event << " of " << e.size << " bytes";
        const Seen &r = *found.front();
        EXPECT_TRUE(r.problem.empty()) << r.problem;
        EXPECT_EQ(r.process_id, std::uint32_t(::getpid()));
        EXPECT_EQ(r.value("saddr"), loopback) << e.event << " of " << e.size;
        EXPECT_EQ(r.value("daddr"), loopback) << e.event << " of " << e.size;
        EXPECT_EQ(number(r, "sport"), e.sport) << e.event << " of " << e.size;
        EXPECT_EQ(number(r, "dport"), e.dport) << e.event << " of " << e.size;
        EXPECT_NE(number(r, "connid"), 0) << e.event << " of " << e.size;
    }
}

// The memory the calls name, alive until the session's last drain has
// read it: a deque's elements stay where they are as it grows.
struct Buffers {
    std::deque<sockaddr_storage> addrs;
    std::deque<std::vector<mmsghdr>> messages;
    std::deque<iovec> iovs;
    std::deque<std::array<char, 2048>> data;
};

// Sends and receives over loopback in family, each way of calling; returns
// what each record should say. The sockets live in *keep until the
// session stops (closed before the drain, their ends would be unknown).
std::vector<Expected> exchange(int family, int base, std::vector<std::unique_ptr<Udp>> *keep, Buffers *b)
{
    const std::string send = family == AF_INET ? "UdpIp/SendIPV4" : "UdpIp/SendIPV6";
    const std::string recv = family == AF_INET ? "UdpIp/RecvIPV4" : "UdpIp/RecvIPV6";
    auto &tx = *keep->emplace_back(std::make_unique<Udp>(family));
    auto &rx = *keep->emplace_back(std::make_unique<Udp>(family));
    std::vector<Expected> want;
    char data[2048] = {};
    // Unconnected: sendto and recvfrom, an address buffer each.
    constexpr int kEach = 4;
    for (int i = 0; i < kEach; ++i) {
        sockaddr_storage &to = b->addrs.emplace_back(rx.addr);
        EXPECT_EQ(::sendto(tx.fd, data, std::size_t(base + i), 0, reinterpret_cast<sockaddr *>(&to), rx.len), base + i);
        want.push_back({send, base + i, tx.port, rx.port});
    }
    for (int i = 0; i < kEach; ++i) {
        sockaddr_storage &from = b->addrs.emplace_back();
        socklen_t len = sizeof from;
        EXPECT_EQ(::recvfrom(rx.fd, data, sizeof data, 0, reinterpret_cast<sockaddr *>(&from), &len), base + i);
        want.push_back({recv, base + i, rx.port, tx.port});
    }
    // Unconnected too: sendmmsg and recvmmsg, a message header and address each.
    std::vector<mmsghdr> &out = b->messages.emplace_back(kEach), &in = b->messages.emplace_back(kEach);
    for (int i = 0; i < kEach; ++i) {
        out[i] = {};
        out[i].msg_hdr.msg_iov = &b->iovs.emplace_back(iovec{data, std::size_t(base + 300 + i)});
        out[i].msg_hdr.msg_iovlen = 1;
        out[i].msg_hdr.msg_name = &b->addrs.emplace_back(rx.addr);
        out[i].msg_hdr.msg_namelen = rx.len;
        in[i] = {};
        auto &buf = b->data.emplace_back();
        in[i].msg_hdr.msg_iov = &b->iovs.emplace_back(iovec{buf.data(), buf.size()});
        in[i].msg_hdr.msg_iovlen = 1;
        in[i].msg_hdr.msg_name = &b->addrs.emplace_back();
        in[i].msg_hdr.msg_namelen = sizeof(sockaddr_storage);
        want.push_back({send, base + 300 + i, tx.port, rx.port});
        want.push_back({recv, base + 300 + i, rx.port, tx.port});
    }
    EXPECT_EQ(::sendmmsg(tx.fd, out.data(), kEach, 0), kEach);
    for (int received = 0; received < kEach;) {
        const int n = ::recvmmsg(rx.fd, in.data() + received, unsigned(kEach - received), 0, nullptr);
        EXPECT_GT(n, 0);
        if (n <= 0)
            break;
        received += n;
    }
    // Connected (two sockets of their own): send/recv (no address passed),
    // then write/read (no socket call at all).
    auto &ctx = *keep->emplace_back(std::make_unique<Udp>(family));
    auto &crx = *keep->emplace_back(std::make_unique<Udp>(family));
    EXPECT_EQ(::connect(ctx.fd, crx.sa(), crx.len), 0);
    EXPECT_EQ(::connect(crx.fd, ctx.sa(), ctx.len), 0);
    for (int i = 0; i < kEach; ++i) {
        const int n = base + 100 + i;
        EXPECT_EQ(::send(ctx.fd, data, std::size_t(n), 0), n);
        EXPECT_EQ(::recv(crx.fd, data, sizeof data, 0), n);
        want.push_back({send, n, ctx.port, crx.port});
        want.push_back({recv, n, crx.port, ctx.port});
    }
    for (int i = 0; i < kEach; ++i) {
        const int n = base + 200 + i;
        EXPECT_EQ(::write(ctx.fd, data, std::size_t(n)), n);
        EXPECT_EQ(::read(crx.fd, data, sizeof data), n);
        want.push_back({send, n, ctx.port, crx.port});
        want.push_back({recv, n, crx.port, ctx.port});
    }
    return want;
}

TEST(SystemLogger, UdpIpRecordsEachDatagramWithItsEndsAndProcess)
{
    const std::string file = temp_file("openetw-syslog-udp");
    Props props("OpenETW system logger udp " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_NETWORK_TCPIP), ETW_OK) << etw_last_error_message();
    std::vector<std::unique_ptr<Udp>> keep;
    Buffers buffers;
    const std::vector<Expected> v4 = exchange(AF_INET, 100, &keep, &buffers);
    const std::vector<Expected> v6 = exchange(AF_INET6, 1100, &keep, &buffers);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    keep.clear();
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);
    check(seen, v4, "127.0.0.1");
    check(seen, v6, "::1");
}

// One address buffer passed to several calls before the drain holds the
// last call's address by then. Sends do not need it: each unconnected
// send's route lookup names its destination. Receives do: the earlier
// datagrams get no address (zeros), never the later one's.
void reuse(int family, const std::string &loopback)
{
    const std::string file = temp_file("openetw-syslog-udp-reuse");
    Props props("OpenETW system logger udp reuse " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_NETWORK_TCPIP), ETW_OK) << etw_last_error_message();
    constexpr int kPeers = 4;
    std::vector<std::unique_ptr<Udp>> peers;
    Udp hub(family);
    char data[1024] = {};
    static sockaddr_storage one; // every sendto's, then every recvfrom's
    std::map<int, int> port_of;  // size: the port the datagram went to or came from
    for (int i = 0; i < kPeers; ++i) {
        peers.push_back(std::make_unique<Udp>(family));
        one = peers.back()->addr;
        ASSERT_EQ(::sendto(hub.fd, data, std::size_t(600 + i), 0, reinterpret_cast<sockaddr *>(&one), hub.len),
                  600 + i);
        port_of[600 + i] = peers.back()->port;
    }
    for (int i = 0; i < kPeers; ++i)
        ASSERT_EQ(::sendto(peers[i]->fd, data, std::size_t(700 + i), 0, hub.sa(), hub.len), 700 + i);
    const auto started = std::chrono::steady_clock::now();
    for (int i = 0; i < kPeers; ++i) {
        socklen_t len = sizeof one;
        ASSERT_EQ(::recvfrom(hub.fd, data, sizeof data, 0, reinterpret_cast<sockaddr *>(&one), &len), 700 + i);
        port_of[700 + i] = peers[i]->port;
    }
    // Within the logger's hold-back (9 ms), each receive's next is read in the same drain.
    const bool together = std::chrono::steady_clock::now() - started < std::chrono::milliseconds(8);
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);
    const std::string v = family == AF_INET ? "IPV4" : "IPV6";
    int sends = 0, zeros = 0, right = 0;
    for (const Seen &r : seen) {
        const long long size = number(r, "size");
        if (number(r, "PID") != ::getpid() || !port_of.count(int(size)) ||
            r.event_name != (size < 700 ? "UdpIp/Send" : "UdpIp/Recv") + v)
            continue;
        const long long port = number(r, "dport");
        EXPECT_EQ(number(r, "sport"), hub.port) << "the socket's own end is known";
        if (size < 700) {
            ++sends;
            EXPECT_EQ(port, port_of[int(size)]) << "the send of " << size << " bytes: its route's port";
            EXPECT_EQ(r.value("daddr"), loopback);
            continue;
        }
        EXPECT_TRUE(port == 0 || port == port_of[int(size)])
            << "the receive of " << size << " bytes names port " << port << ", not " << port_of[int(size)];
        zeros += port == 0;
        right += port == port_of[int(size)];
    }
    EXPECT_EQ(sends, kPeers);
    EXPECT_EQ(zeros + right, kPeers) << "a record of each datagram received";
    if (together) { // else a receive may have been made before the next one (its address then known)
        EXPECT_GE(zeros, kPeers - 1) << "the buffer was written again after all but the last";
    }
}

TEST(SystemLogger, UdpIpSendsTakeTheirRouteReceivesNoAddressFromABufferUsedAgain)
{
    reuse(AF_INET, "127.0.0.1");
    reuse(AF_INET6, "::1");
}

// A resolver's socket: connected, one query and its answer, closed, all
// before the drain reads it: the peer is the address its connect passed;
// its own end went with it (zeros).
TEST(SystemLogger, UdpIpAShortLivedConnectedSocketHasThePeerItsConnectNamed)
{
    const std::string file = temp_file("openetw-syslog-udp-short");
    Props props("OpenETW system logger udp short " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_NETWORK_TCPIP), ETW_OK) << etw_last_error_message();
    Udp server4(AF_INET), server6(AF_INET6);
    char data[512] = {};
    for (Udp *server : {&server4, &server6}) {
        const int family = server == &server4 ? AF_INET : AF_INET6;
        const int base = family == AF_INET ? 40 : 60;
        const int c = ::socket(family, SOCK_DGRAM, 0);
        ASSERT_EQ(::connect(c, server->sa(), server->len), 0);
        ASSERT_EQ(::send(c, data, std::size_t(base), 0), base);
        sockaddr_storage from{};
        socklen_t len = sizeof from;
        ASSERT_EQ(::recvfrom(server->fd, data, sizeof data, 0, reinterpret_cast<sockaddr *>(&from), &len), base);
        ASSERT_EQ(::sendto(server->fd, data, std::size_t(base + 1), 0, reinterpret_cast<sockaddr *>(&from), len),
                  base + 1);
        ASSERT_EQ(::recv(c, data, sizeof data, 0), base + 1);
        ::close(c);
    }
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    const std::vector<Seen> seen = read_back(file);
    std::filesystem::remove(file);
    const struct {
        const char *event;
        int size;
        const Udp &server;
        const char *loopback;
    } want[] = {{"UdpIp/SendIPV4", 40, server4, "127.0.0.1"},
                {"UdpIp/RecvIPV4", 41, server4, "127.0.0.1"},
                {"UdpIp/SendIPV6", 60, server6, "::1"},
                {"UdpIp/RecvIPV6", 61, server6, "::1"}};
    for (const auto &w : want) {
        const auto found = named(seen, w.event, "size", w.size);
        std::vector<const Seen *> mine;
        for (const Seen *r : found)
            if (number(*r, "PID") == ::getpid() && number(*r, "connid") != 0 &&
                number(*r, "sport") != w.server.port) // the client's, not the server's
                mine.push_back(r);
        ASSERT_EQ(mine.size(), 1u) << w.event << " of " << w.size;
        EXPECT_EQ(mine[0]->value("daddr"), w.loopback) << w.event;
        EXPECT_EQ(number(*mine[0], "dport"), w.server.port) << w.event;
    }
}

} // namespace
