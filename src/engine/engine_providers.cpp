// The engine's provider side: registrations, which sessions of other
// processes enable them, and the enable checks and traits the write path
// reads (engine.hpp). The sessions and the snapshots are in engine.cpp.
#include "engine/engine.hpp"
#include "engine/event_properties.hpp"
#include "base/guid.hpp"
#include "platform/process.hpp"
#include <openetw/constants.h>
#include <algorithm>
#include <cstring>
#include <cstdlib>

namespace openetw::engine {

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
        if (!enabled || p->summary.load(std::memory_order_relaxed) == 0) {
            // Nothing to tell a provider that no session enables (or whose
            // sessions' PID or EXECUTABLE_NAME filters turn this process away).
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
    if (hosting_)
        hosting_->provider_registered(); // enabled by another process's session: the callback comes before this returns
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
            guids_.erase(guid_key(p->guid));
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
            p = nullptr;
        }
    }
    delete p;
    if (hosting_)
        hosting_->provider_unregistered(); // the process's published registrations
}

std::vector<SessionEnable> Engine::enables_locked(const Session *session)
{
    std::vector<SessionEnable> out;
    for (auto &[key, e] : guids_)
        for (const Enablement &en : e.enablements)
            if (en.session.get() == session) {
                SessionEnable r{};
                std::memcpy(&r.guid, key.data(), sizeof r.guid);
                r.level = en.level;
                r.match_any = en.match_any;
                r.match_all = en.match_all;
                r.enable_property = en.enable_property;
                if (en.filter)
                    r.filters = en.filter->blob();
                out.push_back(r);
            }
    return out;
}

void Engine::set_hosting(SessionHosting *hosting)
{
    std::lock_guard<std::mutex> lock(mutex_);
    hosting_ = hosting;
}

std::vector<etw_guid> Engine::registered_guids()
{
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<etw_guid> out;
    for (auto &[key, e] : guids_)
        if (!e.providers.empty()) {
            etw_guid g;
            std::memcpy(&g, key.data(), sizeof g);
            out.push_back(g);
        }
    return out;
}

void Engine::set_remote_enables(std::vector<RemoteEnables> next)
{
    std::vector<ProviderSnapshot *> retired;
    std::vector<Pending> notify;
    std::vector<std::shared_ptr<Session>> dropped;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (RemoteEnables &n : next) {
            auto g = guids_.find(guid_key(n.guid));
            if (g == guids_.end() || g->second.remote == n.enables)
                continue;
            for (Enablement &old : g->second.remote)
                dropped.push_back(std::move(old.session));
            const std::uint64_t cb_handle = n.handle ? n.handle : g->second.remote_handle;
            g->second.remote = std::move(n.enables);
            g->second.remote_handle = n.handle;
            republish(n.guid, retired, notify, cb_handle);
        }
    }
    retire(retired); // a grace period: no writer is inside a dropped session after it
    dropped.clear();
    deliver(notify);
}

bool Engine::is_enabled(const Provider *p, std::uint8_t level, std::uint64_t flags) noexcept
{
    if (p->summary.load(std::memory_order_acquire) == 0)
        return false;
    // Session by session, as the write decides: a level one session takes
    // and a keyword another takes do not make an event some session takes.
    GraceSection section;
    const ProviderSnapshot *snap = p->snapshot.load(std::memory_order_acquire);
    if (snap == nullptr)
        return false;
    for (const ProviderSnapshot::Entry &e : snap->entries)
        if (e.takes(level, flags))
            return true;
    return false;
}

Status Engine::set_traits(Provider *p, const std::uint8_t *traits, std::uint32_t size)
{
    auto *copy = new std::uint8_t[size];
    std::memcpy(copy, traits, size);
    const std::uint8_t *expected = nullptr;
    // Set once: writers load the pointer without a lock, and it stays until the provider goes.
    if (!p->traits.compare_exchange_strong(expected, copy, std::memory_order_release, std::memory_order_relaxed)) {
        delete[] copy;
        return Fail(ETW_ERROR_ALREADY_EXISTS, "the provider's traits are already set (they are set once)");
    }
    return Status::ok();
}

} // namespace openetw::engine
