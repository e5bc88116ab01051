// POSIX part of tracefs.hpp. Only Linux has tracefs; elsewhere every call
// says so. The files are read whole: a format is a few KB.
#include "platform/tracefs.hpp"

#include "platform/posix/text_file.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/mount.h>
#endif

namespace openetw::platform {

namespace {

constexpr const char *kTracing = "/sys/kernel/tracing";
constexpr const char *kDebugTracing = "/sys/kernel/debug/tracing";

// A mounted tracefs has an events folder; an empty mount point has none.
bool has_events(const std::string &root)
{
    struct stat st {};
    return ::stat((root + "/events").c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A system or event name is one path component of events/.
bool valid_component(std::string_view s)
{
    return !s.empty() && s != "." && s != ".." && s.find('/') == std::string_view::npos &&
           s.find('\0') == std::string_view::npos;
}

std::string tracepoint_name(std::string_view system, std::string_view name)
{
    return std::string(system) + ":" + std::string(name);
}

Status read_event_file(std::string_view system, std::string_view name, const char *file, std::string *text)
{
    if (!valid_component(system) || !valid_component(name))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "tracepoint '" + tracepoint_name(system, name) + "' is not a system:event name");
    std::string root;
    Status st = tracefs_root(&root);
    if (!st)
        return st;
    const std::string path = root + "/events/" + std::string(system) + "/" + std::string(name) + "/" + file;
    const int e = posix::read_text_file(path, text);
    if (e == 0)
        return Status::ok();
    const std::string which = "tracepoint " + tracepoint_name(system, name);
    if (e == ENOENT || e == ENOTDIR)
        return Fail(ETW_ERROR_NOT_SUPPORTED, which + " is not available on this kernel (" + path + " not found)");
    if (e == EACCES || e == EPERM)
        return Fail(ETW_ERROR_ACCESS_DENIED, which + ": " + path + " may not be read (tracefs needs root)");
    return Fail(ETW_ERROR_READ_FAULT, which + ": reading " + path + " failed: " + std::strerror(e));
}

} // namespace

Status tracefs_root(std::string *root)
{
#if !defined(__linux__)
    (void)root;
    return Fail(ETW_ERROR_NOT_SUPPORTED, "tracefs (kernel tracepoints) exists only on Linux");
#else
    for (const char *candidate : {kTracing, kDebugTracing}) {
        if (has_events(candidate)) {
            *root = candidate;
            return Status::ok();
        }
    }
    struct stat st {};
    if (::stat(kTracing, &st) != 0 || !S_ISDIR(st.st_mode))
        return Fail(ETW_ERROR_NOT_SUPPORTED, std::string("tracefs not found: neither ") + kTracing + " nor " +
                                                 kDebugTracing + " holds it, and " + kTracing +
                                                 " does not exist to mount it on");
    if (::mount("nodev", kTracing, "tracefs", 0, nullptr) != 0) {
        const int e = errno;
        // Mounted by someone else meanwhile: as good as ours.
        if (e == EBUSY && has_events(kTracing)) {
            *root = kTracing;
            return Status::ok();
        }
        if (e == EPERM || e == EACCES)
            return Fail(ETW_ERROR_ACCESS_DENIED, std::string("tracefs is not mounted and mounting it on ") + kTracing +
                                                     " was refused (it needs root or CAP_SYS_ADMIN)");
        return Fail(ETW_ERROR_NOT_SUPPORTED, std::string("tracefs is not mounted and mounting it on ") + kTracing +
                                                 " failed: " + std::strerror(e));
    }
    if (!has_events(kTracing))
        return Fail(ETW_ERROR_NOT_SUPPORTED, std::string("tracefs mounted on ") + kTracing + " has no events folder");
    *root = kTracing;
    return Status::ok();
#endif
}

Status tracepoint_id(std::string_view system, std::string_view name, std::uint64_t *id)
{
    std::string text;
    Status st = read_event_file(system, name, "id", &text);
    if (!st)
        return st;
    std::uint64_t v = 0;
    std::size_t digits = 0;
    for (char c : text) {
        if (c < '0' || c > '9')
            break;
        v = v * 10 + std::uint64_t(c - '0');
        ++digits;
    }
    if (digits == 0 || digits > 19)
        return Fail(ETW_ERROR_INVALID_DATA,
                    "tracepoint " + tracepoint_name(system, name) + ": its id file holds no number ('" + text + "')");
    *id = v;
    return Status::ok();
}

Status tracepoint_format_text(std::string_view system, std::string_view name, std::string *text)
{
    return read_event_file(system, name, "format", text);
}

} // namespace openetw::platform
