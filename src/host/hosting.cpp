// The sessions this process hosts (docs/SYSTEM_SESSIONS.md): their registry
// slots, their rights, the door through which other processes' requests come,
// taking over an orphan, and the sessions other hosts run.
#include "host/hosting.hpp"

#include "base/utf.hpp"
#include "export/nats_export.hpp"

#include "host/remote_session.hpp"
#include "host/request_loop.hpp"
#include "host/session_channel.hpp"

#include "platform/files.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

#include <openetw/constants.h>
#include <openetw/session.h>

#include <algorithm>
#include <cstring>

namespace openetw::host {

using engine::RealtimeReader;

namespace {

// Control requests being answered: a host that exits right after another
// process stopped its session must still answer (exit waits for them).
std::atomic<int> g_serving{0};

// Registered with atexit by the first hosted session.
void finish_answers()
{
    for (int i = 0; i < 5000 && g_serving.load(std::memory_order_acquire) > 0; ++i)
        platform::sleep_ms(1);
}

} // namespace

// A registry slot claimed for a session being started.
class Hosting::SlotClaim final : public Claim {
public:
    SlotClaim(SystemRegistry &reg, std::uint32_t slot, std::uint32_t generation)
        : reg(reg), slot(slot), generation(generation)
    {}
    std::string region_path() const override { return reg.region_path(slot, generation); }
    SystemRegistry &reg;
    std::uint32_t slot, generation;
    platform::ChannelHandle listener = platform::kNoChannel;
    std::shared_ptr<SessionDoor> door; // set once the request loop serves the listener
};

// A hosted session's channel as the request loop sees it: who may ask what,
// decided from the request's kind and the caller's user before its body is read.
class Hosting::SessionDoor final : public RequestDoor {
public:
    explicit SessionDoor(Hosting &hosting) : hosting_(hosting) {}
    // The session runs: requests are served from now on.
    void open(std::shared_ptr<Hosted> h, std::shared_ptr<Session> s)
    {
        hosted_ = std::move(h);
        session_ = std::move(s);
        ready_.store(true, std::memory_order_release);
    }

    Status admit(std::uint32_t kind, const platform::PeerCredentials &peer, std::uint32_t *max_body) override
    {
        const std::int64_t max = max_request_body(kind);
        if (max < 0)
            return Fail(ETW_ERROR_INVALID_DATA, "unknown request " + std::to_string(kind));
        if (!ready_.load(std::memory_order_acquire))
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is still starting");
        const auto code = Request(kind);
        if (!hosting_.allowed(*hosted_, peer.uid, right_needed(code))) {
            const char *right = code == Request::Writer    ? "logging"
                                : code == Request::Consume ? "consuming"
                                                           : "control";
            return Fail(ETW_ERROR_ACCESS_DENIED, "user " + std::to_string(peer.uid) + " has no " + right +
                                                     " right over the session (see etw_session_grant)");
        }
        if (code == Request::FlushTo && peer.uid != 0 && peer.uid != platform::effective_user_id())
            // The host writes the file as its user: a grant does not extend to that.
            return Fail(ETW_ERROR_ACCESS_DENIED,
                        "only the session's own user or root may flush it to a file of their choosing");
        *max_body = std::uint32_t(max);
        return Status::ok();
    }

    void serve(platform::ChannelHandle c, const platform::PeerCredentials &, std::uint32_t kind,
               std::vector<std::uint8_t> body) override
    {
        hosting_.serve(*hosted_, session_, c, kind, body);
    }

private:
    Hosting &hosting_;
    std::atomic<bool> ready_{false};
    std::shared_ptr<Hosted> hosted_;
    std::shared_ptr<Session> session_;
};

Hosting &Hosting::instance()
{
    static Hosting *h = [] {
        auto *made = new Hosting(Engine::instance()); // never destroyed, as the engine
        made->engine_.set_hosting(made);
        return made;
    }();
    return *h;
}

Status Hosting::claim(const Properties &props, const SessionOptions &options, std::uint64_t handle,
                      std::unique_ptr<Claim> *out)
{
    // Sessions enter the registry only where they are hosted: in the session
    // host (or with OPENETW_HOST=inprocess); a process that could not reach a
    // host keeps its sessions to itself.
    SystemRegistry *reg = SystemRegistry::is_host_process() ? SystemRegistry::get() : nullptr;
    if (!reg || !reg->writable())
        return Status::ok(); // none, or another user's namespace: this process cannot enter its sessions there
    const etw_guid guid = props.record().Wnode.Guid;
    std::uint32_t slot = 0, generation = 0;
    Status st = reg->claim(props.session_name(), guid, handle, &slot, &generation);
    RegistryEntry orphan;
    if (!st && st.code == ETW_ERROR_ALREADY_EXISTS && options.replace_orphan &&
        reg->find(props.session_name(), &orphan) && orphan.orphaned) {
        // Its file is finished as a stop would; a file it could not finish does not keep the name.
        RemoteSession(*reg, orphan).stop(nullptr);
        st = reg->claim(props.session_name(), guid, handle, &slot, &generation);
    }
    if (!st)
        return Fail(st.code, st.message.empty() ? "" : "\"" + props.session_name_utf8() + "\": " + st.message);
    *out = std::make_unique<SlotClaim>(*reg, slot, generation);
    return Status::ok();
}

Status Hosting::listen(Claim &claim)
{
    auto &c = static_cast<SlotClaim &>(claim);
    if (etw_status ls = platform::channel_listen(c.reg.channel_name(c.slot, c.generation), &c.listener); ls != ETW_OK)
        return Fail(ls, "cannot listen for other processes' requests");
    auto door = std::make_shared<SessionDoor>(*this);
    if (Status st = RequestLoop::instance().add(c.listener, door); !st) {
        platform::channel_close(&c.listener);
        return st;
    }
    c.door = std::move(door);
    return Status::ok();
}

void Hosting::abandon(std::unique_ptr<Claim> claim)
{
    auto &c = static_cast<SlotClaim &>(*claim);
    if (c.door)
        RequestLoop::instance().remove(c.listener);
    else
        platform::channel_close(&c.listener);
    // Session::create maps the region before it opens the log file: a start
    // that failed there leaves no region behind.
    platform::remove_file(c.region_path());
    c.reg.release(c.slot, c.generation);
}

void Hosting::host(std::unique_ptr<Claim> claim, const std::shared_ptr<Session> &session, const Properties &props)
{
    auto &c = static_cast<SlotClaim &>(*claim);
    c.reg.publish(c.slot, props);
    auto h = std::make_shared<Hosted>();
    h->slot = c.slot;
    h->generation = c.generation;
    h->listener = c.listener;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        hosted_[session.get()] = h;
    }
    static const bool registered = (std::atexit(finish_answers), true);
    (void)registered;
    c.door->open(h, session);
}

std::size_t Hosting::enable_limit(const Session *session)
{
    std::lock_guard<std::mutex> lock(mutex_);
    return hosted_.count(session) ? kSlotEnables : 0;
}

std::size_t Hosting::filter_room(const Session *session)
{
    std::lock_guard<std::mutex> lock(mutex_);
    return hosted_.count(session) ? kSlotFilterBytes : 0;
}

void Hosting::enables_changed(const Session *session, const std::vector<engine::SessionEnable> &enables)
{
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hosted_.find(session);
    if (it == hosted_.end())
        return;
    std::vector<EnableRecord> &recs = it->second->enables;
    recs.clear();
    for (const engine::SessionEnable &e : enables) {
        EnableRecord r{};
        r.guid = e.guid;
        r.level = e.level;
        r.match_any = e.match_any;
        r.match_all = e.match_all;
        r.enable_property = e.enable_property;
        recs.push_back(r);
    }
    it->second->filters.clear();
    for (const engine::SessionEnable &e : enables)
        it->second->filters.push_back(e.filters);
    publish_tables(*it->second);
}

void Hosting::capture_requested(const Session *session, const engine::SessionEnable &request)
{
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hosted_.find(session);
    if (it == hosted_.end())
        return;
    CaptureRecord rec{};
    rec.guid = request.guid;
    rec.level = request.level;
    rec.match_any = request.match_any;
    rec.match_all = request.match_all;
    SystemRegistry::get()->publish_capture(it->second->slot, rec);
}

void Hosting::stopping(const Session *session)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = hosted_.find(session); it != hosted_.end())
        SystemRegistry::get()->publish_tables(it->second->slot, {}, {}); // other processes' providers let go
}

void Hosting::stopped(const Session *session)
{
    std::shared_ptr<Hosted> hosted;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = hosted_.find(session);
        if (it == hosted_.end())
            return;
        hosted = it->second;
        hosted_.erase(it);
    }
    hosted->drain_relays(); // consumers of other processes get the tail before this process exits
    SystemRegistry &reg = *SystemRegistry::get();
    // Every committed buffer is in the file: the region is not needed to recover anything.
    platform::remove_file(reg.region_path(hosted->slot, hosted->generation));
    {
        std::lock_guard<std::mutex> lock(hosted->publish_mutex);
        hosted->released = true;
    }
    // No request is admitted from now on (those being served get "not running");
    // the name is free before a stop requested by another process is answered.
    RequestLoop::instance().remove(hosted->listener);
    reg.release(hosted->slot, hosted->generation);
}

void Hosting::Hosted::relay_started()
{
    std::lock_guard<std::mutex> lock(relay_mutex);
    ++relays;
    if (draining)
        g_serving.fetch_add(1, std::memory_order_acq_rel);
}

void Hosting::Hosted::relay_ended()
{
    std::lock_guard<std::mutex> lock(relay_mutex);
    --relays;
    if (draining)
        g_serving.fetch_sub(1, std::memory_order_acq_rel);
}

void Hosting::Hosted::drain_relays()
{
    std::lock_guard<std::mutex> lock(relay_mutex);
    if (!draining) {
        draining = true;
        g_serving.fetch_add(relays, std::memory_order_acq_rel);
    }
}

Status Hosting::take_over(Properties &props, const SessionOptions &options, std::shared_ptr<Session> *out)
{
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg)
        return Fail(ETW_ERROR_NOT_SUPPORTED, "sessions are not system-wide here (OPENETW_REGISTRY=none, or no shared "
                                             "registry on this system): there is no orphan to take over");
    RegistryEntry orphan;
    if (!reg->find(props.session_name(), &orphan))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND,
                    "no session named \"" + props.session_name_utf8() + "\" to take over");
    if (!orphan.orphaned)
        return Fail(ETW_ERROR_ALREADY_EXISTS, "the session \"" + props.session_name_utf8() +
                                                  "\" is not orphaned: process " + std::to_string(orphan.host_pid) +
                                                  " hosts it");
    Properties settings(orphan.name);
    std::vector<EnableRecord> enables;
    std::vector<GrantRecord> grants;
    std::vector<std::vector<std::uint8_t>> filters;
    if (!reg->published(orphan, settings) || !reg->tables(orphan, &enables, &grants, &filters))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the orphan went away while being taken over");
    etw_event_trace_properties &rec = settings.record();
    if (rec.LogFileMode & (ETW_FILE_MODE_CIRCULAR | ETW_FILE_MODE_NEWFILE | ETW_BUFFERING_MODE))
        return Fail(ETW_ERROR_NOT_SUPPORTED, "only a sequential or real-time session can be continued: stop the orphan "
                                             "(its file is finished) and start anew");
    // Stopped first: every committed buffer is in its file, then logging goes on after them.
    if (Status st = RemoteSession(*reg, orphan).stop(nullptr); !st && st.code == ETW_ERROR_ACCESS_DENIED)
        return st;
    if (!settings.log_file_name().empty()) {
        rec.LogFileMode |= ETW_FILE_MODE_APPEND;
        rec.LogFileMode &= ~ETW_FILE_MODE_PREALLOCATE;
    }
    copy_settings(rec, props.record());
    props.assign_log_file_name(settings.log_file_name());
    SessionOptions o = options;
    o.take_over = false;
    if (Status st = engine_.start(props, o, out); !st)
        return Fail(st.code,
                    "the orphan was stopped (its file finished) but could not be started again: " + st.message);
    // (The blobs hold the session's own filters too: the new session has none of its own.)
    for (std::size_t i = 0; i < enables.size(); ++i)
        engine_.enable_provider_ex(*out, enables[i].guid, true, std::uint8_t(enables[i].level), enables[i].match_any,
                                   enables[i].match_all, enables[i].enable_property, filters[i]);
    for (const GrantRecord &g : grants)
        grant(*out, g.uid, g.rights);
    return Status::ok();
}

bool Hosting::hosted_slot(const Session *session, std::uint32_t *slot, std::uint32_t *generation)
{
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = hosted_.find(session);
    if (it == hosted_.end())
        return false;
    *slot = it->second->slot;
    *generation = it->second->generation;
    return true;
}

bool Hosting::allowed(const Hosted &h, std::uint32_t uid, std::uint32_t rights)
{
    if (uid == 0 || uid == platform::effective_user_id())
        return true; // root and the host's own user hold every right
    std::lock_guard<std::mutex> lock(mutex_);
    for (const GrantRecord &g : h.grants)
        if (g.uid == uid)
            return (g.rights & rights) == rights;
    return false;
}

void Hosting::publish_tables(const Hosted &h)
{
    SystemRegistry::get()->publish_tables(h.slot, h.enables, h.grants, h.filters);
}

Status Hosting::grant(const std::shared_ptr<Session> &session, std::uint32_t uid, std::uint32_t rights)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (session->state.load() != Session::Running)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    auto it = hosted_.find(session.get());
    if (it == hosted_.end())
        return Fail(ETW_ERROR_NOT_SUPPORTED,
                    session->is_private() ? "a private session belongs to its process: it grants no rights"
                                          : "the session runs in this process only: sessions are not system-wide "
                                            "here (OPENETW_REGISTRY=none, no shared registry on this system, or "
                                            "no session host could be started: openetw-hostd not found, see "
                                            "OPENETW_HOSTD)");
    std::vector<GrantRecord> &g = it->second->grants;
    auto at = std::find_if(g.begin(), g.end(), [&](const GrantRecord &r) { return r.uid == uid; });
    if (rights == 0) {
        if (at != g.end())
            g.erase(at);
    } else if (at != g.end()) {
        at->rights = rights;
    } else {
        if (g.size() >= kSlotGrants)
            return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                        "the session already grants rights to " + std::to_string(kSlotGrants) + " users");
        g.push_back({uid, rights});
    }
    publish_tables(*it->second);
    return Status::ok();
}

void Hosting::serve(Hosted &h, const std::shared_ptr<Session> &s, platform::ChannelHandle c, std::uint32_t kind,
                    const std::vector<std::uint8_t> &body)
{
    IncomingRequest req;
    req.props.assign_session_name(s->name());
    if (Status st = parse_request(kind, body, &req); !st)
        return answer(c, st, nullptr);
    if (req.code == Request::Consume) {
        std::unique_ptr<RealtimeReader> reader;
        if (Status st = s->attach(&reader); !st)
            return answer(c, st, nullptr);
        // A stopped session's feeds still send their tail before this
        // process exits (drain_relays, finish_answers).
        h.relay_started();
        relay(c, std::move(reader), s->header_buffer());
        h.relay_ended();
        return;
    }
    if (req.code == Request::Writer) {
        if (s->state.load() != Session::Running)
            return answer(c, Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is stopping"), nullptr);
        if (!s->is_shared())
            return answer(c,
                          Fail(ETW_ERROR_NOT_SUPPORTED, "the session's buffers are private to its host (its region "
                                                        "file could not be created)"),
                          nullptr);
        return answer_writer(c, s->region_fd(), s->writer_params());
    }
    if (req.code == Request::Options) {
        SessionOptions o = s->options();
        o.lossless = s->is_lossless();
        o.realtime_backlog = s->realtime_backlog_limit();
        return answer_options(c, o);
    }
    g_serving.fetch_add(1, std::memory_order_acq_rel);
    struct Done {
        ~Done() { g_serving.fetch_sub(1, std::memory_order_acq_rel); }
    } done;
    Properties out(s->name());
    Status st;
    bool with_props = true;
    switch (req.code) {
    case Request::Query:
        st = engine_.query(s, out);
        break;
    case Request::Update:
        st = engine_.update(s, req.props);
        out = req.props;
        break;
    case Request::Flush:
        st = engine_.flush(s, &out);
        break;
    case Request::FlushTo:
        if (!s->is_buffering())
            st = Fail(ETW_ERROR_INVALID_PARAMETER, "flushing to a file needs a buffering session (ETW_BUFFERING_MODE)");
        else
            st = engine_.flush(s, &out, utf16_to_utf8_lossy(req.path));
        break;
    case Request::Stop:
        st = engine_.stop(s, &out);
        break;
    case Request::Enable:
        with_props = false;
        st = engine_.enable_provider_ex(s, req.enable.guid, req.enable_on, std::uint8_t(req.enable.level),
                                        req.enable.match_any, req.enable.match_all, req.enable.enable_property,
                                        req.enable_filters);
        break;
    case Request::Grant:
        with_props = false;
        st = grant(s, req.grant.uid, req.grant.rights);
        break;
    case Request::CaptureState:
        with_props = false;
        st = engine_.capture_state(s, req.enable.guid, std::uint8_t(req.enable.level), req.enable.match_any,
                                   req.enable.match_all);
        break;
    case Request::StackTracing:
        with_props = false;
        st = s->set_stack_tracing(req.stack_events);
        break;
    case Request::ProfileInterval:
        with_props = false;
        st = s->set_profile_interval(req.profile_interval);
        break;
    default:
        st = Fail(ETW_ERROR_INVALID_PARAMETER, "unknown request");
        break;
    }
    if (st && with_props && req.code != Request::Stop) {
        std::lock_guard<std::mutex> lock(h.publish_mutex);
        if (!h.released)
            SystemRegistry::get()->publish(h.slot, out); // what an orphan will report
    }
    answer(c, st, with_props ? &out : nullptr);
}

std::vector<RegistryEntry> Hosting::foreign_sessions()
{
    std::vector<RegistryEntry> out;
    if (SystemRegistry *reg = SystemRegistry::get())
        for (RegistryEntry &e : reg->list())
            if (!e.own)
                out.push_back(std::move(e));
    return out;
}

bool Hosting::find_foreign(const std::u16string &name, RegistryEntry *out)
{
    SystemRegistry *reg = SystemRegistry::get();
    return reg && reg->find(name, out) && !out->own;
}

Status Hosting::open_export(const Properties &props, std::unique_ptr<engine::BufferExport> *out)
{
    exporter::ExportTarget target;
    target.url = props.export_url();
    target.credentials_file = props.export_credentials();
    target.session = props.session_name_utf8();
    target.buffer_size = props.record().BufferSize * 1024u;
    return exporter::open_nats_export(target, out);
}

} // namespace openetw::host
