// The system logger of Linux (system_logger.hpp): the sources a session's
// EnableFlags select, their records held and written in time order. Its
// control (flags, stacks, rundown) is in kernel_logger.cpp, its drain and
// the translation of each source's samples in kernel_logger_drain.cpp.
#pragma once

#include "kernel/disk_requests.hpp"
#include "kernel/file_io_tracker.hpp"
#include "kernel/hard_faults.hpp"
#include "kernel/logger_tracepoints.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/perf_process_source.hpp"
#include "kernel/profile_source.hpp"
#include "kernel/system_logger.hpp"
#include "kernel/tcp_connections.hpp"
#include "kernel/tracepoint_source.hpp"
#include "kernel/udp_datagrams.hpp"

#include <openetw/constants.h>

#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace openetw::kernel {

inline constexpr std::uint32_t kProcessFlags = ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD;
// The flags some source here records (NO_SYSCONFIG: the SystemConfig
// rundown, system_config.hpp, left out); the others are refused by name.
inline constexpr std::uint32_t kServed = kProcessFlags | ETW_FLAG_CSWITCH | ETW_FLAG_DISPATCHER |
                                         ETW_FLAG_NETWORK_TCPIP | ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT |
                                         ETW_FLAG_PROFILE | ETW_FLAG_SYSTEMCALL | ETW_FLAG_MEMORY_PAGE_FAULTS |
                                         ETW_FLAG_MEMORY_HARD_FAULTS | ETW_FLAG_NO_SYSCONFIG | kFileIoFlags;
// The flags that need tracepoints: CSWITCH's sched_switch, DISPATCHER's
// sched_wakeup, PROCESS's exit_group (the status Process/End carries, which
// perf's EXIT lacks), NETWORK_TCPIP's socket tracepoints, DISK_IO's block requests,
// SYSTEMCALL's raw_syscalls, MEMORY_PAGE_FAULTS' exceptions, FileIo's
// file system calls, MEMORY_HARD_FAULTS' filemap and major faults.
inline constexpr std::uint32_t kTracepointFlags = ETW_FLAG_CSWITCH | ETW_FLAG_DISPATCHER | ETW_FLAG_PROCESS |
                                                  ETW_FLAG_NETWORK_TCPIP | ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT |
                                                  ETW_FLAG_SYSTEMCALL | ETW_FLAG_MEMORY_PAGE_FAULTS |
                                                  ETW_FLAG_MEMORY_HARD_FAULTS | kFileIoFlags;
// Between drains: 256 KB rings per processor hold far more than 100 ms of a
// busy system's process, thread and image events.
inline constexpr std::uint32_t kDrainIntervalMs = 100;
// Every system call or page fault of the machine: 4 MB rings a processor,
// drained every 20 ms, hold 40000 samples a processor between drains (2
// million a second; docs/KERNEL_LOGGER.md has the rates measured). Context
// switches are drained as often: a processor can switch some 300000 times
// a second, which 100 ms of a 1 MB ring cannot hold (bench/PERFORMANCE.md).
// Sockets too: a datagram is up to four samples in each of its threads
// (the call's enter, its route, sock_*_length, the exit), 100000 a second
// overflowed 100 ms of 1 MB rings (docs/KERNEL_LOGGER.md, "UdpIp").
inline constexpr std::uint32_t kHighVolumeFlags = ETW_FLAG_SYSTEMCALL | ETW_FLAG_MEMORY_PAGE_FAULTS |
                                                  ETW_FLAG_MEMORY_HARD_FAULTS | ETW_FLAG_CSWITCH | kFileIoFlags |
                                                  ETW_FLAG_NETWORK_TCPIP;
inline constexpr std::uint32_t kHighVolumeDrainIntervalMs = 20;
// Records this recent (in 100 ns) wait for the next drain: see drain().
inline constexpr std::int64_t kHoldBack100ns = 10 * 10000; // 10 ms

class KernelLogger final : public SystemLogger {
public:
    KernelLogger(const SessionClock &clock, std::uint32_t max_record, const ProfileSettings &profile)
        : clock_(clock), max_record_(max_record), profile_settings_(profile)
    {}

    Status set_flags(std::uint32_t flags) override;
    std::uint32_t flags() const override { return flags_; }

    Status set_stacks(const StackEvents &stacks) override;

    Status set_profile_interval(std::uint32_t interval_100ns) override;

    void rundown(bool end, const SessionSink &sink) override;

    std::uint64_t drain(const SessionSink &sink, bool all) override;

    std::uint32_t drain_interval_ms() const override;

private:
    using Keep = std::function<void(std::uint32_t cpu, Bytes &&record)>;

    void translate(Tracepoints::Use use, const TracepointFormat &format, const TracepointSample &sample,
                   const PerfClock &clock, const Keep &sink);

    // The HardFault of a read, after the FileIo/Name of a file key of its
    // own when DISK_FILE_IO is on (hard_faults.hpp).
    void hard_fault(const HardFaultRead &read, std::uint32_t cpu, const PerfClock &clock, const Keep &sink);

    // A record held for writing, then its StackWalk when the stacks of its
    // event (HookId: at 6 in every system-logger header) are asked for.
    void keep_stacked(std::uint32_t cpu, std::int64_t ts, std::uint32_t pid, std::uint32_t tid,
                      std::span<const std::uint64_t> frames, Bytes &&r);

    // The SystemConfig records, stamped now by the logger thread.
    void write_system_config(const SessionSink &sink) const;

    Status open_profile(const ProfileSettings &settings, std::unique_ptr<ProfileSource> *out) const;
    Status open_tracepoints(std::uint32_t flags, const StackEvents &stacks,
                            std::unique_ptr<TracepointSource> *out) const;
    // The old source's samples still reach the session (next drain).
    void replace_tracepoints(std::unique_ptr<TracepointSource> next, std::uint32_t flags);
    // The old source's samples still reach the session (next drain).
    void replace_profile(std::unique_ptr<ProfileSource> next);

    // Writes the held records stamped up to until, oldest first (records of
    // one instant in the order they were made), keeping the others.
    void write_held(const SessionSink &sink, std::int64_t until);

    // The session clock against the perf clock, read now: each drain
    // anchors anew, so a rate measured once or slewed by NTP (the cycle
    // counter, FILETIME) errs over one drain interval at most.
    PerfClock capture() const { return PerfClock::capture(clock_.clock_type, clock_.cycle_hz); }

    SessionClock clock_;
    std::uint32_t max_record_;
    ProfileSettings profile_settings_;
    StackEvents stacks_; // whose records are followed by their StackWalk
    std::unique_ptr<ProfileSource> profile_;
    std::vector<std::unique_ptr<ProfileSource>> retired_profile_; // replaced by an update, drained once more
    std::uint32_t flags_ = 0;
    std::unique_ptr<PerfProcessSource> process_;
    std::vector<std::unique_ptr<PerfProcessSource>> retired_; // replaced by an update, drained once more
    std::unique_ptr<TracepointSource> tracepoints_;
    TcpConnections tcp_; // the connections' ends, across flag updates
    struct Held {
        std::int64_t time; // session clock
        std::uint32_t cpu;
        Bytes record;
    };
    std::vector<Held> held_;                        // read, not yet written: see drain
    std::unique_ptr<DiskRequests> disks_;           // requests issued, awaiting completion
    std::unique_ptr<FileIoTracker> file_io_;        // open files and calls in progress while a FileIo flag is on
    std::unique_ptr<UdpDatagrams> udp_;             // UDP sockets and calls in progress while NETWORK_TCPIP is on
    std::unique_ptr<HardFaultPairing> hard_faults_; // each thread's file fault start while HARD_FAULTS is on
    std::unique_ptr<HardFaultFiles> fault_files_;   // ... the FileObjects of its files and its pairs' check
    std::vector<Tracepoints::Use> tp_uses_;         // what each of tracepoints_ becomes
    std::vector<std::pair<std::unique_ptr<TracepointSource>, std::vector<Tracepoints::Use>>> retired_tp_;
};

} // namespace openetw::kernel
