// Every version number of what processes share: the registry's layout, the
// request protocol, and (from the engine) the layout of a session's region.
// A process of another build must never misread them: each is checked where
// it is read, and the rules below tie them together.
#pragma once

#include "engine/buffer_pool.hpp"
#include "platform/namespace_folder.hpp"

#include <cstdint>

namespace openetw::host {

// The system registry file (system_registry.cpp). Also in the default
// folder's name (platform::default_registry_path), so builds of other
// layouts keep registries of their own.
inline constexpr std::uint32_t kRegistryLayout = 5;
static_assert(platform::kDefaultNamespaceLayout == kRegistryLayout,
              "the default namespace folders are named after the registry layout");

// A request carries its sender's protocol in the frame's status field. A
// host left running by another build would misread the bodies, so it answers
// a request of another protocol with ETW_ERROR_NOT_SUPPORTED instead. Raise
// this whenever a request or answer body changes, and with the region layout
// the host makes and its clients map.
inline constexpr std::uint32_t kProtocol = 10;

// A new region layout needs a new protocol: a stale host then says so
// instead of handing out regions this library misreads.
static_assert(engine::kRegionLayout == 9 && kProtocol == 10, "a new region layout needs a new kProtocol");

} // namespace openetw::host
