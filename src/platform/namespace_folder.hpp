// The folder holding a namespace's registry, host lock, init lock and
// session regions (docs/SYSTEM_SESSIONS.md, "The session host"). Whoever
// can write that folder can replace those files, so it is checked before
// any of them is created or the host is started, and a default namespace's
// folder is made (or made again) fit.
//
// Rules (every header of src/platform): nothing throws; failures are
// etw_status values. posix/namespace_folder_posix.cpp implements it;
// windows/namespace_folder_windows.cpp has no namespaces
// (ETW_ERROR_NOT_SUPPORTED).
#pragma once

#include <openetw/status.h>

#include <cstdint>
#include <string>

namespace openetw::platform {

// The registry layout in the default folders' names, so that builds of
// another layout keep registries of their own (host/protocol.hpp checks it
// against host::kRegistryLayout).
inline constexpr std::uint32_t kDefaultNamespaceLayout = 5;

// This user's default registry: root's system-wide one in
// /dev/shm/openetw-<layout>, any other user's in /dev/shm/openetw-<layout>-u<uid>.
std::string default_registry_path();

// Makes the folder of registry fit for a namespace of this user.
// - This user's default folder is created when missing (root's 0755, a
//   user's 0700). One that is not a folder of this user writable by nobody
//   else (a squatter's, a symbolic link, a file) is moved aside, with
//   whatever it holds, when this user may move it (root may move anybody's
//   out of sticky /dev/shm, a user their own) to <folder>.squatted-<pid>-<n>
//   and the folder made anew.
// - Any other folder (OPENETW_REGISTRY) must exist, belong to this user
//   or root, and be writable by nobody else unless sticky (/dev/shm, /tmp).
// ETW_ERROR_ACCESS_DENIED when the folder is unfit and stays so,
// ETW_ERROR_PATH_NOT_FOUND when a chosen folder is missing, other
// statuses when it cannot be created; *why then names the folder, its
// owner and mode, and what to do.
etw_status prepare_namespace_folder(const std::string &registry, std::string *why);

} // namespace openetw::platform
