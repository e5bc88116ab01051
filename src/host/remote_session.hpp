// A session hosted by another process, controlled through the system
// registry's request channel (docs/SYSTEM_SESSIONS.md). An orphan (its host
// died) answers queries from what its host last published, and stopping it
// frees its name.
#pragma once

#include "base/status.hpp"
#include "host/engine_names.hpp"
#include "host/system_registry.hpp"

namespace openetw::host {

class RemoteSession {
public:
    RemoteSession(SystemRegistry &registry, RegistryEntry entry) : registry_(registry), entry_(std::move(entry)) {}

    Status query(Properties &props);
    Status update(Properties &props);
    Status flush(Properties *props);
    Status stop(Properties *props);
    Status enable(const EnableRecord &rec, bool enable, const std::vector<std::uint8_t> &filters = {});
    Status capture_state(const EnableRecord &rec);
    Status grant(std::uint32_t uid, std::uint32_t rights);
    Status set_stack_tracing(const std::vector<etw_classic_event_id> &events);
    Status set_profile_interval(std::uint32_t interval_100ns);
    Status options(SessionOptions *out);
    // A buffering session's snapshot to path (made absolute here).
    Status flush_to(const std::string &path, Properties *props);
    const RegistryEntry &entry() const { return entry_; }

    std::uint64_t handle() const { return entry_.handle; }
    std::uint32_t host_pid() const { return entry_.host_pid; }
    // False when the session has stopped; orphaned then tells whether its host died.
    bool refresh(bool *orphaned);

private:
    Status gone() const;
    // Ok while the session runs and its host lives; otherwise why a request
    // cannot go to it (`instead`: what can still be done with an orphan).
    Status reachable(const char *instead);
    Status orphan_access();
    SystemRegistry &registry_;
    RegistryEntry entry_;
};

} // namespace openetw::host
