// EVENT_CONTROL_CODE_CAPTURE_STATE: a session asks the registrations of a
// provider it enables to log their state. The enable callback runs with
// is_enabled 2 (Windows' IsEnabled = EVENT_CONTROL_CODE_CAPTURE_STATE) and
// the level and keywords of the request; nothing about the enablement
// changes, so the events the provider logs in answer go where its events
// always go (every session enabling it, each filtering by its own level).
// Also the provider listing's reads of the engine's tables.
#include "engine/engine.hpp"

#include "base/guid.hpp"
#include "platform/process.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::engine {

void Engine::queue_capture(GuidEntry &e, EnableInfo info, const std::shared_ptr<const EventFilter> &filter,
                           std::vector<Pending> &notify)
{
    // The session's SCHEMATIZED filter, as an enable passes it (FilterData).
    info.filter_data = filter ? filter->schematized() : nullptr;
    for (Provider *p : e.providers) {
        if (!p->callback || p->closing)
            continue;
        ++p->in_flight;
        p->in_flight_threads.push_back(platform::thread_id());
        notify.push_back({p, info, filter});
    }
}

Status Engine::capture_state(const std::shared_ptr<Session> &session, const etw_guid &provider, std::uint8_t level,
                             std::uint64_t match_any, std::uint64_t match_all)
{
    std::vector<Pending> notify;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (session->state.load() != Session::Running)
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
        auto g = guids_.find(guid_key(provider));
        const auto en = g == guids_.end() ? std::vector<Enablement>::const_iterator{}
                                          : std::find_if(g->second.enablements.begin(), g->second.enablements.end(),
                                                         [&](const Enablement &x) { return x.session == session; });
        if (g == guids_.end() || en == g->second.enablements.end())
            return Fail(ETW_ERROR_WMI_GUID_NOT_FOUND, "the session does not enable the provider " +
                                                          guid_to_string(provider) +
                                                          ": enable it first, then ask it to capture its state");
        EnableInfo info;
        info.is_enabled = 2;
        info.level = level;
        info.match_any = match_any;
        info.match_all = match_all;
        info.session_handle = session->handle();
        info.instance_id = session_instance(session->logger_id());
        queue_capture(g->second, info, en->filter, notify);
        if (hosting_)
            hosting_->capture_requested(session.get(), {provider, level, match_any, match_all, 0, {}});
    }
    deliver(notify);
    return Status::ok();
}

bool Engine::deliver_remote_capture(const Session *session, const etw_guid &provider, const EnableInfo &info)
{
    std::vector<Pending> notify;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        auto g = guids_.find(guid_key(provider));
        if (g == guids_.end())
            return false;
        // Only while that session enables this process's registrations
        // (a provider it was not admitted for hears nothing of it).
        const auto en = std::find_if(g->second.remote.begin(), g->second.remote.end(),
                                     [&](const Enablement &x) { return x.session.get() == session; });
        if (en == g->second.remote.end())
            return false;
        EnableInfo with_id = info;
        with_id.instance_id = session_instance(session->logger_id());
        queue_capture(g->second, with_id, en->filter, notify);
    }
    const bool any = !notify.empty();
    deliver(notify);
    return any;
}

std::vector<std::pair<etw_guid, std::uint32_t>> Engine::registrations()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<etw_guid, std::uint32_t>> out;
    for (auto &[key, e] : guids_) {
        const auto n = std::count_if(e.providers.begin(), e.providers.end(), [](Provider *p) { return !p->closing; });
        if (n == 0)
            continue;
        etw_guid g;
        std::memcpy(&g, key.data(), sizeof g);
        out.emplace_back(g, std::uint32_t(n));
    }
    return out;
}

std::vector<std::pair<etw_guid, Enablement>> Engine::local_enablements()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<std::pair<etw_guid, Enablement>> out;
    for (auto &[key, e] : guids_) {
        etw_guid g;
        std::memcpy(&g, key.data(), sizeof g);
        for (const Enablement &en : e.enablements)
            out.emplace_back(g, en);
    }
    return out;
}

} // namespace openetw::engine
