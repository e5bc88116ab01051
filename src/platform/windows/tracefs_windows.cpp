// Windows part of tracefs.hpp: Linux tracepoints do not exist there (the
// system logger on Windows is Windows' own), so every call says so.
#include "platform/tracefs.hpp"

namespace openetw::platform {

namespace {
Status unsupported()
{
    return Fail(ETW_ERROR_NOT_SUPPORTED, "tracefs (Linux kernel tracepoints) does not exist on Windows");
}
} // namespace

Status tracefs_root(std::string *) { return unsupported(); }
Status tracepoint_id(std::string_view, std::string_view, std::uint64_t *) { return unsupported(); }
Status tracepoint_format_text(std::string_view, std::string_view, std::string *) { return unsupported(); }

} // namespace openetw::platform
