// The engine's names the control plane speaks in: the host serves, relays
// and recovers the engine's sessions, so its code names them unqualified.
#pragma once

#include "engine/properties.hpp"
#include "engine/session.hpp"

namespace openetw::host {

using engine::LiveFeed;
using engine::LossReport;
using engine::RealtimeReader;
using engine::Session;
using engine::SessionOptions;

} // namespace openetw::host
