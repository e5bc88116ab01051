// perf_event_open's errno as a status and a sentence a user can act on.
#include "platform/perf_events.hpp"

#include <cerrno>
#include <cstring>
#include <string>

namespace openetw::platform {

Status perf_open_status(int error, std::string_view what, std::string_view paranoid)
{
    std::string subject = "perf_event_open (" + std::string(what) + ")";
    switch (error) {
    case EACCES:
    case EPERM: {
        std::string level(paranoid);
        while (!level.empty() && (level.back() == '\n' || level.back() == ' '))
            level.pop_back();
        // System-wide events need the capability unless paranoid is 0 or lower.
        return Fail(ETW_ERROR_ACCESS_DENIED,
                    subject + " was refused (" + (error == EACCES ? "EACCES" : "EPERM") +
                        "): recording the whole system's kernel events needs CAP_PERFMON or CAP_SYS_ADMIN (or "
                        "root), or kernel.perf_event_paranoid at 0 or lower; /proc/sys/kernel/perf_event_paranoid " +
                        (level.empty() ? std::string("cannot be read") : "is " + level) +
                        " (a container's seccomp filter may also refuse perf_event_open)");
    }
    case ENOENT:
    case EOPNOTSUPP:
    case ENODEV:
    case ENOSYS:
        return Fail(ETW_ERROR_NOT_SUPPORTED, subject + " is not supported by this kernel (" + std::strerror(error) +
                                                 "): it lacks perf events or this event");
    case EMFILE:
    case ENFILE:
        return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, subject + " ran out of file descriptors (" + std::strerror(error) +
                                                       "): one is needed per processor; raise the limit (ulimit -n)");
    case EINVAL:
        return Fail(ETW_ERROR_NOT_SUPPORTED,
                    subject + " was rejected as invalid (EINVAL): this kernel is older than the attributes it needs");
    case ENOMEM:
        return Fail(ETW_ERROR_OUTOFMEMORY, subject + " could not allocate its ring (ENOMEM)");
    default:
        return Fail(ETW_ERROR_INTERNAL_ERROR, subject + " failed: " + std::strerror(error));
    }
}

} // namespace openetw::platform
