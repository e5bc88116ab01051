// Windows part of process.hpp. There is no fork, and no other process's
// session is reached (docs/SYSTEM_SESSIONS.md, "Windows"): user ids are 0;
// start times are creation times.
#include "platform/windows/win32.hpp"

#include "platform/process.hpp"

#include <string>

namespace openetw::platform {

namespace {

thread_local std::uint32_t t_tid = 0;

} // namespace

std::uint32_t processor_count() noexcept
{
    static const std::uint32_t n = [] {
        DWORD v = GetActiveProcessorCount(ALL_PROCESSOR_GROUPS);
        if (v == 0) {
            SYSTEM_INFO si;
            GetSystemInfo(&si);
            v = si.dwNumberOfProcessors;
        }
        return v < 1 ? 1u : std::uint32_t(v);
    }();
    return n;
}

std::uint32_t current_processor_slow() noexcept { return std::uint32_t(GetCurrentProcessorNumber()); }

std::uint32_t process_id() noexcept { return std::uint32_t(GetCurrentProcessId()); }

std::uint32_t thread_id() noexcept
{
    if (t_tid == 0)
        t_tid = std::uint32_t(GetCurrentThreadId());
    return t_tid;
}

std::uint32_t user_id() noexcept { return 0; }
std::uint32_t effective_user_id() noexcept { return 0; }

std::uint32_t session_id() noexcept
{
    DWORD id = 0;
    return ProcessIdToSessionId(GetCurrentProcessId(), &id) ? std::uint32_t(id) : 0;
}

std::uint64_t process_start_time(std::uint32_t pid) noexcept
{
    // The creation time (FILETIME): differs between two processes that had the same pid.
    HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, DWORD(pid));
    if (h == nullptr)
        return 0;
    FILETIME created{}, exited{}, kernel_time{}, user_time{};
    const bool ok = GetProcessTimes(h, &created, &exited, &kernel_time, &user_time) != 0;
    CloseHandle(h);
    return ok ? std::uint64_t(created.dwHighDateTime) << 32 | created.dwLowDateTime : 0;
}

bool run_in_forked_child(void (*)()) noexcept { return false; }

std::string executable_name()
{
    std::wstring buffer(32768, L'\0'); // the longest path Windows has
    wchar_t *path = buffer.data();
    const DWORD n = GetModuleFileNameW(nullptr, path, DWORD(buffer.size()));
    if (n == 0 || n >= buffer.size())
        return {};
    DWORD start = n;
    while (start > 0 && path[start - 1] != L'\\' && path[start - 1] != L'/')
        --start;
    const int bytes = WideCharToMultiByte(CP_UTF8, 0, path + start, int(n - start), nullptr, 0, nullptr, nullptr);
    std::string out(bytes > 0 ? std::size_t(bytes) : 0, '\0');
    if (bytes > 0)
        WideCharToMultiByte(CP_UTF8, 0, path + start, int(n - start), out.data(), bytes, nullptr, nullptr);
    return out;
}

} // namespace openetw::platform
