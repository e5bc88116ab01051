// UdpDatagrams on synthetic samples and a fake process, the records read
// back by their Windows names: a datagram's peer is the sockaddr its call
// passed (or the kernel wrote back), else the connected socket's; its local
// end the socket's, read once per socket and dropped at close and connect;
// a buffer written again later in the batch gives no address; a socket
// closed later in the batch gives no ends, one connected later its port
// only; read/write datagrams use the socket a socket call named; peeks and
// errors make no record, a 0-byte datagram one; a dual-stack socket's IPv4
// traffic is IPv4; samples past the hold wait; an unconnected send's own
// route lookup (not an interrupt's, of its socket's port, UDP) names its
// destination. And the sockaddr and msghdr parsers.
#include "kernel/udp_datagrams.hpp"
#include "tracepoint_fixtures.hpp"

#include "kernel/socket_addresses.hpp"
#include "kernel_etl.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace openetw::kernel;
using kerneltest::Seen;

namespace {

constexpr std::uint32_t kPid = 900, kTid = 901;
constexpr std::uint64_t kSk = 0xffff888000001000ull, kSk2 = 0xffff888000002000ull;

std::vector<std::uint8_t> sin4(std::array<std::uint8_t, 4> a, std::uint16_t port)
{
    std::vector<std::uint8_t> b(16, 0);
    b[0] = 2;
    b[2] = std::uint8_t(port >> 8);
    b[3] = std::uint8_t(port);
    std::copy(a.begin(), a.end(), b.begin() + 4);
    return b;
}
std::vector<std::uint8_t> sin6(std::array<std::uint8_t, 16> a, std::uint16_t port)
{
    std::vector<std::uint8_t> b(28, 0);
    b[0] = 10;
    b[2] = std::uint8_t(port >> 8);
    b[3] = std::uint8_t(port);
    std::copy(a.begin(), a.end(), b.begin() + 8);
    return b;
}
const std::array<std::uint8_t, 16> kLoop6{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
const std::array<std::uint8_t, 16> kMapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 0, 9};

class Udp : public ::testing::Test {
protected:
    std::map<std::uint64_t, std::vector<std::uint8_t>> memory;                            // by address
    std::map<int, std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>>> socks; // fd: local, peer
    int reads = 0;                                                                        // of socket ends
    UdpDatagrams udp{reader(), 8};
    std::map<std::string, TracepointFormat> formats;
    std::vector<Bytes> out;
    std::uint64_t now = 1000000;

    Udp()
    {
        const std::vector<std::pair<std::string, std::vector<std::string>>> calls = {
            {"sendto", {"fd", "buff", "len", "flags", "addr", "addr_len"}},
            {"recvfrom", {"fd", "ubuf", "size", "flags", "addr", "addr_len"}},
            {"sendmsg", {"fd", "msg", "flags"}},
            {"recvmsg", {"fd", "msg", "flags"}},
            {"recvmmsg", {"fd", "mmsg", "vlen", "flags", "timeout"}},
            {"connect", {"fd", "uservaddr", "addrlen"}},
            {"close", {"fd"}}};
        std::uint32_t id = 100;
        for (const auto &[call, args] : calls) {
            formats["sys_enter_" + call] = kerneltest::syscall_format("sys_enter_" + call, id++, args);
            formats["sys_exit_" + call] = kerneltest::syscall_format("sys_exit_" + call, id++, {"ret"});
        }
        formats["send"] = kerneltest::load_format("sock_send_length.format");
        formats["fib"] = kerneltest::load_format("fib_table_lookup.format");
        formats["fib6"] = kerneltest::load_format("fib6_table_lookup.format");
        formats["recv"] = kerneltest::load_format("sock_recv_length.format");
    }
    SocketReader reader()
    {
        SocketReader r;
        r.memory = [this](std::uint32_t, std::uint64_t a, std::size_t n, std::vector<std::uint8_t> *o) {
            const auto i = memory.find(a);
            if (i == memory.end() || i->second.size() < n)
                return false;
            o->assign(i->second.begin(), i->second.begin() + std::ptrdiff_t(n));
            return true;
        };
        r.ends = [this](std::uint32_t, int fd, std::vector<std::uint8_t> *local, std::vector<std::uint8_t> *peer) {
            ++reads;
            const auto i = socks.find(fd);
            return i != socks.end() && (*local = i->second.first, *peer = i->second.second, true);
        };
        r.alive = [](std::uint32_t) { return true; };
        return r;
    }
    void call(const std::string &tracepoint, const std::vector<std::int64_t> &args)
    {
        Bytes raw(16 + 8 * args.size(), 0);
        for (std::size_t i = 0; i < args.size(); ++i)
            for (int b = 0; b < 8; ++b)
                raw[16 + 8 * i + b] = std::uint8_t(std::uint64_t(args[i]) >> (8 * b));
        add(formats.at(tracepoint), raw);
    }
    // sock_send_length / sock_recv_length: sk, family, protocol, ret, flags.
    void length(bool send, std::uint64_t sk, std::uint16_t family, std::int32_t ret, std::int32_t flags = 0,
                std::uint16_t protocol = 17)
    {
        Bytes raw(28, 0);
        for (int b = 0; b < 8; ++b)
            raw[8 + b] = std::uint8_t(sk >> (8 * b));
        raw[16] = std::uint8_t(family);
        raw[18] = std::uint8_t(protocol);
        for (int b = 0; b < 4; ++b) {
            raw[20 + b] = std::uint8_t(std::uint32_t(ret) >> (8 * b));
            raw[24 + b] = std::uint8_t(std::uint32_t(flags) >> (8 * b));
        }
        add(formats.at(send ? "send" : "recv"), raw);
    }
    // A route lookup (fib_table_lookup's or fib6_table_lookup's layout) of
    // this thread, or of an interrupt on its time (common_flags).
    void route(bool v6, const std::vector<std::uint8_t> &dst, std::uint16_t sport, std::uint16_t dport,
               std::uint8_t proto = 17, std::uint8_t common_flags = 0)
    {
        const TracepointFormat &f = formats.at(v6 ? "fib6" : "fib");
        Bytes raw(f.fixed_size(), 0);
        raw[2] = common_flags;
        const auto at = [&](const char *name) { return f.find(name)->offset; };
        std::copy(dst.begin(), dst.end(), raw.begin() + at("dst"));
        raw[at("sport")] = std::uint8_t(sport), raw[at("sport") + 1] = std::uint8_t(sport >> 8);
        raw[at("dport")] = std::uint8_t(dport), raw[at("dport") + 1] = std::uint8_t(dport >> 8);
        raw[at("proto")] = proto;
        add(f, raw);
    }
    void add(const TracepointFormat &f, const Bytes &raw)
    {
        TracepointSample s;
        s.pid = kPid;
        s.tid = kTid;
        s.cpu = 1;
        s.time = now += 1000;
        s.raw = raw;
        udp.add(f, s);
    }
    // sendto(fd, size bytes, addr) with its datagram.
    void sendto(int fd, std::uint64_t sk, std::int64_t addr, std::int32_t size, std::uint16_t family = 2)
    {
        call("sys_enter_sendto", {fd, 0x5000, size, 0, addr, 16});
        length(true, sk, family, size);
        call("sys_exit_sendto", {size});
    }
    void recvfrom(int fd, std::uint64_t sk, std::int64_t addr, std::int32_t size)
    {
        call("sys_enter_recvfrom", {fd, 0x5000, 2048, 0, addr, 0x6000});
        length(false, sk, 2, size);
        call("sys_exit_recvfrom", {size});
    }
    void flush(std::uint64_t hold = UINT64_MAX)
    {
        udp.flush(PerfClock{}, hold, [this](std::uint32_t, std::int64_t, Bytes &&r, std::span<const std::uint64_t>) {
            out.push_back(std::move(r));
        });
    }
    std::vector<Seen> seen() const { return kerneltest::round_trip(out, 8); }
};

} // namespace

TEST(SocketAddresses, ParseSockaddrsAndMessageHeaders)
{
    const auto v4 = parse_sockaddr(sin4({127, 0, 0, 1}, 5353));
    ASSERT_TRUE(v4.has_value());
    EXPECT_FALSE(v4->ipv6);
    EXPECT_EQ(v4->port, 5353);
    EXPECT_EQ(v4->addr[0], 127);
    EXPECT_EQ(v4->addr[3], 1);
    const auto v6 = parse_sockaddr(sin6(kLoop6, 53));
    ASSERT_TRUE(v6.has_value());
    EXPECT_TRUE(v6->ipv6);
    EXPECT_EQ(v6->port, 53);
    EXPECT_EQ(v6->addr, kLoop6);
    EXPECT_FALSE(is_v4_mapped(*v6));
    auto unix_sa = sin4({1, 2, 3, 4}, 1);
    unix_sa[0] = 1; // AF_UNIX
    EXPECT_FALSE(parse_sockaddr(unix_sa).has_value());
    const auto whole = sin6(kLoop6, 1);
    EXPECT_FALSE(parse_sockaddr(std::span(whole.data(), 20)).has_value()) << "a sockaddr_in6 cut short";
    const auto mapped = parse_sockaddr(sin6(kMapped, 7));
    ASSERT_TRUE(mapped && is_v4_mapped(*mapped));
    const Endpoint m = unmapped(*mapped);
    EXPECT_FALSE(m.ipv6);
    EXPECT_EQ(m.addr[0], 10);
    EXPECT_EQ(m.addr[3], 9);
    EXPECT_EQ(m.port, 7);
    EXPECT_TRUE(is_wildcard(*parse_sockaddr(sin4({0, 0, 0, 0}, 9))));
    EXPECT_FALSE(is_wildcard(*v4));
    // struct msghdr: 56 bytes (64-bit), 28 (32-bit); struct mmsghdr 64, 32.
    EXPECT_EQ(msghdr_size(8), 56u);
    EXPECT_EQ(mmsghdr_size(8), 64u);
    EXPECT_EQ(msghdr_size(4), 28u);
    EXPECT_EQ(mmsghdr_size(4), 32u);
    std::vector<std::uint8_t> hdr(56, 0);
    hdr[0] = 0x10, hdr[1] = 0x70, hdr[8] = 28;
    const auto name = parse_msg_name(hdr, 8);
    ASSERT_TRUE(name.has_value());
    EXPECT_EQ(name->name, 0x7010u);
    EXPECT_EQ(name->namelen, 28u);
    std::vector<std::uint8_t> hdr32(28, 0);
    hdr32[0] = 0x10, hdr32[4] = 16;
    EXPECT_EQ(parse_msg_name(hdr32, 4)->namelen, 16u);
    EXPECT_FALSE(parse_msg_name(std::vector<std::uint8_t>(10, 0), 8).has_value());
}

TEST_F(Udp, ASendCarriesThePeerItNamedAndTheSocketsLocalEndReadOnce)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), {}};
    memory[0x7000] = sin4({127, 0, 0, 2}, 53);
    memory[0x7100] = sin4({127, 0, 0, 3}, 54);
    sendto(5, kSk, 0x7000, 100);
    sendto(5, kSk, 0x7100, 101);
    flush();
    EXPECT_EQ(reads, 1) << "the socket's ends read once, not per datagram";
    // Closed, the descriptor made anew for another socket: read again.
    call("sys_enter_close", {5});
    flush();
    socks[5] = {sin4({127, 0, 0, 1}, 40001), {}};
    sendto(5, kSk2, 0x7100, 102);
    flush();
    EXPECT_EQ(reads, 2);
    const auto s = seen();
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].event_name, "UdpIp/SendIPV4");
    EXPECT_TRUE(s[0].problem.empty()) << s[0].problem;
    EXPECT_EQ(s[0].value("PID"), std::to_string(kPid));
    EXPECT_EQ(s[0].process_id, kPid);
    EXPECT_EQ(s[0].thread_id, kTid);
    EXPECT_EQ(s[0].value("size"), "100");
    EXPECT_EQ(s[0].value("saddr"), "127.0.0.1");
    EXPECT_EQ(s[0].value("sport"), "40000");
    EXPECT_EQ(s[0].value("daddr"), "127.0.0.2");
    EXPECT_EQ(s[0].value("dport"), "53");
    EXPECT_EQ(s[0].value("seqnum"), "0");
    EXPECT_EQ(s[1].value("daddr"), "127.0.0.3");
    EXPECT_EQ(s[1].value("connid"), s[0].value("connid")) << "one socket, one connid";
    EXPECT_EQ(s[2].value("sport"), "40001");
    EXPECT_NE(s[2].value("connid"), s[0].value("connid"));
}

TEST_F(Udp, ABufferWrittenAgainLaterInTheBatchGivesNoAddress)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), {}};
    memory[0x7000] = sin4({127, 0, 0, 2}, 60); // the second send's by now
    sendto(5, kSk, 0x7000, 100);
    sendto(5, kSk, 0x7000, 101);
    // Receives: a later one that got nothing (EAGAIN) leaves the buffer as
    // the kernel wrote it; one that got a datagram overwrites it.
    memory[0x7200] = sin4({127, 0, 0, 4}, 61);
    recvfrom(5, kSk, 0x7200, 200);
    call("sys_enter_recvfrom", {5, 0x5000, 2048, 0, 0x7200, 0x6000});
    call("sys_exit_recvfrom", {-11});
    memory[0x7300] = sin4({127, 0, 0, 5}, 62);
    recvfrom(5, kSk, 0x7300, 300);
    recvfrom(5, kSk, 0x7300, 301);
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s[0].value("dport"), "0") << "the buffer holds the next send's address";
    EXPECT_EQ(s[0].value("daddr"), "0.0.0.0");
    EXPECT_EQ(s[0].value("sport"), "40000") << "the socket's end is still known";
    EXPECT_EQ(s[1].value("dport"), "60");
    EXPECT_EQ(s[2].event_name, "UdpIp/RecvIPV4");
    EXPECT_EQ(s[2].value("dport"), "61") << "a receive that got nothing wrote nothing";
    EXPECT_EQ(s[2].value("daddr"), "127.0.0.4");
    EXPECT_EQ(s[3].value("dport"), "0");
    EXPECT_EQ(s[4].value("dport"), "62");
}

TEST_F(Udp, ASocketClosedLaterHasNoEndsOneConnectedLaterItsPortOnly)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), sin4({127, 0, 0, 8}, 99)};
    socks[6] = {sin4({127, 0, 0, 1}, 41000), sin4({127, 0, 0, 9}, 98)};
    sendto(5, kSk, 0, 100); // send() on a connected socket: no address passed
    call("sys_enter_close", {5});
    sendto(6, kSk2, 0, 101);
    call("sys_enter_connect", {6, 0x7000, 16});
    call("sys_exit_connect", {0});
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].value("sport"), "0") << "descriptor 5 may name another socket by now";
    EXPECT_EQ(s[0].value("dport"), "0");
    EXPECT_EQ(s[1].value("sport"), "41000");
    EXPECT_EQ(s[1].value("saddr"), "0.0.0.0");
    EXPECT_EQ(s[1].value("dport"), "0") << "its peer now is the connect's";
    // Unchanged since, a connected socket's peer is the datagram's.
    out.clear();
    sendto(6, kSk2, 0, 102);
    flush();
    ASSERT_EQ(seen().size(), 1u);
    EXPECT_EQ(seen()[0].value("daddr"), "127.0.0.9");
    EXPECT_EQ(seen()[0].value("dport"), "98");
}

TEST_F(Udp, ReadAndWriteDatagramsUseTheSocketASocketCallNamed)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), sin4({127, 0, 0, 8}, 99)};
    sendto(5, kSk, 0, 100);
    length(true, kSk, 2, 110);  // write(): no socket call around it
    length(false, kSk, 2, 120); // read()
    length(true, kSk2, 2, 130); // a socket never named by a call
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[1].event_name, "UdpIp/SendIPV4");
    EXPECT_EQ(s[1].value("size"), "110");
    EXPECT_EQ(s[1].value("dport"), "99");
    EXPECT_EQ(s[1].value("sport"), "40000");
    EXPECT_EQ(s[2].event_name, "UdpIp/RecvIPV4");
    EXPECT_EQ(s[2].value("daddr"), "127.0.0.8") << "the remote end is daddr both ways";
    EXPECT_EQ(s[2].value("saddr"), "127.0.0.1");
    EXPECT_EQ(s[3].value("dport"), "0");
    EXPECT_EQ(s[3].value("sport"), "0");
    EXPECT_NE(s[3].value("connid"), s[0].value("connid"));
    EXPECT_EQ(reads, 1);
}

TEST_F(Udp, PeeksErrorsAndTcpMakeNoRecordAnEmptyDatagramOne)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), sin4({127, 0, 0, 8}, 99)};
    sendto(5, kSk, 0, 0);
    call("sys_enter_recvfrom", {5, 0x5000, 2048, 2 /* MSG_PEEK */, 0, 0});
    length(false, kSk, 2, 50, 2);
    call("sys_exit_recvfrom", {50});
    call("sys_enter_sendto", {5, 0x5000, 60, 0, 0, 0});
    length(true, kSk, 2, -111);
    call("sys_exit_sendto", {-111});
    length(true, kSk, 2, 70, 0, 6); // TCP's
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].value("size"), "0");
}

TEST_F(Udp, RecvmmsgGivesEachMessageItsSource)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), {}};
    // Two struct mmsghdr (64 bytes each) naming their sockaddrs.
    std::vector<std::uint8_t> msgs(128, 0);
    for (int i = 0; i < 2; ++i) {
        const std::uint64_t name = 0x9000 + 0x100 * std::uint64_t(i);
        for (int b = 0; b < 8; ++b)
            msgs[std::size_t(64 * i + b)] = std::uint8_t(name >> (8 * b));
        msgs[std::size_t(64 * i + 8)] = 16;
        memory[name] = sin4({127, 0, 0, std::uint8_t(20 + i)}, std::uint16_t(7000 + i));
    }
    memory[0x8040] = std::vector<std::uint8_t>(msgs.begin() + 64, msgs.end());
    memory[0x8000] = msgs;
    call("sys_enter_recvmmsg", {5, 0x8000, 2, 0, 0});
    length(false, kSk, 2, 300);
    length(false, kSk, 2, 301);
    call("sys_exit_recvmmsg", {2});
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].value("daddr"), "127.0.0.20");
    EXPECT_EQ(s[0].value("dport"), "7000");
    EXPECT_EQ(s[1].value("daddr"), "127.0.0.21");
    EXPECT_EQ(s[1].value("dport"), "7001");
}

TEST_F(Udp, ADualStackSocketsIpv4TrafficIsIpv4AndIpv6StaysIpv6)
{
    socks[5] = {sin6({}, 40000), {}}; // bound to [::]:40000
    memory[0x7000] = sin6(kMapped, 53);
    memory[0x7100] = sin6(kLoop6, 54);
    sendto(5, kSk, 0x7000, 100, 10);
    sendto(5, kSk, 0x7100, 101, 10);
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].event_name, "UdpIp/SendIPV4");
    EXPECT_EQ(s[0].value("daddr"), "10.0.0.9");
    EXPECT_EQ(s[0].value("saddr"), "0.0.0.0") << "the wildcard: the datagram's own source is not known";
    EXPECT_EQ(s[0].value("sport"), "40000");
    EXPECT_EQ(s[1].event_name, "UdpIp/SendIPV6");
    EXPECT_EQ(s[1].value("daddr"), "::1");
    EXPECT_EQ(s[1].value("saddr"), "::");
}

TEST_F(Udp, SamplesPastTheHoldWaitForTheNextFlush)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), {}};
    memory[0x7000] = sin4({127, 0, 0, 2}, 60);
    sendto(5, kSk, 0x7000, 100);
    const std::uint64_t hold = now;
    sendto(5, kSk, 0x7000, 101); // the same buffer, past the hold
    flush(hold);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(seen()[0].value("dport"), "0") << "the later use is seen though not yet made";
    flush();
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(seen()[1].value("dport"), "60");
}

TEST_F(Udp, AnUnconnectedSendsRouteLookupNamesItsDestination)
{
    socks[5] = {sin4({127, 0, 0, 1}, 40000), {}};
    memory[0x7000] = sin4({127, 0, 0, 2}, 60); // one buffer for all: the last send's by now
    const auto send = [&](std::int32_t size, const std::function<void()> &lookups) {
        call("sys_enter_sendto", {5, 0x5000, size, 0, 0x7000, 16});
        lookups();
        length(true, kSk, 2, size);
        call("sys_exit_sendto", {size});
    };
    send(100, [&] {
        route(false, {10, 0, 0, 7}, 40000, 53);
        route(false, {192, 0, 2, 1}, 51234, 4789); // then a tunnel's outer flow (VXLAN) in the same call
    });
    send(101, [&] { route(false, {10, 0, 0, 8}, 40000, 54, 17, 0x10); }); // a softirq's on its time
    send(102, [&] { route(false, {10, 0, 0, 9}, 41234, 55); });           // another socket's port
    send(103, [&] { route(false, {10, 0, 0, 10}, 40000, 56, 6); });       // TCP's
    send(104, [&] { route(false, {127, 0, 0, 2}, 40000, 60); });
    flush();
    const auto s = seen();
    ASSERT_EQ(s.size(), 5u);
    EXPECT_EQ(s[0].value("daddr"), "10.0.0.7");
    EXPECT_EQ(s[0].value("dport"), "53") << "the route, though the buffer was written again";
    for (int i : {1, 2, 3})
        EXPECT_EQ(s[std::size_t(i)].value("dport"), "0") << "no route of this send; its buffer written again";
    EXPECT_EQ(s[4].value("dport"), "60");
    // IPv6: fib6_table_lookup.
    out.clear();
    socks[6] = {sin6(kLoop6, 41000), {}};
    call("sys_enter_sendto", {6, 0x5000, 200, 0, 0, 0});
    route(true, std::vector<std::uint8_t>(kLoop6.begin(), kLoop6.end()), 41000, 5353);
    length(true, kSk2, 10, 200);
    call("sys_exit_sendto", {200});
    flush();
    ASSERT_EQ(seen().size(), 1u);
    EXPECT_EQ(seen()[0].event_name, "UdpIp/SendIPV6");
    EXPECT_EQ(seen()[0].value("daddr"), "::1");
    EXPECT_EQ(seen()[0].value("dport"), "5353");
}

TEST_F(Udp, ASocketClosedBeforeTheDrainHasThePeerItsConnectNamed)
{
    // A resolver's socket: connect, send, receive, close, all before the drain.
    memory[0x7400] = sin4({127, 0, 0, 53}, 53);
    call("sys_enter_connect", {7, 0x7400, 16});
    call("sys_enter_sendto", {7, 0x5000, 40, 0, 0, 0});
    length(true, kSk, 2, 40);
    call("sys_exit_sendto", {40});
    call("sys_enter_recvfrom", {7, 0x5000, 512, 0, 0, 0});
    length(false, kSk, 2, 90);
    call("sys_exit_recvfrom", {90});
    call("sys_enter_close", {7});
    // Another, whose connect's buffer the next connect writes again.
    memory[0x7500] = sin4({127, 0, 0, 54}, 54);
    call("sys_enter_connect", {8, 0x7500, 16});
    call("sys_enter_sendto", {8, 0x5000, 41, 0, 0, 0});
    length(true, kSk2, 2, 41);
    call("sys_exit_sendto", {41});
    call("sys_enter_close", {8});
    call("sys_enter_connect", {9, 0x7500, 16});
    call("sys_enter_close", {9});
    flush();
    EXPECT_EQ(reads, 0) << "closed: the descriptors are not read";
    const auto s = seen();
    ASSERT_EQ(s.size(), 3u);
    for (std::size_t i : {0u, 1u}) {
        EXPECT_EQ(s[i].value("daddr"), "127.0.0.53") << i;
        EXPECT_EQ(s[i].value("dport"), "53") << i;
        EXPECT_EQ(s[i].value("sport"), "0") << "its own end went with it";
    }
    EXPECT_EQ(s[2].value("dport"), "0") << "the connect's buffer was written again";
}
