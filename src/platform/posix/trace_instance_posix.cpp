// POSIX part of trace_instance.hpp (Linux: tracefs instances).
#include "platform/trace_instance.hpp"

#include "platform/perf_events.hpp"
#include "platform/posix/text_file.hpp"
#include "platform/tracefs.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

constexpr std::size_t kPagesPerDrain = 8192; // per processor: 32 MB of 4 KB pages, then the next drain

int write_text(const std::string &path, const std::string &text)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        return errno;
    const ssize_t n = ::write(fd, text.data(), text.size());
    const int e = n == ssize_t(text.size()) ? 0 : (n < 0 ? errno : EIO);
    ::close(fd);
    return e;
}

Status write_status(int e, const std::string &what)
{
    if (e == EACCES || e == EPERM)
        return Fail(ETW_ERROR_ACCESS_DENIED, "ftrace: " + what + " was refused (tracefs needs root)");
    return Fail(ETW_ERROR_NOT_SUPPORTED, "ftrace: " + what + " failed: " + std::strerror(e));
}

// "field: char data;\toffset:16;\tsize:4080;" of events/header_page.
bool data_field(const std::string &header_page, std::size_t *offset, std::size_t *size)
{
    const std::size_t at = header_page.find("char data;");
    if (at == std::string::npos)
        return false;
    const std::size_t o = header_page.find("offset:", at), s = header_page.find("size:", at);
    if (o == std::string::npos || s == std::string::npos)
        return false;
    *offset = std::size_t(std::strtoul(header_page.c_str() + o + 7, nullptr, 10));
    *size = std::size_t(std::strtoul(header_page.c_str() + s + 5, nullptr, 10));
    return *offset >= 12 && *size > 0 && *offset + *size <= (1u << 20);
}

// Instances of prefix whose process ended (killed before it removed them).
void remove_orphans(const std::string &instances, const std::string &prefix)
{
    DIR *d = ::opendir(instances.c_str());
    if (!d)
        return;
    while (dirent *e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.compare(0, prefix.size() + 1, prefix + "-") != 0)
            continue;
        const long pid = std::strtol(name.c_str() + prefix.size() + 1, nullptr, 10);
        if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
            (void)::rmdir((instances + "/" + name).c_str());
    }
    ::closedir(d);
}

} // namespace

Status TraceInstance::open(const std::string &prefix, const std::vector<std::pair<std::string, std::string>> &events,
                           std::uint32_t buffer_kb)
{
    close();
    std::string root;
    if (Status st = tracefs_root(&root); !st)
        return st;
    for (const auto &[system, name] : events) {
        std::uint64_t id = 0;
        if (Status st = tracepoint_id(system, name, &id); !st)
            return st;
    }
    std::string header;
    std::size_t offset = 0, size = 0;
    if (posix::read_text_file(root + "/events/header_page", &header) != 0 || !data_field(header, &offset, &size))
        return Fail(ETW_ERROR_NOT_SUPPORTED, "ftrace: " + root + "/events/header_page does not lay out a page");
    const std::string instances = root + "/instances";
    remove_orphans(instances, prefix);
    static std::atomic<unsigned> made{0};
    std::string dir;
    for (;;) {
        dir = instances + "/" + prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(made++);
        if (::mkdir(dir.c_str(), 0700) == 0)
            break;
        if (errno != EEXIST)
            return write_status(errno, "making the instance " + dir);
    }
    dir_ = dir;
    page_size_ = offset + size;
    header_size_ = offset;
    page_.assign(page_size_, 0);
    Status st = Status::ok();
    if (int e = write_text(dir + "/trace_clock", "mono"); e != 0)
        st = write_status(e, "setting " + dir + "/trace_clock to mono");
    else if (int e2 = write_text(dir + "/options/overwrite", "0"); e2 != 0)
        st = write_status(e2, "turning " + dir + "/options/overwrite off");
    else if (int e3 = write_text(dir + "/buffer_size_kb", std::to_string(buffer_kb)); e3 != 0)
        st = write_status(e3, "sizing " + dir + "/buffer_size_kb");
    for (const auto &[system, name] : events) {
        if (!st)
            break;
        if (int e = write_text(dir + "/events/" + system + "/" + name + "/enable", "1"); e != 0)
            st = write_status(e, "enabling " + system + ":" + name + " in " + dir);
    }
    std::string online;
    if (st && posix::read_text_file("/sys/devices/system/cpu/online", &online) != 0)
        st = Fail(ETW_ERROR_NOT_SUPPORTED, "ftrace: /sys/devices/system/cpu/online cannot be read");
    for (std::uint32_t cpu : st ? parse_cpu_list(online) : std::vector<std::uint32_t>{}) {
        const std::string path = dir + "/per_cpu/cpu" + std::to_string(cpu) + "/trace_pipe_raw";
        const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            st = write_status(errno, "opening " + path);
            break;
        }
        rings_.push_back({cpu, fd});
    }
    if (!st)
        close();
    return st;
}

Status TraceInstance::drain(const std::function<void(std::uint32_t, std::span<const std::uint8_t>)> &each)
{
    Status result = Status::ok();
    for (const auto &[cpu, fd] : rings_) {
        for (std::size_t pages = 0; pages < kPagesPerDrain; ++pages) {
            const ssize_t n = ::read(fd, page_.data(), page_.size());
            if (n > 0) {
                each(cpu, std::span<const std::uint8_t>(page_.data(), std::size_t(n)));
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && errno != EAGAIN && result)
                result = Fail(ETW_ERROR_READ_FAULT, "ftrace: reading processor " + std::to_string(cpu) +
                                                        "'s ring failed: " + std::strerror(errno));
            break;
        }
    }
    return result;
}

void TraceInstance::disable() noexcept
{
    if (!dir_.empty())
        (void)write_text(dir_ + "/tracing_on", "0");
}

void TraceInstance::close() noexcept
{
    for (auto &[cpu, fd] : rings_)
        ::close(fd);
    rings_.clear();
    if (!dir_.empty()) {
        disable();
        (void)::rmdir(dir_.c_str());
        dir_.clear();
    }
}

} // namespace openetw::platform
