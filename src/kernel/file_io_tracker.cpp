#include "kernel/file_io_tracker.hpp"

#include "kernel/disk_records.hpp"
#include "kernel/file_status.hpp"
#include "platform/proc_files.hpp"

#include <openetw/constants.h>

#include <chrono>
#include <cstring>

namespace openetw::kernel {

namespace {

// Linux's open flags, as this machine numbers them.
const platform::OpenFlagBits kO = platform::open_flag_bits();
constexpr int kAtFdCwd = -100;
// NtCreateFile's CreateOptions (wdm.h).
constexpr std::uint32_t kFileDirectoryFile = 0x1, kFileWriteThrough = 0x2, kFileNoIntermediateBuffering = 0x8,
                        kFileSynchronousIoNonAlert = 0x20;
// Linux locks nothing at open: every sharing allowed (FILE_SHARE_READ | WRITE | DELETE).
constexpr std::uint32_t kShareAll = 7;
// A path read from a process is cut here (PATH_MAX).
constexpr std::size_t kMaxPath = 4096;
// How often ended processes' descriptors and calls are let go (perf ns).
constexpr std::uint64_t kSweepNs = 1000000000;

int as_fd(std::uint64_t v) { return int(std::int32_t(std::uint32_t(v))); }

std::u16string utf16(const std::string &s)
{
    // Paths are bytes on Linux: UTF-8 decoded, anything else kept as Latin-1.
    std::u16string out;
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        std::uint32_t cp = c;
        std::size_t n = 1;
        if (c >= 0xC0 && c < 0xE0 && i + 1 < s.size())
            cp = (c & 0x1Fu) << 6 | (s[i + 1] & 0x3F), n = 2;
        else if (c >= 0xE0 && c < 0xF0 && i + 2 < s.size())
            cp = (c & 0x0Fu) << 12 | (s[i + 1] & 0x3F) << 6 | (s[i + 2] & 0x3F), n = 3;
        else if (c >= 0xF0 && i + 3 < s.size())
            cp = (c & 0x07u) << 18 | (s[i + 1] & 0x3F) << 12 | (s[i + 2] & 0x3F) << 6 | (s[i + 3] & 0x3F), n = 4;
        if (cp >= 0x10000) {
            out.push_back(char16_t(0xD800 + ((cp - 0x10000) >> 10)));
            out.push_back(char16_t(0xDC00 + ((cp - 0x10000) & 0x3FF)));
        } else {
            out.push_back(char16_t(cp));
        }
        i += n;
    }
    return out;
}

// A path as a process passes it: UTF-8 without control characters. The
// string is read after the call, from memory the process may have reused
// for other bytes meanwhile: those are not taken for a name.
bool plausible_path(const std::string &s)
{
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || c < 0x20 || c == 0x7F || i + n > s.size())
            return false;
        for (std::size_t k = 1; k < n; ++k)
            if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80)
                return false;
        i += n;
    }
    return true;
}

std::string join(const std::string &dir, const std::string &path)
{
    if (path.empty() || path[0] == '/')
        return path;
    return dir == "/" ? "/" + path : dir + "/" + path;
}

} // namespace

const std::vector<FileIoTracepoint> &file_io_tracepoints()
{
    static const std::vector<FileIoTracepoint> names = {
        {"sys_enter_openat", false, false},
        {"sys_exit_openat", false, false},
        {"sys_enter_read", false, true},
        {"sys_exit_read", false, true},
        {"sys_enter_write", false, true},
        {"sys_exit_write", false, true},
        {"sys_enter_pread64", false, true},
        {"sys_exit_pread64", false, true},
        {"sys_enter_pwrite64", false, true},
        {"sys_exit_pwrite64", false, true},
        {"sys_enter_close", false, false},
        {"sys_exit_close", false, false},
        {"sys_enter_fsync", false, false},
        {"sys_exit_fsync", false, false},
        {"sys_enter_fdatasync", false, false},
        {"sys_exit_fdatasync", false, false},
        {"sys_enter_lseek", false, false},
        {"sys_exit_lseek", false, false},
        {"sys_enter_unlinkat", false, false},
        {"sys_exit_unlinkat", false, false},
        {"sys_enter_renameat2", false, false},
        {"sys_exit_renameat2", false, false},
        // The legacy calls glibc still makes on x86-64 (arm64 lacks them).
        {"sys_enter_unlink", true, false},
        {"sys_exit_unlink", true, false},
        {"sys_enter_rename", true, false},
        {"sys_exit_rename", true, false},
        {"sys_enter_renameat", true, false},
        {"sys_exit_renameat", true, false},
        // A descriptor replaced without a close: dup2/dup3 onto it, exec
        // closing the O_CLOEXEC ones (its entries are looked up anew).
        {"sys_exit_dup2", true, false},
        {"sys_exit_dup3", false, false},
        {"sys_exit_execve", false, false},
        {"sys_exit_execveat", true, false},
    };
    return names;
}

std::uint32_t create_options_from_open_flags(std::uint32_t flags)
{
    std::uint32_t disposition = kFileOpen;
    if ((flags & kO.creat) && (flags & kO.excl))
        disposition = kFileCreate;
    else if ((flags & kO.creat) && (flags & kO.trunc))
        disposition = kFileOverwriteIf;
    else if (flags & kO.creat)
        disposition = kFileOpenIf;
    else if (flags & kO.trunc)
        disposition = kFileOverwrite;
    std::uint32_t options = kFileSynchronousIoNonAlert; // Linux I/O completes in the call
    if (flags & kO.directory)
        options |= kFileDirectoryFile;
    if (flags & kO.dsync) // O_SYNC includes O_DSYNC
        options |= kFileWriteThrough;
    if (flags & kO.direct)
        options |= kFileNoIntermediateBuffering;
    return disposition << 24 | options;
}

std::uint32_t create_result(std::uint32_t flags, bool born_during_call)
{
    if ((flags & kO.creat) && ((flags & kO.excl) || born_during_call))
        return kFileCreated;
    return (flags & kO.trunc) ? kFileOverwritten : kFileOpened;
}

ProcessReader proc_process_reader()
{
    ProcessReader r;
    r.fd = [](std::uint32_t pid, int fd, FdTarget *out) {
        platform::ProcFdFile f;
        if (platform::proc_fd_file(pid, fd, &f) != ETW_OK)
            return false;
        *out = {std::move(f.target), f.pos, f.flags, f.birth_ns};
        return true;
    };
    r.dir = [](std::uint32_t pid, int dirfd, std::string *out) {
        return platform::proc_dir_path(pid, dirfd, out) == ETW_OK;
    };
    r.string = [](std::uint32_t pid, std::uint64_t address, std::string *out) {
        return platform::proc_user_string(pid, address, kMaxPath, out) == ETW_OK;
    };
    r.alive = [](std::uint32_t pid) { return platform::proc_exists(pid); };
    return r;
}

FileIoTracker::FileIoTracker(ProcessReader reader, std::uint32_t pointer_size, std::size_t max_record)
    : reader_(std::move(reader)), files_(reader_.fd), pointer_size_(pointer_size), max_record_(max_record)
{}

const FileIoTracker::Kind &FileIoTracker::kind_of(const TracepointFormat &format)
{
    if (const auto k = kinds_.find(format.id()); k != kinds_.end())
        return k->second;
    static const std::pair<const char *, Call> calls[] = {
        {"openat", Call::Open},     {"read", Call::Read},       {"write", Call::Write},   {"pread64", Call::PRead},
        {"pwrite64", Call::PWrite}, {"close", Call::Close},     {"fsync", Call::Flush},   {"fdatasync", Call::Flush},
        {"lseek", Call::Seek},      {"unlinkat", Call::Unlink}, {"unlink", Call::Unlink}, {"renameat2", Call::Rename},
        {"renameat", Call::Rename}, {"rename", Call::Rename},   {"dup2", Call::Dup},      {"dup3", Call::Dup},
        {"execve", Call::Exec},     {"execveat", Call::Exec},
    };
    Kind k;
    std::string name = format.name();
    k.exit = name.rfind("sys_exit_", 0) == 0;
    name = name.substr(k.exit ? 9 : name.rfind("sys_enter_", 0) == 0 ? 10 : 0);
    for (const auto &[n, c] : calls)
        if (name == n)
            k.call = c;
    k.at = name == "openat" || name == "unlinkat" || name == "renameat" || name == "renameat2";
    return kinds_[format.id()] = k;
}

void FileIoTracker::add(const TracepointFormat &format, const TracepointSample &sample)
{
    if (kind_of(format).call == Call::None)
        return;
    Added a{&format, sample, {sample.raw.begin(), sample.raw.end()}, {sample.frames.begin(), sample.frames.end()}};
    batch_.push_back(std::move(a));
}

void FileIoTracker::flush(const PerfClock &clock, const Emit &emit)
{
    const auto fd_key = [](std::uint32_t pid, int fd) { return std::uint64_t(pid) << 32 | std::uint32_t(fd); };
    last_close_.clear();
    last_made_.clear();
    for (std::size_t i = 0; i < batch_.size(); ++i) {
        Added &a = batch_[i];
        a.sample.raw = a.raw;
        a.sample.frames = a.frames;
        const Kind &k = kind_of(*a.format);
        if (k.call == Call::Close && !k.exit)
            last_close_[fd_key(a.sample.pid, as_fd(a.format->u(a.raw, "fd").value_or(~0ull)))] = i;
        if ((k.call == Call::Open || k.call == Call::Dup) && k.exit)
            last_made_[fd_key(a.sample.pid, as_fd(a.format->u(a.raw, "ret").value_or(~0ull)))] = i;
    }
    for (at_ = 0; at_ < batch_.size(); ++at_)
        on_sample(*batch_[at_].format, batch_[at_].sample, clock, emit);
    batch_.clear();
}

void FileIoTracker::on_sample(const TracepointFormat &format, const TracepointSample &s, const PerfClock &clock,
                              const Emit &emit)
{
    const Kind &k = kind_of(format);
    if (k.call == Call::None)
        return;
    const std::int64_t time = clock.to_session(s.time);
    if (k.call == Call::Dup || k.call == Call::Exec) {
        // No FileIo record (Windows' handle duplication and process start
        // make none): the table forgets what the call replaced.
        const auto ret = format.i(s.raw, "ret");
        if (ret && *ret >= 0 && k.call == Call::Dup)
            (void)files_.closed(s.pid, int(*ret));
        else if (ret && *ret == 0 && k.call == Call::Exec)
            files_.forget_process(s.pid);
    } else if (!k.exit) {
        on_enter(k.call, k.at, format, s, time, emit);
    } else if (const auto p = pending_.find(s.tid); p != pending_.end()) {
        Pending call = std::move(p->second);
        pending_.erase(p);
        const auto ret = format.i(s.raw, "ret");
        if (ret && call.call == k.call)
            on_exit(std::move(call), *ret, s, time, emit);
    }
    if (s.time > last_sweep_ns_ + kSweepNs)
        sweep(s.time);
}

void FileIoTracker::on_enter(Call call, bool at, const TracepointFormat &f, const TracepointSample &s,
                             std::int64_t time, const Emit &emit)
{
    pending_.erase(s.tid); // a call whose exit was not seen (lost, or before the start)
    Pending p;
    p.call = call;
    p.enter_time = time;
    p.enter_ns = s.time;
    p.cpu = s.cpu;
    p.pid = s.pid;
    const auto u = [&](const char *field) { return f.u(s.raw, field).value_or(0); };
    const bool init = flags_ & ETW_FLAG_FILE_IO_INIT;
    switch (call) {
    case Call::Open:
        p.flags = std::uint32_t(u("flags"));
        p.irp = files_.next_irp();
        // Read now: the process may reuse the string's memory.
        p.path = path_at(s.pid, as_fd(u("dfd")), u("filename"));
        break;
    case Call::Read:
    case Call::Write:
    case Call::PRead:
    case Call::PWrite: {
        p.fd = as_fd(u("fd"));
        bool new_key = false;
        OpenFile *file = find_file(s.pid, p.fd, &new_key);
        if (!file)
            return; // not a file: no FileIo event
        if (new_key)
            emit_name(FileIoType::Name, file->file_key, file->path, s, time, emit);
        p.irp = files_.next_irp();
        if (init) {
            const bool read = call == Call::Read || call == Call::PRead;
            FileReadWriteFields rw;
            rw.offset = call == Call::PRead || call == Call::PWrite ? u("pos") : file->offset;
            rw.irp = p.irp;
            rw.ttid = s.tid;
            rw.file_object = file->file_object;
            rw.file_key = file->file_key;
            rw.io_size = std::uint32_t(std::min<std::uint64_t>(u("count"), UINT32_MAX));
            rw.io_flags = (read ? kIrpReadOperation : kIrpWriteOperation) | kIrpSynchronousApi |
                          ((file->flags & kO.direct) ? kIrpNoCache : 0);
            put(read ? FileIoType::Read : FileIoType::Write, file_read_write_payload(rw, pointer_size_), s, time, emit);
        }
        break;
    }
    case Call::Close:
    case Call::Flush: {
        p.fd = as_fd(u("fd"));
        bool new_key = false;
        OpenFile *file = find_file(s.pid, p.fd, &new_key);
        if (!file) {
            (void)files_.closed(s.pid, p.fd); // a non-file's memory goes with it
            return;
        }
        if (new_key)
            emit_name(FileIoType::Name, file->file_key, file->path, s, time, emit);
        FileSimpleOpFields op{files_.next_irp(), s.tid, file->file_object, file->file_key};
        p.irp = op.irp;
        if (call == Call::Flush) {
            if (init)
                put(FileIoType::Flush, file_simple_op_payload(op, pointer_size_), s, time, emit);
            break;
        }
        // Windows ends a handle with Cleanup (the last handle) then Close (the object).
        if (init)
            put(FileIoType::Cleanup, file_simple_op_payload(op, pointer_size_), s, time, emit);
        op.irp = p.irp2 = files_.next_irp();
        if (init)
            put(FileIoType::Close, file_simple_op_payload(op, pointer_size_), s, time, emit);
        (void)files_.closed(s.pid, p.fd);
        break;
    }
    case Call::Seek:
        p.fd = as_fd(u("fd"));
        break;
    case Call::Unlink:
    case Call::Rename: {
        const bool unlink = call == Call::Unlink;
        p.path =
            path_at(s.pid, at ? as_fd(u(unlink ? "dfd" : "olddfd")) : kAtFdCwd, u(unlink ? "pathname" : "oldname"));
        if (p.path.empty())
            return;
        bool new_key = false;
        p.key = files_.key_of(p.path, &new_key);
        if (new_key)
            emit_name(FileIoType::Name, p.key, p.path, s, time, emit);
        p.irp = files_.next_irp();
        if (init) {
            // A delete sets FileDispositionInformation's DeleteFile (1); a rename FileRenameInformation.
            const FileInfoFields info{p.irp,
                                      s.tid,
                                      files_.new_object(),
                                      p.key,
                                      unlink ? 1u : 0u,
                                      unlink ? kFileDispositionInformation : kFileRenameInformation};
            put(unlink ? FileIoType::Delete : FileIoType::Rename, file_info_payload(info, pointer_size_), s, time,
                emit);
        }
        break;
    }
    case Call::None:
    case Call::Dup: // exits only: on_sample's
    case Call::Exec:
        return;
    }
    pending_[s.tid] = std::move(p);
}

void FileIoTracker::on_exit(Pending &&p, std::int64_t ret, const TracepointSample &s, std::int64_t time,
                            const Emit &emit)
{
    if (p.call == Call::Open)
        return open_exit(std::move(p), ret, s, time, emit);
    std::uint64_t extra = 0;
    if (p.call == Call::Seek || p.call == Call::Read || p.call == Call::Write) {
        bool new_key = false;
        if (ret >= 0)
            if (OpenFile *file = files_.find(s.pid, p.fd, &new_key))
                file->offset = p.call == Call::Seek ? std::uint64_t(ret) : file->offset + std::uint64_t(ret);
        if (p.call == Call::Seek)
            return; // no FileIo event: Windows' position lives in the FILE_OBJECT
    }
    if (ret > 0 && p.call != Call::Close && p.call != Call::Flush && p.call != Call::Unlink && p.call != Call::Rename)
        extra = std::uint64_t(ret); // bytes read or written
    if (flags_ & ETW_FLAG_FILE_IO) {
        const std::uint32_t status = file_nt_status(ret);
        put(FileIoType::OperationEnd, file_op_end_payload({p.irp, extra, status}, pointer_size_), s, time, emit);
        if (p.irp2 != 0)
            put(FileIoType::OperationEnd, file_op_end_payload({p.irp2, 0, status}, pointer_size_), s, time, emit);
    }
    if (p.call == Call::Unlink && ret == 0)
        emit_name(FileIoType::FileDelete, p.key, p.path, s, time, emit);
}

void FileIoTracker::open_exit(Pending &&p, std::int64_t ret, const TracepointSample &s, std::int64_t time,
                              const Emit &emit)
{
    std::uint64_t object = 0, result = 0;
    std::string path = p.path;
    if (ret >= 0) {
        // The descriptor's link (absolute, as the file system names the
        // file) while it is open. Closed later in this drain, its number
        // may name another file by now: then the path the call passed,
        // read from its memory (which may have been reused as well).
        const auto close = last_close_.find(std::uint64_t(s.pid) << 32 | std::uint32_t(ret));
        const bool closed = close != last_close_.end() && close->second > at_;
        FdTarget t;
        const bool linked = !closed && reader_.fd(s.pid, int(ret), &t) && !t.target.empty() && t.target[0] == '/';
        if (linked)
            path = t.target;
        bool new_key = false;
        const OpenFile &file = files_.opened(s.pid, int(ret), path, p.flags, &new_key);
        object = file.file_object;
        // Born at or after the call began (its wall-clock time): made by this open.
        const auto since =
            std::chrono::steady_clock::now().time_since_epoch() - std::chrono::nanoseconds(std::int64_t(p.enter_ns));
        const std::int64_t enter_wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                            (std::chrono::system_clock::now() - since).time_since_epoch())
                                            .count();
        result = create_result(p.flags, linked && t.birth_ns >= 0 && t.birth_ns >= enter_wall);
        if (new_key)
            emit_name(FileIoType::Name, file.file_key, path, s, p.enter_time, emit);
        if (result == kFileCreated)
            emit_name(FileIoType::FileCreate, file.file_key, path, s, p.enter_time, emit);
    } else {
        object = files_.new_object();
    }
    if (flags_ & ETW_FLAG_FILE_IO_INIT) {
        FileCreateFields c;
        c.irp = p.irp;
        c.ttid = s.tid;
        c.file_object = object;
        c.create_options = create_options_from_open_flags(p.flags);
        c.share_access = kShareAll;
        c.open_path = utf16(path);
        put(FileIoType::Create, file_create_payload(c, pointer_size_, max_record_), s, p.enter_time, emit);
    }
    if (flags_ & ETW_FLAG_FILE_IO)
        put(FileIoType::OperationEnd, file_op_end_payload({p.irp, result, file_nt_status(ret)}, pointer_size_), s, time,
            emit);
}

OpenFile *FileIoTracker::find_file(std::uint32_t pid, int fd, bool *new_key)
{
    *new_key = false;
    if (!files_.known(pid, fd))
        if (const auto made = last_made_.find(std::uint64_t(pid) << 32 | std::uint32_t(fd));
            made != last_made_.end() && made->second > at_)
            return nullptr;
    return files_.find(pid, fd, new_key);
}

std::string FileIoTracker::path_at(std::uint32_t pid, int dirfd, std::uint64_t address)
{
    std::string path, dir;
    if (address == 0 || !reader_.string(pid, address, &path) || path.empty() || !plausible_path(path))
        return {};
    if (path[0] == '/')
        return path;
    return reader_.dir(pid, dirfd, &dir) ? join(dir, path) : std::string{};
}

void FileIoTracker::emit_name(FileIoType type, std::uint64_t key, const std::string &path, const TracepointSample &s,
                              std::int64_t time, const Emit &emit)
{
    if (flags_ & ETW_FLAG_DISK_FILE_IO)
        put(type, file_name_payload({key, utf16(path)}, pointer_size_, max_record_), s, time, emit);
}

void FileIoTracker::put(FileIoType type, const Bytes &payload, const TracepointSample &s, std::int64_t time,
                        const Emit &emit) const
{
    HeaderFields h;
    h.thread_id = s.tid;
    h.process_id = s.pid;
    h.timestamp = time;
    if (Bytes r = file_io_record(type, h, payload, pointer_size_); !r.empty() && r.size() <= max_record_)
        emit(s.cpu, time, std::move(r), s.frames);
}

void FileIoTracker::rundown(std::int64_t time, std::uint32_t cpu, std::uint32_t pid, std::uint32_t tid,
                            const Emit &emit)
{
    TracepointSample s;
    s.cpu = cpu;
    s.pid = pid;
    s.tid = tid;
    for (const auto &[key, path] : files_.open_keys())
        emit_name(FileIoType::FileRundown, key, path, s, time, emit);
}

void FileIoTracker::sweep(std::uint64_t now_ns)
{
    last_sweep_ns_ = now_ns;
    files_.forget_ended(reader_.alive);
    for (auto p = pending_.begin(); p != pending_.end();)
        p = reader_.alive(p->second.pid) ? std::next(p) : pending_.erase(p);
}

} // namespace openetw::kernel
