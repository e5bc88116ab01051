#include "kernel/kernel_flags.hpp"

#include <openetw/constants.h>

#include <cctype>
#include <charconv>
#include <cstdio>

namespace openetw::kernel {

namespace {

// Names follow the EVENT_TRACE_PROPERTIES page; xperf groups are those of
// `xperf -providers K` that stand for one flag (PROC_THREAD for two).
const KernelFlag kFlags[] = {
    {ETW_FLAG_PROCESS, "EVENT_TRACE_FLAG_PROCESS", "process", "PROC_THREAD",
     "perf_event_open PERF_RECORD_FORK, PERF_RECORD_COMM (exec), PERF_RECORD_EXIT + /proc rundown",
     "Process (0x03): Start 1, End 2, DCStart 3, DCEnd 4; Process_V4_TypeGroup1"},
    {ETW_FLAG_THREAD, "EVENT_TRACE_FLAG_THREAD", "thread", "PROC_THREAD",
     "perf_event_open PERF_RECORD_FORK, PERF_RECORD_EXIT (threads) + /proc/PID/task rundown",
     "Thread (0x05): Start 1, End 2, DCStart 3, DCEnd 4; Thread_V3_TypeGroup1"},
    {ETW_FLAG_IMAGE_LOAD, "EVENT_TRACE_FLAG_IMAGE_LOAD", "image_load", "LOADER",
     "perf_event_open PERF_RECORD_MMAP2 (executable mappings) + /proc/PID/maps rundown",
     "Image: Load 10 (hook 0x030A), UnLoad 2, DCStart 3, DCEnd 4 (0x14); Image_Load V3"},
    {ETW_FLAG_PROCESS_COUNTERS, "EVENT_TRACE_FLAG_PROCESS_COUNTERS", "process_counters", "PERF_COUNTER",
     "/proc/PID/status and /proc/PID/io at process end and rundown", "Process (0x03): PerfCtr 32, PerfCtrRundown 33"},
    {ETW_FLAG_CSWITCH, "EVENT_TRACE_FLAG_CSWITCH", "cswitch", "CSWITCH", "sched:sched_switch",
     "Thread (0x05): CSwitch 36"},
    {ETW_FLAG_DPC, "EVENT_TRACE_FLAG_DPC", "dpc", "DPC", "irq:softirq_entry, irq:softirq_exit",
     "PerfInfo (0x0F): DPC 66, ThreadedDPC 68, TimerDPC 69"},
    {ETW_FLAG_INTERRUPT, "EVENT_TRACE_FLAG_INTERRUPT", "interrupt", "INTERRUPT",
     "irq:irq_handler_entry, irq:irq_handler_exit", "PerfInfo (0x0F): ISR 67"},
    {ETW_FLAG_SYSTEMCALL, "EVENT_TRACE_FLAG_SYSTEMCALL", "systemcall", "SYSCALL",
     "raw_syscalls:sys_enter, raw_syscalls:sys_exit", "PerfInfo (0x0F): SysClEnter 51, SysClExit 52"},
    {ETW_FLAG_DISK_IO, "EVENT_TRACE_FLAG_DISK_IO", "disk_io", "DISK_IO",
     "block:block_rq_issue, block:block_rq_complete",
     "DiskIo (0x01): Read 10, Write 11, FlushBuffers 14; DiskIo_TypeGroup1"},
    {ETW_FLAG_DISK_FILE_IO, "EVENT_TRACE_FLAG_DISK_FILE_IO", "disk_file_io", "FILENAME",
     "syscalls:sys_enter_/sys_exit_ of openat, close, unlinkat (FileIo_Name per FileKey; paths from the call's memory "
     "or /proc/PID/fd)",
     "FileIo (0x04): Name 0, FileCreate 32, FileDelete 35, FileRundown 36; FileIo_Name"},
    {ETW_FLAG_DISK_IO_INIT, "EVENT_TRACE_FLAG_DISK_IO_INIT", "disk_io_init", "DISK_IO_INIT",
     "block:block_rq_issue (through ftrace)", "DiskIo (0x01): ReadInit 12, WriteInit 13, FlushInit 15"},
    {ETW_FLAG_DISPATCHER, "EVENT_TRACE_FLAG_DISPATCHER", "dispatcher", "DISPATCHER",
     "sched:sched_wakeup, sched:sched_wakeup_new (through ftrace)", "Thread (0x05): ReadyThread 50"},
    {ETW_FLAG_MEMORY_PAGE_FAULTS, "EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS", "memory_page_faults", "ALL_FAULTS",
     "exceptions:page_fault_user, exceptions:page_fault_kernel (x86 only: refused where they are missing)",
     "PageFault (0x02): DemandZeroFault 11, CopyOnWrite 12, AccessViolation 15 (of 10..15); PageFault_TypeGroup1"},
    {ETW_FLAG_MEMORY_HARD_FAULTS, "EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS", "memory_hard_faults", "HARD_FAULTS",
     "perf PERF_COUNT_SW_PAGE_FAULTS_MAJ (the fault's end), filemap:mm_filemap_fault (its start, file, offset), "
     "filemap:mm_filemap_add_to_page_cache (bytes read), paired per thread, checked against /proc/PID/maps",
     "PageFault (0x02): HardFault 32; PageFault_HardFault"},
    {ETW_FLAG_VIRTUAL_ALLOC, "EVENT_TRACE_FLAG_VIRTUAL_ALLOC", "virtual_alloc", "VIRT_ALLOC",
     "syscalls:sys_enter_mmap/sys_exit_mmap (anonymous), syscalls:sys_enter_munmap",
     "PageFault (0x02): VirtualAlloc 98, VirtualFree 99"},
    {ETW_FLAG_VAMAP, "EVENT_TRACE_FLAG_VAMAP", "vamap", "VAMAP",
     "perf_event_open PERF_RECORD_MMAP2 (file mappings) + /proc/PID/maps rundown",
     "PageFault (0x02): MapFile 37, UnmapFile 38, MapFileDCStart 39, MapFileDCEnd 40"},
    {ETW_FLAG_NETWORK_TCPIP, "EVENT_TRACE_FLAG_NETWORK_TCPIP", "network_tcpip", "NETWORKTRACE",
     "sock:sock_send_length, sock:sock_recv_length, sock:inet_sock_set_state, tcp:tcp_probe; for UDP also the "
     "socket calls' syscalls:sys_enter_/sys_exit_ (sendto, recvfrom, sendmsg, recvmsg, sendmmsg, recvmmsg; "
     "connect, close), fib:fib_table_lookup and fib6:fib6_table_lookup, the calls' address buffers read from the "
     "process and the sockets' own ends (getsockname, getpeername on a pidfd_getfd duplicate)",
     "TcpIp (0x06): SendIPV4 10, RecvIPV4 11, SendIPV6 26, RecvIPV6 27; UdpIp (0x11): SendIPV4 10, RecvIPV4 11, "
     "SendIPV6 26, RecvIPV6 27"},
    {ETW_FLAG_REGISTRY, "EVENT_TRACE_FLAG_REGISTRY", "registry", "REGISTRY", "none: Linux has no registry",
     "Registry (0x09): Create 10 .. Close 27; Registry_TypeGroup1"},
    {ETW_FLAG_DBGPRINT, "EVENT_TRACE_FLAG_DBGPRINT", "dbgprint", "", "none: no DbgPrint on Linux",
     "DbgPrint (DebugPrint) events"},
    {ETW_FLAG_JOB, "EVENT_TRACE_FLAG_JOB", "job", "", "none: cgroups are not job objects", "Job events"},
    {ETW_FLAG_ALPC, "EVENT_TRACE_FLAG_ALPC", "alpc", "ALPC", "none: Linux has no ALPC",
     "ALPC: Send 33, Receive 34, WaitForReply 35, WaitForNewMessage 36, UnWait 37"},
    {ETW_FLAG_SPLIT_IO, "EVENT_TRACE_FLAG_SPLIT_IO", "split_io", "SPLIT_IO", "block:block_split", "SplitIo: VolMgr 32"},
    {ETW_FLAG_DEBUG_EVENTS, "EVENT_TRACE_FLAG_DEBUG_EVENTS", "debug_events", "", "none: no kernel debugger events",
     "debugger events"},
    {ETW_FLAG_DRIVER, "EVENT_TRACE_FLAG_DRIVER", "driver", "DRIVERS", "none: Linux drivers take no IRPs",
     "DiskIo (0x01): DrvMjFnCall 34, DrvMjFnRet 35 ..."},
    {ETW_FLAG_PROFILE, "EVENT_TRACE_FLAG_PROFILE", "profile", "PROFILE",
     "perf_event_open cpu-clock sampling (PERF_RECORD_SAMPLE)", "PerfInfo (0x0F): SampledProfile 46"},
    {ETW_FLAG_FILE_IO, "EVENT_TRACE_FLAG_FILE_IO", "file_io", "FILE_IO",
     "syscalls:sys_exit_ of openat, read, write, pread64, pwrite64, close, fsync, fdatasync, unlinkat, renameat2...",
     "FileIo (0x04): OperationEnd 76; FileIo_OpEnd"},
    {ETW_FLAG_FILE_IO_INIT, "EVENT_TRACE_FLAG_FILE_IO_INIT", "file_io_init", "FILE_IO_INIT",
     "syscalls:sys_enter_ of openat, read, write, pread64, pwrite64, close, fsync, fdatasync, lseek, unlinkat, "
     "renameat2...",
     "FileIo (0x04): Create 64, Cleanup 65, Close 66, Read 67, Write 68, Delete 70, Rename 71, Flush 73"},
    {ETW_FLAG_NO_SYSCONFIG, "EVENT_TRACE_FLAG_NO_SYSCONFIG", "no_sysconfig", "",
     "modifier: skips the SystemConfig rundown (/proc, /sys/block, mounts, interfaces)",
     "suppresses SystemConfig (0x15): CPU 10, PhyDisk 11, LogDisk 12, NIC 13"},
    {ETW_FLAG_ENABLE_RESERVE, "EVENT_TRACE_FLAG_ENABLE_RESERVE", "enable_reserve", "", "none: reserved by Windows",
     "none"},
    {ETW_FLAG_FORWARD_WMI, "EVENT_TRACE_FLAG_FORWARD_WMI", "forward_wmi", "", "none: WMI forwarding is Windows'",
     "none"},
    {ETW_FLAG_EXTENSION, "EVENT_TRACE_FLAG_EXTENSION", "extension", "",
     "none: announces extended group masks, not an event source", "none"},
};

bool same_name(std::string_view a, std::string_view b)
{
    if (a.size() != b.size() || a.empty())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
            return false;
    return true;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

// A whole-token number: decimal, or hex after 0x.
bool parse_number(std::string_view s, std::uint32_t *out)
{
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s.remove_prefix(2);
        base = 16;
    }
    if (s.empty())
        return false;
    std::uint32_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || end != s.data() + s.size())
        return false;
    *out = v;
    return true;
}

} // namespace

std::span<const KernelFlag> kernel_flags() { return kFlags; }

const KernelFlag *find_kernel_flag(std::uint32_t value)
{
    for (const KernelFlag &f : kFlags)
        if (f.value == value)
            return &f;
    return nullptr;
}

Status parse_kernel_flags(std::string_view text, std::uint32_t *mask)
{
    std::uint32_t m = 0;
    std::size_t count = 0;
    std::string_view rest = text;
    for (;;) {
        const std::size_t cut = rest.find_first_of(",+|");
        const std::string_view token = trim(rest.substr(0, cut));
        if (token.empty()) {
            if (cut != std::string_view::npos || count > 0 || !trim(text).empty())
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            "kernel flags \"" + std::string(text) + "\" have an empty name between separators");
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "kernel flags are empty: give names such as process,thread,image_load or a number");
        }
        std::uint32_t bits = 0;
        if (!parse_number(token, &bits)) {
            for (const KernelFlag &f : kFlags)
                if (same_name(token, f.name) || same_name(token, f.doc_name) || same_name(token, f.xperf_name))
                    bits |= f.value;
            if (bits == 0)
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            "unknown kernel flag \"" + std::string(token) +
                                "\": use a name of docs/KERNEL_LOGGER.md (process, thread, image_load, disk_io, "
                                "file_io, network_tcpip, cswitch, profile, ...), EVENT_TRACE_FLAG_<NAME>, an xperf "
                                "group or a number");
        }
        m |= bits;
        ++count;
        if (cut == std::string_view::npos)
            break;
        rest.remove_prefix(cut + 1);
    }
    *mask = m;
    return Status::ok();
}

std::string format_kernel_flags(std::uint32_t mask)
{
    if (mask == 0)
        return "0";
    std::string out;
    std::uint32_t left = mask;
    for (const KernelFlag &f : kFlags) {
        if ((mask & f.value) == f.value) {
            if (!out.empty())
                out += ',';
            out += f.name;
            left &= ~f.value;
        }
    }
    if (left != 0) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%X", left);
        if (!out.empty())
            out += ',';
        out += hex;
    }
    return out;
}

} // namespace openetw::kernel
