// This process's providers and other processes' sessions
// (docs/SYSTEM_SESSIONS.md, "Providers in other processes"): a watcher
// thread follows the registry's enable tables and attaches this process's
// providers, as writers, to the sessions that enable them.
#include "host/hosting.hpp"

#include "host/provider_table.hpp"
#include "host/session_channel.hpp"

#include "platform/host.hpp"
#include "platform/process.hpp"
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
    sync_remote(); // which lists it, once attached to the sessions enabling it
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
        if (st) {
            remote_targets_[t] = target;
            // Requests from now on are this process's: counted before its
            // providers hear they are enabled, so none made after that is missed.
            std::uint32_t count = 0, lost = 0;
            std::vector<CaptureRecord> none;
            reg->captures(e, 0, &count, &none, &lost);
            captures_seen_[t] = count;
        } else
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
        captures_seen_.erase(t->first);
        dropped.push_back(std::move(t->second));
        t = remote_targets_.erase(t);
    }
    engine_.set_remote_enables(std::move(next));
    deliver_captures(*reg, needed);
    // Listed once attached: a controller that sees the process listed can
    // ask it to capture state and be heard.
    publish_own_registrations();
}

void Hosting::deliver_captures(SystemRegistry &reg, const std::map<std::uint64_t, RegistryEntry> &sessions)
{
    // Caller holds sync_mutex_: each request reaches each registration once.
    // A session starts from its count when this process attached to it:
    // requests made before are not delivered (the enable callback that
    // comes with attaching is the cue to log state then).
    for (const auto &[t, e] : sessions) {
        auto target = remote_targets_.find(t);
        if (target == remote_targets_.end())
            continue;
        auto seen = captures_seen_.find(t);
        std::uint32_t count = 0, lost = 0;
        std::vector<CaptureRecord> recs;
        if (!reg.captures(e, seen == captures_seen_.end() ? 0 : seen->second, &count, &recs, &lost))
            continue;
        if (seen == captures_seen_.end()) {
            captures_seen_[t] = count;
            continue;
        }
        seen->second = count;
        // Requests overwritten in the ring before this read (more than
        // kSlotCaptures between two passes) are lost; the newest are kept.
        for (const CaptureRecord &r : recs) {
            engine::EnableInfo info;
            info.is_enabled = 2;
            info.level = std::uint8_t(r.level);
            info.match_any = r.match_any;
            info.match_all = r.match_all;
            info.session_handle = e.handle;
            engine_.deliver_remote_capture(target->second.get(), r.guid, info);
        }
    }
}

void Hosting::provider_unregistered() { publish_own_registrations(); }

void Hosting::publish_own_registrations()
{
    // Only into a namespace of this process's own user, whose folder its
    // host checked (nobody else writes there, docs/SYSTEM_SESSIONS.md): never
    // into a folder someone else could plant links in.
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg || reg->owner() != platform::effective_user_id())
        return;
    const std::string &path = reg->path();
    std::lock_guard<std::mutex> lock(registrations_mutex_);
    std::vector<std::pair<etw_guid, std::uint32_t>> now = engine_.registrations();
    auto same = [](const std::pair<etw_guid, std::uint32_t> &a, const std::pair<etw_guid, std::uint32_t> &b) {
        return std::memcmp(&a.first, &b.first, sizeof a.first) == 0 && a.second == b.second;
    };
    if (registrations_published_ && now.size() == published_registrations_.size() &&
        std::equal(now.begin(), now.end(), published_registrations_.begin(), same))
        return;
    // Not written (a folder this process may not write, none yet): asked again at the next change or pass.
    if (!publish_registrations(path, now))
        return;
    published_registrations_ = std::move(now);
    registrations_published_ = true;
}

} // namespace openetw::host
