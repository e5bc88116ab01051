// The kernel side of a system logger session (the NT Kernel Logger, or a
// session with ETW_SYSTEM_LOGGER_MODE): the sources its EnableFlags select
// (perf_event_open ring buffers, /proc rundown), turned into Windows' kernel
// records and handed to the session's logger thread, which writes them into
// the session's buffers (docs/KERNEL_LOGGER.md). Owned and driven by that
// one thread, but for set_flags (an update, under the caller's lock).
#pragma once

#include "base/status.hpp"
#include "kernel/stack_events.hpp"

#include <cstdint>
#include <memory>

namespace openetw::kernel {

// Where records go: the processor they happened on (the buffer stream) and
// the record's bytes (unpadded; the sink aligns), borrowed for the call.
struct SessionSink {
    void *context = nullptr;
    void (*write)(void *context, std::uint32_t cpu, const std::uint8_t *record, std::uint32_t size) = nullptr;
    void operator()(std::uint32_t cpu, const std::uint8_t *record, std::uint32_t size) const
    {
        write(context, cpu, record, size);
    }
};

// How the session stamps its events, so that kernel records are stamped
// alike: its clock type (ETW_CLOCK_*) and the cycle counter's rate when the
// cycle counter stamps them (0: the 100 ns clocks), as engine/session.cpp
// decides.
struct SessionClock {
    std::uint32_t clock_type = 1;
    std::uint64_t cycle_hz = 0;
};

// Windows' profile interval: in 100 ns units, 1 ms by default, 1221
// (0.1221 ms) to 10,000,000 (1 s) (TRACE_PROFILE_INTERVAL, xperf -setprofint).
inline constexpr std::uint32_t kDefaultProfileInterval = 10000;
inline constexpr std::uint32_t kMinProfileInterval = 1221;
inline constexpr std::uint32_t kMaxProfileInterval = 10000000;
// ETW_ERROR_INVALID_PARAMETER naming the range for an interval outside it.
Status check_profile_interval(std::uint32_t interval_100ns);

// Settings beyond EnableFlags: the sampled profile's interval (100 ns
// units; TraceSetInformation's TraceSampledProfileIntervalInfo) and
// whether its samples carry their stacks (TraceStackTracingInfo naming
// PerfInfo/SampledProfile).
struct ProfileSettings {
    std::uint32_t interval_100ns = kDefaultProfileInterval;
    bool stacks = false;
};

class SystemLogger {
public:
    virtual ~SystemLogger() = default;

    // Opens the sources of enable_flags. ETW_ERROR_NOT_SUPPORTED naming the
    // flags this system cannot serve (docs/KERNEL_LOGGER.md says which);
    // ETW_ERROR_ACCESS_DENIED naming the capability and
    // kernel.perf_event_paranoid when the process may not read the kernel's
    // events. max_record: the largest record the session's buffers take.
    static Status open(std::uint32_t enable_flags, const SessionClock &clock, std::uint32_t max_record,
                       const ProfileSettings &profile, std::unique_ptr<SystemLogger> *out);
    // The flags of mask no source here serves (0: all are served).
    static std::uint32_t unsupported_flags(std::uint32_t mask);

    // The rundown of what runs now: DCStart records at the start, DCEnd at
    // the end (processes, their threads and images as the flags ask). The
    // DCStart records are written by the next drain, in time order with the
    // kernel's; the DCEnd ones (after the last drain) at once.
    virtual void rundown(bool end, const SessionSink &sink) = 0;
    // Writes what the kernel reported since the last drain, in time order
    // per processor across all sources (the reader merges processors by
    // time, trusting each processor's records to be in order); returns how
    // many events the kernel dropped meanwhile (its rings were full), for
    // EventsLost. Records of the last few milliseconds are held for the
    // next drain (a source read later may still hold older ones), unless
    // all is set (the session's last drain).
    virtual std::uint64_t drain(const SessionSink &sink, bool all) = 0;
    // How long the logger may sleep between drains, in ms: the rings hold
    // at least that long of a busy system's events.
    virtual std::uint32_t drain_interval_ms() const = 0;
    // An update's new flags: sources opened and closed to match. On failure
    // the flags in force are unchanged.
    virtual Status set_flags(std::uint32_t enable_flags) = 0;
    // The events whose records are followed by their StackWalk record from
    // now on (stack_events.hpp): the sources whose samples gain or lose
    // call chains are reopened, what the old ones held still written. On
    // failure nothing changes.
    virtual Status set_stacks(const StackEvents &stacks) = 0;
    // The sampled profile's interval from now on (100 ns units, checked by
    // the caller): the profile's source reopened at it when it runs, the
    // old one's samples still written. On failure nothing changes.
    virtual Status set_profile_interval(std::uint32_t interval_100ns) = 0;
    virtual std::uint32_t flags() const = 0;
};

} // namespace openetw::kernel
