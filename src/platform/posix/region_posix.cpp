// POSIX part of region.hpp: private anonymous mappings, and files mapped
// shared between processes.
#include "platform/region.hpp"

#include "platform/posix/file_space.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace openetw::platform {

etw_status region_map_private(Region *out, std::size_t size) noexcept
{
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return ETW_ERROR_OUTOFMEMORY;
    out->base = p;
    out->size = size;
    return ETW_OK;
}

etw_status region_commit(const Region &region, std::size_t offset, std::size_t len) noexcept
{
    if (region.fd < 0)
        return ETW_OK;
    // A page of a shared file that cannot be backed would fault (SIGBUS) on
    // touch: reserve the blocks now, where a full file system is a status.
    // Where the file system cannot reserve, shared_region_create wrote the
    // whole file: the range is backed already.
    bool unreservable = false;
    return reserve_file_space(int(region.fd), offset, len, &unreservable);
}

void memory_prefault(void *p, std::size_t len) noexcept
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
    // madvise wants a page-aligned start.
    const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(p) + len;
    if (len != 0)
        (void)madvise(reinterpret_cast<void *>(start), end - start, MADV_POPULATE_WRITE); // a hint: errors ignored
#else
    (void)p;
    (void)len;
#endif
}

void region_unmap(Region *region) noexcept
{
    if (region->base)
        munmap(region->base, region->size);
    if (region->fd >= 0)
        ::close(int(region->fd));
    region->base = nullptr;
    region->size = 0;
    region->fd = -1;
}

namespace {
etw_status open_error()
{
    switch (errno) {
    case ENOENT:
        return ETW_ERROR_FILE_NOT_FOUND;
    case EACCES:
    case EPERM:
        return ETW_ERROR_ACCESS_DENIED;
    case ENOSPC:
        return ETW_ERROR_DISK_FULL;
    default:
        return ETW_ERROR_OUTOFMEMORY;
    }
}

etw_status map_fd(Region *out, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size <= 0) {
        ::close(fd);
        return ETW_ERROR_INVALID_DATA;
    }
    void *p = mmap(nullptr, std::size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        const etw_status e = errno == EACCES ? ETW_ERROR_ACCESS_DENIED : ETW_ERROR_OUTOFMEMORY;
        ::close(fd);
        return e;
    }
    out->base = p;
    out->size = std::size_t(st.st_size);
    out->fd = fd;
    return ETW_OK;
}
} // namespace

etw_status shared_region_create(Region *out, const std::string &path, std::size_t size, std::size_t backed) noexcept
{
    // A file of that name belongs to a session whose slot was reused: gone.
    ::unlink(path.c_str());
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return open_error();
    fchmod(fd, 0600); // owner-only whatever the umask
    etw_status st = ftruncate(fd, off_t(size)) == 0 ? ETW_OK : ETW_ERROR_DISK_FULL;
    // Nobody else has the file yet: where the file system cannot reserve
    // blocks, zeros written now back every page, those the pool grows into
    // later included (region_commit counts on it).
    bool unreservable = false;
    if (st == ETW_OK)
        st = reserve_file_space(fd, 0, backed < size ? backed : size, &unreservable);
    if (st == ETW_OK && unreservable)
        st = write_file_zeros(fd, 0, size);
    if (st == ETW_OK)
        st = map_fd(out, fd); // closes fd when it fails
    else
        ::close(fd);
    if (st != ETW_OK)
        ::unlink(path.c_str());
    return st;
}

etw_status shared_region_open(Region *out, const std::string &path) noexcept
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return open_error();
    return map_fd(out, fd);
}

etw_status shared_region_adopt(Region *out, std::intptr_t fd) noexcept
{
    if (fd < 0)
        return ETW_ERROR_INVALID_HANDLE;
    return map_fd(out, int(fd));
}

void close_fd(std::intptr_t fd) noexcept
{
    if (fd >= 0)
        ::close(int(fd));
}

} // namespace openetw::platform
