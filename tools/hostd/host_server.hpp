// The session host (openetw-hostd, docs/SYSTEM_SESSIONS.md "The session
// host"): the one process of a namespace that owns its sessions. It writes
// the registry, starts sessions for the processes that ask, serves each
// session's requests, finishes the orphans a killed host left, and exits
// when it has had no session for a while (unless told to stay).
#pragma once

#include <cstdint>
#include <string>

namespace openetw::host {

struct HostConfig {
    std::string registry;          // the namespace (its registry file)
    std::int64_t idle_exit_ms = 0; // exit after this long with no session; 0: never
    std::intptr_t listener = -1;   // a listening socket handed over (systemd), or -1
};

// Runs the host until it is idle for idle_exit_ms (or forever). Returns the
// process exit code: 0 (also when another host already serves the
// namespace), 1 when it cannot serve (message on stderr).
int run_host(const HostConfig &config);

} // namespace openetw::host
