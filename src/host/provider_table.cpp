#include "host/provider_table.hpp"

#include "platform/files.hpp"
#include "platform/process.hpp"

#include <cstring>

namespace openetw::host {

namespace {

constexpr std::uint32_t kMagic = 0x47455250; // "PREG"
constexpr std::uint32_t kVersion = 1;
constexpr std::uint32_t kMaxGuids = 1u << 16;

struct FileHeader {
    std::uint32_t magic;
    std::uint32_t version;
    std::uint32_t pid;
    std::uint32_t count;
    std::uint64_t start_time; // the process's start time: a reused pid is another process
};
struct FileEntry {
    etw_guid guid;
    std::uint32_t registrations;
    std::uint32_t reserved;
};

std::string folder_of(const std::string &registry_path)
{
    const auto slash = registry_path.rfind('/');
    return slash == std::string::npos ? "." : registry_path.substr(0, slash == 0 ? 1 : slash);
}

std::string prefix_of(const std::string &registry_path)
{
    const auto slash = registry_path.rfind('/');
    return registry_path.substr(slash == std::string::npos ? 0 : slash + 1) + ".providers.";
}

bool read_file(const std::string &path, ProcessRegistrations *out, std::uint64_t *start_time)
{
    platform::File f;
    std::uint64_t size = 0;
    FileHeader h{};
    if (f.open(path, platform::OpenMode::ReadExisting) != ETW_OK || f.size(&size) != ETW_OK || size < sizeof h ||
        f.read_at(0, &h, sizeof h) != ETW_OK)
        return false;
    if (h.magic != kMagic || h.version != kVersion || h.count > kMaxGuids ||
        size != sizeof h + std::uint64_t(h.count) * sizeof(FileEntry))
        return false;
    std::vector<FileEntry> entries(h.count);
    if (h.count && f.read_at(sizeof h, entries.data(), entries.size() * sizeof(FileEntry)) != ETW_OK)
        return false;
    out->pid = h.pid;
    for (const FileEntry &e : entries)
        if (e.registrations > 0)
            out->guids.emplace_back(e.guid, e.registrations);
    *start_time = h.start_time;
    return true;
}

} // namespace

bool publish_registrations(const std::string &registry_path,
                           const std::vector<std::pair<etw_guid, std::uint32_t>> &guids)
{
    const std::uint32_t pid = platform::process_id();
    const std::string path = folder_of(registry_path) + "/" + prefix_of(registry_path) + std::to_string(pid);
    if (guids.empty()) {
        platform::remove_file(path);
        return true;
    }
    std::vector<std::uint8_t> bytes(sizeof(FileHeader) + guids.size() * sizeof(FileEntry));
    FileHeader h{kMagic, kVersion, pid, std::uint32_t(guids.size()), platform::process_start_time(pid)};
    std::memcpy(bytes.data(), &h, sizeof h);
    for (std::size_t i = 0; i < guids.size(); ++i) {
        FileEntry e{guids[i].first, guids[i].second, 0};
        std::memcpy(bytes.data() + sizeof h + i * sizeof e, &e, sizeof e);
    }
    // Written aside and renamed over: a reader never sees half a list.
    const std::string tmp = path + ".tmp";
    platform::remove_file(tmp); // a leftover of a process killed while writing, whose pid this one has
    platform::File f;
    if (f.open(tmp, platform::OpenMode::CreateTruncate) != ETW_OK)
        return false;
    const bool written = f.write_at(0, bytes.data(), bytes.size()) == ETW_OK;
    f.close();
    if (!written || !platform::rename_file(tmp, path)) {
        platform::remove_file(tmp);
        return false;
    }
    return true;
}

std::vector<ProcessRegistrations> read_registrations(const std::string &registry_path)
{
    std::vector<ProcessRegistrations> out;
    const std::string folder = folder_of(registry_path), prefix = prefix_of(registry_path);
    for (const std::string &name : platform::list_folder(folder)) {
        if (name.compare(0, prefix.size(), prefix) != 0)
            continue;
        const std::string tail = name.substr(prefix.size());
        if (tail.empty() || tail.find_first_not_of("0123456789") != std::string::npos || tail.size() > 10)
            continue; // a file being written (".tmp"), or not ours
        const std::string path = folder + "/" + name;
        ProcessRegistrations r;
        std::uint64_t start = 0;
        if (!read_file(path, &r, &start) || std::to_string(r.pid) != tail)
            continue;
        if (start == 0 || platform::process_start_time(r.pid) != start) {
            platform::remove_file(path); // a process that died without unregistering (SIGKILL)
            continue;
        }
        out.push_back(std::move(r));
    }
    return out;
}

} // namespace openetw::host
