// The conversation between a session's host and other processes
// (docs/SYSTEM_SESSIONS.md, "Requests"): one connection to the host's
// channel per request. The host learns the caller's user from the kernel
// and checks it against the session's rights before serving:
//   control (query, update, flush, stop, enable a provider, capture state,
//   grant) needs ETW_SESSION_RIGHT_CONTROL; a writer (the region's
//   descriptor and the parameters to write with) needs _LOG; a real-time
//   feed needs _CONSUME.
// Every length read from a connection is checked before use.
#pragma once

#include "base/status.hpp"
#include "host/engine_names.hpp"
#include "host/system_registry.hpp"
#include "platform/channel.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace openetw::host {

enum class Request : std::uint32_t {
    Query = 1,
    Update = 2,
    Flush = 3,
    Stop = 4,
    Enable = 5,
    Grant = 6,
    Writer = 7,
    Consume = 8,
    Options = 9,          // the options the session runs with (control right)
    FlushTo = 10,         // a buffering session's snapshot to a path: the host's own user or root only
    StackTracing = 11,    // the kernel events that carry stacks (control right)
    ProfileInterval = 12, // a system logger's profile interval (control right)
    CaptureState = 13,    // ask a provider's registrations to log their state (control right)
};

// The right a request needs (ETW_SESSION_RIGHT_*).
std::uint32_t right_needed(Request r);

// ---- Caller side ----

// Query, Update, Flush, Stop: sends props (update: the new settings) and
// fills it with the host's answer. props may be null for Flush and Stop.
Status request_control(SystemRegistry &reg, const RegistryEntry &e, Request code, Properties *props);
// Enable (enable = false: disable) a provider in the session.
// filters: the enablement's filter blob (engine/event_filter.hpp; empty: none).
Status request_enable(SystemRegistry &reg, const RegistryEntry &e, const EnableRecord &rec, bool enable,
                      const std::vector<std::uint8_t> &filters = {});
// CaptureState: rec names the provider, the level and keywords its callbacks get.
Status request_capture(SystemRegistry &reg, const RegistryEntry &e, const EnableRecord &rec);
Status request_grant(SystemRegistry &reg, const RegistryEntry &e, const GrantRecord &grant);
Status request_options(SystemRegistry &reg, const RegistryEntry &e, SessionOptions *out);
Status request_stack_tracing(SystemRegistry &reg, const RegistryEntry &e,
                             const std::vector<etw_classic_event_id> &events);
Status request_profile_interval(SystemRegistry &reg, const RegistryEntry &e, std::uint32_t interval_100ns);
// FlushTo: the host writes the snapshot to path (absolute) as its own user.
Status request_flush_to(SystemRegistry &reg, const RegistryEntry &e, const std::u16string &path, Properties *props);
// The session's region and what a writer needs; region is the caller's to adopt.
Status request_writer(SystemRegistry &reg, const RegistryEntry &e, platform::Region *region,
                      Session::WriterParams *params);

// A real-time feed from another process's session: the host attaches a
// RealtimeReader and relays each buffer, with the losses since the last one.
class RemoteFeed final : public LiveFeed {
public:
    // The session's header buffer comes first.
    static Status open(SystemRegistry &reg, const RegistryEntry &e, std::unique_ptr<RemoteFeed> *out,
                       std::vector<std::uint8_t> *header_buffer);
    ~RemoteFeed() override;
    Next next(std::vector<std::uint8_t> &out, LossReport *loss) override;
    void interrupt() override;
    std::string ended_early() const override { return ended_early_; }

private:
    RemoteFeed() = default;
    platform::ChannelHandle conn_ = platform::kNoChannel;
    std::atomic<bool> interrupted_{false};
    std::string ended_early_;
};

// ---- Host side ----

struct IncomingRequest {
    Request code{};
    Properties props;      // Query..Stop
    EnableRecord enable{}; // Enable, CaptureState
    bool enable_on = false;
    std::vector<std::uint8_t> enable_filters;
    GrantRecord grant{};                            // Grant
    std::u16string path;                            // FlushTo
    std::vector<etw_classic_event_id> stack_events; // StackTracing
    std::uint32_t profile_interval = 0;             // ProfileInterval
};
// The most body bytes a request of that kind can need: 0 for a request
// without a body, -1 for an unknown kind (read before any body is).
std::int64_t max_request_body(std::uint32_t kind);
// The request in a complete frame (kind and body). ETW_ERROR_INVALID_DATA
// for a malformed one.
Status parse_request(std::uint32_t kind, const std::vector<std::uint8_t> &body, IncomingRequest *out);
// Answers a control request (props may be null).
void answer(platform::ChannelHandle c, const Status &st, const Properties *props);
// Answers an Options request.
void answer_options(platform::ChannelHandle c, const SessionOptions &o);
// Answers a writer request: the region's descriptor travels with the answer.
void answer_writer(platform::ChannelHandle c, std::intptr_t region_fd, const Session::WriterParams &params);
// Relays a real-time reader to a caller until the session ends or the
// caller goes away (run on a thread of its own; c stays the caller's to close).
void relay(platform::ChannelHandle c, std::unique_ptr<RealtimeReader> reader, const std::vector<std::uint8_t> &header);

} // namespace openetw::host
