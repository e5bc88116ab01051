// Windows part of host.hpp: no session host yet (docs/SYSTEM_SESSIONS.md,
// "Windows"), so sessions stay in the process that starts them; callers
// check shared_registry_supported() first.
#include "platform/host.hpp"

namespace openetw::platform {

bool shared_registry_supported() noexcept { return false; }

std::string registry_path() { return {}; }

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
std::string code_directory() { return {}; }
etw_status spawn_daemon(const std::vector<std::string> &) noexcept { return ETW_ERROR_NOT_SUPPORTED; }

} // namespace openetw::platform
