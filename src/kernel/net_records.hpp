// Network records: TcpIp (group 0x06) and UdpIp (group 0x11), IPv4 and
// IPv6, event version 2 (the Vista-and-later classes TcpIp_SendIPV4,
// TcpIp_TypeGroup1-4, UdpIp_TypeGroup1-2). Addresses are written as the
// bytes of the address in network order and ports big-endian, as Windows
// stores them (the MOF extensions IPAddrV4/IPAddrV6/Port).
//
// Header: a SYSTEM_TRACE_HEADER carrying the thread and process current
// when the kernel logged the event (the payload's PID names the socket's
// process, which for a receive is not the current one).
#pragma once

#include "kernel/kernel_records.hpp"

#include <array>
#include <cstdint>

namespace openetw::kernel {

inline constexpr std::uint16_t kNetVersion = 2;

// The IPv4 event types; the IPv6 form of each is 16 more.
enum class TcpOp : std::uint8_t {
    Send = 10,       // TcpIp_SendIPV4 / TcpIp_SendIPV6
    Recv = 11,       // TypeGroup1 / 3
    Connect = 12,    // TypeGroup2 / 4
    Disconnect = 13, // TypeGroup1 / 3
    Retransmit = 14,
    Accept = 15, // TypeGroup2 / 4
    Reconnect = 16,
    TcpCopy = 18,
};
enum class UdpOp : std::uint8_t { Send = 10, Recv = 11 };
inline constexpr std::uint8_t kIpv6TypeOffset = 16;

struct NetFields {
    std::uint32_t pid = 0;
    std::uint32_t size = 0;
    bool ipv6 = false;
    std::array<std::uint8_t, 16> daddr{}; // network order; the first 4 bytes for IPv4
    std::array<std::uint8_t, 16> saddr{};
    std::uint16_t dport = 0; // host order: written big-endian
    std::uint16_t sport = 0;
    std::uint32_t seqnum = 0;
    std::uint64_t connid = 0; // pointer-sized
    // Send only.
    std::uint32_t startime = 0;
    std::uint32_t endtime = 0;
    // Connect and Accept only (TypeGroup2/4).
    std::uint16_t mss = 0;
    std::uint16_t sackopt = 0;
    std::uint16_t tsopt = 0;
    std::uint16_t wsopt = 0;
    std::uint32_t rcvwin = 0;
    std::int16_t rcvwinscale = 0;
    std::int16_t sndwinscale = 0;
};

// The event type Windows gives op in this address family.
std::uint8_t tcp_event_type(TcpOp op, bool ipv6);
Bytes tcp_payload(TcpOp op, const NetFields &n, std::uint32_t pointer_size);
// header: thread, process, time (and CPU times) of the logging context.
Bytes tcp_record(TcpOp op, HeaderFields header, const NetFields &n, std::uint32_t pointer_size);

Bytes udp_payload(const NetFields &n, std::uint32_t pointer_size);
Bytes udp_record(UdpOp op, HeaderFields header, const NetFields &n, std::uint32_t pointer_size);

} // namespace openetw::kernel
