// The system logger's sources for a session's EnableFlags
// (system_logger.hpp): which flags are served, the rundown, the live perf
// source of process, thread and image events, and the re-anchored clock.
#include "kernel/system_logger.hpp"

#include "kernel/kernel_flags.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/perf_process_source.hpp"
#include "kernel/rundown.hpp"
#include "platform/clock.hpp"
#include "platform/process.hpp"

#include <openetw/constants.h>

#include <vector>

namespace openetw::kernel {

namespace {

constexpr std::uint32_t kProcessFlags = ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD;
// The flags some source here records; the others are refused by name.
constexpr std::uint32_t kServed = kProcessFlags;
// Between drains: 256 KB rings per processor hold far more than 100 ms of a
// busy system's process, thread and image events.
constexpr std::uint32_t kDrainIntervalMs = 100;

PerfSourceOptions process_options(std::uint32_t flags, const PerfClock &clock, std::uint32_t max_record)
{
    PerfSourceOptions o;
    o.processes = (flags & ETW_FLAG_PROCESS) != 0;
    o.threads = (flags & ETW_FLAG_THREAD) != 0;
    o.images = (flags & ETW_FLAG_IMAGE_LOAD) != 0;
    o.pointer_size = platform::kPointerSize;
    o.max_record = max_record;
    o.clock = clock;
    return o;
}

class KernelLogger final : public SystemLogger {
public:
    KernelLogger(const SessionClock &clock, std::uint32_t max_record) : clock_(clock), max_record_(max_record) {}

    Status set_flags(std::uint32_t flags) override
    {
        if (const std::uint32_t bad = unsupported_flags(flags))
            return Fail(ETW_ERROR_NOT_SUPPORTED,
                        "EnableFlags " + format_kernel_flags(bad) +
                            ": not recorded on this system (docs/KERNEL_LOGGER.md says which flags are and why)");
        const std::uint32_t want = flags & kProcessFlags;
        if (want != (flags_ & kProcessFlags)) {
            std::unique_ptr<PerfProcessSource> next;
            if (want != 0) {
                next = std::make_unique<PerfProcessSource>(process_options(flags, capture(), max_record_));
                if (Status st = next->open(); !st)
                    return st;
            }
            if (process_) {
                // What the old rings hold still reaches the session (next drain).
                (void)process_->disable();
                retired_.push_back(std::move(process_));
            }
            process_ = std::move(next);
        }
        flags_ = flags;
        return Status::ok();
    }
    std::uint32_t flags() const override { return flags_; }

    void rundown(bool end, const SessionSink &sink) override
    {
        if ((flags_ & kProcessFlags) == 0)
            return;
        RundownOptions o;
        o.end = end;
        o.threads = (flags_ & ETW_FLAG_THREAD) != 0;
        o.images = (flags_ & ETW_FLAG_IMAGE_LOAD) != 0;
        o.pointer_size = platform::kPointerSize;
        o.timestamp = capture().to_session(std::uint64_t(platform::qpc_now()) * 100u);
        o.max_record = max_record_;
        if (process_ && !end)
            o.on_process = [this](const ProcessFields &p) { process_->remember(p); };
        const std::uint32_t cpu = platform::current_processor();
        // (Fails only without /proc, where the live source could not open either.)
        (void)kernel::rundown(o, [&](Bytes &&r) { sink(cpu, r.data(), std::uint32_t(r.size())); });
    }

    std::uint64_t drain(const SessionSink &sink) override
    {
        const PerfClock clock = capture();
        std::uint64_t lost = 0;
        auto drain_one = [&](PerfProcessSource &s) {
            s.set_clock(clock);
            const std::uint64_t before = s.counts().lost;
            (void)s.drain([&](Bytes &&r) { sink(s.record_cpu(), r.data(), std::uint32_t(r.size())); });
            lost += s.counts().lost - before;
        };
        for (auto &old : retired_)
            drain_one(*old);
        retired_.clear();
        if (process_)
            drain_one(*process_);
        return lost;
    }

    std::uint32_t drain_interval_ms() const override { return kDrainIntervalMs; }

private:
    // The session clock against the perf clock, read now: each drain
    // anchors anew, so a rate measured once or slewed by NTP (the cycle
    // counter, FILETIME) errs over one drain interval at most.
    PerfClock capture() const { return PerfClock::capture(clock_.clock_type, clock_.cycle_hz); }

    SessionClock clock_;
    std::uint32_t max_record_;
    std::uint32_t flags_ = 0;
    std::unique_ptr<PerfProcessSource> process_;
    std::vector<std::unique_ptr<PerfProcessSource>> retired_; // replaced by an update, drained once more
};

} // namespace

std::uint32_t SystemLogger::unsupported_flags(std::uint32_t mask) { return mask & ~kServed; }

Status SystemLogger::open(std::uint32_t enable_flags, const SessionClock &clock, std::uint32_t max_record,
                          std::unique_ptr<SystemLogger> *out)
{
    auto logger = std::make_unique<KernelLogger>(clock, max_record);
    if (Status st = logger->set_flags(enable_flags); !st)
        return st;
    *out = std::move(logger);
    return Status::ok();
}

} // namespace openetw::kernel
