// The opaque etw_session of the C API: a shared reference to the engine's
// Session (hosted here), or a remote one (hosted by another process); exactly
// one is set. A handle outlives nothing it points to.
#pragma once

#include <openetw/session.h>

#include "core/remote_session.hpp"
#include "core/session.hpp"

#include <memory>

struct etw_session {
    std::shared_ptr<openetw::core::Session> session;
    std::unique_ptr<openetw::core::RemoteSession> remote;
};
