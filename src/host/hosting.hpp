// This process as a session host (docs/SYSTEM_SESSIONS.md): the engine's
// sessions made reachable from other processes (a registry slot, the rights
// granted, requests answered, live feeds relayed), orphans taken
// over, and this process's providers writing into other processes' sessions.
#pragma once

#include "base/status.hpp"
#include "engine/engine.hpp"
#include "engine/session_hosting.hpp"
#include "host/engine_names.hpp"
#include "host/system_registry.hpp"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace openetw::host {

using engine::Engine;

class Hosting final : public engine::SessionHosting {
public:
    // The process's hosting, installed in the process's engine on first use.
    static Hosting &instance();
    Engine &engine() { return engine_; }

    // etw_session_grant on a session hosted here.
    Status grant(const std::shared_ptr<Session> &session, std::uint32_t uid, std::uint32_t rights);
    // Starts in place of the orphan of that name with its published settings
    // and providers (ETW_SESSION_TAKE_OVER_ORPHAN).
    Status take_over(Properties &props, const SessionOptions &options, std::shared_ptr<Session> *out);
    // The registry slot of a session this process hosts; false for one it
    // does not (private, process-local, stopped).
    bool hosted_slot(const Session *session, std::uint32_t *slot, std::uint32_t *generation);
    // Running sessions hosted by other processes (live or orphaned), from
    // the system registry; empty without one.
    std::vector<RegistryEntry> foreign_sessions();
    // A session of another process by name (case-insensitive).
    bool find_foreign(const std::u16string &name, RegistryEntry *out);
    // Brings this process's providers up to date with what other processes'
    // sessions enable, now (the watcher does it too, a moment later): after
    // a control call through the session host, the caller's own providers
    // are enabled or disabled before the call returns.
    void sync_providers();

    // engine::SessionHosting
    Status claim(const Properties &props, const SessionOptions &options, std::uint64_t handle,
                 std::unique_ptr<Claim> *out) override;
    Status listen(Claim &claim) override;
    void abandon(std::unique_ptr<Claim> claim) override;
    void host(std::unique_ptr<Claim> claim, const std::shared_ptr<Session> &session, const Properties &props) override;
    std::size_t enable_limit(const Session *session) override;
    std::size_t filter_room(const Session *session) override;
    void enables_changed(const Session *session, const std::vector<engine::SessionEnable> &enables) override;
    void capture_requested(const Session *session, const engine::SessionEnable &request) override;
    void provider_unregistered() override;
    void stopping(const Session *session) override;
    void stopped(const Session *session) override;
    void provider_registered() override;
    // The session's export (src/export), made for the session host's logger.
    Status open_export(const Properties &props, std::unique_ptr<engine::BufferExport> *out) override;

private:
    explicit Hosting(Engine &engine) : engine_(engine) {}

    // A session this process hosts in the system registry; its channel is
    // served by the process's request loop (request_loop.hpp).
    struct Hosted {
        std::uint32_t slot = 0;
        std::uint32_t generation = 0;
        std::intptr_t listener = -1; // platform::ChannelHandle, the request loop's
        // Set when the slot is released: a request finishing later publishes nothing.
        std::mutex publish_mutex;
        bool released = false;
        std::vector<GrantRecord> grants;                // guarded by mutex_
        std::vector<EnableRecord> enables;              // guarded by mutex_: what was last published
        std::vector<std::vector<std::uint8_t>> filters; // guarded by mutex_: enables[i]'s filter blob
        // Live feeds to consumers of other processes. Once the session
        // stopped (draining), each still sending its tail counts in
        // g_serving, so that the process's exit waits for it.
        std::mutex relay_mutex;
        int relays = 0;
        bool draining = false;
        void relay_started();
        void relay_ended();
        void drain_relays();
    };
    class SlotClaim;
    class SessionDoor;

    // A request for a hosted session, admitted by its door (on a thread of its own).
    void serve(Hosted &h, const std::shared_ptr<Session> &s, std::intptr_t c, std::uint32_t kind,
               const std::vector<std::uint8_t> &body);
    bool allowed(const Hosted &h, std::uint32_t uid, std::uint32_t rights);
    // Publishes what a hosted session enables and grants. Caller holds mutex_.
    void publish_tables(const Hosted &h);
    // Providers of this process: attaches to (and detaches from) sessions of
    // other processes as their enable tables say (remote_providers.cpp).
    void sync_remote();
    void start_watcher();
    // The capture requests of the sessions this process's providers write
    // into that it has not delivered yet. Caller holds sync_mutex_.
    void deliver_captures(SystemRegistry &reg, const std::map<std::uint64_t, RegistryEntry> &sessions);
    // Rewrites this process's file of registrations when they changed (provider_table.hpp).
    void publish_own_registrations();

    Engine &engine_;
    std::mutex mutex_; // taken inside the engine's lock, never around a call into the engine
    std::map<const Session *, std::shared_ptr<Hosted>> hosted_;

    // Writer sessions of other processes' sessions, by slot and generation.
    std::mutex sync_mutex_; // one sync_remote at a time; taken before the engine's lock
    std::map<std::uint64_t, std::shared_ptr<Session>> remote_targets_;
    std::map<std::uint64_t, std::uint32_t> remote_denied_; // key -> enable sequence when refused
    // Per attached session (key as remote_targets_): its capture requests
    // this process has delivered (SystemRegistry::captures' count).
    std::map<std::uint64_t, std::uint32_t> captures_seen_;
    // What this process last published of its registrations (provider_table.hpp).
    std::mutex registrations_mutex_; // taken after sync_mutex_, before the engine's lock
    std::vector<std::pair<etw_guid, std::uint32_t>> published_registrations_;
    bool registrations_published_ = false;
    bool watcher_started_ = false; // guarded by mutex_
};

// The process's engine with the process's hosting installed: what the
// library's entry points use, so that sessions and providers reach other
// processes. (The engine alone, Engine::instance(), keeps to its process.)
inline Engine &process_engine() { return Hosting::instance().engine(); }

} // namespace openetw::host
