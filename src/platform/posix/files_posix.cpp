// POSIX part of files.hpp: File's system calls, what exists at a path,
// folders.
#include "platform/files.hpp"

#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

etw_status errno_to_status(int err, etw_status fallback)
{
    switch (err) {
    case ENOENT:
        return ETW_ERROR_FILE_NOT_FOUND;
    case ENOTDIR:
        return ETW_ERROR_PATH_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
        return ETW_ERROR_ACCESS_DENIED;
    case ENOSPC:
    case EFBIG:
    case EDQUOT:
        return ETW_ERROR_DISK_FULL;
    case ENAMETOOLONG:
        return ETW_ERROR_BAD_PATHNAME;
    default:
        return fallback;
    }
}

} // namespace

etw_status File::open_handle(const std::string &path, OpenMode mode) noexcept
{
    int flags = mode == OpenMode::ReadExisting ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC;
    if (mode == OpenMode::CreateTruncate)
        flags |= O_TRUNC;
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0)
        return errno_to_status(errno, ETW_ERROR_WRITE_FAULT);
    handle_ = fd;
    return ETW_OK;
}

void File::close_handle() noexcept { ::close(int(handle_)); }

etw_status File::write_some(std::uint64_t offset, const void *data, std::size_t len, std::size_t *done) noexcept
{
    ssize_t n;
    do
        n = pwrite(int(handle_), data, len, off_t(offset));
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return errno_to_status(errno, ETW_ERROR_WRITE_FAULT);
    *done = std::size_t(n);
    return ETW_OK;
}

etw_status File::read_some(std::uint64_t offset, void *data, std::size_t len, std::size_t *done) noexcept
{
    ssize_t n;
    do
        n = pread(int(handle_), data, len, off_t(offset));
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return ETW_ERROR_READ_FAULT;
    *done = std::size_t(n);
    return ETW_OK;
}

etw_status File::size(std::uint64_t *out) noexcept
{
    struct stat st;
    if (fstat(int(handle_), &st) != 0)
        return ETW_ERROR_READ_FAULT;
    *out = std::uint64_t(st.st_size);
    return ETW_OK;
}

etw_status File::truncate(std::uint64_t size) noexcept
{
    if (ftruncate(int(handle_), off_t(size)) != 0)
        return errno_to_status(errno, ETW_ERROR_WRITE_FAULT);
    return ETW_OK;
}

etw_status File::preallocate(std::uint64_t size) noexcept
{
    int rc = posix_fallocate(int(handle_), 0, off_t(size));
    if (rc == 0)
        return ETW_OK;
    if (rc == EOPNOTSUPP || rc == EINVAL)
        return ETW_OK; // the file system cannot reserve: behave as without
    return errno_to_status(rc, ETW_ERROR_WRITE_FAULT);
}

bool parent_directory_exists(const std::string &path) noexcept
{
    std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return true;
    std::string dir = slash == 0 ? std::string("/") : path.substr(0, slash);
    struct stat st;
    return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool file_exists(const std::string &path) noexcept
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string absolute_path(const std::string &path)
{
    if (!path.empty() && path[0] == '/')
        return path;
    char buf[PATH_MAX];
    if (getcwd(buf, sizeof buf) == nullptr)
        return path;
    std::string cwd(buf);
    if (cwd.empty() || cwd.back() != '/')
        cwd += '/';
    return cwd + path;
}

void remove_file(const std::string &path) noexcept { ::unlink(path.c_str()); }

bool rename_file(const std::string &from, const std::string &to) noexcept
{
    return ::rename(from.c_str(), to.c_str()) == 0;
}

std::vector<std::string> list_folder(const std::string &folder)
{
    std::vector<std::string> names;
    DIR *d = ::opendir(folder.c_str());
    if (!d)
        return names;
    while (const dirent *e = ::readdir(d))
        if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0)
            names.emplace_back(e->d_name);
    ::closedir(d);
    return names;
}

bool is_executable(const std::string &path) noexcept
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

} // namespace openetw::platform
