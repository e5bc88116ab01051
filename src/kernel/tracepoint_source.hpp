// The system logger's live source of tracepoint samples: each wanted
// tracepoint (sched:sched_switch, syscalls:sys_enter_exit_group, ...) is
// found in tracefs (platform/tracefs.hpp), its format parsed, and opened on
// every processor with perf (platform/perf_events.hpp: PERF_SAMPLE_TID,
// TIME, CPU and RAW). drain() reads every tracepoint's rings and hands the
// samples, in time order across processors and tracepoints, to a
// translator; PERF_RECORD_LOST counts (and an ftrace ring's missed events)
// go to lost. Not thread-safe: the
// session's logger thread drains.
#pragma once

#include "base/status.hpp"
#include "kernel/tracepoint_format.hpp"
#include "platform/perf_events.hpp"
#include "platform/trace_instance.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace openetw::kernel {

// The sample fields every tracepoint is opened with.
inline constexpr std::uint64_t kTracepointSampleType =
    platform::kPerfSampleTid | platform::kPerfSampleTime | platform::kPerfSampleCpu | platform::kPerfSampleRaw;

struct TracepointName {
    std::string system; // "sched"
    std::string name;   // "sched_switch"
    // Skipped (opened() false) rather than refused when this kernel lacks it:
    // a refinement the records can do without (exit_group without ftrace syscalls).
    bool optional = false;
    // Read through an ftrace instance of the source's own
    // (platform/trace_instance.hpp) rather than perf: for tracepoints that
    // fire in interrupt context, whose perf samples some kernels do not
    // deliver when the processor was idle (docs/KERNEL_LOGGER.md). Their
    // samples carry common_pid as both pid and tid (the thread's id).
    bool ftrace = false;
    // Ring pages of its own a processor (0: open's data_pages), for
    // tracepoints that fire far more often than the others (every system
    // call, every page fault).
    std::uint32_t data_pages = 0;
    // Each sample carries its call chain (PERF_SAMPLE_CALLCHAIN): for the
    // events whose stacks are asked for (stack_events.hpp). Perf only.
    bool callchain = false;
    // Not a tracepoint: perf's software event of major page faults
    // (PERF_COUNT_SW_PAGE_FAULTS_MAJ, each one), which fires where the
    // kernel accounts a fault it classed as major, at the fault's end. Its
    // samples carry the fault's address (TracepointSample::addr) and no
    // raw bytes (an empty format); system and name only name it.
    bool major_faults = false;
};

// One sample, borrowed for the translator's call.
struct TracepointSample {
    std::size_t tracepoint = 0; // its index in the source's list
    std::uint32_t cpu = 0, pid = 0, tid = 0;
    std::uint64_t time = 0;            // ns of CLOCK_MONOTONIC (perf_clock.hpp maps it)
    std::span<const std::uint8_t> raw; // laid out by the tracepoint's format
    // The call chain, innermost first (kernel frames, then user frames;
    // context markers dropped); empty without CALLCHAIN.
    std::span<const std::uint64_t> frames;
    std::uint64_t addr = 0; // a major fault's address (TracepointName::major_faults); 0 for tracepoints
};

// A PERF_RECORD_SAMPLE of kTracepointSampleType (its 8-byte header
// included): {pid, tid; time; cpu, res; raw_size; raw[]}, with the call
// chain {nr; ips[nr]} before raw_size when with_callchain (its frames go to
// *frames, which out->frames then views). False when the record is shorter
// than its fields say.
bool parse_tracepoint_sample(std::span<const std::uint8_t> record, bool with_callchain, TracepointSample *out,
                             std::vector<std::uint64_t> *frames);
// A PERF_RECORD_SAMPLE of the major faults' event (kMajorFaultSampleType):
// {pid, tid; time; addr; cpu, res}, then the call chain when
// with_callchain; its raw part is empty.
bool parse_major_fault_sample(std::span<const std::uint8_t> record, bool with_callchain, TracepointSample *out,
                              std::vector<std::uint64_t> *frames);
inline constexpr std::uint64_t kMajorFaultSampleType =
    platform::kPerfSampleTid | platform::kPerfSampleTime | platform::kPerfSampleAddr | platform::kPerfSampleCpu;

using TracepointFn = std::function<void(const TracepointSample &)>;

class TracepointSource {
public:
    TracepointSource() = default;
    TracepointSource(TracepointSource &&) = default;
    TracepointSource &operator=(TracepointSource &&) = default;

    // Reads each tracepoint's id and format and opens and enables it on
    // every processor. ETW_ERROR_NOT_SUPPORTED names a tracepoint this
    // kernel lacks; ETW_ERROR_ACCESS_DENIED names the rights. On failure
    // nothing stays open.
    Status open(const std::vector<TracepointName> &names, std::uint32_t data_pages = 64);
    const TracepointFormat &format(std::size_t tracepoint) const { return formats_[tracepoint]; }
    bool opened(std::size_t tracepoint) const { return opened_[tracepoint]; }
    std::size_t size() const noexcept { return formats_.size(); }

    // Reads what every ring holds, sorted by time, into each.
    Status drain(const TracepointFn &each);
    // Stops the kernel adding to the rings; what they hold can still be drained.
    void disable() noexcept;
    std::uint64_t lost() const noexcept { return lost_; }
    std::uint64_t malformed() const noexcept { return malformed_; }

private:
    std::vector<TracepointFormat> formats_;
    std::vector<std::unique_ptr<platform::PerfEventSet>> sets_;   // null: read by ftrace, or lacking
    std::vector<bool> opened_;                                    // false: an optional one this kernel lacks
    std::vector<bool> callchain_;                                 // its samples carry CALLCHAIN
    std::vector<bool> major_faults_;                              // perf's major faults, not a tracepoint
    std::unique_ptr<platform::TraceInstance> ftrace_;             // the ftrace ones' rings, if any
    std::unordered_map<std::uint32_t, std::size_t> ftrace_index_; // an ftrace event's id: its tracepoint
    std::uint64_t lost_ = 0;
    std::uint64_t malformed_ = 0;
};

} // namespace openetw::kernel
