// Windows part of files.hpp: File's Win32 calls and what exists at a path.
// Paths are UTF-8 in the interface and UTF-16 for the Win32 calls; both
// '/' and '\' separate folders. remove_file, list_folder and is_executable
// serve the session host, which Windows does not have yet: they do nothing.
#include "platform/windows/win32.hpp"

#include "platform/files.hpp"

#include <cstring>

namespace openetw::platform {

namespace {

etw_status win32_to_status(DWORD err, etw_status fallback)
{
    switch (err) {
    case ERROR_FILE_NOT_FOUND:
        return ETW_ERROR_FILE_NOT_FOUND;
    case ERROR_PATH_NOT_FOUND:
    case ERROR_DIRECTORY:
        return ETW_ERROR_PATH_NOT_FOUND;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
    case ERROR_WRITE_PROTECT:
        return ETW_ERROR_ACCESS_DENIED;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ETW_ERROR_DISK_FULL;
    case ERROR_FILENAME_EXCED_RANGE:
    case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME:
        return ETW_ERROR_BAD_PATHNAME;
    default:
        return fallback;
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

bool is_separator(char c) { return c == '/' || c == '\\'; }

HANDLE as_handle(std::intptr_t h) { return reinterpret_cast<HANDLE>(h); }

// One call moves at most 1 GiB (a DWORD count), at offset.
DWORD chunk_of(std::size_t len) { return len > 0x40000000u ? DWORD(0x40000000u) : DWORD(len); }

OVERLAPPED at_offset(std::uint64_t offset)
{
    OVERLAPPED ov;
    std::memset(&ov, 0, sizeof ov);
    ov.Offset = DWORD(offset & 0xFFFFFFFFu);
    ov.OffsetHigh = DWORD(offset >> 32);
    return ov;
}

} // namespace

etw_status File::open_handle(const std::string &path, OpenMode mode) noexcept
{
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
    HANDLE h = CreateFileW(wpath.c_str(), access, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                           disposition, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (h == INVALID_HANDLE_VALUE)
        return win32_to_status(GetLastError(), ETW_ERROR_WRITE_FAULT);
    handle_ = reinterpret_cast<std::intptr_t>(h);
    return ETW_OK;
}

void File::close_handle() noexcept { CloseHandle(as_handle(handle_)); }

etw_status File::write_some(std::uint64_t offset, const void *data, std::size_t len, std::size_t *done) noexcept
{
    OVERLAPPED ov = at_offset(offset);
    DWORD written = 0;
    if (!WriteFile(as_handle(handle_), data, chunk_of(len), &written, &ov))
        return win32_to_status(GetLastError(), ETW_ERROR_WRITE_FAULT);
    *done = written;
    return ETW_OK;
}

etw_status File::read_some(std::uint64_t offset, void *data, std::size_t len, std::size_t *done) noexcept
{
    OVERLAPPED ov = at_offset(offset);
    DWORD got = 0;
    if (!ReadFile(as_handle(handle_), data, chunk_of(len), &got, &ov))
        return GetLastError() == ERROR_HANDLE_EOF ? ETW_ERROR_HANDLE_EOF : ETW_ERROR_READ_FAULT;
    *done = got;
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

void remove_file(const std::string &) noexcept {}
bool rename_file(const std::string &, const std::string &) noexcept { return false; }
std::vector<std::string> list_folder(const std::string &) { return {}; }
bool is_executable(const std::string &) noexcept { return false; }

} // namespace openetw::platform
