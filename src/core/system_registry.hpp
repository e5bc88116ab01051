// The system-wide session registry (docs/SYSTEM_SESSIONS.md): a file mapped
// shared by every process, with one fixed slot per running session (name,
// GUID, host process, the host's last published properties) and a request
// channel through which other processes query, update, flush and stop it.
//
// Nothing read from the file is trusted: lengths, states and codes are
// checked before use, so a process scribbling over it cannot crash another.
#pragma once

#include "base/status.hpp"
#include "core/properties.hpp"
#include "platform/platform.hpp"

#include <openetw/records.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::core {

inline constexpr std::uint32_t kRegistrySlots = 64;
inline constexpr std::uint32_t kRegistryNameMax = 1024; // UTF-16 units

enum class Request : std::uint32_t { None = 0, Query = 1, Update = 2, Flush = 3, Stop = 4 };

// A copy of a slot's identity, taken under no lock (checked on use).
struct RegistryEntry {
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    std::u16string name;
    etw_guid guid{};
    std::uint64_t handle = 0;
    std::uint32_t host_pid = 0;
    bool orphaned = false; // the host process is gone
    bool own = false;      // hosted by this process
};

struct RegistrySlot;

class SystemRegistry {
public:
    // The registry of this process's namespace (platform::registry_path()),
    // or nullptr when there is none (disabled, unsupported, unusable file).
    static SystemRegistry *get();

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
    // Refreshes e (orphaned flag); false when the slot no longer holds it.
    bool refresh(RegistryEntry &e);
    // The slot's last published properties.
    bool published(const RegistryEntry &e, Properties &props);

    // Client side of the request channel: asks the host to run code with
    // props (update: the new settings) and fills props with its answer.
    Status request(const RegistryEntry &e, Request code, Properties *props);

    // Host side: waits up to timeout_ms for a request newer than served;
    // true with its code and settings when there is one.
    bool next_request(std::uint32_t slot, std::uint32_t served, std::uint32_t *seq, Request *code, Properties &props,
                      std::int64_t timeout_ms);
    void respond(std::uint32_t slot, std::uint32_t seq, const Status &st, const Properties *props);
    // The last request answered (where a new host starts serving).
    std::uint32_t answered(std::uint32_t slot);
    // Wakes a host thread sleeping in next_request (for its own exit).
    void poke(std::uint32_t slot);

private:
    SystemRegistry() = default;
    RegistrySlot &slot(std::uint32_t i) const;
    bool host_alive(const RegistrySlot &s) const;
    bool read_entry(std::uint32_t i, RegistryEntry *out);
    platform::Region region_{};
    std::uint64_t self_start_ = 0;
};

// Copies the settings and statistics members (not the layout members) of a
// properties record, as Session::fill sets them.
void copy_settings(const etw_event_trace_properties &from, etw_event_trace_properties &to);

} // namespace openetw::core
