// Windows part of trace_instance.hpp: ftrace is Linux's.
#include "platform/trace_instance.hpp"

namespace openetw::platform {

Status TraceInstance::open(const std::string &, const std::vector<std::pair<std::string, std::string>> &, std::uint32_t)
{
    return Fail(ETW_ERROR_NOT_SUPPORTED, "ftrace instances (Linux kernel tracepoints) do not exist on Windows");
}
Status TraceInstance::drain(const std::function<void(std::uint32_t, std::span<const std::uint8_t>)> &)
{
    return Status::ok();
}
void TraceInstance::disable() noexcept {}
void TraceInstance::close() noexcept {}

} // namespace openetw::platform
