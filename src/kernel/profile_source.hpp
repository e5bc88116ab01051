// The system logger's sampled profile (EVENT_TRACE_FLAG_PROFILE): the
// processor clock of every processor sampled with perf each interval
// (idle time too: its samples name thread 0, as Windows' idle thread),
// each sample written as PerfInfo/SampledProfile and, when stacks are
// asked for, the StackWalk record of its call chain right after it
// (profile_records.hpp). Not thread-safe: the session's logger thread
// drains.
#pragma once

#include "base/status.hpp"
#include "kernel/kernel_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/system_logger.hpp"
#include "platform/perf_events.hpp"

#include <cstdint>
#include <functional>

namespace openetw::kernel {

struct ProfileOptions {
    std::uint32_t interval_100ns = kDefaultProfileInterval;
    bool stacks = false; // StackWalk records of each sample (TraceStackTracingInfo)
    std::uint32_t pointer_size = 8;
    std::size_t max_record = kMaxRecordSize;
};

class ProfileSource {
public:
    explicit ProfileSource(const ProfileOptions &options) : options_(options) {}

    // Opens and enables the processor clock on every processor: the statuses
    // of PerfEventSet::open (ETW_ERROR_ACCESS_DENIED names the rights), and
    // ETW_ERROR_INVALID_PARAMETER for an interval out of Windows' range.
    Status open();
    // Each sample's records, with the processor and perf time they belong to.
    using Sink = std::function<void(std::uint32_t cpu, std::uint64_t perf_time, Bytes &&record)>;
    Status drain(const PerfClock &clock, const Sink &sink);
    // Samples the kernel dropped (its rings were full) or that were cut
    // short, since the source opened.
    std::uint64_t lost() const noexcept { return lost_; }
    Status disable() { return events_.disable(); }
    const ProfileOptions &options() const noexcept { return options_; }

private:
    ProfileOptions options_;
    platform::PerfEventSet events_;
    std::uint64_t lost_ = 0;
};

} // namespace openetw::kernel
