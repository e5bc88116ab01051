// CSwitch and ReadyThread in both layouts, read back through the consumer
// and decoded by name with exact field values; the prev_state, priority
// and wait-reason mappings; CSwitch fields from a sched_switch sample laid
// out by the real format.
#include "kernel_etl.hpp"

#include "kernel/sched_records.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace openetw::kernel;
using kerneltest::expect_perfinfo;
using kerneltest::Seen;

namespace {} // namespace

TEST(SchedRecords, CSwitchInBothLayoutsDecodesAsThreadCSwitch)
{
    CSwitchFields c;
    c.new_thread_id = 4242;
    c.old_thread_id = 17;
    c.new_thread_priority = 15;
    c.old_thread_priority = -2; // sint8: the decoder must keep the sign
    c.previous_cstate = 1;
    c.spare_byte = 0;
    c.old_thread_wait_reason = 6;
    c.old_thread_wait_mode = 1;
    c.old_thread_state = 5;
    c.old_thread_wait_ideal_processor = 3;
    c.new_thread_wait_time = 0x2710;
    c.reserved = 0;
    EXPECT_EQ(cswitch_payload(c).size(), 24u);
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen = kerneltest::round_trip({cswitch_record(0x0123456789AB, c, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_perfinfo(seen[0], 0x0524, 2, ptr, 0x0123456789AB);
        EXPECT_EQ(seen[0].event_name, "Thread/CSwitch");
        const kerneltest::Pairs want = {{"NewThreadId", "0x1092"},       {"OldThreadId", "0x11"},
                                        {"NewThreadPriority", "15"},     {"OldThreadPriority", "-2"},
                                        {"PreviousCState", "1"},         {"SpareByte", "0"},
                                        {"OldThreadWaitReason", "6"},    {"OldThreadWaitMode", "1"},
                                        {"OldThreadState", "5"},         {"OldThreadWaitIdealProcessor", "3"},
                                        {"NewThreadWaitTime", "0x2710"}, {"Reserved", "0"}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

TEST(SchedRecords, ReadyThreadInBothLayoutsDecodesAsThreadReadyThread)
{
    ReadyThreadFields r;
    r.thread_id = 999;
    r.adjust_reason = 2;
    r.adjust_increment = -1;
    r.flag = 1;
    EXPECT_EQ(ready_thread_payload(r).size(), 8u);
    for (std::uint32_t ptr : {4u, 8u}) {
        const std::vector<Seen> seen = kerneltest::round_trip({ready_thread_record(0x0123456789AB, r, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_perfinfo(seen[0], 0x0532, 2, ptr, 0x0123456789AB);
        EXPECT_EQ(seen[0].event_name, "Thread/ReadyThread");
        const kerneltest::Pairs want = {{"TThreadId", "0x3E7"},
                                        {"AdjustReason", "2"},
                                        {"AdjustIncrement", "-1"},
                                        {"Flag", "1"},
                                        {"Reserved", "0"}};
        EXPECT_EQ(seen[0].values, want) << ptr;
    }
}

// docs/KERNEL_LOGGER.md's table, row by row.
TEST(SchedRecords, PrevStateMapsToThreadStateWaitReasonAndMode)
{
    const struct {
        std::int64_t prev_state;
        ThreadState state;
        WaitReason reason;
        WaitMode mode;
    } rows[] = {
        {0x000, ThreadState::Ready, WaitReason::WrYieldExecution, WaitMode::KernelMode},
        {0x100, ThreadState::Ready, WaitReason::WrPreempted, WaitMode::KernelMode},
        {0x001, ThreadState::Waiting, WaitReason::UserRequest, WaitMode::UserMode},
        {0x002, ThreadState::Waiting, WaitReason::Executive, WaitMode::KernelMode},
        {0x004, ThreadState::Waiting, WaitReason::Suspended, WaitMode::KernelMode},
        {0x008, ThreadState::Waiting, WaitReason::Suspended, WaitMode::KernelMode},
        {0x010, ThreadState::Terminated, WaitReason::WrTerminated, WaitMode::KernelMode},
        {0x020, ThreadState::Terminated, WaitReason::WrTerminated, WaitMode::KernelMode},
        {0x040, ThreadState::Waiting, WaitReason::Suspended, WaitMode::KernelMode},
        {0x080, ThreadState::Waiting, WaitReason::WrQueue, WaitMode::KernelMode},
        {0x082, ThreadState::Waiting, WaitReason::WrQueue, WaitMode::KernelMode}, // TASK_IDLE is D|NOLOAD
        {0x200, ThreadState::Waiting, WaitReason::Executive, WaitMode::KernelMode},
    };
    for (const auto &r : rows) {
        const SwitchOut s = switch_out(r.prev_state);
        EXPECT_EQ(s.state, r.state) << std::hex << r.prev_state;
        EXPECT_EQ(s.wait_reason, r.reason) << std::hex << r.prev_state;
        EXPECT_EQ(s.wait_mode, r.mode) << std::hex << r.prev_state;
    }
    // The KTHREAD_STATE and KWAIT_REASON numbers Windows readers know.
    EXPECT_EQ(int(ThreadState::Ready), 1);
    EXPECT_EQ(int(ThreadState::Terminated), 4);
    EXPECT_EQ(int(ThreadState::Waiting), 5);
    EXPECT_EQ(int(WaitReason::UserRequest), 6);
    EXPECT_EQ(int(WaitReason::WrQueue), 15);
    EXPECT_EQ(int(WaitReason::WrTerminated), 22);
    EXPECT_EQ(int(WaitReason::WrPreempted), 32);
}

TEST(SchedRecords, LinuxPriorityMapsOntoWindowsPriority)
{
    const std::pair<std::int32_t, std::int8_t> rows[] = {
        {-1, 31},  // deadline
        {0, 31},   // SCHED_FIFO 99
        {49, 23},  // rt_priority 50
        {98, 16},  // rt_priority 1
        {99, 16},  // rt_priority 0
        {100, 15}, // nice -20
        {110, 11}, // nice -10
        {120, 8},  // nice 0
        {130, 5},  // nice 10
        {139, 2},  // nice 19
        {140, 1},  // beyond the normal range
    };
    for (const auto &[prio, windows] : rows)
        EXPECT_EQ(int(windows_priority(prio)), int(windows)) << prio;
}

TEST(SchedRecords, CSwitchFromASchedSwitchSample)
{
    const auto bytes =
        etltest::read_file(std::string(OPENETW_SOURCE_DIR) + "/tests/kernel/tracepoints/sched_switch.format");
    TracepointFormat f;
    ASSERT_TRUE(TracepointFormat::parse(std::string(bytes.begin(), bytes.end()), &f));
    std::vector<std::uint8_t> s(64, 0);
    const auto put = [&](std::size_t at, std::uint64_t v, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            s[at + i] = std::uint8_t(v >> (8 * i));
    };
    std::memcpy(&s[8], "bash", 4);
    put(24, 1234, 4); // prev_pid
    put(28, 120, 4);  // prev_prio (nice 0)
    put(32, 0x1, 8);  // prev_state S
    std::memcpy(&s[40], "kworker/0:1", 11);
    put(56, 77, 4);  // next_pid
    put(60, 100, 4); // next_prio (nice -20)
    CSwitchFields c;
    c.new_thread_wait_time = 55; // the caller's: left as it was
    ASSERT_TRUE(cswitch_from_sched_switch(f, s, &c));
    EXPECT_EQ(c.old_thread_id, 1234u);
    EXPECT_EQ(c.new_thread_id, 77u);
    EXPECT_EQ(c.old_thread_priority, 8);
    EXPECT_EQ(c.new_thread_priority, 15);
    EXPECT_EQ(c.old_thread_state, std::int8_t(ThreadState::Waiting));
    EXPECT_EQ(c.old_thread_wait_reason, std::int8_t(WaitReason::UserRequest));
    EXPECT_EQ(c.old_thread_wait_mode, std::int8_t(WaitMode::UserMode));
    EXPECT_EQ(c.new_thread_wait_time, 55u);

    CSwitchFields untouched;
    untouched.old_thread_id = 9;
    EXPECT_FALSE(cswitch_from_sched_switch(f, std::span(s.data(), 63), &untouched)) << "next_prio cut off";
    EXPECT_EQ(untouched.old_thread_id, 9u);
}
