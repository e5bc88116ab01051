#include "kernel/logger_tracepoints.hpp"

#include "kernel/file_io_tracker.hpp"
#include "kernel/net_records.hpp"
#include "kernel/pagefault_records.hpp"
#include "kernel/sched_records.hpp"
#include "kernel/syscall_records.hpp"
#include "kernel/udp_datagrams.hpp"

#include <openetw/constants.h>

namespace openetw::kernel {

namespace {

// Samples with call chains are up to 1 KB larger (127 frames): rings four
// times as large (twice for the high-volume ones, already 4 MB).
void add_callchains(Tracepoints *t, const StackEvents &stacks)
{
    for (std::size_t i = 0; i < t->names.size(); ++i) {
        TracepointName &n = t->names[i];
        if (n.ftrace || !stacks.any(stackable_hooks(t->uses[i])))
            continue;
        n.callchain = true;
        n.data_pages = n.data_pages != 0 ? n.data_pages * 2 : kTracepointPages * 4;
    }
}

} // namespace

// The events a tracepoint's samples become, whose stacks may be asked for.
std::vector<std::uint16_t> stackable_hooks(Tracepoints::Use use)
{
    using U = Tracepoints::Use;
    // sock_send_length / sock_recv_length: TCP's and UDP's transfers.
    const auto tcp = [](TcpOp op) {
        const auto udp = std::uint8_t(op == TcpOp::Send ? UdpOp::Send : UdpOp::Recv);
        return std::vector<std::uint16_t>{hook_id(kGroupTcpIp, std::uint8_t(op)),
                                          hook_id(kGroupTcpIp, std::uint8_t(std::uint8_t(op) + kIpv6TypeOffset)),
                                          hook_id(kGroupUdpIp, udp),
                                          hook_id(kGroupUdpIp, std::uint8_t(udp + kIpv6TypeOffset))};
    };
    switch (use) {
    case U::CSwitch:
        return {hook_id(kGroupThread, kTypeCSwitch)};
    case U::SysEnter:
        return {hook_id(kGroupPerfInfo, kTypeSysCallEnter)};
    case U::SysExit:
        return {hook_id(kGroupPerfInfo, kTypeSysCallExit)};
    case U::TcpSend:
        return tcp(TcpOp::Send);
    case U::TcpRecv:
        return tcp(TcpOp::Recv);
    case U::FileSyscall: { // the records an enter or exit makes (file_io_tracker.hpp)
        std::vector<std::uint16_t> hooks;
        for (const FileIoType t : kFileIoCallTypes)
            hooks.push_back(hook_id(kGroupFile, std::uint8_t(t)));
        return hooks;
    }
    case U::PageFault:
        return {hook_id(kGroupMemory, std::uint8_t(PageFaultType::DemandZeroFault)),
                hook_id(kGroupMemory, std::uint8_t(PageFaultType::CopyOnWrite)),
                hook_id(kGroupMemory, std::uint8_t(PageFaultType::AccessViolation))};
    case U::MajorFault: // made at the fault's end, in the faulting thread
        return {hook_id(kGroupMemory, kTypeHardFault)};
    default:
        return {};
    }
}

Tracepoints tracepoints_for(std::uint32_t flags, const StackEvents &stacks)
{
    Tracepoints t;
    if (flags & ETW_FLAG_CSWITCH) {
        t.names.push_back({"sched", "sched_switch"});
        t.uses.push_back(Tracepoints::Use::CSwitch);
    }
    if (flags & ETW_FLAG_DISPATCHER) {
        // Through ftrace: wakeups from interrupts (timers, I/O completions)
        // are as common as from threads, and perf loses those of an idle
        // processor (as DISK_IO's completions below).
        t.names.push_back({"sched", "sched_wakeup", false, true});
        t.uses.push_back(Tracepoints::Use::Ready);
        t.names.push_back({"sched", "sched_wakeup_new", false, true});
        t.uses.push_back(Tracepoints::Use::Ready);
    }
    if (flags & ETW_FLAG_PROCESS) {
        // Optional: without them Process/End says 0 (docs/KERNEL_LOGGER.md).
        t.names.push_back({"syscalls", "sys_enter_exit_group", true});
        t.uses.push_back(Tracepoints::Use::ExitStatus);
        t.names.push_back({"signal", "signal_deliver", true});
        t.uses.push_back(Tracepoints::Use::FatalSignal);
    }
    if (flags & ETW_FLAG_NETWORK_TCPIP) {
        t.names.push_back({"sock", "inet_sock_set_state"});
        t.uses.push_back(Tracepoints::Use::TcpState);
        // Optional: without it a connection older than the session shows no addresses.
        t.names.push_back({"tcp", "tcp_probe", true});
        t.uses.push_back(Tracepoints::Use::TcpProbe);
        t.names.push_back({"sock", "sock_send_length"});
        t.uses.push_back(Tracepoints::Use::TcpSend);
        t.names.push_back({"sock", "sock_recv_length"});
        t.uses.push_back(Tracepoints::Use::TcpRecv);
        // UDP datagrams' descriptors, address buffers and routes (optional:
        // without them UdpIp records lack what only they give).
        for (const UdpTracepoint &u : udp_tracepoints()) {
            t.names.push_back({u.system, u.name, true});
            t.uses.push_back(Tracepoints::Use::UdpSyscall);
        }
    }
    if (flags & (ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT)) {
        // Through ftrace: completions fire in interrupt context, whose perf
        // samples are lost when the processor was idle (docs/KERNEL_LOGGER.md).
        // The issue is DISK_IO_INIT's Init event and DISK_IO's start.
        t.names.push_back({"block", "block_rq_issue", false, true});
        t.uses.push_back(Tracepoints::Use::DiskIssue);
        if (flags & ETW_FLAG_DISK_IO) {
            t.names.push_back({"block", "block_rq_complete", false, true});
            t.uses.push_back(Tracepoints::Use::DiskComplete);
        }
    }
    if (flags & ETW_FLAG_SYSTEMCALL) {
        t.names.push_back({"raw_syscalls", "sys_enter", false, false, kHighVolumePages});
        t.uses.push_back(Tracepoints::Use::SysEnter);
        t.names.push_back({"raw_syscalls", "sys_exit", false, false, kHighVolumePages});
        t.uses.push_back(Tracepoints::Use::SysExit);
    }
    if (flags & ETW_FLAG_MEMORY_PAGE_FAULTS) {
        // x86's: refused by name where the kernel lacks them. Not
        // HARD_FAULTS': every fault of the machine, to pair the few major
        // ones (its start is the file fault's, hard_faults.hpp).
        t.names.push_back({"exceptions", "page_fault_user", false, false, kHighVolumePages});
        t.uses.push_back(Tracepoints::Use::PageFault);
        t.names.push_back({"exceptions", "page_fault_kernel", false, false, kHighVolumePages});
        t.uses.push_back(Tracepoints::Use::PageFault);
    }
    if (flags & ETW_FLAG_MEMORY_HARD_FAULTS) {
        // Every file fault (each hard fault's start) and page cache fill of
        // the machine (reads and writes too): the high-volume rings. The
        // major faults are few.
        t.names.push_back({"filemap", "mm_filemap_fault", false, false, kHighVolumePages});
        t.uses.push_back(Tracepoints::Use::FilemapFault);
        t.names.push_back({"filemap", "mm_filemap_add_to_page_cache", false, false, kHighVolumePages});
        t.uses.push_back(Tracepoints::Use::PageCacheAdd);
        TracepointName major{"perf", "major-faults"};
        major.major_faults = true;
        t.names.push_back(major);
        t.uses.push_back(Tracepoints::Use::MajorFault);
    }
    if (flags & kFileIoFlags) {
        // Every read and write of the machine with the high-volume rings.
        for (const FileIoTracepoint &f : file_io_tracepoints()) {
            t.names.push_back({"syscalls", f.name, f.optional, false, f.high_volume ? kHighVolumePages : 0});
            t.uses.push_back(Tracepoints::Use::FileSyscall);
        }
    }
    add_callchains(&t, stacks);
    return t;
}

bool same_callchains(const Tracepoints &a, const Tracepoints &b)
{
    for (std::size_t i = 0; i < a.names.size(); ++i)
        if (a.names[i].callchain != b.names[i].callchain)
            return false;
    return true;
}

} // namespace openetw::kernel
