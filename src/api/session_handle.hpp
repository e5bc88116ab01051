// The opaque etw_session of the C API: one door to a session, hosted by
// this process or another (host/session_ref.hpp). A handle outlives nothing
// it points to.
#pragma once

#include <openetw/session.h>

#include "host/session_ref.hpp"

#include <memory>

struct etw_session {
    std::unique_ptr<openetw::host::SessionRef> ref;
};
