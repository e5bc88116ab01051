// This process's providers and other processes' sessions
// (docs/SYSTEM_SESSIONS.md, "Providers in other processes"): a watcher
// thread follows the registry's enable tables and attaches this process's
// providers, as writers, to the sessions that enable them.
#include "host/hosting.hpp"

#include "host/session_channel.hpp"

#include "platform/host.hpp"
#include "platform/region.hpp"
#include "platform/sync.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

namespace openetw::host {

using engine::Enablement;

namespace {
std::uint64_t target_key(std::uint32_t slot, std::uint32_t generation)
{
    return (std::uint64_t(slot) << 32) | generation;
}
std::string key_of(const etw_guid &g) { return std::string(reinterpret_cast<const char *>(&g), sizeof g); }
} // namespace

void Hosting::sync_providers()
{
    if (!engine_.registered_guids().empty())
        sync_remote();
}

void Hosting::provider_registered()
{
    if (!platform::shared_registry_supported() || platform::registry_path().empty())
        return;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        start_watcher();
    }
    sync_remote();
}

void Hosting::start_watcher()
{
    // Caller holds mutex_. One thread per process with providers: it sleeps
    // on the registry's enable sequence (and wakes each second to notice
    // hosts that died) and re-reads the enable tables when it moves.
    if (watcher_started_)
        return;
    watcher_started_ = true;
    std::thread([this] {
        // A client finds the registry only once a host has made it.
        SystemRegistry *found = nullptr;
        while ((found = SystemRegistry::get()) == nullptr)
            platform::sleep_ms(1000);
        SystemRegistry &reg = *found;
        std::uint32_t seen = reg.enable_sequence();
        for (;;) {
            reg.wait_enables(seen, 1000);
            seen = reg.enable_sequence();
            sync_remote();
        }
    }).detach();
}

void Hosting::sync_remote()
{
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg)
        return;
    std::lock_guard<std::mutex> sync(sync_mutex_);
    const std::uint32_t seq = reg->enable_sequence();
    std::vector<std::string> mine; // GUIDs registered here
    for (const etw_guid &g : engine_.registered_guids())
        mine.push_back(key_of(g));
    // What the other processes' live sessions enable of ours.
    struct Want {
        EnableRecord rec;
        std::uint64_t target;
        std::uint64_t handle;
        std::shared_ptr<const engine::EventFilter> filter;
    };
    std::map<std::string, std::vector<Want>> want;
    std::map<std::uint64_t, RegistryEntry> needed;
    if (!mine.empty()) {
        for (const RegistryEntry &e : reg->list()) {
            if (e.own || e.orphaned)
                continue;
            std::vector<EnableRecord> recs;
            std::vector<std::vector<std::uint8_t>> filters;
            if (!reg->tables(e, &recs, nullptr, &filters))
                continue;
            for (std::size_t i = 0; i < recs.size(); ++i) {
                const EnableRecord &r = recs[i];
                const std::string key = key_of(r.guid);
                if (std::find(mine.begin(), mine.end(), key) == mine.end())
                    continue;
                // A blob that does not parse (another build's, or scribbled)
                // enables nothing: no event goes out unfiltered.
                std::shared_ptr<const engine::EventFilter> filter;
                if (!engine::EventFilter::parse(filters[i], &filter))
                    continue;
                const std::uint64_t t = target_key(e.slot, e.generation);
                want[key].push_back({r, t, e.handle, std::move(filter)});
                needed[t] = e;
            }
        }
    }
    // Attach to the sessions not yet attached (a round trip to each host). A
    // host that refused is asked again only after its tables change.
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
    // Publish the new lists; sessions no longer wanted are let go after the
    // engine's grace period (writers may still be inside them).
    std::vector<Engine::RemoteEnables> next;
    for (const std::string &key : mine) {
        Engine::RemoteEnables n{};
        std::memcpy(&n.guid, key.data(), sizeof n.guid);
        for (const Want &w : want[key]) {
            auto t = remote_targets_.find(w.target);
            if (t == remote_targets_.end())
                continue;
            n.enables.push_back({t->second, std::uint8_t(w.rec.level), w.rec.match_any, w.rec.match_all,
                                 w.rec.enable_property, w.filter});
            n.handle = w.handle;
        }
        next.push_back(std::move(n));
    }
    std::vector<std::shared_ptr<Session>> dropped;
    for (auto t = remote_targets_.begin(); t != remote_targets_.end();) {
        if (needed.count(t->first)) {
            ++t;
            continue;
        }
        dropped.push_back(std::move(t->second));
        t = remote_targets_.erase(t);
    }
    engine_.set_remote_enables(std::move(next));
}

} // namespace openetw::host
