// The opaque etw_properties of the C API: a thin shell around the engine's
// Properties, so other shims (sessions) can reach the engine object.
#pragma once

#include <openetw/properties.h>

#include "engine/properties.hpp"

struct etw_properties {
    openetw::Properties impl;
};

namespace openetw::api {

inline Properties *props_of(etw_properties *p) { return p ? &p->impl : nullptr; }
inline const Properties *props_of(const etw_properties *p) { return p ? &p->impl : nullptr; }

} // namespace openetw::api
