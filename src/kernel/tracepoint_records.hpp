// Tracepoint samples (tracepoint_source.hpp) as what the system logger
// writes: sched:sched_switch as Thread/CSwitch, and
// syscalls:sys_enter_exit_group and signal:signal_deliver as the status
// Process/End carries.
// Pure: the caller gives the format and the clock.
#pragma once

#include "kernel/kernel_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <optional>

namespace openetw::kernel {

// The Thread/CSwitch record of a sched_switch sample, stamped on the
// session's clock; empty when the sample lacks a field. The new thread's
// wait time and ideal processor are not known here (0).
Bytes cswitch_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                          std::uint32_t pointer_size);

// The Thread/ReadyThread record of a sched_wakeup(_new) sample, stamped on
// the session's clock; empty when the sample lacks a field.
Bytes ready_thread_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                               std::uint32_t pointer_size);

// The ExitStatus of a sys_enter_exit_group sample (its error_code); empty
// when the sample lacks it.
std::optional<std::int32_t> exit_status_from_sample(const TracepointFormat &format, const TracepointSample &sample);

// The ExitStatus of a process a signal_deliver sample kills: a signal left
// to its default action (SIG_DFL) that ends the process gives 128 + N, as
// exit_status_from_wait_status; empty for a handled, ignored, stopping or
// harmless one (the process lives on).
std::optional<std::int32_t> fatal_signal_status_from_sample(const TracepointFormat &format,
                                                            const TracepointSample &sample);

} // namespace openetw::kernel
