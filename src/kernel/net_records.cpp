#include "kernel/net_records.hpp"

#include "kernel/payload_bytes.hpp"

namespace openetw::kernel {

namespace {

// PID, size, daddr, saddr, dport, sport: the head every TcpIp/UdpIp class shares.
void put_endpoints(PayloadBytes &w, const NetFields &n)
{
    const std::size_t len = n.ipv6 ? 16 : 4;
    w.u32(n.pid).u32(n.size).raw(n.daddr.data(), len).raw(n.saddr.data(), len);
    const std::uint8_t ports[4] = {std::uint8_t(n.dport >> 8), std::uint8_t(n.dport), std::uint8_t(n.sport >> 8),
                                   std::uint8_t(n.sport)};
    w.raw(ports, 4);
}

} // namespace

std::uint8_t tcp_event_type(TcpOp op, bool ipv6)
{
    return std::uint8_t(std::uint8_t(op) + (ipv6 ? kIpv6TypeOffset : 0));
}

Bytes tcp_payload(TcpOp op, const NetFields &n, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    put_endpoints(w, n);
    if (op == TcpOp::Send)
        w.u32(n.startime).u32(n.endtime);
    if (op == TcpOp::Connect || op == TcpOp::Accept) {
        w.u16(n.mss).u16(n.sackopt).u16(n.tsopt).u16(n.wsopt).u32(n.rcvwin);
        w.u16(std::uint16_t(n.rcvwinscale)).u16(std::uint16_t(n.sndwinscale));
    }
    w.u32(n.seqnum).ptr(n.connid);
    return w.take();
}

Bytes tcp_record(TcpOp op, HeaderFields header, const NetFields &n, std::uint32_t pointer_size)
{
    header.hook_id = hook_id(kGroupTcpIp, tcp_event_type(op, n.ipv6));
    header.version = kNetVersion;
    return encode_record(HeaderKind::System, header, pointer_size, tcp_payload(op, n, pointer_size));
}

Bytes udp_payload(const NetFields &n, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    put_endpoints(w, n);
    w.u32(n.seqnum).ptr(n.connid);
    return w.take();
}

Bytes udp_record(UdpOp op, HeaderFields header, const NetFields &n, std::uint32_t pointer_size)
{
    header.hook_id = hook_id(kGroupUdpIp, std::uint8_t(std::uint8_t(op) + (n.ipv6 ? kIpv6TypeOffset : 0)));
    header.version = kNetVersion;
    return encode_record(HeaderKind::System, header, pointer_size, udp_payload(n, pointer_size));
}

} // namespace openetw::kernel
