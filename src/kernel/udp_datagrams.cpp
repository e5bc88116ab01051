#include "kernel/udp_datagrams.hpp"

#include "platform/proc_sockets.hpp"
#include "platform/proc_files.hpp"

#include <algorithm>

namespace openetw::kernel {

namespace {

constexpr std::uint64_t kIpProtoUdp = 17;
constexpr std::int64_t kMsgPeek = 2;
// Sockets and numbers kept at most (those whose close was never seen):
// forgotten all at once past this many.
constexpr std::size_t kMaxKnown = 1u << 16;
// How often ended processes' sockets and calls are let go (perf ns).
constexpr std::uint64_t kSweepNs = 1000000000;

int as_fd(std::uint64_t v) { return int(std::int32_t(std::uint32_t(v))); }

} // namespace

const std::vector<const char *> &udp_syscall_tracepoints()
{
    static const std::vector<const char *> names = {
        "sys_enter_sendto",
        "sys_exit_sendto",
        "sys_enter_recvfrom",
        "sys_exit_recvfrom",
        "sys_enter_sendmsg",
        "sys_exit_sendmsg",
        "sys_enter_recvmsg",
        "sys_exit_recvmsg",
        "sys_enter_sendmmsg",
        "sys_exit_sendmmsg",
        "sys_enter_recvmmsg",
        "sys_exit_recvmmsg",
        // A socket's ends change: its cached ends are dropped.
        "sys_enter_connect",
        "sys_enter_close",
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
    Kind k;
    std::string name = format.name();
    if (name == "sock_send_length" || name == "sock_recv_length") {
        k.call = name == "sock_send_length" ? Call::SendLength : Call::RecvLength;
        return kinds_[format.id()] = k;
    }
    k.exit = name.rfind("sys_exit_", 0) == 0;
    name = name.substr(k.exit ? 9 : name.rfind("sys_enter_", 0) == 0 ? 10 : 0);
    for (const auto &[n, c] : calls)
        if (name == n)
            k.call = c;
    return kinds_[format.id()] = k;
}

void UdpDatagrams::add(const TracepointFormat &format, const TracepointSample &sample)
{
    const Kind &k = kind_of(format);
    if (k.call == Call::None)
        return;
    if ((k.call == Call::SendLength || k.call == Call::RecvLength) &&
        format.u(sample.raw, "protocol").value_or(0) != kIpProtoUdp)
        return; // TCP's: tcp_connections.hpp
    batch_.push_back(
        {&format, sample, {sample.raw.begin(), sample.raw.end()}, {sample.frames.begin(), sample.frames.end()}});
}

void UdpDatagrams::flush(const PerfClock &clock, std::uint64_t hold, const Emit &emit)
{
    for (auto &[tid, p] : pending_)
        p.enter_at = -1; // its enter was in an earlier batch
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
        Added &a = batch_[i];
        a.sample.raw = a.raw;
        a.sample.frames = a.frames;
        if (a.sample.time <= hold)
            ready = i + 1;
        const Kind &k = kind_of(*a.format);
        const std::uint32_t pid = a.sample.pid;
        if (k.call == Call::SendLength || k.call == Call::RecvLength)
            continue;
        if (k.call == Call::Close || k.call == Call::Connect) {
            const FdKey key{pid, as_fd(a.format->u(a.raw, "fd").value_or(~0ull))};
            (k.call == Call::Close ? last_close_ : last_connect_)[key] = i;
            continue;
        }
        const bool send = sends(k.call);
        if (!k.exit) {
            const char *field = k.call == Call::SendTo || k.call == Call::RecvFrom   ? "addr"
                                : k.call == Call::SendMsg || k.call == Call::RecvMsg ? "msg"
                                                                                     : "mmsg";
            const std::uint64_t buffer = a.format->u(a.raw, field).value_or(0);
            open[a.sample.tid] = buffer;
            if (send && buffer != 0) // the program filled it for this call
                last_buffer_[{pid, buffer}] = i;
        } else if (const auto o = open.find(a.sample.tid); o != open.end()) {
            if (!send && o->second != 0 && a.format->i(a.raw, "ret").value_or(-1) >= 0)
                last_buffer_[{pid, o->second}] = i; // the kernel wrote what it received
            open.erase(o);
        }
    }
    for (at_ = 0; at_ < ready; ++at_)
        on_sample(*batch_[at_].format, batch_[at_].sample, clock, emit);
    batch_.erase(batch_.begin(), batch_.begin() + std::ptrdiff_t(ready));
}

void UdpDatagrams::on_sample(const TracepointFormat &format, const TracepointSample &s, const PerfClock &clock,
                             const Emit &emit)
{
    const Kind &k = kind_of(format);
    const auto u = [&](const char *field) { return format.u(s.raw, field).value_or(0); };
    switch (k.call) {
    case Call::None:
        return;
    case Call::SendLength:
    case Call::RecvLength: {
        const auto ret = format.i(s.raw, "ret");
        const auto flags = format.i(s.raw, "flags");
        const auto family = format.u(s.raw, "family");
        const auto sk = format.u(s.raw, "sk");
        if (!ret || !flags || !family || !sk || (*family != kAfInet && *family != kAfInet6))
            return;
        Datagram d;
        d.time = s.time;
        d.cpu = s.cpu;
        d.tid = s.tid;
        d.pid = s.pid;
        d.sk = *sk;
        d.send = k.call == Call::SendLength;
        d.ipv6 = *family == kAfInet6;
        d.size = std::uint32_t(std::max<std::int64_t>(*ret, 0));
        d.frames = {s.frames.begin(), s.frames.end()};
        // An error writes nothing; a peek leaves the datagram queued for
        // the receive that takes it. A datagram of 0 bytes is one.
        const bool written = *ret >= 0 && (d.send || !(*flags & kMsgPeek));
        if (const auto p = pending_.find(s.tid); p != pending_.end() && sends(p->second.call) == d.send) {
            d.index = p->second.messages++;
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
    case Call::Connect:
        forget(s.pid, as_fd(u("fd")));
        break;
    default:
        if (!k.exit) {
            if (auto p = pending_.find(s.tid); p != pending_.end()) { // its exit was not seen
                Pending old = std::move(p->second);
                pending_.erase(p);
                finish(std::move(old), false, 0, clock, emit);
            }
            Pending p;
            p.call = k.call;
            p.pid = s.pid;
            p.fd = as_fd(u("fd"));
            p.buffer = u(k.call == Call::SendTo || k.call == Call::RecvFrom   ? "addr"
                         : k.call == Call::SendMsg || k.call == Call::RecvMsg ? "msg"
                                                                              : "mmsg");
            p.enter_at = std::int64_t(at_);
            pending_[s.tid] = std::move(p);
        } else if (const auto p = pending_.find(s.tid); p != pending_.end() && p->second.call == k.call) {
            Pending call = std::move(p->second);
            pending_.erase(p);
            finish(std::move(call), true, format.i(s.raw, "ret").value_or(-1), clock, emit);
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
        if (p.buffer != 0 && (send || (exited && ret >= 0)))
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
    if (later(last_close_))
        return s; // closed before now: the descriptor may name another socket
    std::vector<std::uint8_t> local, peer;
    if (reader_.ends(pid, fd, &local, &peer)) {
        s.resolved = true;
        s.local = parse_sockaddr(local);
        if (!peer.empty())
            s.peer = parse_sockaddr(peer);
    }
    if (later(last_connect_)) {
        // Connected since: its peer now is not the datagram's, nor its local
        // address (a wildcard one becomes the route's); its port stays.
        s.peer.reset();
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
    std::vector<FdKey> ended;
    for (const auto &[key, socket] : sockets_)
        if (!reader_.alive(key.first))
            ended.push_back(key);
    for (const FdKey &key : ended)
        forget(key.first, key.second);
    // A call its process ended in: its datagrams with what is known.
    for (auto p = pending_.begin(); p != pending_.end();) {
        if (reader_.alive(p->second.pid)) {
            ++p;
            continue;
        }
        Pending call = std::move(p->second);
        p = pending_.erase(p);
        finish(std::move(call), false, 0, clock, emit);
    }
}

} // namespace openetw::kernel
