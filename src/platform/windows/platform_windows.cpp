// Windows (mingw-w64, Windows 8 or later; runs under wine) implementation of
// platform.hpp, with Win32 APIs only.
//
// Differences from the POSIX implementation, all within the interface:
//  - region_map_private commits the whole region up front (MEM_RESERVE |
//    MEM_COMMIT): pages are still zero-filled and backed on first touch, but
//    Windows charges the region against the commit limit. region_commit is a
//    no-op.
//  - wait_on/wake_all use WaitOnAddress/WakeByAddressAll, looked up at run
//    time (api-ms-win-core-synch-l1-2-0.dll) so that the DLL needs no extra
//    import library; without them, wait_on polls every millisecond. They
//    wait within one process only (a shared region across processes will need
//    a named event).
//  - Paths are UTF-8 in the interface and UTF-16 for the Win32 calls; both
//    '/' and '\' separate folders.
#ifndef _WIN32_WINNT
#define _WIN32_WINNT 0x0602 // Windows 8: GetSystemTimePreciseAsFileTime
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include "platform/platform.hpp"

#include <cstdlib>
#include <cstring>
#include <limits>


namespace openetw::platform {

namespace {

thread_local std::uint32_t t_tid = 0;

std::int64_t filetime_to_int(const FILETIME &ft)
{
    return std::int64_t((std::uint64_t(ft.dwHighDateTime) << 32) | ft.dwLowDateTime);
}

std::int64_t qpc_frequency()
{
    static const std::int64_t f = [] {
        LARGE_INTEGER v;
        QueryPerformanceFrequency(&v);
        return v.QuadPart > 0 ? std::int64_t(v.QuadPart) : std::int64_t(1);
    }();
    return f;
}

etw_status win32_to_status(DWORD err, etw_status fallback)
{
    switch (err) {
    case ERROR_FILE_NOT_FOUND: return ETW_ERROR_FILE_NOT_FOUND;
    case ERROR_PATH_NOT_FOUND:
    case ERROR_DIRECTORY: return ETW_ERROR_PATH_NOT_FOUND;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT: return ETW_ERROR_ACCESS_DENIED;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL: return ETW_ERROR_DISK_FULL;
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME: return ETW_ERROR_BAD_PATHNAME;
    default: return fallback;
    }
}

// UTF-8 -> UTF-16 for Win32 calls; empty on invalid input.
std::wstring widen(const std::string &s)
{
    if (s.empty())
        return std::wstring();
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s.data(), int(s.size()), nullptr, 0);
    if (n <= 0)
        return std::wstring();
    std::wstring w(std::size_t(n), L'\0');
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s.data(), int(s.size()), w.data(), n);
    return w;
}

std::string narrow(const wchar_t *w, std::size_t len)
{
    if (len == 0)
        return std::string();
    int n = WideCharToMultiByte(CP_UTF8, 0, w, int(len), nullptr, 0, nullptr, nullptr);
    if (n <= 0)
        return std::string();
    std::string s(std::size_t(n), '\0');
    WideCharToMultiByte(CP_UTF8, 0, w, int(len), s.data(), n, nullptr, nullptr);
    return s;
}

using WaitOnAddressFn = BOOL(WINAPI *)(volatile VOID *, PVOID, SIZE_T, DWORD);
using WakeByAddressAllFn = VOID(WINAPI *)(PVOID);

struct SynchApi {
    WaitOnAddressFn wait = nullptr;
    WakeByAddressAllFn wake_all = nullptr;
};

template <typename Fn> Fn lookup(HMODULE module, const char *name)
{
    // Through void(*)(void): the one function pointer type -Wcast-function-type accepts.
    return reinterpret_cast<Fn>(reinterpret_cast<void (*)(void)>(GetProcAddress(module, name)));
}

const SynchApi &synch_api()
{
    static const SynchApi api = [] {
        SynchApi a;
        HMODULE m = LoadLibraryW(L"api-ms-win-core-synch-l1-2-0.dll");
        if (m == nullptr)
            m = GetModuleHandleW(L"kernelbase.dll");
        if (m != nullptr) {
            a.wait = lookup<WaitOnAddressFn>(m, "WaitOnAddress");
            a.wake_all = lookup<WakeByAddressAllFn>(m, "WakeByAddressAll");
            if (a.wait == nullptr || a.wake_all == nullptr)
                a = SynchApi{};
        }
        return a;
    }();
    return api;
}

bool is_separator(char c) { return c == '/' || c == '\\'; }

} // namespace

// ---- Clocks ----

std::int64_t qpc_now() noexcept
{
    LARGE_INTEGER c;
    QueryPerformanceCounter(&c);
    const std::int64_t f = qpc_frequency();
    if (f == kQpcFrequency)
        return c.QuadPart;
    // 100 ns units without overflow: whole seconds, then the remainder.
    return (c.QuadPart / f) * kQpcFrequency + (c.QuadPart % f) * kQpcFrequency / f;
}

// QueryPerformanceCounter stays clock type 1 here: it is Windows' own.
bool cycle_counter_is_system_clock() noexcept { return false; }

std::int64_t filetime_now() noexcept
{
    FILETIME ft;
    GetSystemTimePreciseAsFileTime(&ft);
    return filetime_to_int(ft);
}

std::int64_t boot_time_filetime() noexcept
{
    // GetTickCount64: milliseconds since boot, sleep included.
    return filetime_now() - std::int64_t(GetTickCount64()) * 10'000;
}

void local_time_zone(etw_time_zone_information *out) noexcept
{
    std::memset(out, 0, sizeof *out);
    TIME_ZONE_INFORMATION tz;
    std::memset(&tz, 0, sizeof tz);
    if (GetTimeZoneInformation(&tz) == TIME_ZONE_ID_INVALID)
        return;
    out->Bias = std::int32_t(tz.Bias);
    out->StandardBias = std::int32_t(tz.StandardBias);
    out->DaylightBias = std::int32_t(tz.DaylightBias);
    for (int i = 0; i < 31 && tz.StandardName[i]; ++i)
        out->StandardName[i] = std::uint16_t(tz.StandardName[i]);
    for (int i = 0; i < 31 && tz.DaylightName[i]; ++i)
        out->DaylightName[i] = std::uint16_t(tz.DaylightName[i]);
    // Transition dates are left zero, as platform.hpp documents.
}

void thread_cpu_times(std::uint64_t *kernel, std::uint64_t *user) noexcept
{
    *kernel = 0;
    *user = 0;
    FILETIME created, exited, k, u;
    if (GetThreadTimes(GetCurrentThread(), &created, &exited, &k, &u)) {
        *kernel = std::uint64_t(filetime_to_int(k));
        *user = std::uint64_t(filetime_to_int(u));
    }
}

// ---- Processors, processes, threads ----

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

// ---- Memory regions ----

etw_status region_map_private(Region *out, std::size_t size) noexcept
{
    void *p = VirtualAlloc(nullptr, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    if (p == nullptr)
        return ETW_ERROR_OUTOFMEMORY;
    out->base = p;
    out->size = size;
    return ETW_OK;
}

etw_status region_commit(const Region &, std::size_t, std::size_t) noexcept { return ETW_OK; }

void memory_prefault(void *, std::size_t) noexcept {} // pages are backed on touch

void region_unmap(Region *region) noexcept
{
    if (region->base)
        VirtualFree(region->base, 0, MEM_RELEASE);
    region->base = nullptr;
    region->size = 0;
}

// ---- Waiting on a word ----

void wait_on(std::atomic<std::uint32_t> *word, std::uint32_t expected, std::int64_t timeout_ms) noexcept
{
    const SynchApi &api = synch_api();
    if (api.wait != nullptr) {
        DWORD ms = INFINITE;
        if (timeout_ms >= 0)
            ms = timeout_ms >= std::int64_t(INFINITE) ? INFINITE - 1 : DWORD(timeout_ms);
        api.wait(reinterpret_cast<volatile VOID *>(word), &expected, sizeof expected, ms);
        return;
    }
    std::int64_t waited = 0;
    while (word->load(std::memory_order_acquire) == expected && (timeout_ms < 0 || waited < timeout_ms)) {
        Sleep(1);
        ++waited;
    }
}

void wake_all(std::atomic<std::uint32_t> *word) noexcept
{
    const SynchApi &api = synch_api();
    if (api.wake_all != nullptr)
        api.wake_all(reinterpret_cast<PVOID>(word));
}

void sleep_ms(std::uint32_t ms) noexcept { Sleep(DWORD(ms)); }

void yield() noexcept
{
    if (!SwitchToThread())
        Sleep(0);
}

// Wine (8.0 at least) implements FlushProcessWriteBuffers as a stub that
// returns at once, which would leave writers unfenced: under wine (its
// ntdll exports wine_get_version) callers fence on both sides instead.
bool process_barrier_init() noexcept
{
    static const bool real = [] {
        HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
        return ntdll == nullptr || GetProcAddress(ntdll, "wine_get_version") == nullptr;
    }();
    return real;
}
void process_barrier() noexcept { FlushProcessWriteBuffers(); }

// FlushProcessWriteBuffers reaches the calling process only: writers of
// another process's session fence on their own.
bool remote_barrier_available() noexcept { return false; }
bool remote_barrier_register() noexcept { return false; }
void remote_barrier() noexcept { std::abort(); }

// ---- File ----

namespace {
HANDLE as_handle(std::intptr_t h) { return reinterpret_cast<HANDLE>(h); }
} // namespace

File::~File() { close(); }

File::File(File &&other) noexcept : handle_(other.handle_) { other.handle_ = -1; }

File &File::operator=(File &&other) noexcept
{
    if (this != &other) {
        close();
        handle_ = other.handle_;
        other.handle_ = -1;
    }
    return *this;
}

etw_status File::open(const std::string &path, OpenMode mode) noexcept
{
    close();
    if (!parent_directory_exists(path))
        return ETW_ERROR_PATH_NOT_FOUND;
    std::wstring wpath;
    try {
        wpath = widen(path);
    } catch (...) {
        return ETW_ERROR_OUTOFMEMORY;
    }
    if (wpath.empty())
        return ETW_ERROR_BAD_PATHNAME;
    const DWORD disposition = mode == OpenMode::CreateTruncate ? CREATE_ALWAYS
                              : mode == OpenMode::ReadExisting ? OPEN_EXISTING
                                                                : OPEN_ALWAYS;
    const DWORD access = mode == OpenMode::ReadExisting ? GENERIC_READ : GENERIC_READ | GENERIC_WRITE;
    HANDLE h = CreateFileW(wpath.c_str(), access,
                           FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, disposition,
                           FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE)
        return win32_to_status(GetLastError(), ETW_ERROR_WRITE_FAULT);
    handle_ = reinterpret_cast<std::intptr_t>(h);
    return ETW_OK;
}

void File::close() noexcept
{
    if (handle_ >= 0)
        CloseHandle(as_handle(handle_));
    handle_ = -1;
}

etw_status File::write_at(std::uint64_t offset, const void *data, std::size_t len) noexcept
{
    const auto *p = static_cast<const std::uint8_t *>(data);
    while (len > 0) {
        const DWORD chunk = len > 0x40000000u ? DWORD(0x40000000u) : DWORD(len);
        OVERLAPPED ov;
        std::memset(&ov, 0, sizeof ov);
        ov.Offset = DWORD(offset & 0xFFFFFFFFu);
        ov.OffsetHigh = DWORD(offset >> 32);
        DWORD written = 0;
        if (!WriteFile(as_handle(handle_), p, chunk, &written, &ov))
            return win32_to_status(GetLastError(), ETW_ERROR_WRITE_FAULT);
        if (written == 0)
            return ETW_ERROR_DISK_FULL;
        p += written;
        len -= written;
        offset += written;
    }
    return ETW_OK;
}

etw_status File::read_at(std::uint64_t offset, void *data, std::size_t len) noexcept
{
    auto *p = static_cast<std::uint8_t *>(data);
    while (len > 0) {
        const DWORD chunk = len > 0x40000000u ? DWORD(0x40000000u) : DWORD(len);
        OVERLAPPED ov;
        std::memset(&ov, 0, sizeof ov);
        ov.Offset = DWORD(offset & 0xFFFFFFFFu);
        ov.OffsetHigh = DWORD(offset >> 32);
        DWORD got = 0;
        if (!ReadFile(as_handle(handle_), p, chunk, &got, &ov)) {
            if (GetLastError() == ERROR_HANDLE_EOF)
                return ETW_ERROR_HANDLE_EOF;
            return ETW_ERROR_READ_FAULT;
        }
        if (got == 0)
            return ETW_ERROR_HANDLE_EOF;
        p += got;
        len -= got;
        offset += got;
    }
    return ETW_OK;
}

etw_status File::size(std::uint64_t *out) noexcept
{
    LARGE_INTEGER v;
    if (!GetFileSizeEx(as_handle(handle_), &v))
        return ETW_ERROR_READ_FAULT;
    *out = std::uint64_t(v.QuadPart);
    return ETW_OK;
}

etw_status File::truncate(std::uint64_t size) noexcept
{
    FILE_END_OF_FILE_INFO info;
    info.EndOfFile.QuadPart = LONGLONG(size);
    if (!SetFileInformationByHandle(as_handle(handle_), FileEndOfFileInfo, &info, sizeof info))
        return win32_to_status(GetLastError(), ETW_ERROR_WRITE_FAULT);
    return ETW_OK;
}

etw_status File::preallocate(std::uint64_t size) noexcept
{
    // Reserves clusters without moving the end of file (the data is unchanged).
    FILE_ALLOCATION_INFO info;
    info.AllocationSize.QuadPart = LONGLONG(size);
    if (SetFileInformationByHandle(as_handle(handle_), FileAllocationInfo, &info, sizeof info))
        return ETW_OK;
    const DWORD err = GetLastError();
    if (err == ERROR_DISK_FULL || err == ERROR_HANDLE_DISK_FULL)
        return ETW_ERROR_DISK_FULL;
    return ETW_OK; // the file system cannot reserve: behave as without
}

bool parent_directory_exists(const std::string &path) noexcept
{
    try {
        std::size_t sep = std::string::npos;
        for (std::size_t i = path.size(); i-- > 0;)
            if (is_separator(path[i])) {
                sep = i;
                break;
            }
        std::string dir;
        if (sep == std::string::npos) {
            // "C:name" is relative to drive C's current folder.
            if (path.size() >= 2 && path[1] == ':')
                dir = path.substr(0, 2);
            else
                return true;
        } else if (sep == 0 || (sep == 2 && path[1] == ':')) {
            dir = path.substr(0, sep + 1); // the root: "\" or "C:\"
        } else {
            dir = path.substr(0, sep);
        }
        const std::wstring w = widen(dir);
        if (w.empty())
            return false;
        const DWORD attrs = GetFileAttributesW(w.c_str());
        return attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY) != 0;
    } catch (...) {
        return false;
    }
}

bool file_exists(const std::string &path) noexcept
{
    try {
        const std::wstring w = widen(path);
        if (w.empty())
            return false;
        const DWORD attrs = GetFileAttributesW(w.c_str());
        return attrs != INVALID_FILE_ATTRIBUTES && (attrs & FILE_ATTRIBUTE_DIRECTORY) == 0;
    } catch (...) {
        return false;
    }
}

std::string absolute_path(const std::string &path)
{
    const std::wstring w = widen(path);
    if (w.empty())
        return path;
    DWORD n = GetFullPathNameW(w.c_str(), 0, nullptr, nullptr);
    if (n == 0)
        return path;
    std::wstring full(n, L'\0');
    n = GetFullPathNameW(w.c_str(), n, full.data(), nullptr);
    if (n == 0 || n >= full.size())
        return path;
    return narrow(full.data(), n);
}

} // namespace openetw::platform
