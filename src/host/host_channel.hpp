// The session host's own channel (docs/SYSTEM_SESSIONS.md, "The session
// host"): one per namespace, named after the registry. Processes ask the
// host to start a session (it then runs in the host, whatever becomes of
// the caller) and to finish an orphan (a session whose previous host died).
// Everything else about a running session goes to that session's channel
// (session_channel.hpp). The host learns each caller's user from the kernel.
#pragma once

#include "base/status.hpp"
#include "host/engine_names.hpp"
#include "host/system_registry.hpp"
#include "platform/channel.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace openetw::host {

enum class HostRequest : std::uint32_t { Start = 50, StopOrphan = 51 };

// ---- Caller side ----

// True when sessions of this process start in a session host: the
// namespace is system-wide, this process is not the host, and
// OPENETW_HOST is not "inprocess" (the design before the host: the starting
// process hosts the session and it ends with it).
bool sessions_start_in_host();
// Connects to the namespace's host, starting one (openetw-hostd, found as
// host_program() says) when none listens and spawn is set. Only a host of
// this user or root is accepted.
// ETW_ERROR_FILE_NOT_FOUND when there is none and none could be started;
// ETW_ERROR_ACCESS_DENIED when another user holds the host's name.
Status connect_host(platform::ChannelHandle *out, bool spawn);
// Where openetw-hostd is: $OPENETW_HOSTD, else beside this library, else
// where it was installed; empty when none of them exists.
std::string host_program();
// Starts a session in the host: props (settings, names; the log file name
// made absolute) in, the adjusted props and the registry entry out.
Status host_start(Properties &props, const SessionOptions &options, RegistryEntry *out);
// Stops (finishes) an orphan through the host: its file is finished and its
// name freed; props (may be null) receives its final statistics.
Status host_stop_orphan(const RegistryEntry &e, Properties *props);

// ---- Host side ----

struct HostIncoming {
    HostRequest code{};
    Properties props;
    SessionOptions options;
    std::uint32_t slot = 0, generation = 0; // StopOrphan
};
// The most body bytes a host request of that kind can need; -1 for an
// unknown kind (read before any body is).
std::int64_t max_host_request_body(std::uint32_t kind);
// The request in a complete frame. ETW_ERROR_INVALID_DATA for a malformed one.
Status parse_host_request(std::uint32_t kind, const std::vector<std::uint8_t> &body, HostIncoming *out);
// Answers a start (slot and generation of the new session) or a stop.
void answer_host(platform::ChannelHandle c, const Status &st, const Properties *props, std::uint32_t slot,
                 std::uint32_t generation);

} // namespace openetw::host
