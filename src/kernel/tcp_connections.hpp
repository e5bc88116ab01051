// TCP sends and receives as TcpIp/SendIPV4, RecvIPV4 (and the IPv6 forms),
// from tracepoints that fire in the sending or receiving thread:
// sock:sock_send_length and sock:sock_recv_length give the socket, its
// process and the bytes; the socket's addresses and ports are learnt from
// sock:inet_sock_set_state (every state change: a connection made or
// accepted while the session runs) and tcp:tcp_probe (each segment
// received on an established connection: those older than the session).
// saddr/sport are the local end, daddr/dport the remote one, for both
// directions, as Windows writes them. A connection not yet seen by either
// is written with zero addresses and ports (its bytes still count). connid
// numbers the connections of the session (1, 2, ...): the kernel's socket
// address is never written, which would tell a trace's reader where the
// kernel lies in memory.
// Pure: the caller gives formats, samples and the clock.
#pragma once

#include "kernel/net_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <array>
#include <cstdint>
#include <unordered_map>

namespace openetw::kernel {

class TcpConnections {
public:
    // inet_sock_set_state: a TCP socket's ends remembered, forgotten when it closes.
    void state_change(const TracepointFormat &format, const TracepointSample &sample);
    // tcp_probe: the ends of a connection not known yet.
    void probe(const TracepointFormat &format, const TracepointSample &sample);
    // sock_send_length (send) or sock_recv_length: the TcpIp record of a TCP
    // transfer of at least one byte; empty for other protocols, errors,
    // peeks and malformed samples.
    Bytes transfer(bool send, const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                   std::uint32_t pointer_size);
    std::size_t known() const noexcept { return ends_.size(); }

private:
    struct Ends {
        bool ipv6 = false;
        std::array<std::uint8_t, 16> saddr{}, daddr{};
        std::uint16_t sport = 0, dport = 0;
        bool addressed = false;   // saddr..dport known
        std::uint64_t connid = 0; // this session's number for the connection
    };
    // The entry of sk, made (unaddressed, with a new connid) if new.
    Ends &entry(std::uint64_t sk);
    std::unordered_map<std::uint64_t, Ends> ends_; // by the socket's kernel address
    std::uint64_t next_connid_ = 1;
};

} // namespace openetw::kernel
