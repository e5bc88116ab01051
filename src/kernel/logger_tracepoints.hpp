// The system logger's tracepoint table: which tracepoints each EnableFlag
// reads (perf, or an ftrace instance of the source's own), what each
// sample becomes, and which of them carry call chains for the StackWalk
// records asked for (stack_events.hpp).
#pragma once

#include "kernel/stack_events.hpp"
#include "kernel/tracepoint_source.hpp"

#include <openetw/constants.h>

#include <cstdint>
#include <vector>

namespace openetw::kernel {

// Every system call or page fault of the machine: 4 MB rings a processor
// (the session drains them every 20 ms, kernel_logger.hpp).
inline constexpr std::uint32_t kHighVolumePages = 1024;
// The flags whose records FileIoTracker makes from the file system calls.
inline constexpr std::uint32_t kFileIoFlags = ETW_FLAG_DISK_FILE_IO | ETW_FLAG_FILE_IO | ETW_FLAG_FILE_IO_INIT;
// 1 MB a processor for the others: sched_switch samples are ~100 bytes (a
// processor switching 300000 times a second fills 600 KB in 20 ms).
inline constexpr std::uint32_t kTracepointPages = 256;

// The tracepoints of flags, each with what it becomes.
struct Tracepoints {
    enum class Use : std::uint8_t {
        CSwitch,
        Ready,
        ExitStatus,
        FatalSignal,
        TcpState,
        TcpProbe,
        TcpSend,
        TcpRecv,
        DiskIssue,
        DiskComplete,
        SysEnter,
        SysExit,
        PageFault,    // a fault's start: PageFault_TypeGroup1, and HardFault's InitialTime
        FilemapFault, // HardFault's file and offset (hard_faults.hpp)
        PageCacheAdd, // ... and bytes read
        MajorFault,   // ... and end (perf's major faults, not a tracepoint)
        UdpSyscall,   // udp_datagrams.hpp: a socket call's enter or exit
        FileSyscall   // file_io_tracker.hpp: one of its system calls' enter or exit (keep it last)
    };
    std::vector<TracepointName> names;
    std::vector<Use> uses;
};
// How many uses there are (FileSyscall is the last).
inline constexpr std::uint8_t kTracepointUses = std::uint8_t(Tracepoints::Use::FileSyscall) + 1;

// The events a tracepoint's samples become, whose stacks may be asked for.
std::vector<std::uint16_t> stackable_hooks(Tracepoints::Use use);
// The tracepoints of flags, with call chains where stacks asks for them.
Tracepoints tracepoints_for(std::uint32_t flags, const StackEvents &stacks);
// Whether both ask call chains of the same tracepoints (same flags).
bool same_callchains(const Tracepoints &a, const Tracepoints &b);

} // namespace openetw::kernel
