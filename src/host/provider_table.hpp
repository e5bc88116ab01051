// Which processes register which providers, system-wide (docs/
// SYSTEM_SESSIONS.md, "Provider listing"): each process with providers keeps
// one small file in its namespace's folder, `<registry>.providers.<pid>`,
// with its pid, its start time and its registrations (GUID, count), replaced
// in one step (a rename) whenever they change and removed when none is left.
// Written only into a namespace of the process's own user. A reader ignores
// the file of a process that is gone (its pid absent or started at another
// time, as after a SIGKILL) and removes it when it can.
//
// Nothing read is trusted: a file's size, magic and count are checked. No
// lock: every call may run on any thread (the writer is the process itself,
// serialised by its caller).
#pragma once

#include <openetw/records.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace openetw::host {

struct ProcessRegistrations {
    std::uint32_t pid = 0;
    std::vector<std::pair<etw_guid, std::uint32_t>> guids; // GUID, registrations in that process
};

// Publishes this process's registrations beside the registry at
// registry_path (an empty list removes the file). False when the file could
// not be written (a folder the process may not write: the process is then not listed).
bool publish_registrations(const std::string &registry_path,
                           const std::vector<std::pair<etw_guid, std::uint32_t>> &guids);
// The registrations of every live process of the namespace, this one's included.
std::vector<ProcessRegistrations> read_registrations(const std::string &registry_path);

} // namespace openetw::host
