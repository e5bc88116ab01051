// Windows part of namespace_folder.hpp: no shared namespaces yet
// (docs/SYSTEM_SESSIONS.md, "Windows"); callers check
// shared_registry_supported() first.
#include "platform/namespace_folder.hpp"

namespace openetw::platform {

std::string default_registry_path() { return {}; }

etw_status prepare_namespace_folder(const std::string &, std::string *why)
{
    *why = "this system has no shared namespaces";
    return ETW_ERROR_NOT_SUPPORTED;
}

} // namespace openetw::platform
