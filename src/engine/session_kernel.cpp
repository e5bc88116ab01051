// A system logger session's kernel events (docs/KERNEL_LOGGER.md): the
// sources of its EnableFlags (src/kernel) are drained by the session's
// logger thread, which writes their records into the buffer stream of the
// processor each happened on, as Windows' kernel logger does; the kernel's
// own drops are added to EventsLost.
#include "engine/session.hpp"

#include "base/guid.hpp"
#include "format/etl_layout.hpp"
#include "kernel/stack_events.hpp"

#include <cstring>

namespace openetw::engine {

Status Session::set_kernel_flags(std::uint32_t flags)
{
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (kernel_)
        return kernel_->set_flags(flags);
    // Opened with no flags too: every system logger ends with SystemConfig.
    kernel::SessionClock clock;
    clock.clock_type = clock_type_;
    clock.cycle_hz = cycle_tick_ != 0 ? pool_.control().cycle_hz : 0;
    // A record stays below the buffer size minus its header (as events do).
    const std::uint32_t max_record = buffer_bytes() - etl::kBufferHeaderSize - 8;
    return kernel::SystemLogger::open(flags, clock, max_record, profile_, &kernel_);
}

Status Session::set_stack_tracing(const std::vector<etw_classic_event_id> &events)
{
    if (!system_logger_)
        return Fail(ETW_ERROR_NOT_SUPPORTED, "stacks of kernel events are for system logger sessions (the NT Kernel "
                                             "Logger, the Global Logger, ETW_SYSTEM_LOGGER_MODE)");
    kernel::StackEvents stacks;
    if (Status st = kernel::StackEvents::from(events, &stacks); !st)
        return st;
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (!kernel_)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    return kernel_->set_stacks(stacks);
}

Status Session::set_profile_interval(std::uint32_t interval_100ns)
{
    if (!system_logger_)
        return Fail(ETW_ERROR_NOT_SUPPORTED, "the profile interval is a system logger's (the NT Kernel Logger, the "
                                             "Global Logger, ETW_SYSTEM_LOGGER_MODE)");
    if (Status st = kernel::check_profile_interval(interval_100ns); !st)
        return st;
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (!kernel_)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
    if (Status st = kernel_->set_profile_interval(interval_100ns); !st)
        return st;
    profile_.interval_100ns = interval_100ns;
    options_.profile_interval = interval_100ns;
    return Status::ok();
}

void Session::write_kernel_record(void *self, std::uint32_t cpu, const std::uint8_t *record, std::uint32_t size)
{
    auto *s = static_cast<Session *>(self);
    ControlBlock &cb = s->pool_.control();
    const std::uint32_t aligned = std::uint32_t(etl::align8(size));
    const std::uint32_t stream = s->pool_.stream_of(cpu);
    BufferPool::Reservation res;
    etw_status st = cb.rt_refusing.load(std::memory_order_relaxed) != 0 ? ETW_ERROR_LOG_FILE_FULL
                                                                        : s->pool_.reserve(stream, aligned, &res);
    if (st == ETW_ERROR_NOT_ENOUGH_MEMORY) {
        // This thread is the one that frees buffers: it writes out what is
        // queued (a burst the pool could not hold) and tries once more.
        if (s->is_buffering())
            st = s->reserve_in_ring(stream, aligned, &res) ? ETW_OK : st;
        else {
            s->drain();
            st = s->pool_.reserve(stream, aligned, &res);
        }
    }
    if (st != ETW_OK) {
        cb.events_lost.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    std::uint8_t *p = s->pool_.buffer(res.index) + res.offset;
    std::memcpy(p, record, size);
    std::memset(p + size, 0, aligned - size);
    s->pool_.commit(res);
}

void Session::kernel_rundown(bool end)
{
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (kernel_)
        kernel_->rundown(end, kernel::SessionSink{this, &Session::write_kernel_record});
}

void Session::drain_kernel(bool all)
{
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (!kernel_)
        return;
    const std::uint64_t dropped = kernel_->drain(kernel::SessionSink{this, &Session::write_kernel_record}, all);
    if (dropped != 0)
        pool_.control().events_lost.fetch_add(std::uint32_t(std::min<std::uint64_t>(dropped, 0xFFFFFFFFu)),
                                              std::memory_order_relaxed);
}

std::int64_t Session::kernel_wait_ms(std::int64_t timeout_ms)
{
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    if (!kernel_)
        return timeout_ms;
    const std::int64_t interval = kernel_->drain_interval_ms();
    return timeout_ms < 0 || timeout_ms > interval ? interval : timeout_ms;
}

} // namespace openetw::engine
