#include "kernel/rundown.hpp"

#include "base/utf.hpp"
#include "format/kernel_class_guids.hpp"
#include "kernel/image_id_records.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace openetw::kernel {

namespace {

// STILL_ACTIVE: the exit status Windows gives a running process.
constexpr std::int32_t kStillActive = 259;

// Windows counts thread CPU time in clock ticks of 15.625 ms (the
// TimerResolution 156250 of its logfile headers).
constexpr std::uint64_t kTick100ns = 156250;

std::string base_name(std::string path)
{
    // A replaced or removed executable reads as "<path> (deleted)".
    static constexpr std::string_view kDeleted = " (deleted)";
    if (path.size() > kDeleted.size() && path.ends_with(kDeleted))
        path.resize(path.size() - kDeleted.size());
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::uint32_t ticks(std::uint64_t t100ns) { return std::uint32_t(std::min<std::uint64_t>(t100ns / kTick100ns, ~0u)); }

// Windows' base priorities run 1..15 for normal threads, 8 the default:
// nice -20..19 maps onto 15..2.
std::uint8_t base_priority(std::int32_t nice) { return std::uint8_t(std::clamp(8 - nice * 7 / 20, 1, 15)); }

const etw_guid kImageClassGuid = *etl::kernel_class_guid(kGroupImage);

// The Image records of process pid's mappings, each with its DbgID_RSDS.
void images_to(std::uint32_t pid, std::span<const platform::ProcMapping> maps, const HeaderFields &h,
               const RundownOptions &o, BuildIdCache &build_ids, const std::function<void(Bytes &&record)> &sink,
               RundownCounts &c)
{
    const Opcode type = o.end ? Opcode::DCEnd : Opcode::DCStart;
    for (const ImageSpan &img : images_of(maps)) {
        ImageFields f;
        f.image_base = img.base;
        f.image_size = img.size;
        f.process_id = pid;
        f.file_name = utf8_to_utf16_lossy(img.path);
        Bytes ir = o.classic ? encode_classic_record(kImageClassGuid, std::uint8_t(type), kImageVersion, h,
                                                     o.pointer_size, image_payload(f, o.pointer_size, o.max_record))
                             : image_record(type, h, f, o.pointer_size, o.max_record);
        if (ir.empty())
            continue;
        sink(std::move(ir));
        ++c.images;
        if (!o.build_ids || img.path.ends_with(" (deleted)"))
            continue;
        const std::vector<std::uint8_t> &id =
            build_ids.get(img.device + " " + std::to_string(img.inode) + " " + img.path, img.path);
        if (id.empty())
            continue;
        Bytes dr = dbgid_rsds_record(h, dbgid_from_build_id(id, img.base, pid, img.path), o.pointer_size, o.max_record);
        if (dr.empty())
            continue;
        sink(std::move(dr));
        ++c.build_ids;
    }
}

} // namespace

std::vector<ImageSpan> images_of(std::span<const platform::ProcMapping> mappings)
{
    struct Acc {
        std::size_t order;
        bool executable;
        ImageSpan span;
        std::uint64_t end;
    };
    std::map<std::tuple<std::string, std::uint64_t, std::string>, Acc> files;
    for (const platform::ProcMapping &m : mappings) {
        if (m.path.empty() || m.path.front() != '/' || m.inode == 0)
            continue;
        auto [it, fresh] = files.try_emplace({m.device, m.inode, m.path}, Acc{files.size(), false, {}, 0});
        Acc &a = it->second;
        if (fresh) {
            a.span.path = m.path;
            a.span.base = m.start;
            a.span.device = m.device;
            a.span.inode = m.inode;
        }
        a.span.base = std::min(a.span.base, m.start);
        a.end = std::max(a.end, m.end);
        a.executable = a.executable || (m.perms.size() > 2 && m.perms[2] == 'x');
    }
    std::vector<std::pair<std::uint64_t, ImageSpan>> found;
    for (auto &[key, a] : files) {
        if (!a.executable)
            continue;
        a.span.size = a.end - a.span.base;
        found.emplace_back(a.span.base, std::move(a.span));
    }
    std::sort(found.begin(), found.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    std::vector<ImageSpan> out;
    for (auto &f : found)
        out.push_back(std::move(f.second));
    return out;
}

ProcessFields process_fields(const platform::ProcProcess &p)
{
    ProcessFields f;
    // The kernel's EPROCESS address keys a process for its whole life; pid
    // and start time do the same across pid reuse (the start time is lost
    // in a 32-bit layout).
    f.unique_process_key = p.stat.start_time << 32 | p.pid;
    f.process_id = p.pid;
    f.parent_id = p.stat.ppid;
    f.session_id = p.stat.session;
    f.exit_status = kStillActive;
    f.user_sid = unix_user_sid(p.uid);
    // Kernel threads have no executable: their name is their comm, as Windows names "System".
    f.image_file_name = p.executable.empty() ? p.stat.comm : base_name(p.executable);
    std::string cmd = p.cmdline;
    while (!cmd.empty() && cmd.back() == '\0')
        cmd.pop_back();
    std::replace(cmd.begin(), cmd.end(), '\0', ' ');
    f.command_line = utf8_to_utf16_lossy(cmd);
    return f;
}

ThreadFields thread_fields(std::uint32_t pid, const platform::ProcTask &t)
{
    ThreadFields f;
    f.process_id = pid;
    f.thread_id = t.tid;
    f.affinity = t.affinity;
    f.base_priority = base_priority(t.nice);
    return f;
}

Status rundown(const RundownOptions &o, const std::function<void(Bytes &&record)> &sink, RundownCounts *counts)
{
    RundownCounts c;
    std::vector<std::uint32_t> pids;
    if (const etw_status s = platform::proc_list_processes(&pids); s != ETW_OK)
        return Fail(s, s == ETW_ERROR_NOT_SUPPORTED ? "the kernel rundown reads /proc, which this system does not have"
                                                    : "the kernel rundown cannot list the processes in /proc");
    const Opcode type = o.end ? Opcode::DCEnd : Opcode::DCStart;
    std::vector<std::uint32_t> tids;
    std::vector<platform::ProcMapping> maps;
    BuildIdCache build_ids(o.read_build_id);
    for (std::uint32_t pid : pids) {
        platform::ProcProcess p;
        if (platform::proc_read_process(pid, &p) != ETW_OK) {
            ++c.vanished;
            continue;
        }
        HeaderFields h;
        h.thread_id = pid;
        h.process_id = pid;
        h.timestamp = o.timestamp;
        h.kernel_time = ticks(p.stat.kernel_time);
        h.user_time = ticks(p.stat.user_time);
        const ProcessFields fields = process_fields(p);
        Bytes rec = process_record(type, h, fields, o.pointer_size, o.max_record);
        if (rec.empty())
            continue;
        if (o.on_process)
            o.on_process(fields);
        sink(std::move(rec));
        ++c.processes;
        if (o.threads && platform::proc_list_threads(pid, &tids) == ETW_OK) {
            for (std::uint32_t tid : tids) {
                platform::ProcTask t;
                if (platform::proc_read_thread(pid, tid, &t) != ETW_OK)
                    continue; // ended meanwhile
                HeaderFields th = h;
                th.thread_id = tid;
                th.kernel_time = ticks(t.kernel_time);
                th.user_time = ticks(t.user_time);
                sink(thread_record(type, th, thread_fields(pid, t), o.pointer_size));
                ++c.threads;
            }
        }
        if (!o.images)
            continue;
        const etw_status ms = platform::proc_read_mappings(pid, &maps);
        if (ms != ETW_OK) {
            c.images_unknown += ms == ETW_ERROR_ACCESS_DENIED;
            continue;
        }
        images_to(pid, maps, h, o, build_ids, sink, c);
    }
    if (counts)
        *counts = c;
    return Status::ok();
}

Status image_rundown(std::uint32_t pid, const RundownOptions &o, const std::function<void(Bytes &&record)> &sink,
                     RundownCounts *counts)
{
    std::vector<platform::ProcMapping> maps;
    if (const etw_status s = platform::proc_read_mappings(pid, &maps); s != ETW_OK)
        return Fail(s, "the mappings of process " + std::to_string(pid) + " cannot be read");
    HeaderFields h;
    h.thread_id = pid;
    h.process_id = pid;
    h.timestamp = o.timestamp;
    BuildIdCache build_ids(o.read_build_id);
    RundownCounts c;
    images_to(pid, maps, h, o, build_ids, sink, c);
    if (counts)
        *counts = c;
    return Status::ok();
}

} // namespace openetw::kernel
