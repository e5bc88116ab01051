// The process-wide engine: the registry of running sessions (names unique
// case-insensitively, GUIDs unique, a configurable maximum), provider
// registrations, enablement (EnableTraceEx2 semantics, before or after a
// provider registers) and the event-writing entry point.
//
// Locking: one engine mutex guards the registry and enablement tables and is
// never held while user code (an enable callback) runs. The write path takes
// no lock: it reads the provider's published session list inside a grace
// section (core/grace.hpp); control calls unpublish, wait a grace period,
// then free.
#pragma once

#include "base/status.hpp"
#include "core/grace.hpp"
#include "core/properties.hpp"
#include "core/session.hpp"
#include "core/system_registry.hpp"

#include <openetw/records.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace openetw::core {

struct EnableInfo {
    std::uint32_t is_enabled = 0;
    std::uint8_t level = 0;
    std::uint64_t match_any = 0;
    std::uint64_t match_all = 0;
    std::uint64_t session_handle = 0;
};

using EnableCallback = void (*)(const EnableInfo &info, void *context);

// What one provider registration publishes for the write path.
struct ProviderSnapshot {
    struct Entry {
        Session *session;
        std::uint8_t max_level;   // the highest level it takes: 255 for every level (enabled at 0)
        std::uint32_t max_record; // records of this size or more never fit its buffers
    };
    std::vector<Entry> entries;
    // The entry when there is exactly one (the common case, written without
    // the loop); set once the entries are final, before the snapshot is published.
    const Entry *single = nullptr;
};

class Provider {
public:
    etw_guid guid{};
    // bit 63: enabled; bits 0..7: highest enabled level (255 = every level).
    std::atomic<std::uint64_t> summary{0};
    // 1 while summary != 0: the word etw_provider_enabled_word hands out, so
    // callers test it inline (32 bits: a single load on every target).
    std::atomic<std::uint32_t> enabled{0};
    std::atomic<std::uint64_t> any_flags{0}; // OR of the sessions' MatchAnyKeyword (0 there = all)
    std::atomic<ProviderSnapshot *> snapshot{nullptr};

    // Notification (opaque to the engine beyond calling it).
    EnableCallback callback = nullptr;
    void *context = nullptr;

    // Callback bookkeeping, guarded by the engine mutex.
    int in_flight = 0;
    std::vector<std::uint32_t> in_flight_threads;
    bool closing = false;
    bool orphaned = false; // unregistered from inside its own callback
};

class Engine {
public:
    static Engine &instance();

    // Sessions.
    Status start(Properties &props, std::shared_ptr<Session> *out) { return start(props, SessionOptions{}, out); }
    Status start(Properties &props, const SessionOptions &options, std::shared_ptr<Session> *out);
    Status open(const std::u16string &name, std::shared_ptr<Session> *out);
    Status stop(const std::shared_ptr<Session> &session, Properties *props);
    Status query(const std::shared_ptr<Session> &session, Properties &props);
    Status update(const std::shared_ptr<Session> &session, Properties &props);
    // path: buffering mode only, where the snapshot goes (empty: the log file name).
    Status flush(const std::shared_ptr<Session> &session, Properties *props, const std::string &path = {});
    std::vector<std::shared_ptr<Session>> running();
    // Running sessions hosted by other processes (live or orphaned), from
    // the system registry; empty without one.
    std::vector<RegistryEntry> foreign_sessions();
    // A session of another process by name (case-insensitive).
    bool find_foreign(const std::u16string &name, RegistryEntry *out);
    Status set_max_sessions(std::uint32_t n);
    std::uint32_t max_sessions();

    // EnableTraceEx2: enable (is_enabled != 0) or disable a provider GUID
    // for a session.
    Status enable_provider(const std::shared_ptr<Session> &session, const etw_guid &provider, bool enable,
                           std::uint8_t level, std::uint64_t match_any, std::uint64_t match_all);
    // etw_session_grant on a session hosted here.
    Status grant(const std::shared_ptr<Session> &session, std::uint32_t uid, std::uint32_t rights);
    // Starts in place of the orphan `orphan` with its published settings and
    // providers (ETW_SESSION_TAKE_OVER_ORPHAN).
    Status take_over(Properties &props, const SessionOptions &options, std::shared_ptr<Session> *out);

    // The registry slot of a session this process hosts; false for one it
    // does not (private, process-local, stopped).
    bool hosted_slot(const Session *session, std::uint32_t *slot, std::uint32_t *generation);
    // Brings this process's providers up to date with what other processes'
    // sessions enable, now (the watcher does it too, a moment later): after
    // a control call through the session host, the caller's own providers
    // are enabled or disabled before the call returns.
    void sync_providers();

    // Providers.
    Status register_provider(const etw_guid &guid, EnableCallback cb, void *context, Provider **out);
    // Returns after every callback of this provider has returned (except one
    // running on the calling thread, when called from inside it).
    void unregister_provider(Provider *p);

    // HOT: EVENT_TRACE_HEADER semantics (see provider.h), for an enabled
    // provider: its caller turns a disabled one away (one load and a branch).
    // Static: the write path needs no engine state (no instance() guard per event).
    static etw_status trace_event(Provider *p, etw_event_trace_header *header) noexcept;
    static bool is_enabled(const Provider *p, std::uint8_t level, std::uint64_t flags) noexcept;

private:
    // trace_event's general case: a Guid by pointer, MOF_FIELD payloads, or a bad header.
    [[gnu::noinline]] static etw_status trace_gathered(Provider *p, etw_event_trace_header *h) noexcept;
    struct Enablement {
        std::shared_ptr<Session> session;
        std::uint8_t level;
        std::uint64_t match_any;
        std::uint64_t match_all;
        bool operator==(const Enablement &) const = default;
    };
    struct GuidEntry {
        std::vector<Provider *> providers;
        std::vector<Enablement> enablements;
        std::vector<Enablement> remote; // sessions of other processes (writer sessions)
        std::uint64_t remote_handle = 0; // the last one's handle, for the callback
    };
    struct Pending {
        Provider *provider;
        EnableInfo info;
    };

    // A session this process hosts in the system registry, and the thread
    // serving other processes' requests for it.
    struct Hosted {
        std::uint32_t slot = 0;
        std::uint32_t generation = 0;
        std::intptr_t listener = -1; // platform::ChannelHandle
        std::thread servant;
        std::atomic<bool> quit{false};
        std::vector<GrantRecord> grants; // guarded by mutex_
        // Live feeds to consumers of other processes. Once the session
        // stopped (draining), each still sending its tail counts in
        // detail::g_serving, so that the process's exit waits for it.
        std::mutex relay_mutex;
        int relays = 0;
        bool draining = false;
        void relay_started();
        void relay_ended();
        void drain_relays();
    };
    void serve(std::shared_ptr<Hosted> h, std::shared_ptr<Session> s);
    bool allowed(const Hosted &h, std::uint32_t uid, std::uint32_t rights);
    // Publishes what a hosted session enables and grants. Caller holds mutex_.
    void publish_tables(const std::shared_ptr<Session> &s);
    // Providers of this process: attaches to (and detaches from) sessions of
    // other processes as their enable tables say (docs/SYSTEM_SESSIONS.md).
    void sync_remote();
    void start_watcher();

    GuidEntry &entry(const etw_guid &g);
    // Rebuilds the published state of every provider of g; appends the
    // notifications to deliver. Caller holds mutex_.
    void republish(const etw_guid &g, std::vector<ProviderSnapshot *> &retired, std::vector<Pending> &notify,
                   std::uint64_t session_handle);
    void deliver(std::vector<Pending> &notify);
    void retire(std::vector<ProviderSnapshot *> &retired);

    std::mutex mutex_;
    std::condition_variable callbacks_cv_;
    std::vector<std::shared_ptr<Session>> sessions_; // running (and stopping)
    std::map<std::string, GuidEntry> guids_;         // key: 16 raw bytes
    std::map<const Session *, std::shared_ptr<Hosted>> hosted_;
    std::uint32_t max_sessions_ = 64;
    std::uint64_t next_serial_ = 1;

    // Writer sessions of other processes' sessions, by slot and generation.
    std::mutex sync_mutex_; // one sync_remote at a time; taken before mutex_
    std::map<std::uint64_t, std::shared_ptr<Session>> remote_targets_;
    std::map<std::uint64_t, std::uint32_t> remote_denied_; // key -> enable sequence when refused
    bool watcher_started_ = false;
};

// Case-insensitive session-name comparison (ASCII and Latin-1 letters fold).
bool session_names_equal(const std::u16string &a, const std::u16string &b);

} // namespace openetw::core
