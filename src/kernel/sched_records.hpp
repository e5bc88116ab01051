// The dispatcher's records: Thread/CSwitch (from sched:sched_switch) and
// Thread/ReadyThread (from sched:sched_wakeup), and the mappings of
// Linux's scheduler facts (prev_state, prio) onto Windows' thread states,
// wait reasons and priorities (docs/KERNEL_LOGGER.md has the tables).
//
// Windows logs both with a PERFINFO_TRACE_HEADER (no thread or process id
// in the header: the payload names the threads), HookIds 0x0524 and
// 0x0532, event version 2 (the MOF classes derive from Thread_V2).
#pragma once

#include "kernel/kernel_records.hpp"
#include "kernel/tracepoint_format.hpp"

#include <cstdint>
#include <span>

namespace openetw::kernel {

inline constexpr std::uint8_t kTypeCSwitch = 36;
inline constexpr std::uint8_t kTypeReadyThread = 50;
inline constexpr std::uint16_t kCSwitchVersion = 2;
inline constexpr std::uint16_t kReadyThreadVersion = 2;

// KTHREAD_STATE, as CSwitch's OldThreadState gives it.
enum class ThreadState : std::int8_t {
    Initialized = 0,
    Ready = 1,
    Running = 2,
    Standby = 3,
    Terminated = 4,
    Waiting = 5,
    Transition = 6,
    DeferredReady = 7,
};

// KWAIT_REASON values this logger gives.
enum class WaitReason : std::int8_t {
    Executive = 0,
    Suspended = 5,
    UserRequest = 6,
    WrQueue = 15,
    WrTerminated = 22,
    WrPreempted = 32,
    WrYieldExecution = 33,
};

// KPROCESSOR_MODE of the wait.
enum class WaitMode : std::int8_t { KernelMode = 0, UserMode = 1 };

// ---- CSwitch (V2, 24 bytes in both layouts) ----
struct CSwitchFields {
    std::uint32_t new_thread_id = 0;
    std::uint32_t old_thread_id = 0;
    std::int8_t new_thread_priority = 0;
    std::int8_t old_thread_priority = 0;
    std::uint8_t previous_cstate = 0;
    std::int8_t spare_byte = 0;
    std::int8_t old_thread_wait_reason = 0;
    std::int8_t old_thread_wait_mode = 0;
    std::int8_t old_thread_state = 0;
    std::int8_t old_thread_wait_ideal_processor = 0;
    std::uint32_t new_thread_wait_time = 0; // clock ticks the new thread waited
    std::uint32_t reserved = 0;
};
Bytes cswitch_payload(const CSwitchFields &c);
// PERFINFO header, hook 0x0524, version 2.
Bytes cswitch_record(std::int64_t timestamp, const CSwitchFields &c, std::uint32_t pointer_size);

// ---- ReadyThread (V2, 8 bytes) ----
struct ReadyThreadFields {
    std::uint32_t thread_id = 0; // TThreadId: the thread made ready
    std::int8_t adjust_reason = 0;
    std::int8_t adjust_increment = 0;
    std::int8_t flag = 0;
    std::int8_t reserved = 0;
};
Bytes ready_thread_payload(const ReadyThreadFields &r);
// PERFINFO header, hook 0x0532, version 2.
Bytes ready_thread_record(std::int64_t timestamp, const ReadyThreadFields &r, std::uint32_t pointer_size);

// ---- Linux to Windows ----
// What the switched-out thread was doing, from sched_switch's prev_state
// (the kernel's task-state report, Linux 4.14 and later: 0 running,
// 0x1 S, 0x2 D, 0x4 T, 0x8 t, 0x10 X, 0x20 Z, 0x40 P, 0x80 I, and 0x100
// when it was preempted while runnable).
struct SwitchOut {
    ThreadState state = ThreadState::Ready;
    WaitReason wait_reason = WaitReason::Executive;
    WaitMode wait_mode = WaitMode::KernelMode;
};
SwitchOut switch_out(std::int64_t prev_state);

// A Linux kernel priority (prio: 0-99 real-time, highest first; 100-139
// normal, 120 + nice; -1 deadline) as a Windows priority (0-31).
std::int8_t windows_priority(std::int32_t linux_prio);

// CSwitch fields from a sched_switch sample laid out by `format`:
// thread ids, priorities, and the old thread's state, wait reason and mode.
// new_thread_wait_time and the ideal processor are the caller's (they need
// history). False (fields untouched) when the sample lacks a field.
bool cswitch_from_sched_switch(const TracepointFormat &format, std::span<const std::uint8_t> sample,
                               CSwitchFields *out);

// ReadyThread fields from a sched_wakeup or sched_wakeup_new sample: the
// woken thread (pid), Flag 0x1 ("readied from a DPC") when the wakeup ran
// in interrupt context (common_flags' hardirq 0x08 or softirq 0x10 bit),
// no priority adjustment (Linux gives no wakeup boost: AdjustReason 0).
// False (fields untouched) when the sample lacks a field.
bool ready_thread_from_sched_wakeup(const TracepointFormat &format, std::span<const std::uint8_t> sample,
                                    ReadyThreadFields *out);

} // namespace openetw::kernel
