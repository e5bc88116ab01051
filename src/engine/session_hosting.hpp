// What the engine asks of the control plane for the sessions it runs. The
// engine knows sessions and providers; making a session reachable from
// other processes (a name in the system registry, a channel serving
// requests, providers of this process writing into other processes'
// sessions) is the host's (src/host implements this). An engine with none
// installed keeps every session to its process.
//
// Lock rules: calls marked "under the engine lock" must not call back into
// the engine; the others are made with no engine lock held.
#pragma once

#include "base/status.hpp"
#include "engine/buffer_export.hpp"
#include "engine/properties.hpp"
#include "engine/session.hpp"

#include <openetw/records.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openetw::engine {

// A provider a session enables, as the control plane publishes it.
struct SessionEnable {
    etw_guid guid;
    std::uint8_t level;
    std::uint64_t match_any;
    std::uint64_t match_all;
    std::uint32_t enable_property = 0; // EVENT_ENABLE_PROPERTY_*
    std::vector<std::uint8_t> filters; // its filters' blob (engine/event_filter.hpp), the session's included
};

class SessionHosting {
public:
    // A session being made reachable, from its claim until it is hosted or abandoned.
    class Claim {
    public:
        virtual ~Claim() = default;
        // Where the session's buffers are shared with writers of other processes.
        virtual std::string region_path() const = 0;
    };

    virtual ~SessionHosting() = default;

    // Under the engine lock, before a (non-private) session is made: reserves
    // its name system-wide. *out stays null for a session this process keeps
    // to itself; a failed status refuses the start.
    virtual Status claim(const Properties &props, const SessionOptions &options, std::uint64_t handle,
                         std::unique_ptr<Claim> *out) = 0;
    // Under the engine lock, the session made: opens its door to other
    // processes. A failure refuses the start (the engine then abandons the claim).
    virtual Status listen(Claim &claim) = 0;
    // Under the engine lock: the start failed after the claim; nothing of it stays.
    virtual void abandon(std::unique_ptr<Claim> claim) = 0;
    // Under the engine lock: the session runs; other processes may use it from now.
    virtual void host(std::unique_ptr<Claim> claim, const std::shared_ptr<Session> &session,
                      const Properties &props) = 0;

    // Under the engine lock: how many providers the session may enable (0: no limit).
    virtual std::size_t enable_limit(const Session *session) = 0;
    // Under the engine lock: what the session enables changed.
    virtual void enables_changed(const Session *session, const std::vector<SessionEnable> &enables) = 0;
    // Under the engine lock: a capture-state request of the session for
    // provider (level and keywords as given), for other processes' providers.
    virtual void capture_requested(const Session *session, const SessionEnable &request) = 0;
    // A provider unregistered in this process (no engine lock held).
    virtual void provider_unregistered() = 0;
    // Under the engine lock: how many bytes of filter blobs the session's
    // enablements may hold together (0: no limit).
    virtual std::size_t filter_room(const Session *) { return 0; }
    // Under the engine lock: the session stops; other processes' providers let go of it.
    virtual void stopping(const Session *session) = 0;
    // The session stopped (its file complete): its name and door go.
    virtual void stopped(const Session *session) = 0;
    // No engine lock held, before a session with an export URL is made:
    // connects to where its buffers go (props.export_url()), so that a
    // refused connection fails the start with the server's reason.
    virtual Status open_export(const Properties &props, std::unique_ptr<BufferExport> *out) = 0;
    // A provider registered in this process: it learns what other
    // processes' sessions enable of it before the registration returns.
    virtual void provider_registered() = 0;
};

} // namespace openetw::engine
