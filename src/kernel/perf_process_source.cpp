#include "kernel/perf_process_source.hpp"

#include "base/utf.hpp"
#include "format/etl_layout.hpp"
#include "kernel/image_id_records.hpp"
#include "kernel/rundown.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

namespace openetw::kernel {

namespace {

constexpr std::int32_t kStillActive = 259; // a running process's ExitStatus, as Windows gives it
constexpr std::uint64_t kUserHz = 100;     // /proc's clock ticks (USER_HZ) per second

// perf's records are in the host's byte order: little-endian on every
// system this reads them on (x86-64, arm64).
using etl::rd32;
using etl::rd64;

// The sample_id_all fields that end a side-band record (perf_event.h's
// struct sample_id, in this order).
struct SampleId {
    std::uint32_t pid = 0, tid = 0;
    std::uint64_t time = 0;
    bool has_tid = false, has_time = false;
};

std::size_t sample_id_size(std::uint64_t type)
{
    std::size_t n = 0;
    for (std::uint64_t bit : {platform::kPerfSampleTid, platform::kPerfSampleTime, platform::kPerfSampleId,
                              platform::kPerfSampleStreamId, platform::kPerfSampleCpu, platform::kPerfSampleIdentifier})
        n += (type & bit) ? 8 : 0;
    return n;
}

SampleId sample_id(std::span<const std::uint8_t> r, std::uint64_t type)
{
    SampleId s;
    const std::size_t size = sample_id_size(type);
    if (r.size() < 8 + size)
        return s;
    const std::uint8_t *p = r.data() + r.size() - size;
    if (type & platform::kPerfSampleTid) {
        s.pid = rd32(p);
        s.tid = rd32(p + 4);
        s.has_tid = true;
        p += 8;
    }
    if (type & platform::kPerfSampleTime) {
        s.time = rd64(p);
        s.has_time = true;
    }
    return s;
}

// A NUL-terminated string of the record's body, between at and end.
std::string_view c_string(std::span<const std::uint8_t> r, std::size_t at, std::size_t end)
{
    const char *s = reinterpret_cast<const char *>(r.data() + at);
    return std::string_view(s, strnlen(s, end - at));
}

} // namespace

std::uint64_t perf_record_time(std::span<const std::uint8_t> record, std::uint64_t sample_type)
{
    return sample_id(record, sample_type).time;
}

PerfProcessSource::PerfProcessSource(PerfSourceOptions options, ProcessLookup lookup)
    : options_(std::move(options)), lookup_(std::move(lookup)), build_id_files_(options_.read_build_id)
{
    if (!lookup_)
        lookup_ = [](std::uint32_t pid, platform::ProcProcess *out) { return platform::proc_read_process(pid, out); };
}

platform::PerfEventSpec PerfProcessSource::spec(const PerfSourceRings &rings) const
{
    platform::PerfEventSpec s;
    s.task = options_.processes || options_.threads;
    s.comm = options_.processes;
    s.mmap2 = options_.images;
    s.mmap_build_id = options_.images && options_.build_ids;
    s.sample_type = options_.sample_type;
    s.data_pages = rings.data_pages;
    s.wakeup_bytes = rings.wakeup_bytes;
    return s;
}

void PerfProcessSource::remember(const ProcessFields &process) { processes_[process.process_id] = process; }

void PerfProcessSource::note_exit_status(std::uint32_t pid, std::int32_t status, std::uint64_t perf_time)
{
    std::vector<ExitNote> &notes = exit_notes_[pid];
    notes.push_back({perf_time, status});
    // Noted in time order per drain; kept sorted should two drains interleave.
    std::stable_sort(notes.begin(), notes.end(),
                     [](const ExitNote &a, const ExitNote &b) { return a.perf_time < b.perf_time; });
}

HeaderFields PerfProcessSource::header(const Context &c) const
{
    HeaderFields h;
    h.thread_id = c.tid;
    h.process_id = c.pid;
    h.timestamp = c.timestamp;
    return h;
}

ProcessFields *PerfProcessSource::known(std::uint32_t pid)
{
    if (auto it = processes_.find(pid); it != processes_.end())
        return &it->second;
    // A process that began before the source: what the system says of it now.
    platform::ProcProcess p;
    if (lookup_(pid, &p) != ETW_OK)
        return nullptr;
    return &(processes_[pid] = process_fields(p));
}

void PerfProcessSource::emit_process(Opcode type, const Context &c, const ProcessFields &p, const RecordSink &sink)
{
    Bytes rec = process_record(type, header(c), p, options_.pointer_size, options_.max_record);
    if (rec.empty())
        return;
    sink(std::move(rec));
    ++(type == Opcode::Start ? counts_.process_starts : counts_.process_ends);
}

void PerfProcessSource::emit_thread(Opcode type, const Context &c, std::uint32_t pid, std::uint32_t tid,
                                    const RecordSink &sink)
{
    ThreadFields t;
    t.process_id = pid;
    t.thread_id = tid;
    sink(thread_record(type, header(c), t, options_.pointer_size));
    ++(type == Opcode::Start ? counts_.thread_starts : counts_.thread_ends);
}

void PerfProcessSource::consume(std::span<const std::uint8_t> r, const RecordSink &sink)
{
    if (r.size() < 8) {
        ++counts_.malformed;
        return;
    }
    const std::uint32_t type = rd32(r.data());
    const std::size_t id_size = sample_id_size(options_.sample_type);
    // The body ends where the sample_id fields begin.
    const std::size_t body_end = r.size() >= 8 + id_size ? r.size() - id_size : 8;
    const SampleId id = sample_id(r, options_.sample_type);
    Context c;
    c.pid = id.pid;
    c.tid = id.tid;
    c.timestamp = options_.clock.to_session(id.time);
    c.perf_time = id.time;
    auto need = [&](std::size_t body) {
        if (body_end >= 8 + body)
            return true;
        ++counts_.malformed;
        return false;
    };
    switch (type) {
    case platform::kPerfRecordFork:
    case platform::kPerfRecordExit:
        // {pid, ppid, tid, ptid, time}
        if (!need(24))
            return;
        if (!id.has_time) {
            c.perf_time = rd64(r.data() + 24);
            c.timestamp = options_.clock.to_session(c.perf_time);
        }
        if (type == platform::kPerfRecordFork)
            on_fork(r, c, sink);
        else
            on_exit(r, c, sink);
        return;
    case platform::kPerfRecordComm:
        // {pid, tid, comm[]}
        if (!need(9))
            return;
        on_comm(r, body_end, c, sink);
        return;
    case platform::kPerfRecordMmap2:
        // {pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags, filename[]};
        // with kPerfMiscMmapBuildId {build_id_size, 3 reserved, build_id[20]} in place of maj..ino_generation
        if (!need(65))
            return;
        on_mmap2(r, body_end, c, sink);
        return;
    case platform::kPerfRecordLost:
        return; // its drops are in the drain's count (perf_events.hpp), taken there
    default:
        ++counts_.ignored;
        return;
    }
}

void PerfProcessSource::on_fork(std::span<const std::uint8_t> r, const Context &ctx, const RecordSink &sink)
{
    const std::uint32_t pid = rd32(r.data() + 8), ppid = rd32(r.data() + 12), tid = rd32(r.data() + 16);
    Context c = ctx;
    if (c.pid == 0 && c.tid == 0) { // no sample_id TID: the creator is the parent
        c.pid = ppid;
        c.tid = rd32(r.data() + 20);
    }
    if (pid != tid) { // a thread of an existing process
        if (options_.threads)
            emit_thread(Opcode::Start, c, pid, tid, sink);
        else
            ++counts_.ignored;
        return;
    }
    if (options_.processes) {
        // The child is a copy of its parent until it execs: it runs the
        // parent's image with the parent's command line and user.
        ProcessFields f;
        platform::ProcProcess child;
        const bool readable = lookup_(pid, &child) == ETW_OK;
        if (const ProcessFields *parent = known(ppid))
            f = *parent;
        else if (readable)
            f = process_fields(child);
        f.process_id = pid;
        f.parent_id = ppid;
        f.exit_status = kStillActive;
        // The rundown's key (start time << 32 | pid), so that the DCEnd of
        // this process carries the same one.
        const std::uint64_t start = readable ? child.stat.start_time : rd64(r.data() + 24) / (1'000'000'000 / kUserHz);
        f.unique_process_key = start << 32 | pid;
        if (readable)
            f.session_id = child.stat.session;
        emit_process(Opcode::Start, c, f, sink);
        processes_[pid] = std::move(f);
    }
    if (options_.threads)
        emit_thread(Opcode::Start, c, pid, tid, sink);
}

void PerfProcessSource::on_exit(std::span<const std::uint8_t> r, const Context &ctx, const RecordSink &sink)
{
    const std::uint32_t pid = rd32(r.data() + 8), ppid = rd32(r.data() + 12), tid = rd32(r.data() + 16);
    Context c = ctx;
    if (c.pid == 0 && c.tid == 0) {
        c.pid = pid;
        c.tid = tid;
    }
    if (options_.threads)
        emit_thread(Opcode::End, c, pid, tid, sink);
    if (pid != tid || !options_.processes) {
        counts_.ignored += !options_.threads;
        return;
    }
    // (No lookup: an exited process reads as gone.)
    ProcessFields f;
    if (auto it = processes_.find(pid); it != processes_.end()) {
        f = std::move(it->second);
        processes_.erase(it);
    } else {
        f.process_id = pid;
        f.parent_id = ppid;
    }
    // perf does not say: the first status noted (exit_group's, or the fatal
    // signal's), else 0 (docs/KERNEL_LOGGER.md).
    f.exit_status = 0;
    if (auto it = exit_notes_.find(pid); it != exit_notes_.end()) {
        if (!it->second.empty() && it->second.front().perf_time <= c.perf_time)
            f.exit_status = it->second.front().status;
        exit_notes_.erase(it); // later ones would be of a reused pid: dropped with it
    }
    emit_process(Opcode::End, c, f, sink);
}

void PerfProcessSource::on_comm(std::span<const std::uint8_t> r, std::size_t body_end, const Context &ctx,
                                const RecordSink &sink)
{
    std::uint16_t misc;
    std::memcpy(&misc, r.data() + 4, sizeof misc);
    if (!(misc & platform::kPerfMiscCommExec) || !options_.processes) {
        ++counts_.ignored; // a thread renamed itself: Windows' kernel classes have no such event
        return;
    }
    const std::uint32_t pid = rd32(r.data() + 8), tid = rd32(r.data() + 12);
    const std::string_view comm = c_string(r, 16, body_end);
    Context c = ctx;
    if (c.pid == 0 && c.tid == 0) {
        c.pid = pid;
        c.tid = tid;
    }
    ++counts_.execs;
    // exec kills the process's other threads with SIGKILL: no ending.
    if (auto it = exit_notes_.find(pid); it != exit_notes_.end()) {
        std::erase_if(it->second, [&](const ExitNote &n) { return n.perf_time <= c.perf_time; });
        if (it->second.empty())
            exit_notes_.erase(it);
    }
    // Windows has no exec: the old image ends and the new one starts, under
    // the same pid and key (the same kernel process), each with its thread.
    ProcessFields old;
    if (auto it = processes_.find(pid); it != processes_.end()) {
        old = std::move(it->second);
        processes_.erase(it);
    } else {
        old.process_id = pid;
    }
    if (options_.threads)
        emit_thread(Opcode::End, c, pid, tid, sink);
    ProcessFields ended = old;
    ended.exit_status = 0;
    emit_process(Opcode::End, c, ended, sink);

    ProcessFields f;
    platform::ProcProcess p;
    if (lookup_(pid, &p) == ETW_OK) {
        f = process_fields(p);
        if (old.unique_process_key != 0)
            f.unique_process_key = old.unique_process_key;
    } else {
        // Gone already (or no longer this image's): the name exec gave it.
        f = old;
        f.image_file_name = std::string(comm);
        f.command_line = utf8_to_utf16_lossy(comm);
    }
    f.process_id = pid;
    f.exit_status = kStillActive;
    emit_process(Opcode::Start, c, f, sink);
    if (options_.threads)
        emit_thread(Opcode::Start, c, pid, tid, sink);
    processes_[pid] = std::move(f);
}

void PerfProcessSource::on_mmap2(std::span<const std::uint8_t> r, std::size_t body_end, const Context &ctx,
                                 const RecordSink &sink)
{
    const std::uint32_t pid = rd32(r.data() + 8), tid = rd32(r.data() + 12);
    const std::uint64_t addr = rd64(r.data() + 16), len = rd64(r.data() + 24), pgoff = rd64(r.data() + 32);
    const std::uint32_t prot = rd32(r.data() + 64);
    const std::string_view name = c_string(r, 72, body_end);
    // Executable mappings of files; "//anon" (JIT code), "[vdso]" and the like are no image.
    if (!options_.images || !(prot & platform::kPerfProtExec) || name.empty() || name.front() != '/' ||
        name.starts_with("//")) {
        ++counts_.ignored;
        return;
    }
    Context c = ctx;
    if (c.pid == 0 && c.tid == 0) {
        c.pid = pid;
        c.tid = tid;
    }
    ImageFields f;
    // The file's load address: where its offset 0 would be. The size runs
    // to the end of the executable mapping (the code, what addresses are
    // resolved against); later data mappings are not reported by perf.
    f.image_base = pgoff <= addr ? addr - pgoff : addr;
    f.image_size = len + (addr - f.image_base);
    f.process_id = pid;
    f.file_name = utf8_to_utf16_lossy(name);
    Bytes rec = image_record(Opcode::Load, header(c), f, options_.pointer_size, options_.max_record);
    if (rec.empty())
        return;
    sink(std::move(rec));
    ++counts_.images;
    if (!options_.build_ids)
        return;
    std::uint16_t misc;
    std::memcpy(&misc, r.data() + 4, sizeof misc);
    std::vector<std::uint8_t> id;
    if (misc & platform::kPerfMiscMmapBuildId) {
        id.assign(r.begin() + 44, r.begin() + 44 + std::min<std::size_t>(r[40], 20));
    } else {
        // The kernel could not read it (or was not asked): the file's, as
        // far as its path still names the mapped file (device and inode
        // key the cache, so a replaced file is read anew).
        const std::string path(name);
        const std::string key = std::to_string(rd32(r.data() + 40)) + ":" + std::to_string(rd32(r.data() + 44)) + " " +
                                std::to_string(rd64(r.data() + 48)) + " " + path;
        id = build_id_files_.get(key, path);
        counts_.build_ids_read += !id.empty();
    }
    if (id.empty())
        return;
    Bytes dr = dbgid_rsds_record(header(c), dbgid_from_build_id(id, f.image_base, pid, std::string(name)),
                                 options_.pointer_size, options_.max_record);
    if (dr.empty())
        return;
    sink(std::move(dr));
    ++counts_.build_ids;
}

Status PerfProcessSource::open(const PerfSourceRings &rings)
{
    if (Status s = events_.open(spec(rings)); !s)
        return s;
    if (Status s = events_.enable(); !s) {
        events_.close();
        return s;
    }
    return Status::ok();
}

Status PerfProcessSource::drain(const RecordSink &sink, const std::function<void()> &after_read)
{
    // Each processor's ring is in time order, the rings are not with each
    // other: a fork read from one must come before the exec read from another.
    struct Read {
        std::uint64_t time;
        std::uint32_t cpu;
        Bytes bytes;
    };
    std::vector<Read> batch;
    platform::PerfDrainCounts dc;
    const Status s = events_.drain(
        [&](const platform::PerfRecord &r) {
            batch.push_back(
                {perf_record_time(r.bytes, options_.sample_type), r.cpu, Bytes(r.bytes.begin(), r.bytes.end())});
        },
        &dc);
    counts_.malformed += dc.malformed;
    counts_.lost += dc.lost;
    if (after_read)
        after_read();
    std::stable_sort(batch.begin(), batch.end(), [](const Read &a, const Read &b) { return a.time < b.time; });
    for (const Read &r : batch) {
        record_cpu_ = r.cpu;
        record_time_ = r.time;
        consume(r.bytes, sink);
    }
    return s;
}

} // namespace openetw::kernel
