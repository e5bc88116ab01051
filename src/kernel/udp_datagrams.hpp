// UDP datagrams as UdpIp/SendIPV4, RecvIPV4 (and the IPv6 forms), from
// tracepoints that fire in the sending or receiving thread:
// sock:sock_send_length and sock:sock_recv_length (protocol 17) give the
// socket, its process and each datagram's bytes; the socket system calls'
// syscalls:sys_enter_/sys_exit_ (sendto, recvfrom, sendmsg, recvmsg,
// sendmmsg, recvmmsg) around them give the descriptor and the address
// buffers, read from the process after the call (no tracepoint of this
// kernel gives a datagram's addresses), and an unconnected send's route
// lookup (fib:fib_table_lookup, fib6:fib6_table_lookup) its destination:
// - the peer of a send is its route's destination, else the sockaddr the
//   call passed (sendto's addr, msghdr.msg_name); of a receive the
//   sockaddr the kernel wrote back (recvfrom, recvmsg); else the connected
//   socket's peer;
// - the local end is the socket's (getsockname on a duplicate of the
//   descriptor, cached per process and descriptor, dropped at close and
//   connect, so that a busy socket costs no system call per datagram).
// saddr/sport are the local end, daddr/dport the remote one in both
// directions (as TcpIp here). What cannot be known is written as zeros,
// never guessed: a buffer that a later call of the process in the same
// drain wrote again (its bytes now are that call's), the local end of a
// socket closed before the drain (its peer: the sockaddr its connect
// passed), the address of one connected since, a datagram read
// or written with read/write (no call names its descriptor) on a socket
// no socket call was seen on. connid numbers the session's sockets (1, 2,
// ...), seqnum is 0. docs/KERNEL_LOGGER.md ("UdpIp") has the limits.
// Not thread-safe: the logger thread's.
#pragma once

#include "kernel/net_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/socket_addresses.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace openetw::kernel {

// The tracepoints UdpDatagrams reads besides sock_*_length: the socket
// calls' syscalls:sys_enter_/sys_exit_ (sendto, recvfrom, sendmsg, recvmsg,
// sendmmsg, recvmmsg; connect, close) and the IPv4 and IPv6 route lookups
// (fib:fib_table_lookup, fib6:fib6_table_lookup). All optional: a kernel
// without them still gets UdpIp records, with what they give missing.
struct UdpTracepoint {
    const char *system;
    const char *name;
};
const std::vector<UdpTracepoint> &udp_tracepoints();

// How the tracker reads a process: its memory, a descriptor's socket ends
// (sockaddr bytes: local, and peer when connected), whether it lives.
struct SocketReader {
    std::function<bool(std::uint32_t pid, std::uint64_t address, std::size_t size, std::vector<std::uint8_t> *out)>
        memory;
    std::function<bool(std::uint32_t pid, int fd, std::vector<std::uint8_t> *local, std::vector<std::uint8_t> *peer)>
        ends;
    std::function<bool(std::uint32_t pid)> alive;
};
// The reader of the processes' memory and sockets (platform/proc_sockets.hpp).
SocketReader proc_socket_reader();

class UdpDatagrams {
public:
    using Emit = std::function<void(std::uint32_t cpu, std::int64_t time, Bytes &&record,
                                    std::span<const std::uint64_t> frames)>;

    UdpDatagrams(SocketReader reader, std::uint32_t pointer_size);
    // Keeps a sample (copied) of a socket call's enter or exit, or a UDP
    // sock_send_length / sock_recv_length, until flush (others are ignored):
    // whether a buffer or descriptor was used again is known only once
    // the drain's samples are all in.
    void add(const TracepointFormat &format, const TracepointSample &sample);
    // Makes the records of the samples added up to hold (perf clock; the
    // later ones wait for the next flush, so that a buffer used again soon
    // after is seen used: the logger's hold-back, kernel_logger.hpp), in
    // their order; a call whose exit is not read yet waits too.
    void flush(const PerfClock &clock, std::uint64_t hold, const Emit &emit);
    // Sockets known (process and descriptor), for tests.
    std::size_t sockets() const { return sockets_.size(); }
    // UDP transfers whose sample lacked a field (counted in EventsLost).
    std::uint64_t malformed() const { return malformed_; }

private:
    enum class Call : std::uint8_t {
        None,
        Route, // fib:fib_table_lookup, fib6:fib6_table_lookup: an unconnected send's flow
        SendTo,
        RecvFrom,
        SendMsg,
        RecvMsg,
        SendMmsg,
        RecvMmsg,
        Connect,
        Close,
        SendLength,
        RecvLength
    };
    static bool sends(Call c) { return c == Call::SendTo || c == Call::SendMsg || c == Call::SendMmsg; }
    // What a tracepoint is, and its fields (null: absent).
    struct Kind {
        Call call = Call::None;
        bool exit = false;
        const TracepointField *fd = nullptr, *buffer = nullptr, *ret = nullptr;
        const TracepointField *sk = nullptr, *family = nullptr, *protocol = nullptr, *flags = nullptr;
        const TracepointField *dst = nullptr, *sport = nullptr, *dport = nullptr, *common_flags = nullptr;
        bool ipv6 = false; // fib6's
    };
    struct Datagram {
        std::uint64_t time = 0; // perf clock
        std::uint32_t cpu = 0, tid = 0, pid = 0;
        std::uint64_t sk = 0;
        bool send = false, ipv6 = false;
        std::uint32_t size = 0;
        std::uint32_t index = 0;       // its message in a sendmmsg/recvmmsg
        std::optional<Endpoint> route; // a send's destination as its route lookup gave it
        std::uint16_t route_sport = 0;
        std::vector<std::uint64_t> frames;
    };
    struct Pending {
        Call call = Call::None;
        std::uint32_t pid = 0;
        int fd = -1;
        std::uint64_t buffer = 0;      // sockaddr, msghdr or mmsghdr array
        std::int64_t enter_at = -1;    // batch index of the enter; -1: an earlier drain
        std::uint32_t messages = 0;    // datagram samples seen (the next one's mmsghdr)
        std::optional<Endpoint> route; // the last UDP route lookup of the call not yet sent
        std::uint16_t route_sport = 0;
        std::vector<Datagram> datagrams;
    };
    struct Socket {
        std::uint64_t sk = 0;
        bool resolved = false; // local and peer read from the descriptor
        std::optional<Endpoint> local, peer;
    };
    // A sample as its fields, read once when added.
    struct Added {
        Call call = Call::None;
        bool exit = false, ipv6 = false;
        std::uint32_t cpu = 0, pid = 0, tid = 0;
        std::uint64_t time = 0;
        int fd = -1;
        std::uint64_t buffer = 0, sk = 0;
        std::int64_t ret = 0, flags = 0;
        Endpoint route; // Route: the flow's destination
        std::uint16_t route_sport = 0;
        std::vector<std::uint64_t> frames;
    };
    using FdKey = std::pair<std::uint32_t, int>;

    const Kind &kind_of(const TracepointFormat &format);
    void on_sample(Added &s, const PerfClock &clock, const Emit &emit);
    void finish(Pending &&p, bool exited, std::int64_t ret, const PerfClock &clock, const Emit &emit);
    // The socket of (pid, fd) that sk names, read now unless a later call
    // of the batch closes it (the descriptor may name another socket by
    // now): then, or when unreadable, one without ends. Connected later in
    // the batch: its local port only (the rest may have changed).
    Socket socket_of(std::uint32_t pid, int fd, std::uint64_t sk);
    // The sockaddr at address in pid (msghdr: its msg_name), unless a later
    // call of the batch passed address again.
    // written: the batch index of the call's own write of it (-1: an earlier batch).
    std::optional<Endpoint> peer_at(std::uint32_t pid, Call call, std::uint64_t buffer, std::uint32_t index,
                                    std::int64_t written);
    std::uint64_t connid_of(std::uint64_t sk);
    void forget(std::uint32_t pid, int fd);
    void emit_datagram(const Datagram &d, const Socket &socket, const std::optional<Endpoint> &peer,
                       const PerfClock &clock, const Emit &emit);
    void sweep(std::uint64_t now_ns, const PerfClock &clock, const Emit &emit);

    SocketReader reader_;
    std::uint32_t pointer_size_;
    std::unordered_map<std::uint32_t, Kind> kinds_;      // by tracepoint id
    std::unordered_map<std::uint32_t, Pending> pending_; // by thread: its socket call in progress
    std::map<FdKey, Socket> sockets_;                    // the sockets read, by process and descriptor
    struct Connect {
        std::uint64_t buffer = 0; // the sockaddr the call passed
        std::int64_t at = -1;     // its batch index; -1: an earlier batch
    };
    std::map<FdKey, Connect> connects_;                        // each descriptor's last connect
    std::unordered_map<std::uint64_t, FdKey> by_sk_;           // a socket read: where (for read/write datagrams)
    std::unordered_map<std::uint64_t, std::uint64_t> connids_; // by the kernel's socket address
    std::uint64_t next_connid_ = 1;
    std::uint64_t last_sweep_ns_ = 0;
    std::uint64_t malformed_ = 0;
    std::vector<Added> batch_;
    std::size_t at_ = 0;                                     // the batch index being made
    std::map<FdKey, std::size_t> last_close_, last_connect_; // a descriptor's last in the batch
    // (pid, buffer): the batch index of its last write (a send's enter: the
    // program filled it; a receive's exit: the kernel did).
    std::map<std::pair<std::uint32_t, std::uint64_t>, std::size_t> last_buffer_;
};

} // namespace openetw::kernel
