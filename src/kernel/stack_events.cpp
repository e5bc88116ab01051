// Which kernel events carry their stacks (stack_events.hpp).
#include "kernel/stack_events.hpp"

#include "base/guid.hpp"
#include "format/kernel_class_guids.hpp"
#include "kernel/file_io_records.hpp"
#include "kernel/kernel_records.hpp"
#include "kernel/logger_tracepoints.hpp"
#include "kernel/net_records.hpp"
#include "kernel/pagefault_records.hpp"
#include "kernel/profile_records.hpp"
#include "kernel/sched_records.hpp"
#include "kernel/syscall_records.hpp"

#include <algorithm>
#include <string>

namespace openetw::kernel {

namespace {

// The events that can carry a stack: the sampled profile's, and those the
// tracepoint table makes from perf samples (logger_tracepoints.cpp's
// stackable_hooks, the one list of them).
bool served(std::uint16_t hook)
{
    if (hook == hook_id(kGroupPerfInfo, kTypeSampledProfile))
        return true;
    for (std::uint8_t u = 0; u < kTracepointUses; ++u) {
        const std::vector<std::uint16_t> hooks = stackable_hooks(Tracepoints::Use(u));
        if (std::find(hooks.begin(), hooks.end(), hook) != hooks.end())
            return true;
    }
    return false;
}

// Why a kernel class's other events carry no stacks here.
std::string why_not(std::uint8_t group)
{
    switch (group) {
    case kGroupProcess:
    case kGroupThread:
    case kGroupImage:
        return "process, thread and image events come from perf's side-band records (FORK, EXIT, COMM, MMAP2), "
               "which carry no call chain, and ReadyThread (50) from ftrace, which records none; of the Thread "
               "class, CSwitch (36) is served";
    case kGroupDiskIo:
        return "disk requests are read through ftrace (their perf samples go missing in interrupt context), "
               "which records no call chain";
    case kGroupPerfInfo:
        return "of the PerfInfo class, SampleProfile (46), SysClEnter (51) and SysClExit (52) are served";
    case kGroupTcpIp:
        return "of the TcpIp class, SendIPV4 (10), RecvIPV4 (11), SendIPV6 (26) and RecvIPV6 (27) are served";
    case kGroupUdpIp:
        return "of the UdpIp class, SendIPV4 (10), RecvIPV4 (11), SendIPV6 (26) and RecvIPV6 (27) are served";
    case kGroupMemory:
        return "of the PageFault class, DemandZeroFault (11), CopyOnWrite (12), AccessViolation (15) and "
               "HardFault (32) are served: the others are not written here";
    case kGroupFile:
        return "of the FileIo class, Create (64), Cleanup (65), Close (66), Read (67), Write (68), Delete (70), "
               "Rename (71), Flush (73) and OperationEnd (76) are served: the names (0, 32, 35, 36) are no "
               "call's";
    default:
        return "this system logger writes no such events";
    }
}

} // namespace

Status StackEvents::from(std::span<const etw_classic_event_id> events, StackEvents *out)
{
    std::vector<std::uint16_t> hooks;
    for (const etw_classic_event_id &e : events) {
        const auto group = etl::kernel_class_group(e.event_guid);
        const std::string named =
            "the stacks of kernel class " + guid_to_string(e.event_guid) + " type " + std::to_string(e.type);
        if (!group)
            return Fail(ETW_ERROR_NOT_SUPPORTED, named + " are not recorded: the GUID names no kernel event class");
        const std::uint16_t hook = hook_id(*group, e.type);
        if (!served(hook))
            return Fail(ETW_ERROR_NOT_SUPPORTED,
                        named + " are not recorded here: " + why_not(*group) + " (docs/KERNEL_LOGGER.md, \"Stacks\")");
        hooks.push_back(hook);
    }
    *out = of(std::move(hooks));
    return Status::ok();
}

StackEvents StackEvents::of(std::vector<std::uint16_t> hooks)
{
    StackEvents s;
    std::sort(hooks.begin(), hooks.end());
    hooks.erase(std::unique(hooks.begin(), hooks.end()), hooks.end());
    s.hooks_ = std::move(hooks);
    return s;
}

bool StackEvents::has(std::uint16_t hook) const noexcept
{
    return std::binary_search(hooks_.begin(), hooks_.end(), hook);
}

bool StackEvents::any(std::span<const std::uint16_t> hooks) const noexcept
{
    return std::any_of(hooks.begin(), hooks.end(), [this](std::uint16_t h) { return has(h); });
}

} // namespace openetw::kernel
