// POSIX (Linux) part of proc_info.hpp: /proc read file by file. A file
// that cannot be opened because its process or thread has gone
// (ENOENT, ESRCH) is ETW_ERROR_NOT_FOUND, whatever else goes wrong reading
// a process's own files is its own failure, never the caller's.
#include "platform/proc_info.hpp"

#include "platform/posix/text_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

etw_status from_errno(int e)
{
    switch (e) {
    case ENOENT:
    case ESRCH:
        return ETW_ERROR_NOT_FOUND;
    case EACCES:
    case EPERM:
        return ETW_ERROR_ACCESS_DENIED;
    default:
        return ETW_ERROR_READ_FAULT;
    }
}

// The whole of a /proc file (their sizes are not known before reading).
etw_status read_text(const std::string &path, std::string *out)
{
    const int e = posix::read_text_file(path, out);
    return e == 0 ? ETW_OK : from_errno(e);
}

std::uint64_t ticks_per_second()
{
    static const std::uint64_t hz = [] {
        const long v = ::sysconf(_SC_CLK_TCK);
        return v > 0 ? std::uint64_t(v) : std::uint64_t(100);
    }();
    return hz;
}

// The numeric entries of a /proc folder.
etw_status list_numbers(const std::string &folder, std::vector<std::uint32_t> *out)
{
    out->clear();
    DIR *d = ::opendir(folder.c_str());
    if (!d)
        return from_errno(errno);
    while (const dirent *e = ::readdir(d)) {
        char *end = nullptr;
        const unsigned long v = std::strtoul(e->d_name, &end, 10);
        if (end != e->d_name && *end == 0 && v > 0 && v <= 0xFFFFFFFFul)
            out->push_back(std::uint32_t(v));
    }
    ::closedir(d);
    return ETW_OK;
}

etw_status read_stat(const std::string &path, ProcTask *out)
{
    std::string text;
    if (const etw_status s = read_text(path, &text); s != ETW_OK)
        return s;
    if (!parse_proc_stat(text, ticks_per_second(), out))
        return ETW_ERROR_INVALID_DATA;
    // A zombie has no threads, mappings or command line left to describe.
    if (out->state == 'Z' || out->state == 'X')
        return ETW_ERROR_NOT_FOUND;
    return ETW_OK;
}

} // namespace

etw_status proc_list_processes(std::vector<std::uint32_t> *pids) noexcept
{
    try {
        return list_numbers("/proc", pids);
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status proc_list_threads(std::uint32_t pid, std::vector<std::uint32_t> *tids) noexcept
{
    try {
        return list_numbers("/proc/" + std::to_string(pid) + "/task", tids);
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status proc_read_process(std::uint32_t pid, ProcProcess *out) noexcept
{
    try {
        const std::string base = "/proc/" + std::to_string(pid);
        ProcProcess p;
        p.pid = pid;
        if (const etw_status s = read_stat(base + "/stat", &p.stat); s != ETW_OK)
            return s;
        std::string status;
        if (const etw_status s = read_text(base + "/status", &status); s != ETW_OK)
            return s;
        const std::string_view uid = proc_status_value(status, "Uid");
        p.uid = std::uint32_t(std::strtoul(std::string(uid.substr(0, uid.find_first_of(" \t"))).c_str(), nullptr, 10));
        if (const etw_status s = read_text(base + "/cmdline", &p.cmdline); s != ETW_OK)
            return s;
        // The executable's link is unreadable for kernel threads and, unless
        // privileged, for other users' processes: the path stays empty.
        char link[4096];
        const ssize_t n = ::readlink((base + "/exe").c_str(), link, sizeof link);
        if (n > 0 && std::size_t(n) < sizeof link)
            p.executable.assign(link, std::size_t(n));
        *out = std::move(p);
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status proc_read_thread(std::uint32_t pid, std::uint32_t tid, ProcTask *out) noexcept
{
    try {
        const std::string base = "/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid);
        ProcTask t;
        if (const etw_status s = read_stat(base + "/stat", &t); s != ETW_OK)
            return s;
        std::string status;
        if (read_text(base + "/status", &status) == ETW_OK)
            t.affinity = parse_cpu_mask(proc_status_value(status, "Cpus_allowed"));
        *out = std::move(t);
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status proc_read_mappings(std::uint32_t pid, std::vector<ProcMapping> *out) noexcept
{
    try {
        std::string text;
        if (const etw_status s = read_text("/proc/" + std::to_string(pid) + "/maps", &text); s != ETW_OK)
            return s;
        out->clear();
        posix::for_each_line(text, [&](std::string_view line) {
            ProcMapping m;
            if (parse_proc_maps_line(line, &m))
                out->push_back(std::move(m));
        });
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

etw_status sys_block_disks(std::vector<SysBlockDisk> *out) noexcept
{
    try {
        DIR *dir = ::opendir("/sys/block");
        if (!dir)
            return ETW_ERROR_NOT_SUPPORTED;
        out->clear();
        while (const dirent *e = ::readdir(dir)) {
            if (e->d_name[0] == '.')
                continue;
            std::string dev;
            if (read_text(std::string("/sys/block/") + e->d_name + "/dev", &dev) != ETW_OK)
                continue;
            SysBlockDisk d;
            d.name = e->d_name;
            unsigned major = 0, minor = 0;
            if (std::sscanf(dev.c_str(), "%u:%u", &major, &minor) != 2)
                continue;
            d.major = major;
            d.minor = minor;
            out->push_back(std::move(d));
        }
        ::closedir(dir);
        return ETW_OK;
    } catch (...) {
        return ETW_ERROR_NOT_ENOUGH_MEMORY;
    }
}

} // namespace openetw::platform
