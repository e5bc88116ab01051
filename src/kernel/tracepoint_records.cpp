#include "kernel/tracepoint_records.hpp"

#include "kernel/exit_status.hpp"
#include "kernel/sched_records.hpp"

namespace openetw::kernel {

Bytes cswitch_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                          std::uint32_t pointer_size)
{
    CSwitchFields c;
    if (!cswitch_from_sched_switch(format, sample.raw, &c))
        return {};
    return cswitch_record(clock.to_session(sample.time), c, pointer_size);
}

Bytes ready_thread_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                               std::uint32_t pointer_size)
{
    ReadyThreadFields r;
    if (!ready_thread_from_sched_wakeup(format, sample.raw, &r))
        return {};
    return ready_thread_record(clock.to_session(sample.time), r, pointer_size);
}

std::optional<std::int32_t> exit_status_from_sample(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto code = format.i(sample.raw, "error_code");
    if (!code)
        return std::nullopt;
    return exit_status_from_exit_group(*code);
}

std::optional<std::int32_t> fatal_signal_status_from_sample(const TracepointFormat &format,
                                                            const TracepointSample &sample)
{
    const auto sig = format.i(sample.raw, "sig");
    const auto handler = format.u(sample.raw, "sa_handler");
    if (!sig || !handler || *handler != 0) // 0: SIG_DFL
        return std::nullopt;
    switch (*sig) {
    case 17:                 // SIGCHLD
    case 18:                 // SIGCONT
    case 19:                 // SIGSTOP
    case 20:                 // SIGTSTP
    case 21:                 // SIGTTIN
    case 22:                 // SIGTTOU
    case 23:                 // SIGURG
    case 28:                 // SIGWINCH
        return std::nullopt; // ignored or stopping by default
    default:
        if (*sig < 1 || *sig > 64)
            return std::nullopt;
        return exit_status_from_wait_status(std::int32_t(*sig)); // a wait status of "killed by sig"
    }
}

} // namespace openetw::kernel
