#include "kernel/file_objects.hpp"

namespace openetw::kernel {

std::uint64_t FileObjects::hold_key(const std::string &path, bool *new_key)
{
    Key &k = keys_[path];
    *new_key = k.refs == 0;
    if (k.refs++ == 0)
        k.key = new_object();
    return k.key;
}

void FileObjects::release_key(const std::string &path)
{
    const auto k = keys_.find(path);
    if (k != keys_.end() && --k->second.refs == 0)
        keys_.erase(k);
}

const OpenFile &FileObjects::opened(std::uint32_t pid, int fd, const std::string &path, std::uint32_t flags,
                                    bool *new_key)
{
    // A descriptor reused without its close seen (closed by exec's
    // O_CLOEXEC, or before the session): its old file is let go.
    (void)closed(pid, fd);
    Entry e;
    e.is_file = true;
    e.file.file_object = new_object();
    e.file.file_key = hold_key(path, new_key);
    e.file.flags = flags;
    e.file.path = path;
    Entry &kept = fds_[{pid, fd}] = std::move(e);
    return kept.file;
}

OpenFile *FileObjects::find(std::uint32_t pid, int fd, bool *new_key)
{
    *new_key = false;
    if (const auto i = fds_.find({pid, fd}); i != fds_.end())
        return i->second.is_file ? &i->second.file : nullptr;
    FdTarget t;
    if (fd < 0 || !resolve_(pid, fd, &t))
        return nullptr; // not remembered: it may be opened yet
    Entry e;
    if (!t.target.empty() && t.target[0] == '/') {
        e.is_file = true;
        e.file.file_object = new_object();
        e.file.file_key = hold_key(t.target, new_key);
        e.file.offset = t.pos;
        e.file.flags = t.flags;
        e.file.path = t.target;
    }
    Entry &kept = fds_[{pid, fd}] = std::move(e);
    return kept.is_file ? &kept.file : nullptr;
}

std::optional<OpenFile> FileObjects::closed(std::uint32_t pid, int fd)
{
    const auto i = fds_.find({pid, fd});
    if (i == fds_.end())
        return std::nullopt;
    std::optional<OpenFile> was;
    if (i->second.is_file) {
        release_key(i->second.file.path);
        was = std::move(i->second.file);
    }
    fds_.erase(i);
    return was;
}

std::uint64_t FileObjects::key_of(const std::string &path, bool *new_key)
{
    if (const auto k = keys_.find(path); k != keys_.end()) {
        *new_key = false;
        return k->second.key;
    }
    *new_key = true;
    return new_object();
}

void FileObjects::forget_ended(const std::function<bool(std::uint32_t pid)> &alive)
{
    std::optional<std::uint32_t> pid; // the process of the entries looked at (sorted by process)
    bool live = true;
    for (auto i = fds_.begin(); i != fds_.end();) {
        if (pid != i->first.first) {
            pid = i->first.first;
            live = alive(*pid);
        }
        if (live) {
            ++i;
            continue;
        }
        if (i->second.is_file)
            release_key(i->second.file.path);
        i = fds_.erase(i);
    }
}

std::vector<std::pair<std::uint64_t, std::string>> FileObjects::open_keys() const
{
    std::vector<std::pair<std::uint64_t, std::string>> out;
    for (const auto &[path, k] : keys_)
        out.push_back({k.key, path});
    return out;
}

} // namespace openetw::kernel
