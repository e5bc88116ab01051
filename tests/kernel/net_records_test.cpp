// TcpIp and UdpIp records, IPv4 and IPv6, in both layouts, decoded by
// name with exact values; ports and addresses in network byte order.
#include "kernel_etl.hpp"

#include "kernel/net_records.hpp"

#include <gtest/gtest.h>

using namespace openetw::kernel;
using kerneltest::ptr_text;
using kerneltest::Seen;

namespace {

HeaderFields header() { return kerneltest::header_of(11, 22, 0x0123456789AB); }

NetFields v4()
{
    NetFields n;
    n.pid = 4321;
    n.size = 65483;
    n.daddr = {127, 0, 0, 1};
    n.saddr = {10, 1, 2, 3};
    n.dport = 40000;
    n.sport = 22;
    n.startime = 5;
    n.endtime = 6;
    n.seqnum = 77;
    n.connid = 0xFFFFB00012345678ull;
    n.mss = 1460;
    n.sackopt = 1;
    n.tsopt = 1;
    n.wsopt = 1;
    n.rcvwin = 65535;
    n.rcvwinscale = 7;
    n.sndwinscale = -1;
    return n;
}

NetFields v6()
{
    NetFields n = v4();
    n.ipv6 = true;
    n.daddr = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    n.saddr = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 168, 1, 2};
    return n;
}

void expect_system(const Seen &s, std::uint16_t hook, std::uint32_t ptr)
{
    EXPECT_EQ(s.kind, ETW_RECORD_KIND_SYSTEM);
    EXPECT_EQ(s.header_type, ptr == 8 ? 0x02u : 0x01u);
    EXPECT_EQ(s.hook_id, hook);
    EXPECT_EQ(s.version_word, 2u);
    EXPECT_EQ(s.thread_id, 11u);
    EXPECT_EQ(s.process_id, 22u);
    EXPECT_EQ(s.problem, "");
    EXPECT_EQ(s.consumed, s.payload_size) << "the class must account for every payload byte";
}

kerneltest::Pairs head(bool ipv6)
{
    if (ipv6)
        return {{"PID", "4321"},    {"size", "65483"}, {"daddr", "2001:db8::1"}, {"saddr", "::ffff:192.168.1.2"},
                {"dport", "40000"}, {"sport", "22"}};
    return {{"PID", "4321"},       {"size", "65483"},  {"daddr", "127.0.0.1"},
            {"saddr", "10.1.2.3"}, {"dport", "40000"}, {"sport", "22"}};
}

kerneltest::Pairs join(kerneltest::Pairs a, const kerneltest::Pairs &b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST(NetRecords, TcpIpInBothFamiliesAndLayoutsDecodeByName)
{
    const TcpOp ops[] = {TcpOp::Send,       TcpOp::Recv,   TcpOp::Connect,   TcpOp::Disconnect,
                         TcpOp::Retransmit, TcpOp::Accept, TcpOp::Reconnect, TcpOp::TcpCopy};
    const char *v4_names[] = {"SendIPV4",       "RecvIPV4",   "ConnectIPV4",   "DisconnectIPV4",
                              "RetransmitIPV4", "AcceptIPV4", "ReconnectIPV4", "TCPCopyIPV4"};
    const char *v6_names[] = {"SendIPV6",       "RecvIPV6",   "ConnectIPV6",   "DisconnectIPV6",
                              "RetransmitIPV6", "AcceptIPV6", "ReconnectIPV6", "TCPCopyIPV6"};
    for (std::uint32_t ptr : {4u, 8u}) {
        for (bool ipv6 : {false, true}) {
            const NetFields n = ipv6 ? v6() : v4();
            std::vector<Bytes> records;
            for (TcpOp op : ops)
                records.push_back(tcp_record(op, header(), n, ptr));
            const std::vector<Seen> seen = kerneltest::round_trip(records, ptr);
            ASSERT_EQ(seen.size(), 8u);
            const kerneltest::Pairs tail = {{"seqnum", "77"}, {"connid", ptr_text(n.connid, ptr)}};
            for (std::size_t k = 0; k < 8; ++k) {
                SCOPED_TRACE(std::string(ipv6 ? v6_names[k] : v4_names[k]) + " ptr " + std::to_string(ptr));
                expect_system(seen[k], std::uint16_t(0x0600 | tcp_event_type(ops[k], ipv6)), ptr);
                EXPECT_EQ(seen[k].event_name, std::string("TcpIp/") + (ipv6 ? v6_names[k] : v4_names[k]));
                kerneltest::Pairs want = head(ipv6);
                if (ops[k] == TcpOp::Send)
                    want = join(want, {{"startime", "5"}, {"endtime", "6"}});
                if (ops[k] == TcpOp::Connect || ops[k] == TcpOp::Accept)
                    want = join(want, {{"mss", "1460"},
                                       {"sackopt", "1"},
                                       {"tsopt", "1"},
                                       {"wsopt", "1"},
                                       {"rcvwin", "65535"},
                                       {"rcvwinscale", "7"},
                                       {"sndwinscale", "-1"}});
                EXPECT_EQ(seen[k].values, join(want, tail));
            }
        }
    }
    EXPECT_EQ(tcp_event_type(TcpOp::Send, true), 26);
    EXPECT_EQ(tcp_event_type(TcpOp::TcpCopy, true), 34);
}

TEST(NetRecords, UdpIpInBothFamiliesAndLayoutsDecodeByName)
{
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen = kerneltest::round_trip(
            {udp_record(UdpOp::Send, header(), v4(), ptr), udp_record(UdpOp::Recv, header(), v4(), ptr),
             udp_record(UdpOp::Send, header(), v6(), ptr), udp_record(UdpOp::Recv, header(), v6(), ptr)},
            ptr);
        ASSERT_EQ(seen.size(), 4u);
        const std::uint16_t hooks[] = {0x110A, 0x110B, 0x111A, 0x111B};
        const char *names[] = {"UdpIp/SendIPV4", "UdpIp/RecvIPV4", "UdpIp/SendIPV6", "UdpIp/RecvIPV6"};
        for (int k = 0; k < 4; ++k) {
            SCOPED_TRACE(names[k]);
            expect_system(seen[k], hooks[k], ptr);
            EXPECT_EQ(seen[k].event_name, names[k]);
            EXPECT_EQ(seen[k].values, join(head(k >= 2), {{"seqnum", "77"}, {"connid", ptr_text(v4().connid, ptr)}}));
        }
    }
}

// Ports are big-endian and addresses are their bytes, as Windows stores them.
TEST(NetRecords, PortsAndAddressesAreInNetworkOrder)
{
    const Bytes p = tcp_payload(TcpOp::Recv, v4(), 8);
    ASSERT_EQ(p.size(), 4 + 4 + 4 + 4 + 2 + 2 + 4 + 8u);
    EXPECT_EQ(Bytes(p.begin() + 8, p.begin() + 12), (Bytes{127, 0, 0, 1}));
    EXPECT_EQ(Bytes(p.begin() + 12, p.begin() + 16), (Bytes{10, 1, 2, 3}));
    EXPECT_EQ(Bytes(p.begin() + 16, p.begin() + 20), (Bytes{0x9C, 0x40, 0x00, 0x16})); // 40000, 22
    EXPECT_EQ(tcp_payload(TcpOp::Recv, v6(), 4).size(), 4 + 4 + 16 + 16 + 2 + 2 + 4 + 4u);
    EXPECT_EQ(tcp_payload(TcpOp::Connect, v4(), 4).size(), 4 + 4 + 4 + 4 + 2 + 2 + 8 + 4 + 4 + 4 + 4u);
}

// The decoder writes IPv6 addresses as RFC 5952 does: the longest run of
// zero groups (the first of equal ones, two or more) as "::", lower case.
TEST(NetRecords, Ipv6AddressesReadAsRfc5952)
{
    const std::pair<std::array<std::uint8_t, 16>, const char *> rows[] = {
        {{}, "::"},
        {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, "::1"},
        {{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "1::"},
        {{0, 1, 0, 0, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7}, "1:0:2:3:4:5:6:7"},
        {{0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 4}, "1::2:0:0:3:4"},
        {{0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 4}, "1:0:2::3:4"},
        {{0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0xAB, 0xCD, 0, 0, 0, 0, 0x12, 0x34}, "fe80::abcd:0:0:1234"},
    };
    std::vector<Bytes> records;
    for (const auto &[addr, text] : rows) {
        NetFields n = v6();
        n.daddr = addr;
        records.push_back(udp_record(UdpOp::Send, header(), n, 8));
    }
    const std::vector<Seen> seen = kerneltest::round_trip(records, 8);
    ASSERT_EQ(seen.size(), std::size(rows));
    for (std::size_t k = 0; k < seen.size(); ++k)
        EXPECT_EQ(seen[k].value("daddr"), rows[k].second);
}
