// Windows part of platform.hpp for system-wide sessions: not implemented
// yet (docs/SYSTEM_SESSIONS.md, "Windows"), so sessions stay in the process
// that starts them; callers check shared_registry_supported() first.
#include "platform/platform.hpp"

namespace openetw::platform {

bool shared_registry_supported() noexcept { return false; }

std::string registry_path() { return {}; }
bool registry_path_is_default() { return false; }

etw_status host_lock(const std::string &, std::intptr_t *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status registry_create(Region *, const std::string &, std::size_t, bool (*)(const void *), void (*)(void *, void *),
                           void *) noexcept
{
    return ETW_ERROR_NOT_SUPPORTED;
}
etw_status registry_open_readonly(Region *, const std::string &, std::size_t, std::uint32_t *) noexcept
{
    return ETW_ERROR_NOT_SUPPORTED;
}
etw_status spawn_daemon(const std::vector<std::string> &) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
std::string code_directory() { return {}; }
bool is_executable(const std::string &) noexcept { return false; }
std::vector<std::string> list_folder(const std::string &) { return {}; }

etw_status shared_region_create(Region *, const std::string &, std::size_t) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status shared_region_open(Region *, const std::string &) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status shared_region_adopt(Region *, std::intptr_t) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
void remove_file(const std::string &) noexcept {}
void close_fd(std::intptr_t) noexcept {}
std::uint32_t effective_user_id() noexcept { return 0; }

std::uint64_t process_start_time(std::uint32_t) noexcept { return 0; }

std::uint32_t user_id() noexcept { return 0; }

void shared_mutex_init(SharedMutex *) noexcept {}
SharedLock shared_mutex_lock(SharedMutex *, std::int64_t) noexcept { return SharedLock::Failed; }
void shared_mutex_unlock(SharedMutex *) noexcept {}

} // namespace openetw::platform
