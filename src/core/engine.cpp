#include "core/engine.hpp"

#include "core/remote_session.hpp"
#include "core/session_channel.hpp"

#include "base/guid.hpp"
#include "platform/platform.hpp"

#include <openetw/constants.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <random>

namespace openetw::core {

namespace {

constexpr std::uint64_t kEnabledBit = 1ull << 63;

std::string key_of(const etw_guid &g) { return std::string(reinterpret_cast<const char *>(&g), sizeof g); }

char16_t fold(char16_t c)
{
    if (c >= u'a' && c <= u'z')
        return char16_t(c - 32);
    if (c >= 0xE0 && c <= 0xFE && c != 0xF7)
        return char16_t(c - 32);
    return c;
}

etw_guid random_guid()
{
    static std::mutex m;
    static std::random_device rd;
    static std::mt19937_64 gen(rd());
    std::lock_guard<std::mutex> lock(m);
    std::uint64_t a = gen(), b = gen();
    etw_guid g;
    std::memcpy(&g, &a, 8);
    std::memcpy(reinterpret_cast<std::uint8_t *>(&g) + 8, &b, 8);
    g.Data3 = std::uint16_t((g.Data3 & 0x0FFF) | 0x4000); // version 4
    g.Data4[0] = std::uint8_t((g.Data4[0] & 0x3F) | 0x80); // RFC 4122 variant
    return g;
}

} // namespace

namespace {
bool shared_private(std::uint32_t mode) { return (mode & ETW_PRIVATE_LOGGER_MODE) != 0; }

// Requests being served. A host that exits right after another process
// stopped its session (it sees the stop at once) must still answer: exit
// waits for the answers in flight, at most a few seconds.
std::atomic<int> g_serving{0};
void finish_answers()
{
    for (int i = 0; i < 5000 && g_serving.load(std::memory_order_acquire) > 0; ++i)
        platform::sleep_ms(1);
}
} // namespace

bool session_names_equal(const std::u16string &a, const std::u16string &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (fold(a[i]) != fold(b[i]))
            return false;
    return true;
}

Engine &Engine::instance()
{
    static Engine *e = new Engine(); // never destroyed: sessions may outlive static destructors
    return *e;
}

Engine::GuidEntry &Engine::entry(const etw_guid &g) { return guids_[key_of(g)]; }

void Engine::republish(const etw_guid &g, std::vector<ProviderSnapshot *> &retired, std::vector<Pending> &notify,
                       std::uint64_t session_handle)
{
    GuidEntry &e = entry(g);
    std::vector<Enablement> every = e.enablements;
    every.insert(every.end(), e.remote.begin(), e.remote.end());
    std::uint64_t summary = 0, any = 0, all = ~0ull;
    std::uint8_t max_level = 0;
    for (const Enablement &en : every) {
        const std::uint8_t lvl = en.level == 0 ? 255 : en.level;
        max_level = std::max(max_level, lvl);
        any |= en.match_any == 0 ? ~0ull : en.match_any;
        all &= en.match_all;
    }
    if (!every.empty())
        summary = kEnabledBit | max_level;
    else
        all = 0;
    for (Provider *p : e.providers) {
        auto *snap = new ProviderSnapshot();
        for (const Enablement &en : every)
            snap->entries.push_back({en.session.get(), en.level});
        ProviderSnapshot *old = p->snapshot.exchange(snap, std::memory_order_acq_rel);
        if (old)
            retired.push_back(old);
        p->any_flags.store(any, std::memory_order_relaxed);
        p->summary.store(summary, std::memory_order_release);
        p->enabled.store(summary ? 1 : 0, std::memory_order_release);
        if (p->callback && !p->closing) {
            EnableInfo info;
            info.is_enabled = summary ? 1 : 0;
            info.level = summary ? (max_level == 255 ? 0 : max_level) : 0;
            info.match_any = summary ? any : 0;
            info.match_all = all;
            info.session_handle = session_handle;
            ++p->in_flight;
            p->in_flight_threads.push_back(platform::thread_id());
            notify.push_back({p, info});
        }
    }
    if (e.providers.empty() && e.enablements.empty() && e.remote.empty())
        guids_.erase(key_of(g));
}

void Engine::deliver(std::vector<Pending> &notify)
{
    const std::uint32_t self = platform::thread_id();
    for (Pending &n : notify) {
        bool run;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            run = !n.provider->closing;
        }
        if (run)
            n.provider->callback(n.info, n.provider->context); // no engine lock held
        std::lock_guard<std::mutex> lock(mutex_);
        --n.provider->in_flight;
        auto &v = n.provider->in_flight_threads;
        auto it = std::find(v.begin(), v.end(), self);
        if (it != v.end())
            v.erase(it);
        if (n.provider->orphaned && n.provider->in_flight == 0)
            delete n.provider;
        else
            callbacks_cv_.notify_all();
    }
    notify.clear();
}

void Engine::retire(std::vector<ProviderSnapshot *> &retired)
{
    if (retired.empty())
        return;
    Grace::global().synchronize();
    for (ProviderSnapshot *s : retired)
        delete s;
    retired.clear();
}

Status Engine::start(Properties &props, const SessionOptions &options, std::shared_ptr<Session> *out)
{
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        props.clear_outputs();
        if (Status v = props.validate(); !v)
            return v;
        if (sessions_.size() >= max_sessions_)
            return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "the maximum number of sessions (" + std::to_string(max_sessions_) +
                                                            ") is running");
        for (const auto &s : sessions_)
            if (session_names_equal(s->name(), props.session_name()))
                return Fail(ETW_ERROR_ALREADY_EXISTS, "a session named \"" + props.session_name_utf8() + "\" is already running");
        etw_event_trace_properties &r = props.record();
        const etw_guid original = r.Wnode.Guid;
        if (r.LogFileMode & ETW_PRIVATE_LOGGER_MODE) {
            if (guid_is_null(r.Wnode.Guid))
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            "Wnode.Guid must be the provider's control GUID for a private session (ETW_PRIVATE_LOGGER_MODE)");
        } else if (guid_is_null(r.Wnode.Guid)) {
            r.Wnode.Guid = random_guid();
        }
        for (const auto &s : sessions_)
            if (guid_equal(s->guid(), r.Wnode.Guid)) {
                r.Wnode.Guid = original;
                return Fail(ETW_ERROR_ALREADY_EXISTS, "a running session already has the GUID " + guid_to_string(s->guid()));
            }
        std::uint16_t id = 1;
        for (; id < 0xFFFF; ++id) {
            bool used = false;
            for (const auto &s : sessions_)
                used = used || s->logger_id() == id;
            if (!used)
                break;
        }
        const std::uint64_t handle = (next_serial_++ << 16) | id;
        // Private sessions belong to their process: not in the system registry.
        SystemRegistry *reg = shared_private(r.LogFileMode) ? nullptr : SystemRegistry::get();
        std::uint32_t slot = 0, generation = 0;
        if (reg) {
            Status st = reg->claim(props.session_name(), r.Wnode.Guid, handle, &slot, &generation);
            RegistryEntry orphan;
            if (!st && st.code == ETW_ERROR_ALREADY_EXISTS && options.replace_orphan &&
                reg->find(props.session_name(), &orphan) && orphan.orphaned) {
                // Its file is finished as a stop would; a file it could not finish does not keep the name.
                RemoteSession(*reg, orphan).stop(nullptr);
                st = reg->claim(props.session_name(), r.Wnode.Guid, handle, &slot, &generation);
            }
            if (!st) {
                r.Wnode.Guid = original;
                return Fail(st.code, st.message.empty() ? "" : "\"" + props.session_name_utf8() + "\": " + st.message);
            }
        }
        std::unique_ptr<Session> s;
        platform::ChannelHandle listener = platform::kNoChannel;
        Status made = Session::create(props, options, id, handle, &s, reg ? reg->region_path(slot, generation) : "");
        if (made && reg) {
            if (etw_status ls = platform::channel_listen(reg->channel_name(slot, generation), &listener); ls != ETW_OK) {
                platform::remove_file(reg->region_path(slot, generation));
                made = Fail(ls, "cannot listen for other processes' requests");
            }
        }
        if (!made) {
            s.reset();
            if (reg)
                reg->release(slot, generation);
            r.Wnode.Guid = original;
            props.clear_outputs();
            return made;
        }
        std::shared_ptr<Session> shared(std::move(s));
        sessions_.push_back(shared);
        if (reg) {
            reg->publish(slot, props);
            auto h = std::make_shared<Hosted>();
            h->slot = slot;
            h->generation = generation;
            h->listener = listener;
            hosted_[shared.get()] = h;
            static const bool registered = (std::atexit(finish_answers), true);
            (void)registered;
            h->servant = std::thread([this, h, shared] { serve(h, shared); });
        }
        if (shared->is_private()) {
            // A private session logs its provider (Wnode.Guid) from this process.
            entry(shared->guid()).enablements.push_back({shared, 0, 0, 0});
            republish(shared->guid(), retired, notify, handle);
        }
        *out = shared;
    }
    retire(retired);
    deliver(notify);
    return Status::ok();
}

Status Engine::take_over(Properties &props, const SessionOptions &options, std::shared_ptr<Session> *out)
{
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg)
        return Fail(ETW_ERROR_NOT_SUPPORTED, "sessions are not system-wide here (OPENETW_REGISTRY=none, or no shared "
                                             "registry on this system): there is no orphan to take over");
    RegistryEntry orphan;
    if (!reg->find(props.session_name(), &orphan))
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "no session named \"" + props.session_name_utf8() + "\" to take over");
    if (!orphan.orphaned)
        return Fail(ETW_ERROR_ALREADY_EXISTS, "the session \"" + props.session_name_utf8() + "\" is not orphaned: process " +
                                                  std::to_string(orphan.host_pid) + " hosts it");
    Properties settings(orphan.name);
    std::vector<EnableRecord> enables;
    std::vector<GrantRecord> grants;
    if (!reg->published(orphan, settings) || !reg->tables(orphan, &enables, &grants))
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
    if (Status st = start(props, o, out); !st)
        return Fail(st.code, "the orphan was stopped (its file finished) but could not be started again: " + st.message);
    for (const EnableRecord &e : enables)
        enable_provider(*out, e.guid, true, std::uint8_t(e.level), e.match_any, e.match_all);
    for (const GrantRecord &g : grants)
        grant(*out, g.uid, g.rights);
    return Status::ok();
}

Status Engine::open(const std::u16string &name, std::shared_ptr<Session> *out)
{
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto &s : sessions_)
        if (s->state.load() == Session::Running && session_names_equal(s->name(), name)) {
            *out = s;
            return Status::ok();
        }
    return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "no running session has that name");
}

Status Engine::stop(const std::shared_ptr<Session> &session, Properties *props)
{
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        int expected = Session::Running;
        if (!session->state.compare_exchange_strong(expected, Session::Stopping))
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running (already stopped)");
        std::vector<etw_guid> touched;
        for (auto &[key, e] : guids_) {
            const auto before = e.enablements.size();
            e.enablements.erase(std::remove_if(e.enablements.begin(), e.enablements.end(),
                                               [&](const Enablement &en) { return en.session == session; }),
                                e.enablements.end());
            if (e.enablements.size() != before) {
                etw_guid g;
                std::memcpy(&g, key.data(), sizeof g);
                touched.push_back(g);
            }
        }
        for (const etw_guid &g : touched)
            republish(g, retired, notify, session->handle());
        if (auto it = hosted_.find(session.get()); it != hosted_.end())
            SystemRegistry::get()->publish_tables(it->second->slot, {}, {}); // other processes' providers let go
    }
    // After this grace period no writer is inside the session.
    Grace::global().synchronize();
    retire(retired);
    deliver(notify);
    Status st = session->stop();
    if (props)
        session->fill(*props);
    std::shared_ptr<Hosted> hosted;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        sessions_.erase(std::remove(sessions_.begin(), sessions_.end(), session), sessions_.end());
        if (auto it = hosted_.find(session.get()); it != hosted_.end()) {
            hosted = it->second;
            hosted_.erase(it);
        }
    }
    if (hosted) {
        SystemRegistry &reg = *SystemRegistry::get();
        // Every committed buffer is in the file: the region is not needed to recover anything.
        platform::remove_file(reg.region_path(hosted->slot, hosted->generation));
        hosted->quit.store(true, std::memory_order_release);
        if (hosted->servant.get_id() == std::this_thread::get_id()) {
            // A stop requested by another process: the servant answers, then frees the slot.
            hosted->servant.detach();
        } else {
            reg.release(hosted->slot, hosted->generation);
            hosted->servant.join();
        }
    }
    return st;
}

bool Engine::allowed(const Hosted &h, std::uint32_t uid, std::uint32_t rights)
{
    if (uid == 0 || uid == platform::effective_user_id())
        return true; // root and the host's own user hold every right
    std::lock_guard<std::mutex> lock(mutex_);
    for (const GrantRecord &g : h.grants)
        if (g.uid == uid)
            return (g.rights & rights) == rights;
    return false;
}

void Engine::publish_tables(const std::shared_ptr<Session> &s)
{
    auto it = hosted_.find(s.get());
    if (it == hosted_.end())
        return;
    std::vector<EnableRecord> recs;
    for (auto &[key, e] : guids_)
        for (const Enablement &en : e.enablements)
            if (en.session == s) {
                EnableRecord r{};
                std::memcpy(&r.guid, key.data(), sizeof r.guid);
                r.level = en.level;
                r.match_any = en.match_any;
                r.match_all = en.match_all;
                recs.push_back(r);
            }
    SystemRegistry::get()->publish_tables(it->second->slot, recs, it->second->grants);
}

Status Engine::grant(const std::shared_ptr<Session> &session, std::uint32_t uid, std::uint32_t rights)
{
    std::lock_guard<std::mutex> lock(mutex_);
    if (session->state.load() != Session::Running)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    auto it = hosted_.find(session.get());
    if (it == hosted_.end())
        return Fail(ETW_ERROR_NOT_SUPPORTED, session->is_private()
                                                 ? "a private session belongs to its process: it grants no rights"
                                                 : "sessions are not system-wide here (OPENETW_REGISTRY=none, or no "
                                                   "shared registry on this system)");
    std::vector<GrantRecord> &g = it->second->grants;
    auto at = std::find_if(g.begin(), g.end(), [&](const GrantRecord &r) { return r.uid == uid; });
    if (rights == 0) {
        if (at != g.end())
            g.erase(at);
    } else if (at != g.end()) {
        at->rights = rights;
    } else {
        if (g.size() >= kSlotGrants)
            return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "the session already grants rights to " +
                                                           std::to_string(kSlotGrants) + " users");
        g.push_back({uid, rights});
    }
    publish_tables(session);
    return Status::ok();
}

void Engine::serve(std::shared_ptr<Hosted> h, std::shared_ptr<Session> s)
{
    SystemRegistry &reg = *SystemRegistry::get();
    struct Close {
        Hosted &h;
        ~Close() { platform::channel_close(&h.listener); }
    } close_listener{*h};
    while (!h->quit.load(std::memory_order_acquire)) {
        platform::ChannelHandle c = platform::kNoChannel;
        platform::PeerCredentials peer;
        if (platform::channel_accept(h->listener, 250, &c, &peer) != ETW_OK)
            continue;
        IncomingRequest req;
        req.props.assign_session_name(s->name());
        if (Status st = read_request(c, &req); !st) {
            platform::channel_close(&c);
            continue;
        }
        if (!allowed(*h, peer.uid, right_needed(req.code))) {
            const char *right = req.code == Request::Writer    ? "logging"
                                : req.code == Request::Consume ? "consuming"
                                                               : "control";
            answer(c, Fail(ETW_ERROR_ACCESS_DENIED, "user " + std::to_string(peer.uid) + " has no " + right +
                                                         " right over the session (see etw_session_grant)"),
                   nullptr);
            platform::channel_close(&c);
            continue;
        }
        if (req.code == Request::Consume) {
            std::unique_ptr<RealtimeReader> reader;
            if (Status st = s->attach(&reader); !st) {
                answer(c, st, nullptr);
                platform::channel_close(&c);
                continue;
            }
            std::thread([c, r = std::move(reader), hb = s->header_buffer()]() mutable { relay(c, std::move(r), hb); })
                .detach();
            continue;
        }
        if (req.code == Request::Writer) {
            if (s->state.load() != Session::Running)
                answer(c, Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is stopping"), nullptr);
            else if (!s->is_shared())
                answer(c, Fail(ETW_ERROR_NOT_SUPPORTED, "the session's buffers are private to its host (its region file "
                                                        "could not be created)"),
                       nullptr);
            else
                answer_writer(c, s->region_fd(), s->writer_params());
            platform::channel_close(&c);
            continue;
        }
        g_serving.fetch_add(1, std::memory_order_acq_rel);
        struct Done {
            ~Done() { g_serving.fetch_sub(1, std::memory_order_acq_rel); }
        } done;
        Properties out(s->name());
        Status st;
        bool with_props = true;
        switch (req.code) {
        case Request::Query: st = query(s, out); break;
        case Request::Update:
            st = update(s, req.props);
            out = req.props;
            break;
        case Request::Flush: st = flush(s, &out); break;
        case Request::Stop: st = stop(s, &out); break;
        case Request::Enable:
            with_props = false;
            st = enable_provider(s, req.enable.guid, req.enable_on, std::uint8_t(req.enable.level), req.enable.match_any,
                                 req.enable.match_all);
            break;
        case Request::Grant:
            with_props = false;
            st = grant(s, req.grant.uid, req.grant.rights);
            break;
        default: st = Fail(ETW_ERROR_INVALID_PARAMETER, "unknown request"); break;
        }
        if (st && with_props && req.code != Request::Stop)
            reg.publish(h->slot, out); // what an orphan will report
        answer(c, st, with_props ? &out : nullptr);
        platform::channel_close(&c);
        if (req.code == Request::Stop && s->state.load() != Session::Running) {
            reg.release(h->slot, h->generation);
            return;
        }
    }
}

Status Engine::query(const std::shared_ptr<Session> &session, Properties &props)
{
    if (session->state.load() != Session::Running)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    session->fill(props);
    return Status::ok();
}

Status Engine::update(const std::shared_ptr<Session> &session, Properties &props)
{
    if (session->state.load() != Session::Running)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    return session->update(props);
}

Status Engine::flush(const std::shared_ptr<Session> &session, Properties *props, const std::string &path)
{
    if (session->state.load() != Session::Running)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    if (Status st = session->flush(path); !st)
        return st;
    if (props)
        session->fill(*props);
    return Status::ok();
}

std::vector<std::shared_ptr<Session>> Engine::running()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::shared_ptr<Session>> out;
    for (const auto &s : sessions_)
        if (s->state.load() == Session::Running)
            out.push_back(s);
    return out;
}

std::vector<RegistryEntry> Engine::foreign_sessions()
{
    std::vector<RegistryEntry> out;
    if (SystemRegistry *reg = SystemRegistry::get())
        for (RegistryEntry &e : reg->list())
            if (!e.own)
                out.push_back(std::move(e));
    return out;
}

bool Engine::find_foreign(const std::u16string &name, RegistryEntry *out)
{
    SystemRegistry *reg = SystemRegistry::get();
    return reg && reg->find(name, out) && !out->own;
}

Status Engine::set_max_sessions(std::uint32_t n)
{
    if (n == 0)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the maximum number of sessions must be at least 1");
    std::lock_guard<std::mutex> lock(mutex_);
    max_sessions_ = n;
    return Status::ok();
}

std::uint32_t Engine::max_sessions()
{
    std::lock_guard<std::mutex> lock(mutex_);
    return max_sessions_;
}

Status Engine::enable_provider(const std::shared_ptr<Session> &session, const etw_guid &provider, bool enable,
                               std::uint8_t level, std::uint64_t match_any, std::uint64_t match_all)
{
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (session->state.load() != Session::Running)
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
        if (session->is_private() && !guid_equal(provider, session->guid()))
            return Fail(ETW_ERROR_INVALID_PARAMETER, "a private session logs only the provider whose GUID it was started with");
        GuidEntry &e = entry(provider);
        auto it = std::find_if(e.enablements.begin(), e.enablements.end(),
                               [&](const Enablement &en) { return en.session == session; });
        if (enable) {
            if (it != e.enablements.end()) {
                *it = {session, level, match_any, match_all};
            } else {
                if (hosted_.count(session.get())) {
                    std::size_t n = 0;
                    for (auto &[k, other] : guids_)
                        for (const Enablement &en : other.enablements)
                            n += en.session == session ? 1 : 0;
                    if (n >= kSlotEnables)
                        return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "a system-wide session enables at most " +
                                                                       std::to_string(kSlotEnables) + " providers");
                }
                entry(provider).enablements.push_back({session, level, match_any, match_all});
            }
        } else if (it != e.enablements.end()) {
            e.enablements.erase(it);
        }
        republish(provider, retired, notify, session->handle());
        publish_tables(session);
    }
    retire(retired);
    deliver(notify);
    return Status::ok();
}

namespace {
std::uint64_t target_key(std::uint32_t slot, std::uint32_t generation) { return (std::uint64_t(slot) << 32) | generation; }
} // namespace

void Engine::start_watcher()
{
    // Caller holds mutex_. One thread per process with providers: it sleeps
    // on the registry's enable sequence (and wakes each second to notice
    // hosts that died) and re-reads the enable tables when it moves.
    if (watcher_started_)
        return;
    watcher_started_ = true;
    std::thread([this] {
        SystemRegistry &reg = *SystemRegistry::get();
        std::uint32_t seen = reg.enable_sequence();
        for (;;) {
            reg.wait_enables(seen, 1000);
            seen = reg.enable_sequence();
            sync_remote();
        }
    }).detach();
}

void Engine::sync_remote()
{
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg)
        return;
    std::lock_guard<std::mutex> sync(sync_mutex_);
    const std::uint32_t seq = reg->enable_sequence();
    std::vector<std::string> mine; // GUIDs registered here
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto &[key, e] : guids_)
            if (!e.providers.empty())
                mine.push_back(key);
    }
    // What the other processes' live sessions enable of ours.
    struct Want {
        EnableRecord rec;
        std::uint64_t target;
        std::uint64_t handle;
    };
    std::map<std::string, std::vector<Want>> want;
    std::map<std::uint64_t, RegistryEntry> needed;
    if (!mine.empty()) {
        for (const RegistryEntry &e : reg->list()) {
            if (e.own || e.orphaned)
                continue;
            std::vector<EnableRecord> recs;
            if (!reg->tables(e, &recs, nullptr))
                continue;
            for (const EnableRecord &r : recs) {
                const std::string key = key_of(r.guid);
                if (std::find(mine.begin(), mine.end(), key) == mine.end())
                    continue;
                const std::uint64_t t = target_key(e.slot, e.generation);
                want[key].push_back({r, t, e.handle});
                needed[t] = e;
            }
        }
    }
    // Attach to the sessions not yet attached (outside the engine lock: a
    // round trip to each host). A host that refused is asked again only
    // after its tables change.
    for (auto &[t, e] : needed) {
        if (remote_targets_.count(t))
            continue;
        if (auto d = remote_denied_.find(t); d != remote_denied_.end() && d->second == seq)
            continue;
        platform::Region region;
        Session::WriterParams params;
        std::shared_ptr<Session> target;
        Status st = request_writer(*reg, e, &region, &params);
        if (st)
            st = Session::attach_writer(region, params, &target);
        if (st)
            remote_targets_[t] = target;
        else
            remote_denied_[t] = seq;
    }
    // Publish the new lists; sessions no longer wanted are let go after a
    // grace period (writers may still be inside them).
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    std::vector<std::shared_ptr<Session>> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (const std::string &key : mine) {
            auto g = guids_.find(key);
            if (g == guids_.end())
                continue;
            std::vector<Enablement> next;
            std::uint64_t handle = 0;
            for (const Want &w : want[key]) {
                auto t = remote_targets_.find(w.target);
                if (t == remote_targets_.end())
                    continue;
                next.push_back({t->second, std::uint8_t(w.rec.level), w.rec.match_any, w.rec.match_all});
                handle = w.handle;
            }
            if (g->second.remote == next)
                continue;
            for (Enablement &old : g->second.remote)
                dropped.push_back(std::move(old.session));
            const std::uint64_t cb_handle = handle ? handle : g->second.remote_handle;
            g->second.remote = std::move(next);
            g->second.remote_handle = handle;
            etw_guid guid;
            std::memcpy(&guid, key.data(), sizeof guid);
            republish(guid, retired, notify, cb_handle);
        }
        for (auto t = remote_targets_.begin(); t != remote_targets_.end();) {
            if (needed.count(t->first)) {
                ++t;
                continue;
            }
            dropped.push_back(std::move(t->second));
            t = remote_targets_.erase(t);
        }
    }
    retire(retired); // a grace period: no writer is inside a dropped session after it
    dropped.clear();
    deliver(notify);
}

Status Engine::register_provider(const etw_guid &guid, EnableCallback cb, void *context, Provider **out)
{
    auto *p = new Provider();
    p->guid = guid;
    p->callback = cb;
    p->context = context;
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        GuidEntry &e = entry(guid);
        e.providers.push_back(p);
        const bool enabled = !e.enablements.empty();
        // Publish for the new registration only; notify it if already enabled.
        std::vector<Provider *> others;
        others.swap(e.providers);
        e.providers.push_back(p);
        republish(guid, retired, notify, 0);
        others.erase(std::remove(others.begin(), others.end(), p), others.end());
        GuidEntry &e2 = entry(guid);
        e2.providers.insert(e2.providers.end(), others.begin(), others.end());
        if (!enabled) {
            // Nothing to tell a provider that no session enables.
            for (Pending &n : notify) {
                --n.provider->in_flight;
                n.provider->in_flight_threads.pop_back();
            }
            notify.clear();
        }
    }
    *out = p;
    retire(retired);
    deliver(notify);
    if (SystemRegistry::get()) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            start_watcher();
        }
        sync_remote(); // enabled by another process's session: the callback comes before this returns
    }
    return Status::ok();
}

void Engine::unregister_provider(Provider *p)
{
    ProviderSnapshot *old;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        p->closing = true;
        GuidEntry &e = entry(p->guid);
        e.providers.erase(std::remove(e.providers.begin(), e.providers.end(), p), e.providers.end());
        if (e.providers.empty() && e.enablements.empty())
            guids_.erase(key_of(p->guid));
        p->summary.store(0, std::memory_order_release);
        p->enabled.store(0, std::memory_order_release);
        old = p->snapshot.exchange(nullptr, std::memory_order_acq_rel);
    }
    Grace::global().synchronize();
    delete old;
    {
        const std::uint32_t self = platform::thread_id();
        std::unique_lock<std::mutex> lock(mutex_);
        callbacks_cv_.wait(lock, [&] {
            const auto mine = std::count(p->in_flight_threads.begin(), p->in_flight_threads.end(), self);
            return p->in_flight == int(mine);
        });
        if (p->in_flight > 0) {
            p->orphaned = true;
            // Unregistering from inside its own callback: the Provider object
            // is freed by deliver() once that callback returns.
            return;
        }
    }
    delete p;
}

bool Engine::is_enabled(const Provider *p, std::uint8_t level, std::uint64_t flags) noexcept
{
    const std::uint64_t s = p->summary.load(std::memory_order_acquire);
    if (s == 0)
        return false;
    const std::uint8_t max_level = std::uint8_t(s & 0xFF);
    if (level != 0 && level > max_level)
        return false;
    return flags == 0 || (p->any_flags.load(std::memory_order_relaxed) & flags) != 0;
}

etw_status Engine::trace_event(Provider *p, etw_event_trace_header *h) noexcept
{
    if (p->summary.load(std::memory_order_relaxed) == 0)
        return ETW_OK; // disabled: one load and a branch
    if (!(h->Flags & ETW_WNODE_FLAG_TRACED_GUID))
        return ETW_ERROR_INVALID_FLAG_NUMBER;
    const std::uint32_t size = h->Size;
    if (size < ETW_EVENT_TRACE_HEADER_SIZE)
        return ETW_ERROR_INVALID_PARAMETER;
    EventInput ev;
    ev.event_class = h->Class;
    if (h->Flags & ETW_WNODE_FLAG_USE_GUID_PTR) {
        std::uint64_t addr;
        std::memcpy(&addr, &h->Guid, sizeof addr);
        if (addr == 0)
            return ETW_ERROR_INVALID_PARAMETER;
        std::memcpy(&ev.guid, reinterpret_cast<const void *>(static_cast<std::uintptr_t>(addr)), sizeof ev.guid);
    } else {
        ev.guid = h->Guid;
    }
    std::uint64_t total = ETW_EVENT_TRACE_HEADER_SIZE;
    const auto *payload = reinterpret_cast<const std::uint8_t *>(h) + ETW_EVENT_TRACE_HEADER_SIZE;
    if (h->Flags & ETW_WNODE_FLAG_USE_MOF_PTR) {
        const std::uint32_t bytes = size - ETW_EVENT_TRACE_HEADER_SIZE;
        if (bytes % ETW_MOF_FIELD_SIZE != 0 || bytes / ETW_MOF_FIELD_SIZE > ETW_MAX_MOF_FIELDS)
            return ETW_ERROR_INVALID_PARAMETER;
        ev.piece_count = bytes / ETW_MOF_FIELD_SIZE;
        for (std::uint32_t i = 0; i < ev.piece_count; ++i) {
            etw_mof_field m;
            std::memcpy(&m, payload + i * ETW_MOF_FIELD_SIZE, sizeof m);
            if (m.Length != 0 && m.DataPtr == 0)
                return ETW_ERROR_INVALID_PARAMETER;
            ev.pieces[i] = {reinterpret_cast<const void *>(static_cast<std::uintptr_t>(m.DataPtr)), m.Length};
            total += m.Length;
        }
    } else if (size > ETW_EVENT_TRACE_HEADER_SIZE) {
        ev.piece_count = 1;
        ev.pieces[0] = {payload, size - std::uint32_t(ETW_EVENT_TRACE_HEADER_SIZE)};
        total = size;
    }
    // A parameter error whatever the sessions: checked before their buffer sizes.
    if (total > ETW_MAX_EVENT_SIZE)
        return ETW_ERROR_INVALID_PARAMETER;
    // HeaderType and MarkerFlags are the engine's: never taken from the caller.
    h->HeaderType = sizeof(void *) == 8 ? 0x14 : 0x0A;
    h->MarkerFlags = 0xC0;
    ev.thread_id = platform::thread_id();
    ev.process_id = platform::process_id();
    const std::uint8_t level = h->Class.Level;

    const std::uint32_t cpu = platform::current_processor();
    GraceSection section(Grace::global(), cpu);
    const ProviderSnapshot *snap = p->snapshot.load(std::memory_order_acquire);
    if (!snap)
        return ETW_OK;
    etw_status result = ETW_OK;
    for (const ProviderSnapshot::Entry &e : snap->entries) {
        if (e.level != 0 && level != 0 && level > e.level)
            continue; // filtered by level
        etw_status st;
        if (total >= e.session->buffer_bytes() - ETW_BUFFER_HEADER_SIZE)
            st = ETW_ERROR_MORE_DATA; // an event never spans buffers
        else {
            ev.size = std::uint32_t(total);
            st = e.session->write(ev, cpu);
        }
        if (st != ETW_OK && result == ETW_OK)
            result = st;
    }
    return result;
}

} // namespace openetw::core
