#include "host/session_channel.hpp"

#include "host/channel_frames.hpp"

#include <openetw/session.h>

#include <cstring>

namespace openetw::host {

using namespace frames;

namespace {

using platform::ChannelHandle;

// Connects to the host of e and sends a request; conn is the caller's.
Status send_request(SystemRegistry &reg, const RegistryEntry &e, Request code, const std::vector<std::uint8_t> &body,
                    ChannelHandle *conn)
{
    if (etw_status st = platform::channel_connect(reg.channel_name(e.slot, e.generation), conn); st != ETW_OK)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the host process " + std::to_string(e.host_pid) +
                                                          " does not answer (it stopped the session or died)");
    if (etw_status st = send_request_frame(*conn, std::uint32_t(code), body); st != ETW_OK) {
        platform::channel_close(conn);
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the host process " + std::to_string(e.host_pid) +
                                                          " closed the channel before the request was sent");
    }
    return Status::ok();
}

} // namespace

std::uint32_t right_needed(Request r)
{
    switch (r) {
    case Request::Writer:
        return ETW_SESSION_RIGHT_LOG;
    case Request::Consume:
        return ETW_SESSION_RIGHT_CONSUME;
    default:
        return ETW_SESSION_RIGHT_CONTROL;
    }
}

namespace {
// A request whose answer carries the session's properties (props may be null).
Status props_request(SystemRegistry &reg, const RegistryEntry &e, Request code, Writer &w, Properties *props)
{
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
} // namespace

Status request_control(SystemRegistry &reg, const RegistryEntry &e, Request code, Properties *props)
{
    Writer w;
    return props_request(reg, e, code, w, props);
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

Status request_enable(SystemRegistry &reg, const RegistryEntry &e, const EnableRecord &rec, bool enable,
                      const std::vector<std::uint8_t> &filters)
{
    Writer w;
    w.put(&rec, sizeof rec);
    w.u32(enable ? 1 : 0);
    w.u32(std::uint32_t(filters.size()));
    w.put(filters.data(), filters.size());
    return status_request(reg, e, Request::Enable, w.bytes);
}

Status request_capture(SystemRegistry &reg, const RegistryEntry &e, const EnableRecord &rec)
{
    Writer w;
    w.put(&rec, sizeof rec);
    return status_request(reg, e, Request::CaptureState, w.bytes);
}

Status request_grant(SystemRegistry &reg, const RegistryEntry &e, const GrantRecord &grant)
{
    Writer w;
    w.put(&grant, sizeof grant);
    return status_request(reg, e, Request::Grant, w.bytes);
}

Status request_stack_tracing(SystemRegistry &reg, const RegistryEntry &e,
                             const std::vector<etw_classic_event_id> &events)
{
    Writer w;
    w.u32(std::uint32_t(events.size()));
    for (const etw_classic_event_id &id : events)
        w.put(&id, sizeof id);
    return status_request(reg, e, Request::StackTracing, w.bytes);
}

Status request_profile_interval(SystemRegistry &reg, const RegistryEntry &e, std::uint32_t interval_100ns)
{
    Writer w;
    w.u32(interval_100ns);
    return status_request(reg, e, Request::ProfileInterval, w.bytes);
}

Status request_options(SystemRegistry &reg, const RegistryEntry &e, SessionOptions *out)
{
    ChannelHandle c = platform::kNoChannel;
    if (Status st = send_request(reg, e, Request::Options, {}, &c); !st)
        return st;
    std::vector<std::uint8_t> body;
    Status st = await_answer(c, &body, nullptr);
    platform::channel_close(&c);
    if (!st)
        return st;
    Reader r{body};
    std::uint32_t lossless = 0;
    if (!r.u32(&lossless) || !r.u32(&out->lossless_timeout_ms) || !r.u32(&out->realtime_backlog) ||
        !r.u32(&out->profile_interval))
        return Fail(ETW_ERROR_INVALID_DATA, "the host's answer is malformed");
    out->lossless = lossless != 0;
    return st;
}

Status request_flush_to(SystemRegistry &reg, const RegistryEntry &e, const std::u16string &path, Properties *props)
{
    Writer w;
    w.text16(path);
    return props_request(reg, e, Request::FlushTo, w, props);
}

Status request_writer(SystemRegistry &reg, const RegistryEntry &e, platform::Region *region,
                      Session::WriterParams *params)
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

std::int64_t max_request_body(std::uint32_t kind)
{
    switch (Request(kind)) {
    case Request::Query:
    case Request::Update:
    case Request::Flush:
    case Request::Stop:
        return kPropsMax;
    case Request::Enable:
        return std::int64_t(sizeof(EnableRecord)) + 8 + std::int64_t(kFilterBlobMax);
    case Request::Grant:
        return std::int64_t(sizeof(GrantRecord));
    case Request::CaptureState:
        return std::int64_t(sizeof(EnableRecord));
    case Request::StackTracing:
        return 4 + std::int64_t(ETW_MAX_STACK_TRACING_EVENTS * sizeof(etw_classic_event_id));
    case Request::ProfileInterval:
        return 4;
    case Request::FlushTo:
        return kText16Max + kPropsMax;
    case Request::Writer:
    case Request::Consume:
    case Request::Options:
        return 0;
    }
    return -1;
}

Status parse_request(std::uint32_t kind, const std::vector<std::uint8_t> &body, IncomingRequest *out)
{
    if (max_request_body(kind) < 0)
        return Fail(ETW_ERROR_INVALID_DATA, "unknown request " + std::to_string(kind));
    out->code = Request(kind);
    Reader r{body};
    bool ok = true;
    switch (out->code) {
    case Request::Query:
    case Request::Update:
    case Request::Flush:
    case Request::Stop:
        ok = get_props(r, &out->props);
        break;
    case Request::Enable: {
        std::uint32_t on = 0;
        std::uint32_t filter_bytes = 0;
        ok = r.get(&out->enable, sizeof out->enable) && r.u32(&on) && r.u32(&filter_bytes) &&
             filter_bytes <= kFilterBlobMax;
        out->enable_on = on != 0;
        out->enable_filters.resize(ok ? filter_bytes : 0);
        ok = ok && r.get(out->enable_filters.data(), filter_bytes);
        break;
    }
    case Request::Grant:
        ok = r.get(&out->grant, sizeof out->grant);
        break;
    case Request::CaptureState:
        ok = r.get(&out->enable, sizeof out->enable);
        break;
    case Request::StackTracing: {
        std::uint32_t n = 0;
        ok = r.u32(&n) && n <= ETW_MAX_STACK_TRACING_EVENTS;
        out->stack_events.resize(ok ? n : 0);
        for (std::uint32_t i = 0; ok && i < n; ++i)
            ok = r.get(&out->stack_events[i], sizeof(etw_classic_event_id));
        break;
    }
    case Request::ProfileInterval:
        ok = r.u32(&out->profile_interval);
        break;
    case Request::FlushTo:
        ok = r.text16(&out->path) && !out->path.empty() && get_props(r, &out->props);
        break;
    default:
        break;
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

void answer_options(ChannelHandle c, const SessionOptions &o)
{
    Writer w;
    w.u32(o.lossless ? 1 : 0);
    w.u32(o.lossless_timeout_ms);
    w.u32(o.realtime_backlog);
    w.u32(o.profile_interval);
    send_answer(c, Status::ok(), w.bytes);
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
}

} // namespace openetw::host
