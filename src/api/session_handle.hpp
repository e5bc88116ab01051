// The opaque etw_session of the C API: a shared reference to the engine's
// Session, so a handle outlives nothing it points to.
#pragma once

#include <openetw/session.h>

#include "core/session.hpp"

#include <memory>

struct etw_session {
    std::shared_ptr<openetw::core::Session> session;
};
