// The system logger's control: which sources the flags and stack settings
// open, and the rundown of what runs (kernel_logger.hpp).
#include "kernel/kernel_logger.hpp"

#include "kernel/kernel_flags.hpp"
#include "kernel/profile_records.hpp"
#include "kernel/rundown.hpp"
#include "kernel/system_config.hpp"
#include "platform/clock.hpp"
#include "platform/proc_info.hpp"
#include "platform/process.hpp"

#include <algorithm>

namespace openetw::kernel {

namespace {

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

} // namespace

Status KernelLogger::set_flags(std::uint32_t flags)
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

Status KernelLogger::set_stacks(const StackEvents &stacks)
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

Status KernelLogger::set_profile_interval(std::uint32_t interval_100ns)
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

void KernelLogger::rundown(bool end, const SessionSink &sink)
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

void KernelLogger::write_system_config(const SessionSink &sink) const
{
    SystemConfigOptions o;
    o.pointer_size = platform::kPointerSize;
    o.header.timestamp = capture().to_session(std::uint64_t(platform::qpc_now()) * 100u);
    o.header.thread_id = platform::thread_id();
    o.header.process_id = platform::process_id();
    const std::uint32_t cpu = platform::current_processor();
    system_config_rundown(o, [&](Bytes &&r) { sink(cpu, r.data(), std::uint32_t(r.size())); });
}

Status KernelLogger::open_profile(const ProfileSettings &settings, std::unique_ptr<ProfileSource> *out) const
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

Status KernelLogger::open_tracepoints(std::uint32_t flags, const StackEvents &stacks,
                                      std::unique_ptr<TracepointSource> *out) const
{
    auto source = std::make_unique<TracepointSource>();
    if (Status st = source->open(tracepoints_for(flags, stacks).names, kTracepointPages); !st)
        return st;
    *out = std::move(source);
    return Status::ok();
}

void KernelLogger::replace_tracepoints(std::unique_ptr<TracepointSource> next, std::uint32_t flags)
{
    if (tracepoints_) {
        tracepoints_->disable();
        retired_tp_.push_back({std::move(tracepoints_), tp_uses_});
    }
    tracepoints_ = std::move(next);
    tp_uses_ = tracepoints_for(flags, stacks_).uses;
}

void KernelLogger::replace_profile(std::unique_ptr<ProfileSource> next)
{
    if (profile_) {
        (void)profile_->disable();
        retired_profile_.push_back(std::move(profile_));
    }
    profile_ = std::move(next);
}

void KernelLogger::write_held(const SessionSink &sink, std::int64_t until)
{
    std::stable_sort(held_.begin(), held_.end(), [](const Held &a, const Held &b) { return a.time < b.time; });
    std::size_t n = 0;
    for (; n < held_.size() && held_[n].time <= until; ++n)
        sink(held_[n].cpu, held_[n].record.data(), std::uint32_t(held_[n].record.size()));
    held_.erase(held_.begin(), held_.begin() + std::ptrdiff_t(n));
}

} // namespace openetw::kernel
