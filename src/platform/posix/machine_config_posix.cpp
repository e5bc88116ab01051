// POSIX (Linux) part of machine_config.hpp: /proc, /sys, getifaddrs,
// statvfs and /etc/resolv.conf. A file a kernel does not offer (no
// cpufreq, no device/vendor) leaves its field at its default: each is
// optional, only the lists themselves are failures.
#include "platform/machine_config.hpp"

#include "platform/perf_events.hpp"
#include "platform/posix/text_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>

#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

etw_status from_errno(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR:
        return ETW_ERROR_NOT_FOUND;
    case EACCES:
    case EPERM:
        return ETW_ERROR_ACCESS_DENIED;
    default:
        return ETW_ERROR_READ_FAULT;
    }
}

// The first line of a small file, trimmed; empty when unreadable.
std::string first_line(const std::string &path)
{
    std::string text;
    if (posix::read_text_file(path, &text) != 0)
        return {};
    text = text.substr(0, text.find('\n'));
    while (!text.empty() && (text.back() == ' ' || text.back() == '\r'))
        text.pop_back();
    return text;
}

std::uint64_t file_number(const std::string &path)
{
    const std::string s = first_line(path);
    return s.empty() ? 0 : std::strtoull(s.c_str(), nullptr, 10);
}

std::vector<std::string> directory(const std::string &path, int *error)
{
    std::vector<std::string> names;
    DIR *dir = ::opendir(path.c_str());
    if (!dir) {
        *error = errno;
        return names;
    }
    *error = 0;
    while (const dirent *e = ::readdir(dir))
        if (e->d_name[0] != '.')
            names.emplace_back(e->d_name);
    ::closedir(dir);
    return names;
}

} // namespace

etw_status machine_summary(MachineSummary *out) noexcept
{
    try {
        *out = MachineSummary{};
        const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
        out->processors = online > 0 ? std::uint32_t(online) : 1;
        const long page = ::sysconf(_SC_PAGESIZE);
        out->page_size = page > 0 ? std::uint32_t(page) : 4096;
        // cpufreq's maximum (kHz) is the processor's top speed; a VM
        // without cpufreq has /proc/cpuinfo's (x86) nominal one.
        if (const std::uint64_t khz = file_number("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"))
            out->mhz = std::uint32_t(khz / 1000);
        else {
            std::string cpuinfo;
            if (posix::read_text_file("/proc/cpuinfo", &cpuinfo) == 0)
                out->mhz = parse_cpuinfo_mhz(cpuinfo);
        }
        std::string meminfo;
        if (const int e = posix::read_text_file("/proc/meminfo", &meminfo); e != 0)
            return from_errno(e);
        if (const std::size_t at = meminfo.find("MemTotal:"); at != std::string::npos)
            out->memory_bytes = std::strtoull(meminfo.c_str() + at + 9, nullptr, 10) * 1024;
        for (std::uint32_t cpu = 0; cpu < 64 && cpu < out->processors; ++cpu) {
            const std::string siblings =
                first_line("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list");
            if (parse_cpu_list(siblings).size() > 1) // more than itself
                out->smt_processors |= std::uint64_t(1) << cpu;
        }
        utsname u{};
        if (::uname(&u) == 0)
            out->host_name = u.nodename;
        char domain[256] = {};
        if (::getdomainname(domain, sizeof domain - 1) == 0 && std::string(domain) != "(none)")
            out->domain_name = domain;
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status sys_block_disk_detail(const std::string &disk, BlockDiskDetail *out) noexcept
{
    try {
        *out = BlockDiskDetail{};
        const std::string base = "/sys/block/" + disk;
        std::string size;
        if (const int e = posix::read_text_file(base + "/size", &size); e != 0)
            return from_errno(e);
        out->sectors = std::strtoull(size.c_str(), nullptr, 10);
        out->logical_block_size = std::uint32_t(file_number(base + "/queue/logical_block_size"));
        if (out->logical_block_size == 0)
            out->logical_block_size = 512;
        out->vendor = first_line(base + "/device/vendor");
        out->model = first_line(base + "/device/model");
        out->write_back_cache = first_line(base + "/queue/write_cache") == "write back";
        // A SCSI disk's device is its host:channel:target:lun directory.
        char target[PATH_MAX] = {};
        if (::realpath((base + "/device").c_str(), target)) {
            const std::string leaf = std::string(target).substr(std::string(target).rfind('/') + 1);
            unsigned h = 0, c = 0, t = 0, l = 0;
            char tail = 0;
            if (std::sscanf(leaf.c_str(), "%u:%u:%u:%u%c", &h, &c, &t, &l, &tail) == 4) {
                out->has_scsi_address = true;
                out->scsi_host = h;
                out->scsi_channel = c;
                out->scsi_target = t;
                out->scsi_lun = l;
            }
        }
        int error = 0;
        for (const std::string &name : directory(base, &error)) {
            const std::string part = base + "/" + name;
            const std::string number = first_line(part + "/partition");
            if (number.empty())
                continue; // not a partition (queue, device, holders...)
            BlockPartition p;
            p.name = name;
            p.number = std::uint32_t(std::strtoul(number.c_str(), nullptr, 10));
            unsigned major = 0, minor = 0;
            if (std::sscanf(first_line(part + "/dev").c_str(), "%u:%u", &major, &minor) != 2)
                continue;
            p.major = major;
            p.minor = minor;
            p.start_sector = file_number(part + "/start");
            p.sectors = file_number(part + "/size");
            out->partitions.push_back(std::move(p));
        }
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status mounted_filesystems(std::vector<MountedFilesystem> *out) noexcept
{
    try {
        out->clear();
        std::string text;
        if (const int e = posix::read_text_file("/proc/self/mountinfo", &text); e != 0)
            return from_errno(e);
        posix::for_each_line(text, [&](std::string_view line) {
            MountedFilesystem m;
            if (parse_mountinfo_line(line, &m))
                out->push_back(std::move(m));
        });
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status filesystem_space(const std::string &path, FilesystemSpace *out) noexcept
{
    struct statvfs v {};
    if (::statvfs(path.c_str(), &v) != 0)
        return from_errno(errno);
    out->block_size = v.f_frsize ? v.f_frsize : v.f_bsize;
    out->blocks = v.f_blocks;
    out->blocks_available = v.f_bavail;
    return ETW_OK;
}

etw_status network_interfaces(std::vector<NetworkInterface> *out) noexcept
{
    try {
        out->clear();
        int error = 0;
        std::map<std::string, NetworkInterface> by_name;
        for (const std::string &name : directory("/sys/class/net", &error)) {
            const std::string base = "/sys/class/net/" + name;
            NetworkInterface n;
            n.name = name;
            n.index = std::uint32_t(file_number(base + "/ifindex"));
            n.hardware_type = std::uint32_t(file_number(base + "/type"));
            n.hw_address = parse_hw_address(first_line(base + "/address"));
            by_name.emplace(name, std::move(n));
        }
        if (error != 0)
            return from_errno(error);
        ifaddrs *list = nullptr;
        if (::getifaddrs(&list) == 0) {
            // IPv4 first, then IPv6, each in the kernel's order.
            for (const int family : {AF_INET, AF_INET6}) {
                for (const ifaddrs *a = list; a; a = a->ifa_next) {
                    if (!a->ifa_addr || a->ifa_addr->sa_family != family)
                        continue;
                    const auto it = by_name.find(a->ifa_name);
                    if (it == by_name.end())
                        continue;
                    char text[INET6_ADDRSTRLEN] = {};
                    const void *bytes =
                        family == AF_INET
                            ? static_cast<const void *>(&reinterpret_cast<const sockaddr_in *>(a->ifa_addr)->sin_addr)
                            : static_cast<const void *>(
                                  &reinterpret_cast<const sockaddr_in6 *>(a->ifa_addr)->sin6_addr);
                    if (::inet_ntop(family, bytes, text, sizeof text))
                        it->second.addresses.emplace_back(text);
                }
            }
            ::freeifaddrs(list);
        }
        for (auto &[name, n] : by_name)
            out->push_back(std::move(n));
        std::sort(out->begin(), out->end(),
                  [](const NetworkInterface &a, const NetworkInterface &b) { return a.index < b.index; });
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status dns_servers(std::vector<std::string> *out) noexcept
{
    try {
        out->clear();
        std::string text;
        const int e = posix::read_text_file("/etc/resolv.conf", &text);
        if (e == ENOENT)
            return ETW_OK; // no resolver configured: no servers
        if (e != 0)
            return from_errno(e);
        *out = parse_resolv_conf(text);
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

} // namespace openetw::platform
