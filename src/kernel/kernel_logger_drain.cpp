// The system logger's drain: each source's samples read, translated into
// Windows' kernel records (with their StackWalk when asked) and written in
// time order (kernel_logger.hpp).
#include "kernel/kernel_logger.hpp"

#include "base/utf.hpp"
#include "format/etl_layout.hpp"
#include "kernel/file_io_records.hpp"
#include "kernel/pagefault_records.hpp"
#include "kernel/profile_records.hpp"
#include "kernel/syscall_records.hpp"
#include "kernel/tracepoint_records.hpp"
#include "platform/clock.hpp"
#include "platform/process.hpp"

#include <algorithm>

namespace openetw::kernel {

std::uint64_t KernelLogger::drain(const SessionSink &sink, bool all)
{
    const PerfClock clock = capture();
    // Everything stamped before this instant is in a ring by the time the
    // rings are read (perf writes a record microseconds after stamping it).
    const std::uint64_t now_ns = std::uint64_t(platform::qpc_now()) * 100u;
    const std::int64_t cutoff = clock.to_session(now_ns) - kHoldBack100ns;
    // The hard faults' events older than that are all read by now (hard_faults.hpp).
    const std::uint64_t settle_ns = all ? UINT64_MAX : now_ns - std::uint64_t(kHoldBack100ns) * 100u;
    std::uint64_t lost = 0;
    auto keep = [&](std::uint32_t cpu, std::int64_t time, Bytes &&r) { held_.push_back({time, cpu, std::move(r)}); };
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
                    keep_stacked(cpu, clock.to_session(e.read.end_ns), e.read.pid, e.read.tid, e.frames, std::move(r));
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
            file_io_->flush(clock,
                            [&](std::uint32_t cpu, std::int64_t ts, Bytes &&r, std::span<const std::uint64_t> frames) {
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
    if (!all) {
        write_held(sink, cutoff);
        return lost;
    }
    // The last drain ends the session when it begins. What the sources
    // recorded while it read them, one ring after another, happened after
    // that: a ring read early would lack it and one read late hold it, so a
    // system call read late would leave only its exit (the other half of a
    // pair) in the trace. Those records are not written.
    write_held(sink, clock.to_session(now_ns));
    held_.clear();
    return lost;
}

std::uint32_t KernelLogger::drain_interval_ms() const
{
    return (flags_ & kHighVolumeFlags) ? kHighVolumeDrainIntervalMs : kDrainIntervalMs;
}

void KernelLogger::translate(Tracepoints::Use use, const TracepointFormat &format, const TracepointSample &sample,
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
        if (Bytes r = tcp_.transfer(use == Tracepoints::Use::TcpSend, format, sample, clock, platform::kPointerSize);
            !r.empty())
            sink(sample.cpu, std::move(r));
        return;
    case Tracepoints::Use::DiskIssue:
        if (disks_)
            if (Bytes r = disks_->issue(format, sample, clock, platform::kPointerSize, (flags_ & ETW_FLAG_DISK_IO) != 0,
                                        (flags_ & ETW_FLAG_DISK_IO_INIT) != 0);
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

void KernelLogger::hard_fault(const HardFaultRead &read, std::uint32_t cpu, const PerfClock &clock, const Keep &sink)
{
    const HardFaultFiles::Key key = fault_files_->key_of(read.dev, read.ino, read.path);
    if (key.new_name && (flags_ & ETW_FLAG_DISK_FILE_IO)) {
        HeaderFields h;
        h.thread_id = read.tid;
        h.process_id = read.pid;
        h.timestamp = clock.to_session(read.end_ns);
        const Bytes payload =
            file_name_payload({key.file_object, utf8_to_utf16_lossy(key.path)}, platform::kPointerSize, max_record_);
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

void KernelLogger::keep_stacked(std::uint32_t cpu, std::int64_t ts, std::uint32_t pid, std::uint32_t tid,
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

} // namespace openetw::kernel
