#include "kernel/udp_datagrams.hpp"

#include "platform/proc_sockets.hpp"
#include "platform/proc_files.hpp"

#include <algorithm>
#include <utility>

namespace openetw::kernel {

namespace {

constexpr std::uint64_t kIpProtoUdp = 17;
constexpr std::int64_t kMsgPeek = 2;
// The trace entry's flags (include/linux/trace_events.h): set when the
// event fired in a hardware or a soft interrupt (not the thread's own work).
constexpr std::uint64_t kHardIrq = 0x08, kSoftIrq = 0x10;
// Sockets and numbers kept at most (those whose close was never seen):
// forgotten all at once past this many.
constexpr std::size_t kMaxKnown = 1u << 16;
// How often ended processes' sockets and calls are let go (perf ns).
constexpr std::uint64_t kSweepNs = 1000000000;

int as_fd(std::uint64_t v) { return int(std::int32_t(std::uint32_t(v))); }

} // namespace

const std::vector<UdpTracepoint> &udp_tracepoints()
{
    static const std::vector<UdpTracepoint> names = {
        {"syscalls", "sys_enter_sendto"},
        {"syscalls", "sys_exit_sendto"},
        {"syscalls", "sys_enter_recvfrom"},
        {"syscalls", "sys_exit_recvfrom"},
        {"syscalls", "sys_enter_sendmsg"},
        {"syscalls", "sys_exit_sendmsg"},
        {"syscalls", "sys_enter_recvmsg"},
        {"syscalls", "sys_exit_recvmsg"},
        {"syscalls", "sys_enter_sendmmsg"},
        {"syscalls", "sys_exit_sendmmsg"},
        {"syscalls", "sys_enter_recvmmsg"},
        {"syscalls", "sys_exit_recvmmsg"},
        // A socket's ends change: its cached ends are dropped.
        {"syscalls", "sys_enter_connect"},
        {"syscalls", "sys_enter_close"},
        // An unconnected send's route lookup: its destination, as the kernel took it.
        {"fib", "fib_table_lookup"},
        {"fib6", "fib6_table_lookup"},
    };
    return names;
}

SocketReader proc_socket_reader()
{
    SocketReader r;
    r.memory = [](std::uint32_t pid, std::uint64_t address, std::size_t size, std::vector<std::uint8_t> *out) {
        return platform::proc_user_bytes(pid, address, size, out) == ETW_OK;
    };
    r.ends = [](std::uint32_t pid, int fd, std::vector<std::uint8_t> *local, std::vector<std::uint8_t> *peer) {
        platform::SocketEnds e;
        if (platform::proc_udp_socket_ends(pid, fd, &e) != ETW_OK)
            return false;
        *local = std::move(e.local);
        *peer = std::move(e.peer);
        return true;
    };
    r.alive = [](std::uint32_t pid) { return platform::proc_exists(pid); };
    return r;
}

UdpDatagrams::UdpDatagrams(SocketReader reader, std::uint32_t pointer_size)
    : reader_(std::move(reader)), pointer_size_(pointer_size)
{}

const UdpDatagrams::Kind &UdpDatagrams::kind_of(const TracepointFormat &format)
{
    if (const auto k = kinds_.find(format.id()); k != kinds_.end())
        return k->second;
    static const std::pair<const char *, Call> calls[] = {
        {"sendto", Call::SendTo},   {"recvfrom", Call::RecvFrom}, {"sendmsg", Call::SendMsg},
        {"recvmsg", Call::RecvMsg}, {"sendmmsg", Call::SendMmsg}, {"recvmmsg", Call::RecvMmsg},
        {"connect", Call::Connect}, {"close", Call::Close},
    };
    // The fields found once per tracepoint: read per sample without a lookup by name.
    Kind k;
    std::string name = format.name();
    if (name == "fib_table_lookup" || name == "fib6_table_lookup") {
        k.call = Call::Route;
        k.ipv6 = name == "fib6_table_lookup";
        k.protocol = format.find("proto");
        k.dst = format.find("dst");
        k.sport = format.find("sport");
        k.dport = format.find("dport");
        k.common_flags = format.find("common_flags");
        return kinds_[format.id()] = k;
    }
    if (name == "sock_send_length" || name == "sock_recv_length") {
        k.call = name == "sock_send_length" ? Call::SendLength : Call::RecvLength;
        k.sk = format.find("sk");
        k.family = format.find("family");
        k.protocol = format.find("protocol");
        k.ret = format.find("ret");
        k.flags = format.find("flags");
        return kinds_[format.id()] = k;
    }
    k.exit = name.rfind("sys_exit_", 0) == 0;
    name = name.substr(k.exit ? 9 : name.rfind("sys_enter_", 0) == 0 ? 10 : 0);
    for (const auto &[n, c] : calls)
        if (name == n)
            k.call = c;
    k.fd = format.find("fd");
    k.ret = format.find("ret");
    k.buffer = format.find(k.call == Call::SendTo || k.call == Call::RecvFrom   ? "addr"
                           : k.call == Call::SendMsg || k.call == Call::RecvMsg ? "msg"
                           : k.call == Call::Connect                            ? "uservaddr"
                                                                                : "mmsg");
    return kinds_[format.id()] = k;
}

void UdpDatagrams::add(const TracepointFormat &format, const TracepointSample &sample)
{
    const Kind &k = kind_of(format);
    if (k.call == Call::None)
        return;
    const auto u = [&](const TracepointField *f) { return TracepointFormat::read_unsigned(sample.raw, f); };
    const auto i = [&](const TracepointField *f) { return TracepointFormat::read_signed(sample.raw, f); };
    Added a;
    a.call = k.call;
    a.exit = k.exit;
    a.cpu = sample.cpu;
    a.pid = sample.pid;
    a.tid = sample.tid;
    a.time = sample.time;
    if (k.call == Call::Route) {
        // A UDP flow's output route, looked up by the thread itself (not an
        // interrupt's work done on its time): the destination of its send.
        const auto protocol = u(k.protocol), sport = u(k.sport), dport = u(k.dport), irq = u(k.common_flags);
        const auto dst = TracepointFormat::read_bytes(sample.raw, k.dst);
        const std::size_t n = k.ipv6 ? 16 : 4;
        if (!protocol || *protocol != kIpProtoUdp || !irq || (*irq & (kHardIrq | kSoftIrq)) || !sport || !dport ||
            !dst || dst->size() < n)
            return;
        a.route.ipv6 = k.ipv6;
        std::copy(dst->begin(), dst->begin() + std::ptrdiff_t(n), a.route.addr.begin());
        a.route.port = std::uint16_t(*dport);
        a.route_sport = std::uint16_t(*sport);
    } else if (k.call == Call::SendLength || k.call == Call::RecvLength) {
        const auto protocol = u(k.protocol), family = u(k.family), sk = u(k.sk);
        const auto ret = i(k.ret), flags = i(k.flags);
        if (!protocol || *protocol != kIpProtoUdp)
            return; // TCP's: tcp_connections.hpp
        if (!ret || !flags || !family || !sk || (*family != kAfInet && *family != kAfInet6)) {
            ++malformed_;
            return;
        }
        a.sk = *sk;
        a.ipv6 = *family == kAfInet6;
        a.ret = *ret;
        a.flags = *flags;
        a.frames = {sample.frames.begin(), sample.frames.end()};
    } else if (k.exit) {
        a.ret = i(k.ret).value_or(-1);
    } else {
        a.fd = as_fd(u(k.fd).value_or(~0ull));
        a.buffer = u(k.buffer).value_or(0);
    }
    batch_.push_back(std::move(a));
}

void UdpDatagrams::flush(const PerfClock &clock, std::uint64_t hold, const Emit &emit)
{
    for (auto &[tid, p] : pending_)
        p.enter_at = -1; // its enter was in an earlier batch
    for (auto &[key, c] : connects_)
        c.at = -1;
    // The samples held from the last flush and this drain's, in time order
    // (a sample read late from its ring may be older than those held).
    std::stable_sort(batch_.begin(), batch_.end(), [](const Added &a, const Added &b) { return a.time < b.time; });
    last_close_.clear();
    last_connect_.clear();
    last_buffer_.clear();
    // Where each descriptor changes and each buffer is written, in the
    // whole batch (the samples held for the next flush included).
    std::unordered_map<std::uint32_t, std::uint64_t> open; // thread: the buffer of its call in progress
    for (const auto &[tid, p] : pending_)
        open[tid] = p.buffer;
    std::size_t ready = 0;
    for (std::size_t i = 0; i < batch_.size(); ++i) {
        const Added &a = batch_[i];
        if (a.time <= hold)
            ready = i + 1;
        if (a.call == Call::SendLength || a.call == Call::RecvLength || a.call == Call::Route)
            continue;
        if (a.call == Call::Close || a.call == Call::Connect) {
            if (a.exit)
                continue; // the enter names the descriptor
            (a.call == Call::Close ? last_close_ : last_connect_)[{a.pid, a.fd}] = i;
            if (a.call == Call::Connect && a.buffer != 0) // the program filled it for this call
                last_buffer_[{a.pid, a.buffer}] = i;
            continue;
        }
        const bool send = sends(a.call);
        if (!a.exit) {
            open[a.tid] = a.buffer;
            if (send && a.buffer != 0) // the program filled it for this call
                last_buffer_[{a.pid, a.buffer}] = i;
        } else if (const auto o = open.find(a.tid); o != open.end()) {
            if (!send && o->second != 0 && a.ret >= 0)
                last_buffer_[{a.pid, o->second}] = i; // the kernel wrote what it received
            open.erase(o);
        }
    }
    for (at_ = 0; at_ < ready; ++at_)
        on_sample(batch_[at_], clock, emit);
    batch_.erase(batch_.begin(), batch_.begin() + std::ptrdiff_t(ready));
}

void UdpDatagrams::on_sample(Added &s, const PerfClock &clock, const Emit &emit)
{
    switch (s.call) {
    case Call::None:
        return;
    case Call::Route:
        // The first of the datagram's: later ones in its thread before its
        // length are the packet's own way out (a tunnel's outer flow).
        if (const auto p = pending_.find(s.tid); p != pending_.end() && sends(p->second.call) && !p->second.route) {
            p->second.route = s.route;
            p->second.route_sport = s.route_sport;
        }
        break;
    case Call::SendLength:
    case Call::RecvLength: {
        Datagram d;
        d.time = s.time;
        d.cpu = s.cpu;
        d.tid = s.tid;
        d.pid = s.pid;
        d.sk = s.sk;
        d.send = s.call == Call::SendLength;
        d.ipv6 = s.ipv6;
        d.size = std::uint32_t(std::clamp<std::int64_t>(s.ret, 0, UINT32_MAX));
        d.frames = std::move(s.frames);
        // An error writes nothing; a peek leaves the datagram queued for
        // the receive that takes it. A datagram of 0 bytes is one.
        const bool written = s.ret >= 0 && (d.send || !(s.flags & kMsgPeek));
        if (const auto p = pending_.find(s.tid); p != pending_.end() && sends(p->second.call) == d.send) {
            d.index = p->second.messages++;
            d.route = std::exchange(p->second.route, std::nullopt); // looked up for this datagram
            d.route_sport = p->second.route_sport;
            if (written)
                p->second.datagrams.push_back(std::move(d));
            return;
        }
        if (!written)
            return;
        // No socket call around it (read, write, ...): the socket as read before, if it was.
        Socket none;
        none.sk = d.sk;
        const Socket *socket = &none;
        if (const auto at = by_sk_.find(d.sk); at != by_sk_.end())
            if (const auto known = sockets_.find(at->second); known != sockets_.end() && known->second.sk == d.sk)
                socket = &known->second;
        emit_datagram(d, *socket, socket->peer, clock, emit);
        break;
    }
    case Call::Close:
        if (s.exit)
            break;
        forget(s.pid, s.fd);
        connects_.erase({s.pid, s.fd});
        break;
    case Call::Connect:
        if (s.exit)
            break;
        forget(s.pid, s.fd);
        if (connects_.size() >= kMaxKnown)
            connects_.clear();
        connects_[{s.pid, s.fd}] = {s.buffer, std::int64_t(at_)};
        break;
    default:
        if (!s.exit) {
            if (auto p = pending_.find(s.tid); p != pending_.end()) { // its exit was not seen
                Pending old = std::move(p->second);
                pending_.erase(p);
                finish(std::move(old), false, 0, clock, emit);
            }
            Pending p;
            p.call = s.call;
            p.pid = s.pid;
            p.fd = s.fd;
            p.buffer = s.buffer;
            p.enter_at = std::int64_t(at_);
            pending_[s.tid] = std::move(p);
        } else if (const auto p = pending_.find(s.tid); p != pending_.end() && p->second.call == s.call) {
            Pending call = std::move(p->second);
            pending_.erase(p);
            finish(std::move(call), true, s.ret, clock, emit);
        }
        break;
    }
    if (s.time > last_sweep_ns_ + kSweepNs)
        sweep(s.time, clock, emit);
}

void UdpDatagrams::finish(Pending &&p, bool exited, std::int64_t ret, const PerfClock &clock, const Emit &emit)
{
    if (p.datagrams.empty())
        return;
    const Socket socket = socket_of(p.pid, p.fd, p.datagrams.front().sk);
    const bool send = sends(p.call);
    // A send's buffer was filled at its enter; a receive's by the kernel
    // before its exit (unread while the exit is not seen).
    const std::int64_t written = send ? p.enter_at : std::int64_t(at_);
    for (const Datagram &d : p.datagrams) {
        std::optional<Endpoint> peer;
        // The route looked up for it, when of this socket's port (the
        // destination as the kernel took it): no buffer to read.
        if (d.route && (!socket.local || socket.local->port == d.route_sport))
            peer = d.route;
        else if (p.buffer != 0 && (send || (exited && ret >= 0)))
            peer = peer_at(p.pid, p.call, p.buffer, d.index, written);
        emit_datagram(d, socket, peer ? peer : socket.peer, clock, emit);
    }
}

UdpDatagrams::Socket UdpDatagrams::socket_of(std::uint32_t pid, int fd, std::uint64_t sk)
{
    const FdKey key{pid, fd};
    if (const auto it = sockets_.find(key); it != sockets_.end() && it->second.sk == sk)
        return it->second;
    Socket s;
    s.sk = sk;
    const auto later = [&](const std::map<FdKey, std::size_t> &changes) {
        const auto it = changes.find(key);
        return it != changes.end() && it->second > at_;
    };
    // The peer the descriptor's last connect before now named (read from
    // the call's buffer), for when the socket cannot tell it.
    const auto connected_peer = [&]() -> std::optional<Endpoint> {
        const auto c = connects_.find(key);
        return c == connects_.end() || c->second.buffer == 0
                   ? std::nullopt
                   : peer_at(pid, Call::SendTo, c->second.buffer, 0, c->second.at);
    };
    if (later(last_close_)) {
        s.peer = connected_peer(); // closed before now: the descriptor may name another socket
        return s;
    }
    std::vector<std::uint8_t> local, peer;
    if (reader_.ends(pid, fd, &local, &peer)) {
        s.resolved = true;
        s.local = parse_sockaddr(local);
        if (!peer.empty())
            s.peer = parse_sockaddr(peer);
    } else {
        s.peer = connected_peer();
    }
    if (later(last_connect_)) {
        // Connected since: its peer now is not the datagram's (the earlier
        // connect's is), nor its local address (a wildcard one becomes the
        // route's); its port stays.
        s.peer = connected_peer();
        if (s.local)
            s.local->addr = {};
        return s;
    }
    // Kept even when unreadable: no system call per datagram of it.
    forget(pid, fd);
    if (sockets_.size() >= kMaxKnown) {
        sockets_.clear();
        by_sk_.clear();
    }
    sockets_[key] = s;
    by_sk_[sk] = key;
    return s;
}

std::optional<Endpoint> UdpDatagrams::peer_at(std::uint32_t pid, Call call, std::uint64_t buffer, std::uint32_t index,
                                              std::int64_t written)
{
    if (const auto last = last_buffer_.find({pid, buffer});
        last != last_buffer_.end() && std::int64_t(last->second) > written)
        return std::nullopt; // written again since: its bytes now are a later call's
    std::vector<std::uint8_t> bytes;
    std::uint64_t name = buffer;
    std::size_t size = kMaxSockaddr;
    if (call != Call::SendTo && call != Call::RecvFrom) {
        const std::size_t stride = call == Call::SendMsg || call == Call::RecvMsg ? 0 : mmsghdr_size(pointer_size_);
        if (!reader_.memory(pid, buffer + index * stride, msghdr_size(pointer_size_), &bytes))
            return std::nullopt;
        const auto msg = parse_msg_name(bytes, pointer_size_);
        if (!msg || msg->name == 0 || msg->namelen == 0)
            return std::nullopt;
        name = msg->name;
        size = std::min<std::size_t>(msg->namelen, kMaxSockaddr);
    }
    // A sockaddr_in (16 bytes) may end its page: read again that short.
    if (!reader_.memory(pid, name, size, &bytes) && !reader_.memory(pid, name, std::min<std::size_t>(size, 16), &bytes))
        return std::nullopt;
    return parse_sockaddr(bytes);
}

std::uint64_t UdpDatagrams::connid_of(std::uint64_t sk)
{
    if (const auto it = connids_.find(sk); it != connids_.end())
        return it->second;
    if (connids_.size() >= kMaxKnown)
        connids_.clear();
    return connids_[sk] = next_connid_++;
}

void UdpDatagrams::forget(std::uint32_t pid, int fd)
{
    const auto it = sockets_.find({pid, fd});
    if (it == sockets_.end())
        return;
    if (const auto at = by_sk_.find(it->second.sk); at != by_sk_.end() && at->second == it->first) {
        by_sk_.erase(at);
        connids_.erase(it->second.sk); // its address may name another socket next
    }
    sockets_.erase(it);
}

void UdpDatagrams::emit_datagram(const Datagram &d, const Socket &socket, const std::optional<Endpoint> &peer,
                                 const PerfClock &clock, const Emit &emit)
{
    NetFields n;
    n.pid = d.pid;
    n.size = d.size;
    n.ipv6 = d.ipv6;
    n.connid = connid_of(d.sk);
    std::optional<Endpoint> local = socket.local, remote = peer;
    // A dual-stack socket's IPv4 traffic travels as IPv4: written as such.
    if (d.ipv6 && ((remote && is_v4_mapped(*remote)) || (!remote && local && is_v4_mapped(*local)))) {
        n.ipv6 = false;
        remote = remote ? std::optional(unmapped(*remote)) : std::nullopt;
        if (local && is_v4_mapped(*local))
            local = unmapped(*local);
        else if (local && is_wildcard(*local))
            local = Endpoint{false, {}, local->port}; // bound to [::]: the port is known
        else
            local.reset();
    }
    if (local && local->ipv6 == n.ipv6) {
        n.saddr = local->addr;
        n.sport = local->port;
    }
    if (remote && remote->ipv6 == n.ipv6) {
        n.daddr = remote->addr;
        n.dport = remote->port;
    }
    HeaderFields h;
    h.thread_id = d.tid;
    h.process_id = d.pid;
    h.timestamp = clock.to_session(d.time);
    emit(d.cpu, h.timestamp, udp_record(d.send ? UdpOp::Send : UdpOp::Recv, h, n, pointer_size_), d.frames);
}

void UdpDatagrams::sweep(std::uint64_t now_ns, const PerfClock &clock, const Emit &emit)
{
    last_sweep_ns_ = now_ns;
    std::unordered_map<std::uint32_t, bool> alive; // each process asked once
    const auto lives = [&](std::uint32_t pid) {
        const auto it = alive.find(pid);
        return it != alive.end() ? it->second : (alive[pid] = reader_.alive(pid));
    };
    std::vector<FdKey> ended;
    for (const auto &[key, socket] : sockets_)
        if (!lives(key.first))
            ended.push_back(key);
    for (const FdKey &key : ended)
        forget(key.first, key.second);
    for (auto c = connects_.begin(); c != connects_.end();)
        c = lives(c->first.first) ? std::next(c) : connects_.erase(c);
    // A call its process ended in: its datagrams with what is known.
    for (auto p = pending_.begin(); p != pending_.end();) {
        if (lives(p->second.pid)) {
            ++p;
            continue;
        }
        Pending call = std::move(p->second);
        p = pending_.erase(p);
        finish(std::move(call), false, 0, clock, emit);
    }
}

} // namespace openetw::kernel
