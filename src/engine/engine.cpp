#include "engine/engine.hpp"
#include "engine/event_properties.hpp"

#include "base/guid.hpp"
#include "platform/process.hpp"

#include <openetw/constants.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <random>

namespace openetw::engine {

namespace {

constexpr std::uint64_t kEnabledBit = 1ull << 63;
constexpr std::uint32_t kFilterHeaderSize = 24; // EVENT_FILTER_HEADER (evntprov.h)
constexpr std::size_t kMaxSessionsPerProvider = 8;

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
    g.Data3 = std::uint16_t((g.Data3 & 0x0FFF) | 0x4000);  // version 4
    g.Data4[0] = std::uint8_t((g.Data4[0] & 0x3F) | 0x80); // RFC 4122 variant
    return g;
}

} // namespace

namespace {
bool shared_private(std::uint32_t mode) { return (mode & ETW_PRIVATE_LOGGER_MODE) != 0; }

// This process's executable name, read once (PID and EXECUTABLE_NAME filters).
const std::string &executable()
{
    static const std::string name = platform::executable_name();
    return name;
}

// The session's own filters with the enable call's, parsed.
Status filter_of(const Session &session, const std::vector<std::uint8_t> &filters,
                 std::shared_ptr<const EventFilter> *out)
{
    std::vector<std::uint8_t> blob = session.options().filters;
    blob.insert(blob.end(), filters.begin(), filters.end());
    return EventFilter::parse(blob, out);
}

} // namespace

Engine &Engine::instance()
{
    static Engine *e = new Engine(); // never destroyed: sessions may outlive static destructors
    return *e;
}

Engine::GuidEntry &Engine::entry(const etw_guid &g) { return guids_[guid_key(g)]; }

void Engine::republish(const etw_guid &g, std::vector<ProviderSnapshot *> &retired, std::vector<Pending> &notify,
                       std::uint64_t session_handle)
{
    GuidEntry &e = entry(g);
    std::vector<Enablement> every;
    // A session whose PID or EXECUTABLE_NAME filter turns this process away
    // does not enable it at all: decided here, once, not per event.
    const std::uint32_t pid = platform::process_id();
    for (const auto *list : {&e.enablements, &e.remote})
        for (const Enablement &en : *list)
            if (!en.filter || en.filter->admits_process(pid, executable()))
                every.push_back(en);
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
        for (const Enablement &en : every) {
            ProviderSnapshot::Entry entry{en.session.get(), std::uint8_t(en.level == 0 ? 255 : en.level),
                                          en.session->buffer_bytes() - std::uint32_t(ETW_BUFFER_HEADER_SIZE),
                                          en.match_any == 0 ? ~0ull : en.match_any, en.match_all};
            entry.enable_property = en.enable_property;
            entry.instance = session_instance(en.session->logger_id());
            if (en.filter) {
                entry.filter = en.filter.get();
                entry.event_filter = en.filter->per_event() ? en.filter.get() : nullptr;
                snap->filters.push_back(en.filter);
            }
            snap->entries.push_back(entry);
            snap->any_property |= en.enable_property;
        }
        if (snap->entries.size() == 1 && snap->any_property == 0)
            snap->single = &snap->entries.front();
        if (snap->any_property != 0)
            prepare_event_properties(snap->any_property);
        if (summary == 0) {
            // Disabled before its sessions go: a writer that asked
            // is_enabled and then finds no session (ETW_OK, nothing logged)
            // does so once at most, not for as long as this thread is kept
            // from the stores below (a preempted stop: hundreds of events).
            p->summary.store(0, std::memory_order_release);
            p->enabled.store(0, std::memory_order_release);
        }
        ProviderSnapshot *old = p->snapshot.exchange(snap, std::memory_order_acq_rel);
        if (old)
            retired.push_back(old);
        p->summary.store(summary, std::memory_order_release);
        p->enabled.store(summary ? 1 : 0, std::memory_order_release);
        if (p->callback && !p->closing) {
            EnableInfo info;
            info.is_enabled = summary ? 1 : 0;
            info.level = summary ? (max_level == 255 ? 0 : max_level) : 0;
            info.match_any = summary ? any : 0;
            info.match_all = all;
            info.session_handle = session_handle;
            std::shared_ptr<const EventFilter> filter;
            for (const Enablement &en : every)
                if (en.session->handle() == session_handle && en.filter && en.filter->schematized()) {
                    filter = en.filter;
                    info.filter_data = filter->schematized();
                    info.instance_id = session_instance(en.session->logger_id());
                }
            ++p->in_flight;
            p->in_flight_threads.push_back(platform::thread_id());
            notify.push_back({p, info, std::move(filter)});
        }
    }
    if (e.providers.empty() && e.enablements.empty() && e.remote.empty())
        guids_.erase(guid_key(g));
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
        if (run) {
            // FilterData as Windows hands it: the SCHEMATIZED bytes with the
            // session's identifier in EVENT_FILTER_HEADER.InstanceId (bytes
            // 8..15), when they hold a header (24 bytes); the provider passes
            // it to EventWriteEx's Filter to skip that session.
            std::vector<std::uint8_t> copy;
            etw_event_filter_descriptor fd{};
            EnableInfo info = n.info;
            if (info.filter_data && info.filter_data->Size >= kFilterHeaderSize) {
                const auto *b = reinterpret_cast<const std::uint8_t *>(std::uintptr_t(info.filter_data->Ptr));
                copy.assign(b, b + info.filter_data->Size);
                std::memcpy(copy.data() + 8, &info.instance_id, 8);
                fd = *info.filter_data;
                fd.Ptr = std::uint64_t(reinterpret_cast<std::uintptr_t>(copy.data()));
                info.filter_data = &fd;
            }
            n.provider->callback(info, n.provider->context); // no engine lock held
        }
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
    // The export connects first, with no engine lock held: a server that
    // takes its time holds up this start only.
    std::unique_ptr<BufferExport> exporter;
    // The session's own filters: checked before anything is claimed.
    std::shared_ptr<const EventFilter> own_filter;
    if (Status st = EventFilter::parse(options.filters, &own_filter); !st)
        return st;
    if (!props.export_url().empty()) {
        if (hosting_ == nullptr)
            return Fail(ETW_ERROR_NOT_SUPPORTED, "this process cannot export sessions (no control plane installed)");
        if (Status st = hosting_->open_export(props, &exporter); !st)
            return st;
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        props.clear_outputs();
        if (Status v = props.validate(); !v)
            return v;
        if (sessions_.size() >= max_sessions_)
            return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                        "the maximum number of sessions (" + std::to_string(max_sessions_) + ") is running");
        if (props.is_system_logger()) {
            std::uint32_t loggers = 0;
            for (const auto &s : sessions_)
                loggers += s->is_system_logger() ? 1 : 0;
            if (loggers >= kMaxSystemLoggers)
                return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                            std::to_string(kMaxSystemLoggers) +
                                " system logger sessions are running, as many as Windows allows (the NT Kernel "
                                "Logger, the Global Logger and ETW_SYSTEM_LOGGER_MODE sessions count)");
        }
        for (const auto &s : sessions_)
            if (session_names_equal(s->name(), props.session_name()))
                return Fail(ETW_ERROR_ALREADY_EXISTS,
                            "a session named \"" + props.session_name_utf8() + "\" is already running");
        etw_event_trace_properties &r = props.record();
        const etw_guid original = r.Wnode.Guid;
        if (r.LogFileMode & ETW_PRIVATE_LOGGER_MODE) {
            if (guid_is_null(r.Wnode.Guid))
                return Fail(
                    ETW_ERROR_INVALID_PARAMETER,
                    "Wnode.Guid must be the provider's control GUID for a private session (ETW_PRIVATE_LOGGER_MODE)");
        } else if (guid_is_null(r.Wnode.Guid)) {
            r.Wnode.Guid = random_guid();
        }
        for (const auto &s : sessions_)
            if (guid_equal(s->guid(), r.Wnode.Guid)) {
                r.Wnode.Guid = original;
                return Fail(ETW_ERROR_ALREADY_EXISTS,
                            "a running session already has the GUID " + guid_to_string(s->guid()));
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
        // Private sessions belong to their process: the control plane never sees them.
        std::unique_ptr<SessionHosting::Claim> claim;
        if (hosting_ && !shared_private(r.LogFileMode)) {
            if (Status st = hosting_->claim(props, options, handle, &claim); !st) {
                r.Wnode.Guid = original;
                return st;
            }
        }
        std::unique_ptr<Session> s;
        Status made =
            Session::create(props, options, id, handle, &s, claim ? claim->region_path() : "", std::move(exporter));
        if (made && claim)
            made = hosting_->listen(*claim);
        if (!made) {
            s.reset();
            if (claim)
                hosting_->abandon(std::move(claim));
            r.Wnode.Guid = original;
            props.clear_outputs();
            return made;
        }
        std::shared_ptr<Session> shared(std::move(s));
        sessions_.push_back(shared);
        if (claim)
            hosting_->host(std::move(claim), shared, props);
        if (shared->is_private()) {
            // A private session logs its provider (Wnode.Guid) from this process.
            entry(shared->guid()).enablements.push_back({shared, 0, 0, 0, 0, own_filter});
            republish(shared->guid(), retired, notify, handle);
        }
        *out = shared;
    }
    retire(retired);
    deliver(notify);
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
        if (hosting_)
            hosting_->stopping(session.get());
    }
    // After this grace period no writer is inside the session.
    Grace::global().synchronize();
    retire(retired);
    deliver(notify);
    Status st = session->stop();
    if (props)
        session->fill(*props);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        sessions_.erase(std::remove(sessions_.begin(), sessions_.end(), session), sessions_.end());
    }
    if (hosting_)
        hosting_->stopped(session.get());
    return st;
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

Status Engine::enable_provider_ex(const std::shared_ptr<Session> &session, const etw_guid &provider, bool enable,
                                  std::uint8_t level, std::uint64_t match_any, std::uint64_t match_all,
                                  std::uint32_t enable_property, const std::vector<std::uint8_t> &filters)
{
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    std::shared_ptr<const EventFilter> filter;
    if (enable)
        if (Status st = filter_of(*session, filters, &filter); !st)
            return st;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (session->state.load() != Session::Running)
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
        if (session->is_private() && !guid_equal(provider, session->guid()))
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "a private session logs only the provider whose GUID it was started with");
        GuidEntry &e = entry(provider);
        auto it = std::find_if(e.enablements.begin(), e.enablements.end(),
                               [&](const Enablement &en) { return en.session == session; });
        if (enable && filter) {
            if (const std::size_t room = hosting_ ? hosting_->filter_room(session.get()) : 0) {
                std::size_t used = filter->blob().size();
                for (auto &[k, other] : guids_)
                    for (const Enablement &en : other.enablements)
                        if (en.session == session && en.filter && &other != &e)
                            used += en.filter->blob().size();
                if (used > room)
                    return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                                "a system-wide session's filters hold at most " + std::to_string(room) +
                                    " bytes together (its enabled providers' filters would need " +
                                    std::to_string(used) + ")");
            }
        }
        if (enable) {
            if (it != e.enablements.end()) {
                *it = {session, level, match_any, match_all, enable_property, filter};
            } else {
                // EnableTraceEx2's remarks: "Up to eight trace sessions can enable and
                // receive events from the same modern provider"; its status for more:
                // ERROR_NO_SYSTEM_RESOURCES (the sessions this engine enables).
                if (e.enablements.size() >= kMaxSessionsPerProvider)
                    return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "the provider " + guid_to_string(provider) +
                                                                   " is already enabled by " +
                                                                   std::to_string(kMaxSessionsPerProvider) +
                                                                   " sessions, the most EnableTraceEx2 allows");
                if (const std::size_t limit = hosting_ ? hosting_->enable_limit(session.get()) : 0) {
                    std::size_t n = 0;
                    for (auto &[k, other] : guids_)
                        for (const Enablement &en : other.enablements)
                            n += en.session == session ? 1 : 0;
                    if (n >= limit)
                        return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                                    "a system-wide session enables at most " + std::to_string(limit) + " providers");
                }
                entry(provider).enablements.push_back({session, level, match_any, match_all, enable_property, filter});
            }
        } else if (it != e.enablements.end()) {
            e.enablements.erase(it);
        }
        republish(provider, retired, notify, session->handle());
        if (hosting_)
            hosting_->enables_changed(session.get(), enables_locked(session.get()));
    }
    retire(retired);
    deliver(notify);
    return Status::ok();
}

} // namespace openetw::engine
