#include "host_server.hpp"

#include "export/nats_export.hpp"
#include "host/hosting.hpp"
#include "host/host_channel.hpp"
#include "host/remote_session.hpp"
#include "host/request_loop.hpp"
#include "platform/channel.hpp"

#include <openetw/session.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

namespace openetw::host {

namespace {

using platform::ChannelHandle;

// What the finished orphans ended with, for a caller that asks to stop one
// the host already finished at its start.
struct Finished {
    Status status;
    Properties props;
};
std::mutex g_finished_mutex;
std::map<std::uint64_t, Finished> g_finished;

std::uint64_t key(std::uint32_t slot, std::uint32_t generation) { return (std::uint64_t(slot) << 32) | generation; }

// Orphans of a killed host are finished (file completed, name freed) before
// anything else is served; region files no slot refers to are removed.
void finish_orphans(SystemRegistry &reg)
{
    for (const RegistryEntry &e : reg.list()) {
        if (!e.orphaned)
            continue;
        Finished f{Status::ok(), Properties(e.name)};
        f.status = RemoteSession(reg, e).stop(&f.props);
        std::lock_guard<std::mutex> lock(g_finished_mutex);
        g_finished[key(e.slot, e.generation)] = std::move(f);
    }
    reg.remove_stray_regions();
}

bool may_control_orphan(SystemRegistry &reg, const RegistryEntry &e, std::uint32_t uid)
{
    if (uid == 0 || uid == platform::effective_user_id())
        return true;
    std::vector<GrantRecord> grants;
    if (reg.tables(e, nullptr, &grants))
        for (const GrantRecord &g : grants)
            if (g.uid == uid && (g.rights & ETW_SESSION_RIGHT_CONTROL))
                return true;
    return false;
}

void serve_start(ChannelHandle c, HostIncoming &req)
{
    if (req.props.record().LogFileMode & ETW_PRIVATE_LOGGER_MODE)
        return answer_host(c, Fail(ETW_ERROR_INVALID_PARAMETER, "a private session runs in its own process"), nullptr,
                           0, 0);
    std::shared_ptr<Session> s;
    Hosting &hosting = Hosting::instance();
    Status st = req.options.take_over ? hosting.take_over(req.props, req.options, &s)
                                      : hosting.engine().start(req.props, req.options, &s);
    std::uint32_t slot = 0, generation = 0;
    if (st && !hosting.hosted_slot(s.get(), &slot, &generation))
        st = Fail(ETW_ERROR_INTERNAL_ERROR, "the session started outside the registry");
    answer_host(c, st, st ? &req.props : nullptr, slot, generation);
}

void serve_stop_orphan(ChannelHandle c, const HostIncoming &req, const platform::PeerCredentials &peer)
{
    SystemRegistry &reg = *SystemRegistry::get();
    RegistryEntry e;
    if (reg.at(req.slot, req.generation, &e)) {
        if (!e.orphaned)
            return answer_host(c, Fail(ETW_ERROR_ALREADY_EXISTS, "the session is not orphaned: ask its host"), nullptr,
                               0, 0);
        if (!may_control_orphan(reg, e, peer.uid))
            return answer_host(c,
                               Fail(ETW_ERROR_ACCESS_DENIED, "user " + std::to_string(peer.uid) +
                                                                 " has no control right over the orphaned session"),
                               nullptr, 0, 0);
        Properties props(e.name);
        Status st = RemoteSession(reg, e).stop(&props);
        return answer_host(c, st, &props, 0, 0);
    }
    std::lock_guard<std::mutex> lock(g_finished_mutex);
    auto it = g_finished.find(key(req.slot, req.generation));
    if (it == g_finished.end())
        return answer_host(c, Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running (already stopped)"),
                           nullptr, 0, 0);
    if (peer.uid != 0 && peer.uid != platform::effective_user_id())
        return answer_host(c, Fail(ETW_ERROR_ACCESS_DENIED, "the orphan was finished by the session host"), nullptr, 0,
                           0);
    answer_host(c, it->second.status, &it->second.props, 0, 0);
}

// The host's own channel: a start is for the host's user and root only,
// which the frame head and the kernel's word on the caller settle; a stop of
// an orphan is checked against its grants once its body is read.
class HostDoor final : public RequestDoor {
public:
    Status admit(std::uint32_t kind, const platform::PeerCredentials &peer, std::uint32_t *max_body) override
    {
        const std::int64_t max = max_host_request_body(kind);
        if (max < 0)
            return Fail(ETW_ERROR_INVALID_DATA, "unknown request " + std::to_string(kind));
        const std::uint32_t me = platform::effective_user_id();
        if (HostRequest(kind) == HostRequest::Start && peer.uid != me && peer.uid != 0)
            return Fail(ETW_ERROR_ACCESS_DENIED, "the session host of user " + std::to_string(me) +
                                                     " starts sessions for that user and root only");
        *max_body = std::uint32_t(max);
        return Status::ok();
    }

    void serve(ChannelHandle c, const platform::PeerCredentials &peer, std::uint32_t kind,
               std::vector<std::uint8_t> body) override
    {
        HostIncoming req;
        if (Status st = parse_host_request(kind, body, &req); !st)
            answer_host(c, st, nullptr, 0, 0);
        else if (req.code == HostRequest::Start)
            serve_start(c, req);
        else
            serve_stop_orphan(c, req, peer);
    }
};

} // namespace

int run_host(const HostConfig &config)
{
    SystemRegistry::become_host();
    setenv("OPENETW_REGISTRY", config.registry.c_str(), 1); // the namespace every part of the engine uses
    std::intptr_t lock = -1;
    if (etw_status st = platform::host_lock(config.registry, &lock); st != ETW_OK) {
        if (st == ETW_ERROR_ALREADY_EXISTS)
            return 0; // another host serves this namespace: the caller finds it
        std::fprintf(stderr, "openetw-hostd: cannot take the host lock of %s: %s\n", config.registry.c_str(),
                     etw_status_name(st));
        return 1;
    }
    SystemRegistry *reg = SystemRegistry::get();
    if (!reg) {
        std::fprintf(stderr, "openetw-hostd: cannot create or map the registry %s\n", config.registry.c_str());
        return 1;
    }
    ChannelHandle listener = config.listener;
    if (listener < 0) {
        if (etw_status st = platform::channel_listen(reg->host_channel_name(), &listener); st != ETW_OK) {
            std::fprintf(stderr, "openetw-hostd: cannot listen as %s: %s (another user's process holds the name?)\n",
                         reg->host_channel_name().c_str(), etw_status_name(st));
            return 1;
        }
    }
    // Callers that connect meanwhile wait in the backlog.
    finish_orphans(*reg);
    RequestLoop &loop = RequestLoop::instance();
    if (Status st = loop.add(listener, std::make_shared<HostDoor>()); !st) {
        std::fprintf(stderr, "openetw-hostd: cannot serve requests: %s\n", st.message.c_str());
        return 1;
    }
    // Exports a host that is gone left unsent go out now, beside the
    // requests; the host does not go idle before that is done.
    std::atomic<bool> resending{true};
    std::thread resend([&resending] {
        std::vector<std::string> report;
        exporter::resend_orphaned_spools(&report);
        for (const std::string &line : report)
            std::fprintf(stderr, "openetw-hostd: export spool %s\n", line.c_str());
        resending.store(false, std::memory_order_release);
    });
    auto idle_since = std::chrono::steady_clock::now();
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const auto now = std::chrono::steady_clock::now();
        if (loop.busy() != 0 || !process_engine().running().empty() || resending.load(std::memory_order_acquire))
            idle_since = now;
        else if (config.idle_exit_ms > 0 && now - idle_since >= std::chrono::milliseconds(config.idle_exit_ms))
            break;
    }
    // Idle: nothing to finish. Closing the listener first turns new callers
    // to a host they start themselves once the lock is gone.
    resend.join();
    loop.remove(listener);
    platform::close_fd(lock);
    return 0;
}

} // namespace openetw::host
