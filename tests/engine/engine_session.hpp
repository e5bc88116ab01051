// The engine's Session behind a handle of a session this process hosts,
// for tests that hold its logger or attach a reader directly.
#pragma once

#include <openetw/session.h>

#include "engine/engine.hpp"

#include <memory>
#include <stdexcept>

inline std::shared_ptr<openetw::engine::Session> engine_session_ref(const etw_session *s)
{
    for (const auto &running : openetw::engine::Engine::instance().running())
        if (running->handle() == etw_session_handle(s))
            return running;
    throw std::runtime_error("the session is not running in this process");
}

inline openetw::engine::Session &engine_session(const etw_session *s) { return *engine_session_ref(s); }
