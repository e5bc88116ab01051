#include "host/provider_listing.hpp"
#include "engine/event_filter.hpp"

#include "host/hosting.hpp"
#include "host/provider_table.hpp"
#include "host/system_registry.hpp"

#include "platform/host.hpp"
#include "platform/process.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace openetw::host {

namespace {
std::string key_of(const etw_guid &g) { return std::string(reinterpret_cast<const char *>(&g), sizeof g); }
} // namespace

namespace {

// How many filters a registry's blob holds (0 when it does not parse).
std::uint32_t filter_count(const std::vector<std::uint8_t> &blob)
{
    std::shared_ptr<const engine::EventFilter> f;
    return engine::EventFilter::parse(blob, &f) && f ? f->count() : 0u;
}

} // namespace

std::vector<ProviderListing> list_providers()
{
    std::map<std::string, ProviderListing> by_guid;
    auto at = [&](const etw_guid &g) -> ProviderListing & {
        ProviderListing &l = by_guid[key_of(g)];
        l.guid = g;
        return l;
    };
    Hosting &hosting = Hosting::instance();
    // Sessions hosted system-wide: the registry's enable tables.
    std::vector<std::uint64_t> hosted_handles;
    SystemRegistry *reg = SystemRegistry::get();
    if (reg) {
        for (const RegistryEntry &e : reg->list()) {
            if (e.orphaned)
                continue; // nothing logs into an orphan
            std::vector<EnableRecord> recs;
            std::vector<std::vector<std::uint8_t>> blobs;
            if (!reg->tables(e, &recs, nullptr, &blobs))
                continue;
            hosted_handles.push_back(e.handle);
            for (std::size_t i = 0; i < recs.size(); ++i) {
                const EnableRecord &r = recs[i];
                at(r.guid).sessions.push_back({e.name, e.handle, std::uint8_t(r.level), r.match_any, r.match_all,
                                               i < blobs.size() ? filter_count(blobs[i]) : 0, r.enable_property});
            }
        }
    }
    // Registrations of every live process; this one's from the engine
    // itself (its file may not be written yet, or not at all).
    const std::uint32_t self = platform::process_id();
    std::vector<std::pair<etw_guid, std::uint32_t>> mine = hosting.engine().registrations();
    for (const auto &[g, n] : mine)
        at(g).processes.push_back({self, n});
    const std::string path = platform::registry_path();
    if (!path.empty() && platform::shared_registry_supported())
        for (const ProcessRegistrations &p : read_registrations(path))
            if (p.pid != self)
                for (const auto &[g, n] : p.guids)
                    at(g).processes.push_back({p.pid, n});
    // This process's own sessions that other processes cannot see (those it
    // hosts system-wide are in the registry already).
    for (const auto &[g, en] : hosting.engine().local_enablements()) {
        const std::uint64_t h = en.session->handle();
        if (std::find(hosted_handles.begin(), hosted_handles.end(), h) == hosted_handles.end())
            at(g).sessions.push_back({en.session->name(), h, en.level, en.match_any, en.match_all,
                                      en.filter ? en.filter->count() : 0, en.enable_property});
    }
    std::vector<ProviderListing> out;
    for (auto &[key, l] : by_guid) {
        std::sort(l.processes.begin(), l.processes.end(),
                  [](const ProviderProcess &a, const ProviderProcess &b) { return a.pid < b.pid; });
        out.push_back(std::move(l));
    }
    return out;
}

bool query_provider(const etw_guid &guid, ProviderListing *out)
{
    for (ProviderListing &l : list_providers())
        if (std::memcmp(&l.guid, &guid, sizeof guid) == 0) {
            *out = std::move(l);
            return true;
        }
    return false;
}

} // namespace openetw::host
