// One door to a session, wherever it runs: in this process (the engine's
// Session) or in another (a session host, reached through the registry and
// the session's channel). The C API's etw_session holds one of these and
// forwards every call; nothing above this file asks where a session runs.
//
// Thread rules: one SessionRef may be used from several threads; the calls
// forward to the engine or the host, which serialise what they must.
#pragma once

#include "base/status.hpp"
#include "host/engine_names.hpp"

#include <openetw/records.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openetw::host {

struct HostInfo {
    std::uint32_t process_id = 0;
    bool orphaned = false; // its host process died
    bool is_local = false; // hosted by this process
};

class SessionRef {
public:
    virtual ~SessionRef() = default;

    virtual std::uint64_t handle() const = 0;
    // ETW_ERROR_WMI_INSTANCE_NOT_FOUND once the session stopped.
    virtual Status host_info(HostInfo *out) = 0;
    virtual Status options(SessionOptions *out) = 0;

    virtual Status query(Properties &props) = 0;
    virtual Status update(Properties &props) = 0;
    virtual Status flush(Properties *props) = 0;
    // A buffering session's snapshot to path.
    virtual Status flush_to(const std::string &path, Properties *props) = 0;
    // Final statistics into props (may be null). This process's providers
    // let go of the session before it returns.
    virtual Status stop(Properties *props) = 0;
    // Enable (enable = false: disable) a provider; this process's providers
    // hear of it before the call returns.
    // enable_property: EVENT_ENABLE_PROPERTY_*; filters: a blob
    // engine::pack_filters made (empty: none).
    virtual Status enable(const etw_guid &provider, bool enable, std::uint8_t level, std::uint64_t match_any,
                          std::uint64_t match_all, std::uint32_t enable_property = 0,
                          const std::vector<std::uint8_t> &filters = {}) = 0;
    // EVENT_CONTROL_CODE_CAPTURE_STATE: the provider's registrations the
    // session enables log their state; this process's hear of it before the
    // call returns. ETW_ERROR_WMI_GUID_NOT_FOUND when the session does not enable it.
    virtual Status capture_state(const etw_guid &provider, std::uint8_t level, std::uint64_t match_any,
                                 std::uint64_t match_all) = 0;
    virtual Status grant(std::uint32_t uid, std::uint32_t rights) = 0;
    // The kernel events that carry their stacks (etw_session_set_stack_tracing).
    virtual Status set_stack_tracing(const std::vector<etw_classic_event_id> &events) = 0;
    // A system logger's profile interval (etw_session_set_profile_interval).
    virtual Status set_profile_interval(std::uint32_t interval_100ns) = 0;
    // What etw_session_list reports of it: the settings and statistics when
    // they can be had, else what its host last published, else its name.
    virtual void describe(Properties &props) = 0;
    // A real-time feed of its buffers; *header is its logfile-header buffer.
    virtual Status open_feed(std::unique_ptr<LiveFeed> *out, std::vector<std::uint8_t> *header) = 0;
};

// Starts a session where it belongs: in the namespace's session host when
// sessions are system-wide here, else in this process (a private session,
// process-local sessions, or no host to be found). props receives the
// adjusted settings; on failure it is left as given.
Status start_session(Properties &props, const SessionOptions &options, std::unique_ptr<SessionRef> *out);
// A running session by name (case-insensitive), this process's first.
// ETW_ERROR_WMI_INSTANCE_NOT_FOUND when there is none.
Status open_session(const std::u16string &name, std::unique_ptr<SessionRef> *out);
// Every running session: this process's, then other processes' (live or orphaned).
std::vector<std::unique_ptr<SessionRef>> running_sessions();

} // namespace openetw::host
