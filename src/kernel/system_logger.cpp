// The system logger's sources for a session's EnableFlags
// (system_logger.hpp): which flags are served, the rundown, the live perf
// source of process, thread and image events, the tracepoints of the
// others (tracepoint_source.hpp), and the re-anchored clock.
#include "kernel/system_logger.hpp"

#include "base/utf.hpp"
#include "format/etl_layout.hpp"
#include "kernel/disk_requests.hpp"
#include "kernel/file_io_tracker.hpp"
#include "kernel/hard_faults.hpp"
#include "kernel/kernel_flags.hpp"
#include "kernel/logger_tracepoints.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/perf_process_source.hpp"
#include "kernel/pagefault_records.hpp"
#include "kernel/profile_records.hpp"
#include "kernel/profile_source.hpp"
#include "kernel/rundown.hpp"
#include "kernel/sched_records.hpp"
#include "kernel/net_records.hpp"
#include "kernel/syscall_records.hpp"
#include "kernel/system_config.hpp"
#include "kernel/tracepoint_records.hpp"
#include "kernel/tcp_connections.hpp"
#include "kernel/udp_datagrams.hpp"
#include "kernel/tracepoint_source.hpp"
#include "platform/clock.hpp"
#include "platform/proc_info.hpp"
#include "platform/process.hpp"

#include <openetw/constants.h>

#include <functional>
#include <vector>

namespace openetw::kernel {

namespace {

constexpr std::uint32_t kProcessFlags = ETW_FLAG_PROCESS | ETW_FLAG_THREAD | ETW_FLAG_IMAGE_LOAD;
// The flags some source here records (NO_SYSCONFIG: the SystemConfig
// rundown, system_config.hpp, left out); the others are refused by name.
constexpr std::uint32_t kServed = kProcessFlags | ETW_FLAG_CSWITCH | ETW_FLAG_DISPATCHER | ETW_FLAG_NETWORK_TCPIP |
                                  ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT | ETW_FLAG_PROFILE | ETW_FLAG_SYSTEMCALL |
                                  ETW_FLAG_MEMORY_PAGE_FAULTS | ETW_FLAG_MEMORY_HARD_FAULTS | ETW_FLAG_NO_SYSCONFIG |
                                  kFileIoFlags;
// The flags that need tracepoints: CSWITCH's sched_switch, DISPATCHER's
// sched_wakeup, PROCESS's exit_group (the status Process/End carries, which
// perf's EXIT lacks), NETWORK_TCPIP's socket tracepoints, DISK_IO's block requests,
// SYSTEMCALL's raw_syscalls, MEMORY_PAGE_FAULTS' exceptions, FileIo's
// file system calls, MEMORY_HARD_FAULTS' filemap and major faults.
constexpr std::uint32_t kTracepointFlags = ETW_FLAG_CSWITCH | ETW_FLAG_DISPATCHER | ETW_FLAG_PROCESS |
                                           ETW_FLAG_NETWORK_TCPIP | ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT |
                                           ETW_FLAG_SYSTEMCALL | ETW_FLAG_MEMORY_PAGE_FAULTS |
                                           ETW_FLAG_MEMORY_HARD_FAULTS | kFileIoFlags;
// Between drains: 256 KB rings per processor hold far more than 100 ms of a
// busy system's process, thread and image events.
constexpr std::uint32_t kDrainIntervalMs = 100;
// Every system call or page fault of the machine: 4 MB rings a processor,
// drained every 20 ms, hold 40000 samples a processor between drains (2
// million a second; docs/KERNEL_LOGGER.md has the rates measured). Context
// switches are drained as often: a processor can switch some 300000 times
// a second, which 100 ms of a 1 MB ring cannot hold (bench/PERFORMANCE.md).
// Sockets too: a datagram is up to four samples in each of its threads
// (the call's enter, its route, sock_*_length, the exit), 100000 a second
// overflowed 100 ms of 1 MB rings (docs/KERNEL_LOGGER.md, "UdpIp").
constexpr std::uint32_t kHighVolumeFlags = ETW_FLAG_SYSTEMCALL | ETW_FLAG_MEMORY_PAGE_FAULTS |
                                           ETW_FLAG_MEMORY_HARD_FAULTS | ETW_FLAG_CSWITCH | kFileIoFlags |
                                           ETW_FLAG_NETWORK_TCPIP;
constexpr std::uint32_t kHighVolumeDrainIntervalMs = 20;
// Records this recent (in 100 ns) wait for the next drain: see drain().
constexpr std::int64_t kHoldBack100ns = 10 * 10000; // 10 ms

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

// The whole disks, read once when DISK_IO starts: their order numbers them.
std::vector<BlockDisk> block_disks()
{
    std::vector<platform::SysBlockDisk> found;
    std::vector<BlockDisk> disks;
    if (platform::sys_block_disks(&found) != ETW_OK)
        return disks; // DiskNumber then says unknown (0xFFFFFFFF)
    for (const auto &d : found)
        disks.push_back({d.name, d.major, d.minor});
    return disks;
}

// A process's mappings (/proc/PID/maps) for HardFaultFiles' check.
bool read_mappings(std::uint32_t pid, std::vector<HardFaultMapping> *out)
{
    std::vector<platform::ProcMapping> maps;
    if (platform::proc_read_mappings(pid, &maps) != ETW_OK)
        return false;
    out->reserve(maps.size());
    for (auto &m : maps)
        out->push_back({m.start, m.end, m.offset, m.inode, std::move(m.path)});
    return true;
}

class KernelLogger final : public SystemLogger {
public:
    KernelLogger(const SessionClock &clock, std::uint32_t max_record, const ProfileSettings &profile)
        : clock_(clock), max_record_(max_record), profile_settings_(profile)
    {}

    Status set_flags(std::uint32_t flags) override
    {
        if (const std::uint32_t bad = unsupported_flags(flags))
            return Fail(ETW_ERROR_NOT_SUPPORTED,
                        "EnableFlags " + format_kernel_flags(bad) +
                            ": not recorded on this system (docs/KERNEL_LOGGER.md says which flags are and why)");
        // Both opened before anything is replaced: a failure leaves the flags
        // in force. The process source first: its refusal names the rights.
        const std::uint32_t want = flags & kProcessFlags;
        const bool process_change = want != (flags_ & kProcessFlags);
        std::unique_ptr<PerfProcessSource> next;
        if (process_change && want != 0) {
            next = std::make_unique<PerfProcessSource>(process_options(flags, capture(), max_record_));
            if (Status st = next->open(); !st)
                return st;
        }
        std::unique_ptr<TracepointSource> next_tp;
        const bool tp_change = (flags & kTracepointFlags) != (flags_ & kTracepointFlags);
        if (tp_change && (flags & kTracepointFlags) != 0)
            if (Status st = open_tracepoints(flags, stacks_, &next_tp); !st)
                return st;
        std::unique_ptr<ProfileSource> next_profile;
        const bool profile_change = (flags & ETW_FLAG_PROFILE) != (flags_ & ETW_FLAG_PROFILE);
        if (profile_change && (flags & ETW_FLAG_PROFILE))
            if (Status st = open_profile(profile_settings_, &next_profile); !st)
                return st;
        if (profile_change)
            replace_profile(std::move(next_profile));
        if (process_change) {
            if (process_) {
                // What the old rings hold still reaches the session (next drain).
                (void)process_->disable();
                retired_.push_back(std::move(process_));
            }
            process_ = std::move(next);
        }
        if ((flags & (ETW_FLAG_DISK_IO | ETW_FLAG_DISK_IO_INIT)) && !disks_)
            disks_ = std::make_unique<DiskRequests>(block_disks());
        if (!(flags & kFileIoFlags)) // its table would miss the closes while off
            file_io_.reset();
        else if (!file_io_)
            file_io_ = std::make_unique<FileIoTracker>(proc_process_reader(), platform::kPointerSize, max_record_);
        if (file_io_)
            file_io_->set_flags(flags);
        if (!(flags & ETW_FLAG_NETWORK_TCPIP)) // its sockets would miss the closes while off
            udp_.reset();
        else if (!udp_)
            udp_ = std::make_unique<UdpDatagrams>(proc_socket_reader(), platform::kPointerSize);
        // Turned off, the pairing stays until the next drain has settled what
        // the closed source held (drain).
        if ((flags & ETW_FLAG_MEMORY_HARD_FAULTS) && !hard_faults_) {
            fault_files_ = std::make_unique<HardFaultFiles>(read_mappings, HardFaultFiles::HeldKey{});
            hard_faults_ = std::make_unique<HardFaultPairing>(12, fault_files_->checker());
        }
        if (fault_files_) // FileIo's keys while its table runs (it may come and go with updates)
            fault_files_->set_held(file_io_ ? HardFaultFiles::HeldKey([this](const std::string &path) {
                return file_io_ ? file_io_->files().held_key(path) : 0;
            })
                                            : HardFaultFiles::HeldKey{});
        if (tp_change)
            replace_tracepoints(std::move(next_tp), flags);
        flags_ = flags;
        return Status::ok();
    }
    std::uint32_t flags() const override { return flags_; }

    Status set_stacks(const StackEvents &stacks) override
    {
        // Both opened before anything is replaced: a failure changes nothing.
        ProfileSettings next = profile_settings_;
        next.stacks = stacks.has(hook_id(kGroupPerfInfo, kTypeSampledProfile));
        std::unique_ptr<ProfileSource> reopened;
        const bool profile_change = profile_ && next.stacks != profile_settings_.stacks;
        if (profile_change)
            if (Status st = open_profile(next, &reopened); !st)
                return st;
        std::unique_ptr<TracepointSource> next_tp;
        const bool tp_change =
            tracepoints_ && !same_callchains(tracepoints_for(flags_, stacks_), tracepoints_for(flags_, stacks));
        if (tp_change)
            if (Status st = open_tracepoints(flags_, stacks, &next_tp); !st)
                return st;
        if (profile_change)
            replace_profile(std::move(reopened));
        if (tp_change)
            replace_tracepoints(std::move(next_tp), flags_);
        profile_settings_ = next;
        stacks_ = stacks;
        return Status::ok();
    }

    Status set_profile_interval(std::uint32_t interval_100ns) override
    {
        ProfileSettings next = profile_settings_;
        next.interval_100ns = interval_100ns;
        if (profile_ && interval_100ns != profile_settings_.interval_100ns) {
            std::unique_ptr<ProfileSource> reopened;
            if (Status st = open_profile(next, &reopened); !st)
                return st;
            replace_profile(std::move(reopened));
        }
        profile_settings_ = next;
        return Status::ok();
    }

    void rundown(bool end, const SessionSink &sink) override
    {
        if (end && !(flags_ & ETW_FLAG_NO_SYSCONFIG))
            write_system_config(sink); // as Windows ends a kernel trace (system_config.hpp)
        if (end && file_io_) {         // the names of the files still open (FileRundown), after the last drain
            const std::int64_t now = capture().to_session(std::uint64_t(platform::qpc_now()) * 100u);
            file_io_->rundown(now, platform::current_processor(), platform::process_id(), platform::thread_id(),
                              [&](std::uint32_t cpu, std::int64_t t, Bytes &&r, std::span<const std::uint64_t>) {
                                  held_.push_back({t, cpu, std::move(r)});
                              });
            write_held(sink, INT64_MAX);
        }
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
        // Held with the rest, sorted by time: events stamped before the
        // rundown but read from their ring after it still come first. The
        // DCEnd records follow the session's last drain and are written now.
        // (Fails only without /proc, where the live source could not open either.)
        (void)kernel::rundown(o, [&](Bytes &&r) { held_.push_back({o.timestamp, cpu, std::move(r)}); });
        if (end)
            write_held(sink, INT64_MAX);
    }

    std::uint64_t drain(const SessionSink &sink, bool all) override
    {
        const PerfClock clock = capture();
        // Everything stamped before this instant is in a ring by the time the
        // rings are read (perf writes a record microseconds after stamping it).
        const std::uint64_t now_ns = std::uint64_t(platform::qpc_now()) * 100u;
        const std::int64_t cutoff = clock.to_session(now_ns) - kHoldBack100ns;
        // The hard faults' events older than that are all read by now (hard_faults.hpp).
        const std::uint64_t settle_ns = all ? UINT64_MAX : now_ns - std::uint64_t(kHoldBack100ns) * 100u;
        std::uint64_t lost = 0;
        auto keep = [&](std::uint32_t cpu, std::int64_t time, Bytes &&r) {
            held_.push_back({time, cpu, std::move(r)});
        };
        auto drain_one = [&](PerfProcessSource &s, const std::function<void()> &after_read = {}) {
            s.set_clock(clock);
            const std::uint64_t before = s.counts().lost;
            (void)s.drain([&](Bytes &&r) { keep(s.record_cpu(), clock.to_session(s.record_time()), std::move(r)); },
                          after_read);
            lost += s.counts().lost - before;
        };
        auto settle_faults = [&](std::uint64_t until) {
            if (hard_faults_)
                hard_faults_->settle(until, [&](HardFaultPairing::Ended &&e) {
                    hard_fault(e.read, e.cpu, clock, [&](std::uint32_t cpu, Bytes &&r) {
                        keep_stacked(cpu, clock.to_session(e.read.end_ns), e.read.pid, e.read.tid, e.frames,
                                     std::move(r));
                    });
                });
        };
        auto drain_tracepoints = [&](TracepointSource &t, const std::vector<Tracepoints::Use> &uses) {
            // Samples it could not parse are lost too: counted, never dropped silently.
            const std::uint64_t before = t.lost() + t.malformed() + (udp_ ? udp_->malformed() : 0);
            (void)t.drain([&](const TracepointSample &sample) {
                if (uses[sample.tracepoint] == Tracepoints::Use::FileSyscall) {
                    if (file_io_)
                        file_io_->add(t.format(sample.tracepoint), sample);
                    return;
                }
                if (udp_ && (uses[sample.tracepoint] == Tracepoints::Use::UdpSyscall ||
                             uses[sample.tracepoint] == Tracepoints::Use::TcpSend ||
                             uses[sample.tracepoint] == Tracepoints::Use::TcpRecv))
                    udp_->add(t.format(sample.tracepoint), sample); // keeps the UDP ones
                translate(uses[sample.tracepoint], t.format(sample.tracepoint), sample, clock,
                          [&](std::uint32_t cpu, Bytes &&r) {
                              keep_stacked(cpu, clock.to_session(sample.time), sample.pid, sample.tid, sample.frames,
                                           std::move(r));
                          });
            });
            if (file_io_) // its records stamped by the tracker (a Create at its call's enter)
                file_io_->flush(
                    clock, [&](std::uint32_t cpu, std::int64_t ts, Bytes &&r, std::span<const std::uint64_t> frames) {
                        // ThreadId at 8, ProcessId at 12 of a SYSTEM_TRACE_HEADER.
                        keep_stacked(cpu, ts, etl::rd_le<std::uint32_t>(r.data() + 12),
                                     etl::rd_le<std::uint32_t>(r.data() + 8), frames, std::move(r));
                    });
            // The hard faults after the FileIo records (an open earlier in the
            // batch then gives its file FileIo's key), up to the drain's start.
            settle_faults(settle_ns);
            // Its samples of the last 9 ms wait, as the held records (a millisecond
            // less: none it makes is older than what was written): a buffer used
            // again soon after is then seen used (udp_datagrams.hpp).
            if (udp_)
                udp_->flush(clock, all ? UINT64_MAX : now_ns - std::uint64_t(kHoldBack100ns - 10000) * 100u,
                            [&](std::uint32_t cpu, std::int64_t ts, Bytes &&r, std::span<const std::uint64_t> frames) {
                                keep_stacked(cpu, ts, etl::rd_le<std::uint32_t>(r.data() + 12),
                                             etl::rd_le<std::uint32_t>(r.data() + 8), frames, std::move(r));
                            });
            lost += t.lost() + t.malformed() + (udp_ ? udp_->malformed() : 0) - before;
        };
        for (auto &[old, uses] : retired_tp_)
            drain_tracepoints(*old, uses);
        retired_tp_.clear();
        if (hard_faults_ && !(flags_ & ETW_FLAG_MEMORY_HARD_FAULTS)) { // turned off: the closed source is read
            settle_faults(UINT64_MAX);
            hard_faults_.reset();
            fault_files_.reset();
        }
        for (auto &old : retired_)
            drain_one(*old);
        retired_.clear();
        auto drain_profile = [&](ProfileSource &p) {
            const std::uint64_t before = p.lost();
            (void)p.drain(clock, [&](std::uint32_t cpu, std::uint64_t perf_time, Bytes &&r) {
                keep(cpu, clock.to_session(perf_time), std::move(r));
            });
            lost += p.lost() - before;
        };
        for (auto &old : retired_profile_)
            drain_profile(*old);
        retired_profile_.clear();
        if (profile_)
            drain_profile(*profile_);
        // The tracepoints are read after the process rings: an exit_group
        // precedes its EXIT record, so each EXIT read finds its status noted.
        auto tracepoints = [&] {
            if (tracepoints_)
                drain_tracepoints(*tracepoints_, tp_uses_);
        };
        if (process_)
            drain_one(*process_, tracepoints);
        else
            tracepoints();
        write_held(sink, all ? INT64_MAX : cutoff);
        return lost;
    }

    std::uint32_t drain_interval_ms() const override
    {
        return (flags_ & kHighVolumeFlags) ? kHighVolumeDrainIntervalMs : kDrainIntervalMs;
    }

private:
    using Keep = std::function<void(std::uint32_t cpu, Bytes &&record)>;

    void translate(Tracepoints::Use use, const TracepointFormat &format, const TracepointSample &sample,
                   const PerfClock &clock, const Keep &sink)
    {
        switch (use) {
        case Tracepoints::Use::CSwitch:
            if (Bytes r = cswitch_from_sample(format, sample, clock, platform::kPointerSize); !r.empty())
                sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::Ready:
            if (Bytes r = ready_thread_from_sample(format, sample, clock, platform::kPointerSize); !r.empty())
                sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::ExitStatus:
            if (process_)
                if (const auto status = exit_status_from_sample(format, sample))
                    process_->note_exit_status(sample.pid, *status, sample.time);
            return;
        case Tracepoints::Use::TcpState:
            tcp_.state_change(format, sample);
            return;
        case Tracepoints::Use::TcpProbe:
            tcp_.probe(format, sample);
            return;
        case Tracepoints::Use::TcpSend:
        case Tracepoints::Use::TcpRecv:
            if (Bytes r =
                    tcp_.transfer(use == Tracepoints::Use::TcpSend, format, sample, clock, platform::kPointerSize);
                !r.empty())
                sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::DiskIssue:
            if (disks_)
                if (Bytes r = disks_->issue(format, sample, clock, platform::kPointerSize,
                                            (flags_ & ETW_FLAG_DISK_IO) != 0, (flags_ & ETW_FLAG_DISK_IO_INIT) != 0);
                    !r.empty())
                    sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::DiskComplete:
            if (disks_)
                if (Bytes r = disks_->complete(format, sample, clock, platform::kPointerSize); !r.empty())
                    sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::SysEnter:
        case Tracepoints::Use::SysExit:
            if (Bytes r = use == Tracepoints::Use::SysEnter
                              ? syscall_enter_from_sample(format, sample, clock, platform::kPointerSize)
                              : syscall_exit_from_sample(format, sample, clock, platform::kPointerSize);
                !r.empty())
                sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::PageFault:
            if (Bytes r = page_fault_record_from_sample(format, sample, clock, platform::kPointerSize); !r.empty())
                sink(sample.cpu, std::move(r));
            return;
        case Tracepoints::Use::FilemapFault:
            if (hard_faults_)
                (void)hard_faults_->on_filemap_fault(format, sample);
            return;
        case Tracepoints::Use::PageCacheAdd:
            if (hard_faults_)
                (void)hard_faults_->on_page_cache_add(format, sample);
            return;
        case Tracepoints::Use::MajorFault:
            if (hard_faults_) // settled in drain, after the batch's FileIo records
                hard_faults_->on_major_fault(sample);
            return;
        case Tracepoints::Use::FileSyscall: // drain hands them to file_io_
        case Tracepoints::Use::UdpSyscall:  // ... and these to udp_
            return;
        case Tracepoints::Use::FatalSignal:
            if (process_)
                if (const auto status = fatal_signal_status_from_sample(format, sample))
                    process_->note_exit_status(sample.pid, *status, sample.time);
            return;
        }
    }

    // The HardFault of a read, after the FileIo/Name of a file key of its
    // own when DISK_FILE_IO is on (hard_faults.hpp).
    void hard_fault(const HardFaultRead &read, std::uint32_t cpu, const PerfClock &clock, const Keep &sink)
    {
        const HardFaultFiles::Key key = fault_files_->key_of(read.dev, read.ino, read.path);
        if (key.new_name && (flags_ & ETW_FLAG_DISK_FILE_IO)) {
            HeaderFields h;
            h.thread_id = read.tid;
            h.process_id = read.pid;
            h.timestamp = clock.to_session(read.end_ns);
            const Bytes payload = file_name_payload({key.file_object, utf8_to_utf16_lossy(key.path)},
                                                    platform::kPointerSize, max_record_);
            if (Bytes r = file_io_record(FileIoType::Name, h, payload, platform::kPointerSize);
                !r.empty() && r.size() <= max_record_)
                held_.push_back({h.timestamp, cpu, std::move(r)}); // no stack: Names are no event's
        }
        HardFaultFields f;
        f.initial_time = clock.to_session(read.initial_ns);
        f.read_offset = read.read_offset;
        f.virtual_address = read.address;
        f.file_object = key.file_object;
        f.thread_id = read.tid;
        f.byte_count = std::uint32_t(std::min<std::uint64_t>(read.bytes, UINT32_MAX));
        sink(cpu, hard_fault_record(clock.to_session(read.end_ns), f, platform::kPointerSize));
    }

    // A record held for writing, then its StackWalk when the stacks of its
    // event (HookId: at 6 in every system-logger header) are asked for.
    void keep_stacked(std::uint32_t cpu, std::int64_t ts, std::uint32_t pid, std::uint32_t tid,
                      std::span<const std::uint64_t> frames, Bytes &&r)
    {
        const bool stack = !frames.empty() && stacks_.has(etl::rd_le<std::uint16_t>(r.data() + 6));
        held_.push_back({ts, cpu, std::move(r)});
        if (!stack)
            return;
        const StackFields f{ts, pid, tid, {frames.begin(), frames.end()}};
        if (Bytes walk = stack_walk_record_within(ts, f, platform::kPointerSize, max_record_); !walk.empty())
            held_.push_back({ts, cpu, std::move(walk)});
    }

    // The SystemConfig records, stamped now by the logger thread.
    void write_system_config(const SessionSink &sink) const
    {
        SystemConfigOptions o;
        o.pointer_size = platform::kPointerSize;
        o.header.timestamp = capture().to_session(std::uint64_t(platform::qpc_now()) * 100u);
        o.header.thread_id = platform::thread_id();
        o.header.process_id = platform::process_id();
        const std::uint32_t cpu = platform::current_processor();
        system_config_rundown(o, [&](Bytes &&r) { sink(cpu, r.data(), std::uint32_t(r.size())); });
    }

    Status open_profile(const ProfileSettings &settings, std::unique_ptr<ProfileSource> *out) const
    {
        ProfileOptions o;
        o.interval_100ns = settings.interval_100ns;
        o.stacks = settings.stacks;
        o.pointer_size = platform::kPointerSize;
        o.max_record = max_record_;
        auto source = std::make_unique<ProfileSource>(o);
        if (Status st = source->open(); !st)
            return st;
        *out = std::move(source);
        return Status::ok();
    }
    Status open_tracepoints(std::uint32_t flags, const StackEvents &stacks,
                            std::unique_ptr<TracepointSource> *out) const
    {
        auto source = std::make_unique<TracepointSource>();
        if (Status st = source->open(tracepoints_for(flags, stacks).names, kTracepointPages); !st)
            return st;
        *out = std::move(source);
        return Status::ok();
    }
    // The old source's samples still reach the session (next drain).
    void replace_tracepoints(std::unique_ptr<TracepointSource> next, std::uint32_t flags)
    {
        if (tracepoints_) {
            tracepoints_->disable();
            retired_tp_.push_back({std::move(tracepoints_), tp_uses_});
        }
        tracepoints_ = std::move(next);
        tp_uses_ = tracepoints_for(flags, stacks_).uses;
    }
    // The old source's samples still reach the session (next drain).
    void replace_profile(std::unique_ptr<ProfileSource> next)
    {
        if (profile_) {
            (void)profile_->disable();
            retired_profile_.push_back(std::move(profile_));
        }
        profile_ = std::move(next);
    }

    // Writes the held records stamped up to until, oldest first (records of
    // one instant in the order they were made), keeping the others.
    void write_held(const SessionSink &sink, std::int64_t until)
    {
        std::stable_sort(held_.begin(), held_.end(), [](const Held &a, const Held &b) { return a.time < b.time; });
        std::size_t n = 0;
        for (; n < held_.size() && held_[n].time <= until; ++n)
            sink(held_[n].cpu, held_[n].record.data(), std::uint32_t(held_[n].record.size()));
        held_.erase(held_.begin(), held_.begin() + std::ptrdiff_t(n));
    }

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

} // namespace

std::uint32_t SystemLogger::unsupported_flags(std::uint32_t mask) { return mask & ~kServed; }

Status SystemLogger::open(std::uint32_t enable_flags, const SessionClock &clock, std::uint32_t max_record,
                          const ProfileSettings &profile, std::unique_ptr<SystemLogger> *out)
{
    auto logger = std::make_unique<KernelLogger>(clock, max_record, profile);
    if (Status st = logger->set_flags(enable_flags); !st)
        return st;
    *out = std::move(logger);
    return Status::ok();
}

} // namespace openetw::kernel
