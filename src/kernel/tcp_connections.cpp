#include "kernel/tcp_connections.hpp"

#include <cstring>

namespace openetw::kernel {

namespace {

constexpr std::uint64_t kAfInet = 2, kAfInet6 = 10, kIpProtoTcp = 6;
constexpr std::int64_t kTcpClose = 7;
constexpr std::int64_t kMsgPeek = 2;
// Sockets whose close was never seen (the session started after their
// last change): forgotten all at once past this many.
constexpr std::size_t kMaxKnown = 1u << 16;

// tcp_probe's saddr/daddr: a sockaddr_in (family, port, 4 bytes) or a
// sockaddr_in6 (family, port, flow info, 16 bytes).
bool address_of(std::span<const std::uint8_t> sa, bool ipv6, std::array<std::uint8_t, 16> *out)
{
    const std::size_t at = ipv6 ? 8 : 4, n = ipv6 ? 16 : 4;
    if (sa.size() < at + n)
        return false;
    std::memcpy(out->data(), sa.data() + at, n);
    return true;
}

} // namespace

TcpConnections::Ends &TcpConnections::entry(std::uint64_t sk)
{
    if (auto it = ends_.find(sk); it != ends_.end())
        return it->second;
    if (ends_.size() >= kMaxKnown)
        ends_.clear();
    Ends &e = ends_[sk];
    e.connid = next_connid_++;
    return e;
}

void TcpConnections::state_change(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto sk = format.u(sample.raw, "skaddr");
    const auto protocol = format.u(sample.raw, "protocol");
    const auto family = format.u(sample.raw, "family");
    const auto newstate = format.i(sample.raw, "newstate");
    if (!sk || !protocol || !family || !newstate || *protocol != kIpProtoTcp)
        return;
    if (*newstate == kTcpClose) {
        ends_.erase(*sk);
        return;
    }
    Ends e;
    e.ipv6 = *family == kAfInet6;
    e.addressed = true;
    const auto sport = format.u(sample.raw, "sport");
    const auto dport = format.u(sample.raw, "dport");
    const auto saddr = TracepointFormat::read_bytes(sample.raw, format.find(e.ipv6 ? "saddr_v6" : "saddr"));
    const auto daddr = TracepointFormat::read_bytes(sample.raw, format.find(e.ipv6 ? "daddr_v6" : "daddr"));
    const std::size_t n = e.ipv6 ? 16 : 4;
    if (!sport || !dport || !saddr || !daddr || saddr->size() < n || daddr->size() < n ||
        (*family != kAfInet && *family != kAfInet6))
        return;
    e.sport = std::uint16_t(*sport);
    e.dport = std::uint16_t(*dport);
    std::memcpy(e.saddr.data(), saddr->data(), n);
    std::memcpy(e.daddr.data(), daddr->data(), n);
    Ends &known = entry(*sk);
    e.connid = known.connid;
    known = e;
}

void TcpConnections::probe(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto sk = format.u(sample.raw, "skaddr");
    if (!sk)
        return;
    if (auto it = ends_.find(*sk); it != ends_.end() && it->second.addressed)
        return;
    const auto family = format.u(sample.raw, "family");
    const auto sport = format.u(sample.raw, "sport");
    const auto dport = format.u(sample.raw, "dport");
    const auto saddr = TracepointFormat::read_bytes(sample.raw, format.find("saddr"));
    const auto daddr = TracepointFormat::read_bytes(sample.raw, format.find("daddr"));
    if (!family || !sport || !dport || !saddr || !daddr || (*family != kAfInet && *family != kAfInet6))
        return;
    Ends e;
    e.ipv6 = *family == kAfInet6;
    e.addressed = true;
    e.sport = std::uint16_t(*sport);
    e.dport = std::uint16_t(*dport);
    if (!address_of(*saddr, e.ipv6, &e.saddr) || !address_of(*daddr, e.ipv6, &e.daddr))
        return;
    Ends &known = entry(*sk);
    e.connid = known.connid;
    known = e;
}

Bytes TcpConnections::transfer(bool send, const TracepointFormat &format, const TracepointSample &sample,
                               const PerfClock &clock, std::uint32_t pointer_size)
{
    const auto sk = format.u(sample.raw, "sk");
    const auto family = format.u(sample.raw, "family");
    const auto protocol = format.u(sample.raw, "protocol");
    const auto ret = format.i(sample.raw, "ret");
    const auto flags = format.i(sample.raw, "flags");
    if (!sk || !family || !protocol || !ret || !flags || *protocol != kIpProtoTcp || *ret <= 0 ||
        (*family != kAfInet && *family != kAfInet6))
        return {};
    if (!send && (*flags & kMsgPeek))
        return {}; // the bytes stay queued: the receive that takes them counts them
    NetFields n;
    n.pid = sample.pid;
    n.size = std::uint32_t(*ret);
    n.ipv6 = *family == kAfInet6;
    const Ends &e = entry(*sk);
    n.connid = e.connid;
    if (e.addressed && e.ipv6 == n.ipv6) {
        n.saddr = e.saddr;
        n.daddr = e.daddr;
        n.sport = e.sport;
        n.dport = e.dport;
    }
    const std::int64_t now = clock.to_session(sample.time);
    if (send) {
        // Milliseconds on the perf clock; only the send's end is seen.
        n.endtime = std::uint32_t(sample.time / 1000000u);
        n.startime = n.endtime;
    }
    HeaderFields h;
    h.thread_id = sample.tid;
    h.process_id = sample.pid;
    h.timestamp = now;
    return tcp_record(send ? TcpOp::Send : TcpOp::Recv, h, n, pointer_size);
}

} // namespace openetw::kernel
