// Every request other processes send to this process's session host
// (docs/SYSTEM_SESSIONS.md, "Who can reach a host, and how much they can
// cost it"): one thread waits on every listener (the host's own channel,
// each hosted session's) and on every connection still being read.
//
// - The caller's user comes from the kernel when the connection is accepted;
//   a user over its quota of connections is answered and dropped at once.
// - The frame head is read first; the door it came through decides from the
//   request kind and the user alone whether to serve it and how long its
//   body may be, before a byte of body is read or allocated.
// - Bodies are read as they come, into a buffer of the declared length; a
//   connection that does not deliver its request in time is dropped, and no
//   silent peer holds up another.
// - A complete, admitted request is served on a thread of its own (bounded):
//   the thread that read it, once it passed the waiting on to another (leader
//   and followers: no hand-off on a request's path); a thread that cannot be
//   made refuses that request with a status.
#pragma once

#include "base/status.hpp"
#include "platform/channel.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace openetw::host {

// Bounds on what callers may cost the host.
inline constexpr int kConnectionsPerUser = 32;       // a user without every right: open at once, any state
inline constexpr int kConnectionsPerOwner = 1024;    // root and the host's own user
inline constexpr int kServingMax = 512;              // requests served at once (threads)
inline constexpr std::int64_t kRequestWaitMs = 3000; // a connection must deliver its request within this

// One listener's rules: the host's channel (tools/hostd) or a session's (hosting.cpp).
class RequestDoor {
public:
    virtual ~RequestDoor() = default;
    // On the loop thread, once a request's head arrived: ok, with *max_body
    // the most body bytes a request of that kind can need, or the status that
    // refuses it (answered at once). Must not block nor call into the engine.
    virtual Status admit(std::uint32_t kind, const platform::PeerCredentials &peer, std::uint32_t *max_body) = 0;
    // A complete request, on a thread of its own: answers on c (which the
    // loop closes afterwards, also when serve throws).
    virtual void serve(platform::ChannelHandle c, const platform::PeerCredentials &peer, std::uint32_t kind,
                       std::vector<std::uint8_t> body) = 0;
};

class RequestLoop {
public:
    // The process's loop (its thread starts with the first add).
    static RequestLoop &instance();
    // Serves listener's callers through door from now on; the listener is the
    // loop's, closed by remove. ETW_ERROR_NO_SYSTEM_RESOURCES (or another
    // status) when the loop cannot run or watch it.
    Status add(platform::ChannelHandle listener, std::shared_ptr<RequestDoor> door);
    // Once this returns, no further request of listener is admitted: its
    // connections still being read are closed, and so is the listener.
    // Requests already being served go on. Any thread but the loop's.
    void remove(platform::ChannelHandle listener);
    // Connections being read plus requests being served.
    int busy() const;

    struct State; // request_loop.cpp

private:
    RequestLoop() = default;
    std::atomic<State *> state_{nullptr}; // made by the first add, never freed (served threads may outlive main)
};

} // namespace openetw::host
