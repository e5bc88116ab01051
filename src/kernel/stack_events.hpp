// The kernel events whose call stacks a system logger records
// (TraceSetInformation's TraceStackTracingInfo, xperf's -stackwalk): each
// named by its CLASSIC_EVENT_ID (class GUID and event type) and held as its
// HookId. An event is served when its Linux source can give the stack of
// the thread it happened in (perf's CALLCHAIN on a sample): the sampled
// profile's samples and the tracepoint-made events (docs/KERNEL_LOGGER.md,
// "Stacks"). Pure data: no I/O.
#pragma once

#include "base/status.hpp"

#include <openetw/session.h>

#include <cstdint>
#include <span>
#include <vector>

namespace openetw::kernel {

class StackEvents {
public:
    // The set named by events, or ETW_ERROR_NOT_SUPPORTED naming the first
    // event whose stack is not recorded here, and why. Duplicates are fine.
    static Status from(std::span<const etw_classic_event_id> events, StackEvents *out);
    // A set of HookIds as given (tests, and the sources' own use).
    static StackEvents of(std::vector<std::uint16_t> hooks);

    bool has(std::uint16_t hook) const noexcept;
    // Whether any of hooks is in the set.
    bool any(std::span<const std::uint16_t> hooks) const noexcept;
    bool empty() const noexcept { return hooks_.empty(); }
    bool operator==(const StackEvents &) const = default;

private:
    std::vector<std::uint16_t> hooks_; // sorted, unique
};

} // namespace openetw::kernel
