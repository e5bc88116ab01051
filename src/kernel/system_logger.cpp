// The system logger's entry points (system_logger.hpp): which flags are
// served, and a logger opened for a session's EnableFlags (kernel_logger.hpp).
#include "kernel/system_logger.hpp"

#include "kernel/kernel_logger.hpp"

namespace openetw::kernel {

std::uint32_t SystemLogger::unsupported_flags(std::uint32_t mask) { return mask & ~kServed; }

Status SystemLogger::open(std::uint32_t enable_flags, const SessionClock &clock, std::uint32_t max_record,
                          const ProfileSettings &profile, std::unique_ptr<SystemLogger> *out)
{
    auto logger = std::make_unique<KernelLogger>(clock, max_record, profile);
    if (Status st = logger->set_flags(enable_flags); !st)
        return st;
    *out = std::move(logger);
    return Status::ok();
}

} // namespace openetw::kernel
