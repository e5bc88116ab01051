// The process-wide engine: the registry of running sessions (names unique
// case-insensitively, GUIDs unique, a configurable maximum), provider
// registrations, enablement (EnableTraceEx2 semantics, before or after a
// provider registers) and the event-writing entry point.
//
// Locking: one engine mutex guards the registry and enablement tables and is
// never held while user code (an enable callback) runs. The write path takes
// no lock: it reads the provider's published session list inside a grace
// section (engine/grace.hpp); control calls unpublish, wait a grace period,
// then free.
#pragma once

#include "base/status.hpp"
#include "engine/event_filter.hpp"
#include "engine/grace.hpp"
#include "engine/properties.hpp"
#include "engine/session.hpp"
#include "engine/session_hosting.hpp"

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

namespace openetw::engine {

// System logger sessions at once in one host (Windows 8 and later: eight).
inline constexpr std::uint32_t kMaxSystemLoggers = 8;

struct EnableInfo {
    std::uint32_t is_enabled = 0;
    std::uint8_t level = 0;
    std::uint64_t match_any = 0;
    std::uint64_t match_all = 0;
    std::uint64_t session_handle = 0;
    // The SCHEMATIZED filter of the session named by session_handle, as
    // EnableCallback's FilterData (null: none); valid during the call.
    const etw_event_filter_descriptor *filter_data = nullptr;
    // That session's identifier (session_instance): deliver() writes it into
    // the copy of filter_data the callback gets, as EVENT_FILTER_HEADER.InstanceId.
    std::uint64_t instance_id = 0;
};

// A session's identifier for EventWriteEx's Filter: one bit, from its logger
// id (1..64 in one process; beyond that, ids share bits modulo 64).
inline std::uint64_t session_instance(std::uint16_t logger_id) { return 1ull << ((logger_id + 63u) % 64u); }

using EnableCallback = void (*)(const EnableInfo &info, void *context);

// A GUID's 16 raw bytes, the key of the engine's GUID table.
inline std::string guid_key(const etw_guid &g) { return std::string(reinterpret_cast<const char *>(&g), sizeof g); }

// What one provider registration publishes for the write path.
struct ProviderSnapshot {
    struct Entry {
        Session *session;
        std::uint8_t max_level;            // the highest level it takes: 255 for every level (enabled at 0)
        std::uint32_t max_record;          // records of this size or more never fit its buffers
        std::uint64_t match_any;           // MatchAnyKeyword, all bits when enabled with 0
        std::uint64_t match_all;           // MatchAllKeyword
        std::uint32_t enable_property = 0; // EVENT_ENABLE_PROPERTY_* bits (engine/event_properties.hpp)
        std::uint64_t instance = 0;        // session_instance: EventWriteEx's Filter skips it when set there
        // The enablement's filters (docs/FILTERS.md), kept alive by the
        // snapshot; null: none. event_filter: the same when events must ask
        // it (EVENT_ID, EVENT_NAME, PAYLOAD), else null: the write path's
        // whole cost without such filters is that one pointer test.
        const EventFilter *filter = nullptr;
        const EventFilter *event_filter = nullptr;
        // Whether the session takes an event of this level and keyword, as
        // Windows decides for EVENT_HEADER events (EventEnabled): level 0 or
        // at most the session's; keyword 0, or one bit of MatchAny and every
        // bit of MatchAll. (Classic events pass keyword 0: level alone.)
        bool takes(std::uint8_t level, std::uint64_t keyword) const noexcept
        {
            return level <= max_level &&
                   (keyword == 0 || ((keyword & match_any) != 0 && (keyword & match_all) == match_all));
        }
        // Whether an EVENT_HEADER event the session takes passes its filters.
        bool passes(const EventHeaderInput &e) const noexcept
        {
            return (e.exclude & instance) == 0 &&
                   (event_filter == nullptr ||
                    event_filter->admits(*e.descriptor, e.data_count, e.data, e.tl ? e.tl->schema : nullptr));
        }
        // Whether an event of this id carries a stack for this session: false
        // when a STACKWALK filter turns the id away, true otherwise (no
        // filter, or no STACKWALK filter). The stack itself is asked for by
        // EVENT_ENABLE_PROPERTY_STACK_TRACE in enable_property.
        bool stack_for(std::uint16_t event_id) const noexcept
        {
            return filter == nullptr || filter->stack_for(event_id);
        }
    };
    std::vector<Entry> entries;
    std::vector<std::shared_ptr<const EventFilter>> filters; // what the entries' filter pointers point to
    // The entry when there is exactly one and it asks for no enable
    // property (the common case, written without the loop); set once the
    // entries are final, before the snapshot is published.
    const Entry *single = nullptr;
    // The entries' enable_property bits, or'ed: when not 0, EVENT_HEADER
    // events take write_with_properties (the one test the others pay).
    std::uint32_t any_property = 0;
};

// A session enabling a provider, with its level, keywords, enable
// properties and filters (the session's own filters included).
struct Enablement {
    std::shared_ptr<Session> session;
    std::uint8_t level;
    std::uint64_t match_any;
    std::uint64_t match_all;
    std::uint32_t enable_property = 0;
    std::shared_ptr<const EventFilter> filter; // null: none
    bool operator==(const Enablement &o) const
    {
        return session == o.session && level == o.level && match_any == o.match_any && match_all == o.match_all &&
               enable_property == o.enable_property &&
               (filter ? filter->blob() : std::vector<std::uint8_t>{}) ==
                   (o.filter ? o.filter->blob() : std::vector<std::uint8_t>{});
    }
};

class Provider {
public:
    etw_guid guid{};
    // bit 63: enabled; bits 0..7: highest enabled level (255 = every level).
    std::atomic<std::uint64_t> summary{0};
    // 1 while summary != 0: the word etw_provider_enabled_word hands out, so
    // callers test it inline (32 bits: a single load on every target).
    std::atomic<std::uint32_t> enabled{0};
    std::atomic<ProviderSnapshot *> snapshot{nullptr};
    // The traits (etw_provider_set_traits) every EVENT_HEADER event carries
    // as PROV_TRAITS: set once, their own UINT16 size first; freed with it.
    std::atomic<const std::uint8_t *> traits{nullptr};

    Provider() = default;
    Provider(const Provider &) = delete;
    Provider &operator=(const Provider &) = delete;
    ~Provider() { delete[] traits.load(std::memory_order_relaxed); }

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
    Status set_max_sessions(std::uint32_t n);
    std::uint32_t max_sessions();

    // EnableTraceEx2: enable (is_enabled != 0) or disable a provider GUID
    // for a session; enable_property: ENABLE_TRACE_PARAMETERS.EnableProperty
    // (engine/event_properties.hpp says which bits act and how).
    Status enable_provider(const std::shared_ptr<Session> &session, const etw_guid &provider, bool enable,
                           std::uint8_t level, std::uint64_t match_any, std::uint64_t match_all,
                           std::uint32_t enable_property = 0)
    {
        return enable_provider_ex(session, provider, enable, level, match_any, match_all, enable_property, {});
    }
    // With filters: a blob pack_filters made (FilterScope::Provider); the
    // session's own filters (SessionOptions::filters) are added to it.
    Status enable_provider_ex(const std::shared_ptr<Session> &session, const etw_guid &provider, bool enable,
                              std::uint8_t level, std::uint64_t match_any, std::uint64_t match_all,
                              std::uint32_t enable_property, const std::vector<std::uint8_t> &filters);

    // EVENT_CONTROL_CODE_CAPTURE_STATE (capture_state.cpp): calls the enable
    // callback of every registration of provider in this process with
    // is_enabled 2 and the given level and keywords, on the calling thread,
    // enablement unchanged, and has the control plane tell other processes.
    // ETW_ERROR_WMI_GUID_NOT_FOUND when the session does not enable provider.
    Status capture_state(const std::shared_ptr<Session> &session, const etw_guid &provider, std::uint8_t level,
                         std::uint64_t match_any, std::uint64_t match_all);
    // A capture request of a session of another process (the control plane,
    // which read it from the registry): delivered like capture_state to this
    // process's registrations of provider while that session enables them;
    // false when none was called.
    bool deliver_remote_capture(const Session *session, const etw_guid &provider, const EnableInfo &info);
    // GUIDs registered in this process, with how many registrations each.
    std::vector<std::pair<etw_guid, std::uint32_t>> registrations();
    // What this process's sessions enable (the provider GUID, the session,
    // its level and keywords), hosted ones included.
    std::vector<std::pair<etw_guid, Enablement>> local_enablements();

    // The control plane's part in the sessions started from now on (one per
    // process, installed before the first start; null: none).
    void set_hosting(SessionHosting *hosting);

    // Sessions of other processes that enable this process's providers: the
    // control plane attaches to them as a writer and says which of them
    // enable which provider.
    struct RemoteEnables {
        etw_guid guid;
        std::vector<Enablement> enables;
        std::uint64_t handle; // the session handle a notification names (0: the last one given)
    };
    // GUIDs with a provider registered in this process.
    std::vector<etw_guid> registered_guids();
    // Publishes the new lists; returns after a grace period, so a session
    // no longer listed has no writer inside it.
    void set_remote_enables(std::vector<RemoteEnables> next);

    // Providers.
    Status register_provider(const etw_guid &guid, EnableCallback cb, void *context, Provider **out);
    // Returns after every callback of this provider has returned (except one
    // running on the calling thread, when called from inside it).
    void unregister_provider(Provider *p);

    // HOT: EVENT_TRACE_HEADER semantics (see provider.h), for an enabled
    // provider: its caller turns a disabled one away (one load and a branch).
    // Static: the write path needs no engine state (no instance() guard per event).
    static etw_status trace_event(Provider *p, etw_event_trace_header *header) noexcept;
    // HOT: an EVENT_HEADER event (etw_provider_write_event), for an enabled provider.
    static etw_status write_event(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                  const etw_guid *activity, const etw_guid *related, std::uint32_t data_count,
                                  const etw_event_data_descriptor *data) noexcept;
    // write_event with EventWriteEx's Filter: exclude, the sessions (session_instance
    // bits) that do not get it. Apart so that write_event keeps seven arguments (its
    // caller's tail call: an eighth goes on the stack).
    static etw_status write_event_ex(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                     const etw_guid *activity, const etw_guid *related, std::uint32_t data_count,
                                     const etw_event_data_descriptor *data, std::uint64_t exclude) noexcept;
    static bool is_enabled(const Provider *p, std::uint8_t level, std::uint64_t flags) noexcept;
    // An EVENT_HEADER event with TraceLogging metadata (schema: the
    // EVENT_SCHEMA_TL data, checked by the caller) and any number of payload
    // descriptors (of Type 0), for an enabled provider.
    static etw_status write_tracelogging(Provider *p, const etw_event_descriptor *descriptor, const etw_guid *activity,
                                         const etw_guid *related, const std::uint8_t *schema, std::uint32_t data_count,
                                         const etw_event_data_descriptor *data) noexcept;
    // EventSetInformation(EventProviderSetTraits): the blob checked by the caller.
    static Status set_traits(Provider *p, const std::uint8_t *traits, std::uint32_t size);

private:
    // trace_event's general case: a Guid by pointer, MOF_FIELD payloads, or a bad header.
    [[gnu::noinline]] static etw_status trace_gathered(Provider *p, etw_event_trace_header *h) noexcept;
    // write_event's general case: typed descriptors, or a provider with traits.
    [[gnu::noinline]] static etw_status write_event_typed(Provider *p, const etw_event_descriptor *descriptor,
                                                          std::uint32_t flags, const etw_guid *activity,
                                                          const etw_guid *related, std::uint32_t data_count,
                                                          const etw_event_data_descriptor *data,
                                                          std::uint64_t exclude) noexcept;
    // An EVENT_HEADER event with TraceLogging's items (write_tracelogging.cpp).
    static etw_status write_with_items(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                       const etw_guid *activity, const etw_guid *related, const TlItems &tl,
                                       std::uint32_t data_count, const etw_event_data_descriptor *data,
                                       std::uint64_t bytes, std::uint64_t exclude = 0) noexcept;
    // The write of a checked EVENT_HEADER event to the provider's sessions
    // (inline in write_path.cpp; _prepared: out of line, for write_tracelogging.cpp).
    static etw_status write_event_checked(Provider *p, const EventHeaderInput &e, std::uint32_t size) noexcept;
    static etw_status write_event_prepared(Provider *p, const EventHeaderInput &e, std::uint32_t size) noexcept;
    // write_event and write_event_ex: the checks and the write (inline in write_path.cpp).
    static etw_status write_event_any(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                      const etw_guid *activity, const etw_guid *related, std::uint32_t data_count,
                                      const etw_event_data_descriptor *data, std::uint64_t exclude) noexcept;
    struct GuidEntry {
        std::vector<Provider *> providers;
        std::vector<Enablement> enablements;
        std::vector<Enablement> remote;  // sessions of other processes (writer sessions)
        std::uint64_t remote_handle = 0; // the last one's handle, for the callback
    };
    struct Pending {
        Provider *provider;
        EnableInfo info;
        std::shared_ptr<const EventFilter> filter; // keeps info.filter_data alive
    };

    GuidEntry &entry(const etw_guid &g);
    std::vector<SessionEnable> enables_locked(const Session *session); // caller holds mutex_
    // Rebuilds the published state of every provider of g; appends the
    // notifications to deliver. Caller holds mutex_.
    void republish(const etw_guid &g, std::vector<ProviderSnapshot *> &retired, std::vector<Pending> &notify,
                   std::uint64_t session_handle);
    void deliver(std::vector<Pending> &notify);
    // Queues info for every live registration of e's GUID. Caller holds mutex_.
    void queue_capture(GuidEntry &e, EnableInfo info, const std::shared_ptr<const EventFilter> &filter,
                       std::vector<Pending> &notify);
    void retire(std::vector<ProviderSnapshot *> &retired);

    std::mutex mutex_;
    std::condition_variable callbacks_cv_;
    std::vector<std::shared_ptr<Session>> sessions_; // running (and stopping)
    std::map<std::string, GuidEntry> guids_;         // key: 16 raw bytes
    SessionHosting *hosting_ = nullptr;
    std::uint32_t max_sessions_ = 64;
    std::uint64_t next_serial_ = 1;
};

} // namespace openetw::engine
