// POSIX part of platform.hpp for system-wide sessions: the shared registry
// file, process identity and robust process-shared locks.
#include "base/sanitizer.hpp"
#include "platform/platform.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if OPENETW_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace openetw::platform {

static_assert(sizeof(pthread_mutex_t) <= sizeof(SharedMutex::storage), "SharedMutex is too small for pthread_mutex_t");

bool shared_registry_supported() noexcept { return true; }

namespace {
etw_status open_error()
{
    switch (errno) {
    case ENOENT: return ETW_ERROR_FILE_NOT_FOUND;
    case EACCES:
    case EPERM: return ETW_ERROR_ACCESS_DENIED;
    case ENOSPC: return ETW_ERROR_DISK_FULL;
    default: return ETW_ERROR_OUTOFMEMORY;
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

etw_status shared_region_create(Region *out, const std::string &path, std::size_t size) noexcept
{
    // A file of that name belongs to a session whose slot was reused: gone.
    ::unlink(path.c_str());
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return open_error();
    fchmod(fd, 0600); // owner-only whatever the umask
    if (ftruncate(fd, off_t(size)) != 0) {
        ::close(fd);
        ::unlink(path.c_str());
        return ETW_ERROR_DISK_FULL;
    }
    const etw_status st = map_fd(out, fd);
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

void remove_file(const std::string &path) noexcept { ::unlink(path.c_str()); }

void close_fd(std::intptr_t fd) noexcept
{
    if (fd >= 0)
        ::close(int(fd));
}

std::uint32_t effective_user_id() noexcept { return std::uint32_t(geteuid()); }

std::uint64_t process_start_time(std::uint32_t pid) noexcept
{
    if (pid == 0)
        return 0;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%u/stat", pid);
    FILE *f = std::fopen(path, "re");
    if (!f)
        return 0;
    char buf[1024];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    // Field 2 (comm) may hold spaces and parentheses: count from the last ')'.
    const char *p = std::strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    // A zombie is dead for our purpose: its state (field 3) is 'Z' or 'X'.
    if (p[2] == 'Z' || p[2] == 'X')
        return 0;
    int field = 2; // after ')', each space starts the next field; starttime is field 22
    for (++p; *p && field < 22; ++p)
        if (*p == ' ')
            ++field;
    const std::uint64_t t = std::strtoull(p, nullptr, 10);
    return t + 1; // never 0 for a live process
}

std::uint32_t user_id() noexcept { return std::uint32_t(getuid()); }

void shared_mutex_init(SharedMutex *m) noexcept
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(new (m->storage) pthread_mutex_t, &a);
    pthread_mutexattr_destroy(&a);
}

SharedLock shared_mutex_lock(SharedMutex *m, std::int64_t timeout_ms) noexcept
{
    auto *mx = reinterpret_cast<pthread_mutex_t *>(m->storage);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); // pthread_mutex_timedlock's clock
    until.tv_sec += time_t(timeout_ms / 1000);
    until.tv_nsec += long(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec += 1;
        until.tv_nsec -= 1000000000L;
    }
    const int r = pthread_mutex_timedlock(mx, &until);
    if (r == 0)
        return SharedLock::Locked;
    if (r == EOWNERDEAD) {
#if OPENETW_TSAN
        // ThreadSanitizer's pthread_mutex_timedlock counts only 0 as locked:
        // say this one is held too, or its unlock is reported as wrong.
        __tsan_mutex_pre_lock(mx, 0);
        __tsan_mutex_post_lock(mx, 0, 0);
#endif
        return pthread_mutex_consistent(mx) == 0 ? SharedLock::OwnerDied : SharedLock::Failed;
    }
    return SharedLock::Failed; // ETIMEDOUT, or EINVAL/ENOTRECOVERABLE/EDEADLK from scribbled memory
}

void shared_mutex_unlock(SharedMutex *m) noexcept { pthread_mutex_unlock(reinterpret_cast<pthread_mutex_t *>(m->storage)); }

} // namespace openetw::platform
