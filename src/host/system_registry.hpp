// The system-wide session registry (docs/SYSTEM_SESSIONS.md): a file mapped
// shared by every process, with one fixed slot per running session (name,
// GUID, host process, the host's last published properties) and a request
// channel through which other processes query, update, flush and stop it.
//
// Nothing read from the file is trusted: lengths, states and codes are
// checked before use, so a process scribbling over it cannot crash another.
#pragma once

#include "base/status.hpp"
#include "host/engine_names.hpp"
#include "platform/host.hpp"
#include "platform/region.hpp"

#include <openetw/records.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::host {

inline constexpr std::uint32_t kRegistrySlots = 64;
inline constexpr std::uint32_t kRegistryNameMax = 1024; // UTF-16 units

inline constexpr std::uint32_t kSlotEnables = 128;           // providers a system-wide session enables
inline constexpr std::uint32_t kSlotGrants = 16;             // users a session grants rights
inline constexpr std::uint32_t kSlotFilterBytes = 32u << 10; // the filter blobs of a session's enables, together

// A provider a session enables, as providers of other processes see it.
struct EnableRecord {
    etw_guid guid;
    std::uint64_t match_any;
    std::uint64_t match_all;
    std::uint32_t level;
    std::uint32_t enable_property; // EVENT_ENABLE_PROPERTY_*
};
// A capture-state request of a session (EVENT_CONTROL_CODE_CAPTURE_STATE),
// as providers of other processes read it.
inline constexpr std::uint32_t kSlotCaptures = 16; // requests kept for processes that have not read them yet
struct CaptureRecord {
    etw_guid guid;
    std::uint64_t match_any;
    std::uint64_t match_all;
    std::uint32_t level;
    std::uint32_t reserved;
};
// Rights (ETW_SESSION_RIGHT_*) a session grants a user.
struct GrantRecord {
    std::uint32_t uid;
    std::uint32_t rights;
};

// A copy of a slot's identity, taken under no lock (checked on use).
struct RegistryEntry {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    std::u16string name;
    etw_guid guid{};
    std::uint64_t handle = 0;
    std::uint32_t host_pid = 0;
    std::uint32_t host_uid = 0;
    bool orphaned = false; // the host process is gone
    bool own = false;      // hosted by this process
};

struct RegistrySlot;

class SystemRegistry {
public:
    // The registry of this process's namespace (platform::registry_path()),
    // or nullptr when there is none (disabled, unsupported, unusable file,
    // or no host made it yet: asked again on the next call). The session
    // host maps it writable; every other process read-only.
    static SystemRegistry *get();
    // Called by the session host (openetw-hostd) before anything maps the
    // registry: this process writes it.
    static void become_host();
    // True in the host, and in every process when OPENETW_HOST=inprocess
    // (each process hosts the sessions it starts, in the shared registry,
    // which must then be its own user's).
    static bool is_host_process();
    bool writable() const { return writable_; }
    // The uid owning the registry file (the namespace's host user).
    std::uint32_t owner() const { return owner_; }
    const std::string &path() const { return path_; }
    // The name the namespace's host listens under (platform/channel.hpp).
    std::string host_channel_name() const { return host_channel_name(path_); }
    static std::string host_channel_name(const std::string &registry_path);

    // Host only (the others get ETW_ERROR_ACCESS_DENIED, or nothing happens).
    // Takes a slot for a session about to start: ETW_ERROR_ALREADY_EXISTS
    // when a live or orphaned session has the name (case-insensitive) or the
    // GUID, ETW_ERROR_NO_SYSTEM_RESOURCES when every slot is taken.
    Status claim(const std::u16string &name, const etw_guid &guid, std::uint64_t handle, std::uint32_t *slot,
                 std::uint32_t *generation);
    // Makes props (adjusted settings, statistics, log file name) what other
    // processes see of the slot; the first call also marks it running.
    void publish(std::uint32_t slot, const Properties &props);
    // Frees a slot (a session that stopped, or an orphan being cleaned up).
    void release(std::uint32_t slot, std::uint32_t generation);

    // Running sessions of every process, own included.
    std::vector<RegistryEntry> list();
    bool find(const std::u16string &name, RegistryEntry *out);
    // Host: removes region files (region_path) of no claimed or running slot:
    // left by a start killed before it published, or by a host that died.
    void remove_stray_regions();
    // The running session in slot with that generation.
    bool at(std::uint32_t slot, std::uint32_t generation, RegistryEntry *out);
    // Refreshes e (orphaned flag); false when the slot no longer holds it.
    bool refresh(RegistryEntry &e);
    // The slot's last published properties.
    bool published(const RegistryEntry &e, Properties &props);

    // Where the session of a slot keeps its buffers (a file, owner-only) and
    // the name its host listens under (platform/channel.hpp).
    std::string region_path(std::uint32_t slot, std::uint32_t generation) const;
    std::string channel_name(std::uint32_t slot, std::uint32_t generation) const;

    // Host: publishes the providers the session enables and the users it
    // grants rights, and tells every process (enable_sequence changes).
    // filters[i]: the filter blob of enables[i] (engine/event_filter.hpp;
    // missing or empty: none).
    void publish_tables(std::uint32_t slot, const std::vector<EnableRecord> &enables,
                        const std::vector<GrantRecord> &grants,
                        const std::vector<std::vector<std::uint8_t>> &filters = {});
    // A consistent copy of a session's tables (any may be null; filters[i]
    // is enables[i]'s); false when the slot no longer holds the session or
    // the tables are damaged.
    bool tables(const RegistryEntry &e, std::vector<EnableRecord> *enables, std::vector<GrantRecord> *grants,
                std::vector<std::vector<std::uint8_t>> *filters = nullptr);
    // Host: appends a capture request to the slot's ring of the last
    // kSlotCaptures and wakes every process (enable_sequence changes).
    void publish_capture(std::uint32_t slot, const CaptureRecord &rec);
    // The session's capture requests after the first `seen`: *count receives
    // how many it made since it started, out the ones still in the ring,
    // oldest first, and *lost how many of those after `seen` were
    // overwritten before this read. False when the slot no longer holds the session.
    bool captures(const RegistryEntry &e, std::uint32_t seen, std::uint32_t *count, std::vector<CaptureRecord> *out,
                  std::uint32_t *lost);
    // Changes whenever some session's enabled providers change or a session
    // ends; wait_enables sleeps (at most timeout_ms) while it equals seen.
    std::uint32_t enable_sequence() const;
    void wait_enables(std::uint32_t seen, std::int64_t timeout_ms);

private:
    SystemRegistry() = default;
    RegistrySlot &slot(std::uint32_t i) const;
    bool host_alive(const RegistrySlot &s) const;
    bool read_entry(std::uint32_t i, RegistryEntry *out);
    void bump_enables();
    platform::Region region_{};
    std::string path_;
    bool writable_ = false;
    std::uint32_t owner_ = 0;
    std::uint64_t self_start_ = 0;
};

// Copies the settings and statistics members (not the layout members) of a
// properties record, as Session::fill sets them.
void copy_settings(const etw_event_trace_properties &from, etw_event_trace_properties &to);

} // namespace openetw::host
