// What the session host needs of the OS (docs/SYSTEM_SESSIONS.md, "The
// session host"): the namespace's registry path, the host lock, the
// registry file (mapped writable by the host and read-only by everyone
// else), and finding and starting the host program.
//
// Rules (every header of src/platform): nothing throws; failures are
// etw_status values. posix/host_posix.cpp implements it; where
// shared_registry_supported() is false (Windows, windows/host_windows.cpp)
// every function fails with ETW_ERROR_NOT_SUPPORTED and sessions stay in
// the process that starts them.
#pragma once

#include "platform/region.hpp"

#include <openetw/status.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::platform {

bool shared_registry_supported() noexcept;
// The registry file: $OPENETW_REGISTRY, or the default of this user's
// namespace (root: /dev/shm/openetw-5/registry, the system's; any other
// user: /dev/shm/openetw-5-u<uid>/registry); empty when the variable is
// "none" (process-local sessions).
std::string registry_path();

// Host: takes the namespace's host lock (the file registry + "-host.lock", owner-only,
// flock'ed for the host's life; *fd keeps it), after prepare_namespace_folder
// (namespace_folder.hpp). ETW_ERROR_ALREADY_EXISTS when another host holds
// it; ETW_ERROR_ACCESS_DENIED when the file belongs to another user or the
// folder is unfit.
etw_status host_lock(const std::string &registry, std::intptr_t *fd) noexcept;
// Host: maps the registry at path, size bytes, writable by this user only
// and readable by every user that can reach its folder. A file that is new,
// or of another size or layout (check says so), is (re)initialised by
// init(base, ctx). ETW_ERROR_ACCESS_DENIED when another user owns it or its
// folder is unfit (prepare_namespace_folder); every page is reserved before
// it is touched, so a full file system is ETW_ERROR_DISK_FULL (or
// region_commit's other statuses), never a fault.
etw_status registry_create(Region *out, const std::string &path, std::size_t size, bool (*check)(const void *base),
                           void (*init)(void *base, void *ctx), void *ctx) noexcept;
// Everyone else: maps the registry read-only (nothing written to it by
// another process can reach the caller except as data, checked on use).
// ETW_ERROR_FILE_NOT_FOUND when there is none yet; ETW_ERROR_ACCESS_DENIED
// when it is owned by a user other than the caller or root;
// ETW_ERROR_BAD_LENGTH when its size is not size. *owner: its owner's uid.
etw_status registry_open_readonly(Region *out, const std::string &path, std::size_t size,
                                  std::uint32_t *owner) noexcept;

// The folder of the file holding this code (the shared library, or the
// program linking it statically), where the host program is looked for
// first; empty when unknown.
std::string code_directory();
// Starts program (argv[0], an absolute path) as a daemon: a new session,
// standard streams on /dev/null, no descriptor of this process inherited;
// returns once it is started (not waiting for it). ETW_ERROR_FILE_NOT_FOUND.
etw_status spawn_daemon(const std::vector<std::string> &argv) noexcept;

} // namespace openetw::platform
