#include "core/session_channel.hpp"

#include <openetw/session.h>

#include <cstring>

namespace openetw::core {

namespace {

using platform::ChannelHandle;

constexpr std::uint32_t kMagic = 0x4843454F;           // "OECH"
constexpr std::uint32_t kMaxBody = (16u << 20) + 4096; // a 16 MiB buffer and its frame
constexpr std::int64_t kRequestWaitMs = 5000;          // a caller's request must arrive within this
constexpr std::uint32_t kMessageMax = 1024;

enum Kind : std::uint32_t { Answer = 100, FeedBuffer = 101, FeedEnd = 102 };

struct Frame {
    std::uint32_t magic;
    std::uint32_t kind;   // Request or Kind
    std::uint32_t status; // answers
    std::uint32_t length; // body bytes
};

// ---- Body encoding: little pieces appended and read back with bounds checks ----

struct Writer {
    std::vector<std::uint8_t> bytes;
    void put(const void *p, std::size_t n)
    {
        const auto *b = static_cast<const std::uint8_t *>(p);
        bytes.insert(bytes.end(), b, b + n);
    }
    void u32(std::uint32_t v) { put(&v, 4); }
    void text16(const std::u16string &s)
    {
        u32(std::uint32_t(s.size()));
        put(s.data(), s.size() * 2);
    }
    void text8(const std::string &s)
    {
        const std::uint32_t n = std::uint32_t(std::min<std::size_t>(s.size(), kMessageMax));
        u32(n);
        put(s.data(), n);
    }
};

struct Reader {
    const std::vector<std::uint8_t> &bytes;
    std::size_t at = 0;
    bool get(void *p, std::size_t n)
    {
        if (n > bytes.size() - at)
            return false;
        std::memcpy(p, bytes.data() + at, n);
        at += n;
        return true;
    }
    bool u32(std::uint32_t *v) { return get(v, 4); }
    bool text16(std::u16string *s)
    {
        std::uint32_t n;
        if (!u32(&n) || n > kRegistryNameMax)
            return false;
        s->resize(n);
        return get(s->data(), std::size_t(n) * 2);
    }
    bool text8(std::string *s)
    {
        std::uint32_t n;
        if (!u32(&n) || n > kMessageMax)
            return false;
        s->resize(n);
        return get(s->data(), n);
    }
};

void put_props(Writer &w, const Properties &p)
{
    w.put(&p.record(), sizeof(etw_event_trace_properties));
    w.text16(p.log_file_name());
}

bool get_props(Reader &r, Properties *p)
{
    etw_event_trace_properties rec;
    std::u16string file;
    if (!r.get(&rec, sizeof rec) || !r.text16(&file))
        return false;
    copy_settings(rec, p->record());
    if (p->log_file_name() != file)
        p->assign_log_file_name(file);
    return true;
}

etw_status send_frame(ChannelHandle c, std::uint32_t kind, std::uint32_t status, const std::vector<std::uint8_t> &body,
                      std::intptr_t fd = -1)
{
    Frame f{kMagic, kind, status, std::uint32_t(body.size())};
    std::vector<std::uint8_t> all(sizeof f + body.size());
    std::memcpy(all.data(), &f, sizeof f);
    if (!body.empty())
        std::memcpy(all.data() + sizeof f, body.data(), body.size());
    return platform::channel_send(c, all.data(), all.size(), -1, fd);
}

// Reads one frame; false (with why) for a closed channel or a malformed frame.
bool recv_frame(ChannelHandle c, Frame *f, std::vector<std::uint8_t> *body, std::int64_t timeout_ms, std::intptr_t *fd,
                Status *why)
{
    etw_status st = platform::channel_recv(c, f, sizeof *f, timeout_ms, fd);
    if (st == ETW_OK && (f->magic != kMagic || f->length > kMaxBody))
        st = ETW_ERROR_INVALID_DATA;
    if (st == ETW_OK) {
        body->resize(f->length);
        if (f->length)
            st = platform::channel_recv(c, body->data(), f->length, timeout_ms);
    }
    if (st == ETW_OK)
        return true;
    *why = st == ETW_ERROR_HANDLE_EOF   ? Fail(st, "the host process ended the conversation (it died or stopped the session)")
           : st == ETW_ERROR_TIMEOUT    ? Fail(st, "no answer in time")
           : st == ETW_ERROR_INVALID_DATA ? Fail(st, "a malformed message")
                                        : Fail(st, "the channel failed");
    return false;
}

// Connects to the host of e and sends a request; conn is the caller's.
Status send_request(SystemRegistry &reg, const RegistryEntry &e, Request code, const std::vector<std::uint8_t> &body,
                    ChannelHandle *conn)
{
    if (etw_status st = platform::channel_connect(reg.channel_name(e.slot, e.generation), conn); st != ETW_OK)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the host process " + std::to_string(e.host_pid) +
                                                          " does not answer (it stopped the session or died)");
    if (etw_status st = send_frame(*conn, std::uint32_t(code), 0, body); st != ETW_OK) {
        platform::channel_close(conn);
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the host process " + std::to_string(e.host_pid) +
                                                          " closed the channel before the request was sent");
    }
    return Status::ok();
}

// Waits for the answer (as long as the host lives: a stop may take a while).
Status await_answer(ChannelHandle c, std::vector<std::uint8_t> *body, std::intptr_t *fd)
{
    Frame f;
    Status why;
    if (!recv_frame(c, &f, body, -1, fd, &why))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "no answer: " + why.message);
    if (f.kind != Answer)
        return Fail(ETW_ERROR_INVALID_DATA, "the host answered with something else");
    Reader r{*body};
    std::string message;
    if (!r.text8(&message))
        return Fail(ETW_ERROR_INVALID_DATA, "the host's answer is malformed");
    body->erase(body->begin(), body->begin() + std::ptrdiff_t(r.at));
    Status st;
    st.code = f.status;
    st.message = message;
    return st;
}

} // namespace

std::uint32_t right_needed(Request r)
{
    switch (r) {
    case Request::Writer: return ETW_SESSION_RIGHT_LOG;
    case Request::Consume: return ETW_SESSION_RIGHT_CONSUME;
    default: return ETW_SESSION_RIGHT_CONTROL;
    }
}

Status request_control(SystemRegistry &reg, const RegistryEntry &e, Request code, Properties *props)
{
    Writer w;
    Properties none(e.name);
    put_props(w, props ? *props : none);
    ChannelHandle c = platform::kNoChannel;
    if (Status st = send_request(reg, e, code, w.bytes, &c); !st)
        return st;
    std::vector<std::uint8_t> body;
    Status st = await_answer(c, &body, nullptr);
    platform::channel_close(&c);
    if (st.code == ETW_ERROR_INVALID_DATA || (st.code == ETW_ERROR_WMI_INSTANCE_NOT_FOUND && body.empty()))
        return st;
    if (props && !body.empty()) {
        Reader r{body};
        if (!get_props(r, props))
            return Fail(ETW_ERROR_INVALID_DATA, "the host's answer is malformed");
        if (props->session_name() != e.name)
            props->assign_session_name(e.name);
    }
    return st;
}

namespace {
// A request whose answer is a status only.
Status status_request(SystemRegistry &reg, const RegistryEntry &e, Request code, const std::vector<std::uint8_t> &body)
{
    ChannelHandle c = platform::kNoChannel;
    if (Status st = send_request(reg, e, code, body, &c); !st)
        return st;
    std::vector<std::uint8_t> answer_body;
    Status st = await_answer(c, &answer_body, nullptr);
    platform::channel_close(&c);
    return st;
}
} // namespace

Status request_enable(SystemRegistry &reg, const RegistryEntry &e, const EnableRecord &rec, bool enable)
{
    Writer w;
    w.put(&rec, sizeof rec);
    w.u32(enable ? 1 : 0);
    return status_request(reg, e, Request::Enable, w.bytes);
}

Status request_grant(SystemRegistry &reg, const RegistryEntry &e, const GrantRecord &grant)
{
    Writer w;
    w.put(&grant, sizeof grant);
    return status_request(reg, e, Request::Grant, w.bytes);
}

Status request_writer(SystemRegistry &reg, const RegistryEntry &e, platform::Region *region, Session::WriterParams *params)
{
    ChannelHandle c = platform::kNoChannel;
    if (Status st = send_request(reg, e, Request::Writer, {}, &c); !st)
        return st;
    // Events go only to sessions of this process's own user or root (the
    // kernel says who listens; the registry could say anything).
    platform::PeerCredentials host;
    const std::uint32_t me = platform::effective_user_id();
    if (platform::channel_peer(c, &host) != ETW_OK || (host.uid != me && host.uid != 0)) {
        platform::channel_close(&c);
        return Fail(ETW_ERROR_ACCESS_DENIED, "the session's host runs as user " + std::to_string(host.uid) +
                                                 ": providers log only into sessions of their own user or root");
    }
    std::vector<std::uint8_t> body;
    std::intptr_t fd = -1;
    Status st = await_answer(c, &body, &fd);
    platform::channel_close(&c);
    if (st && (fd < 0 || body.size() != sizeof *params))
        st = Fail(ETW_ERROR_INVALID_DATA, "the host's answer to a writer is malformed");
    if (st) {
        std::memcpy(params, body.data(), sizeof *params);
        if (etw_status m = platform::shared_region_adopt(region, fd); m != ETW_OK) {
            fd = -1; // adopted (and closed) by the failed map
            st = Fail(m, "cannot map the session's region");
        } else {
            fd = -1;
        }
    }
    platform::close_fd(fd);
    return st;
}

// ---- RemoteFeed ----

Status RemoteFeed::open(SystemRegistry &reg, const RegistryEntry &e, std::unique_ptr<RemoteFeed> *out,
                        std::vector<std::uint8_t> *header_buffer)
{
    std::unique_ptr<RemoteFeed> f(new RemoteFeed());
    if (Status st = send_request(reg, e, Request::Consume, {}, &f->conn_); !st)
        return st;
    if (Status st = await_answer(f->conn_, header_buffer, nullptr); !st)
        return st;
    if (header_buffer->size() < 1024)
        return Fail(ETW_ERROR_INVALID_DATA, "the host sent no header buffer");
    *out = std::move(f);
    return Status::ok();
}

RemoteFeed::~RemoteFeed() { platform::channel_close(&conn_); }

LiveFeed::Next RemoteFeed::next(std::vector<std::uint8_t> &out, LossReport *loss)
{
    if (loss)
        *loss = LossReport{};
    if (interrupted_.load(std::memory_order_acquire))
        return Next::Interrupted;
    Frame f;
    Status why;
    if (!recv_frame(conn_, &f, &out, -1, nullptr, &why)) {
        if (interrupted_.load(std::memory_order_acquire))
            return Next::Interrupted;
        ended_early_ = "the live feed from the session's host ended before the session did: " + why.message;
        return Next::End;
    }
    if ((f.kind != FeedBuffer && f.kind != FeedEnd) || out.size() < 8) {
        ended_early_ = "the host sent a malformed frame";
        return Next::End;
    }
    LossReport l;
    std::memcpy(&l.events_lost, out.data(), 4);
    std::memcpy(&l.buffers_lost, out.data() + 4, 4);
    if (loss)
        *loss = l;
    if (f.kind == FeedEnd)
        return Next::End;
    out.erase(out.begin(), out.begin() + 8);
    // A buffer smaller than its header cannot be read; the consumer checks the rest.
    if (out.size() < 0x48) {
        ended_early_ = "the host sent a truncated buffer";
        return Next::End;
    }
    return Next::Buffer;
}

void RemoteFeed::interrupt()
{
    interrupted_.store(true, std::memory_order_release);
    platform::channel_shutdown(conn_);
}

// ---- Host side ----

Status read_request(ChannelHandle c, IncomingRequest *out)
{
    Frame f;
    std::vector<std::uint8_t> body;
    Status why;
    if (!recv_frame(c, &f, &body, kRequestWaitMs, nullptr, &why))
        return why;
    if (f.kind < std::uint32_t(Request::Query) || f.kind > std::uint32_t(Request::Consume))
        return Fail(ETW_ERROR_INVALID_DATA, "unknown request " + std::to_string(f.kind));
    out->code = Request(f.kind);
    Reader r{body};
    bool ok = true;
    switch (out->code) {
    case Request::Query:
    case Request::Update:
    case Request::Flush:
    case Request::Stop: ok = get_props(r, &out->props); break;
    case Request::Enable: {
        std::uint32_t on = 0;
        ok = r.get(&out->enable, sizeof out->enable) && r.u32(&on);
        out->enable_on = on != 0;
        break;
    }
    case Request::Grant: ok = r.get(&out->grant, sizeof out->grant); break;
    default: break;
    }
    return ok ? Status::ok() : Fail(ETW_ERROR_INVALID_DATA, "a malformed request");
}

void answer(ChannelHandle c, const Status &st, const Properties *props)
{
    Writer w;
    w.text8(st.message);
    if (props)
        put_props(w, *props);
    send_frame(c, Answer, st.code, w.bytes);
}

void answer_writer(ChannelHandle c, std::intptr_t region_fd, const Session::WriterParams &params)
{
    Writer w;
    w.text8("");
    w.put(&params, sizeof params);
    send_frame(c, Answer, ETW_OK, w.bytes, region_fd);
}

void relay(ChannelHandle c, std::unique_ptr<RealtimeReader> reader, const std::vector<std::uint8_t> &header)
{
    Writer w;
    w.text8("");
    w.put(header.data(), header.size());
    etw_status sent = send_frame(c, Answer, ETW_OK, w.bytes);
    std::vector<std::uint8_t> buf;
    std::vector<std::uint8_t> frame;
    while (sent == ETW_OK) {
        LossReport loss;
        const LiveFeed::Next n = reader->next(buf, &loss);
        if (n == LiveFeed::Next::Interrupted)
            break;
        frame.resize(8 + (n == LiveFeed::Next::Buffer ? buf.size() : 0));
        std::memcpy(frame.data(), &loss.events_lost, 4);
        std::memcpy(frame.data() + 4, &loss.buffers_lost, 4);
        if (n == LiveFeed::Next::Buffer)
            std::memcpy(frame.data() + 8, buf.data(), buf.size());
        // A consumer that does not read holds its buffers pinned, as an in-process one would.
        sent = send_frame(c, n == LiveFeed::Next::Buffer ? FeedBuffer : FeedEnd, ETW_OK, frame);
        if (n == LiveFeed::Next::End)
            break;
    }
    reader.reset(); // detach before the caller learns the feed ended
    platform::channel_close(&c);
}

} // namespace openetw::core
