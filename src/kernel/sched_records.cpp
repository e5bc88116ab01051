#include "kernel/sched_records.hpp"

#include "kernel/payload_bytes.hpp"

#include <algorithm>

namespace openetw::kernel {

Bytes cswitch_payload(const CSwitchFields &c)
{
    PayloadBytes w(8); // no pointers: the same 24 bytes in both layouts
    w.u32(c.new_thread_id).u32(c.old_thread_id);
    w.u8(std::uint8_t(c.new_thread_priority)).u8(std::uint8_t(c.old_thread_priority));
    w.u8(c.previous_cstate).u8(std::uint8_t(c.spare_byte));
    w.u8(std::uint8_t(c.old_thread_wait_reason)).u8(std::uint8_t(c.old_thread_wait_mode));
    w.u8(std::uint8_t(c.old_thread_state)).u8(std::uint8_t(c.old_thread_wait_ideal_processor));
    w.u32(c.new_thread_wait_time).u32(c.reserved);
    return w.take();
}

Bytes cswitch_record(std::int64_t timestamp, const CSwitchFields &c, std::uint32_t pointer_size)
{
    return perfinfo_record(hook_id(kGroupThread, kTypeCSwitch), kCSwitchVersion, timestamp, pointer_size,
                           cswitch_payload(c));
}

Bytes ready_thread_payload(const ReadyThreadFields &r)
{
    PayloadBytes w(8);
    w.u32(r.thread_id).u8(std::uint8_t(r.adjust_reason)).u8(std::uint8_t(r.adjust_increment));
    w.u8(std::uint8_t(r.flag)).u8(std::uint8_t(r.reserved));
    return w.take();
}

Bytes ready_thread_record(std::int64_t timestamp, const ReadyThreadFields &r, std::uint32_t pointer_size)
{
    return perfinfo_record(hook_id(kGroupThread, kTypeReadyThread), kReadyThreadVersion, timestamp, pointer_size,
                           ready_thread_payload(r));
}

SwitchOut switch_out(std::int64_t prev_state)
{
    constexpr std::int64_t kInterruptible = 0x1, kUninterruptible = 0x2, kStopped = 0x4, kTraced = 0x8, kDead = 0x10,
                           kZombie = 0x20, kParked = 0x40, kIdle = 0x80, kPreempted = 0x100;
    // Still runnable: preempted, or gave the processor up (yield, cond_resched).
    if (prev_state == 0 || (prev_state & kPreempted))
        return {ThreadState::Ready, (prev_state & kPreempted) ? WaitReason::WrPreempted : WaitReason::WrYieldExecution,
                WaitMode::KernelMode};
    if (prev_state & (kDead | kZombie))
        return {ThreadState::Terminated, WaitReason::WrTerminated, WaitMode::KernelMode};
    // An idle kernel worker waits for work to be queued.
    if (prev_state & kIdle)
        return {ThreadState::Waiting, WaitReason::WrQueue, WaitMode::KernelMode};
    if (prev_state & kUninterruptible)
        return {ThreadState::Waiting, WaitReason::Executive, WaitMode::KernelMode};
    if (prev_state & (kStopped | kTraced | kParked))
        return {ThreadState::Waiting, WaitReason::Suspended, WaitMode::KernelMode};
    if (prev_state & kInterruptible)
        return {ThreadState::Waiting, WaitReason::UserRequest, WaitMode::UserMode};
    return {ThreadState::Waiting, WaitReason::Executive, WaitMode::KernelMode}; // a state newer than these bits
}

std::int8_t windows_priority(std::int32_t prio)
{
    if (prio < 0) // SCHED_DEADLINE runs before every real-time task
        return 31;
    if (prio < 100) { // real-time: rt_priority 99..0 onto 31..16 (Windows' real-time range)
        const std::int32_t rt = 99 - prio;
        return std::int8_t(16 + rt * 15 / 99);
    }
    if (prio < 140) { // normal: nice -20..19 onto 15..2, nice 0 at 8, as the rundown's BasePriority
        const std::int32_t nice = prio - 120;
        return std::int8_t(std::clamp(8 - nice * 7 / 20, 1, 15));
    }
    return 1;
}

bool cswitch_from_sched_switch(const TracepointFormat &format, std::span<const std::uint8_t> sample, CSwitchFields *out)
{
    const auto prev_pid = format.i(sample, "prev_pid");
    const auto next_pid = format.i(sample, "next_pid");
    const auto prev_prio = format.i(sample, "prev_prio");
    const auto next_prio = format.i(sample, "next_prio");
    const auto prev_state = format.i(sample, "prev_state");
    if (!prev_pid || !next_pid || !prev_prio || !next_prio || !prev_state)
        return false;
    const SwitchOut s = switch_out(*prev_state);
    out->old_thread_id = std::uint32_t(*prev_pid);
    out->new_thread_id = std::uint32_t(*next_pid);
    out->old_thread_priority = windows_priority(std::int32_t(*prev_prio));
    out->new_thread_priority = windows_priority(std::int32_t(*next_prio));
    out->old_thread_state = std::int8_t(s.state);
    out->old_thread_wait_reason = std::int8_t(s.wait_reason);
    out->old_thread_wait_mode = std::int8_t(s.wait_mode);
    return true;
}

bool ready_thread_from_sched_wakeup(const TracepointFormat &format, std::span<const std::uint8_t> sample,
                                    ReadyThreadFields *out)
{
    // The trace entry's flags (include/linux/trace_events.h): set when the
    // event fired in a hardware or a soft interrupt.
    constexpr std::uint64_t kHardIrq = 0x08, kSoftIrq = 0x10;
    constexpr std::int8_t kReadiedFromDpc = 0x1;
    const auto pid = format.i(sample, "pid");
    const auto flags = format.u(sample, "common_flags");
    if (!pid || !flags)
        return false;
    out->thread_id = std::uint32_t(*pid);
    out->adjust_reason = 0;
    out->adjust_increment = 0;
    out->flag = (*flags & (kHardIrq | kSoftIrq)) ? kReadiedFromDpc : 0;
    return true;
}

} // namespace openetw::kernel
