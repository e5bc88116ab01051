// POSIX (Linux first) implementation of platform.hpp.
#include "platform/platform.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace openetw::platform {

namespace {

constexpr std::int64_t kFiletimeUnixEpoch = 116444736000000000LL; // 1970-01-01 in FILETIME

std::int64_t ts_to_100ns(const timespec &ts) { return std::int64_t(ts.tv_sec) * 10'000'000 + ts.tv_nsec / 100; }

std::atomic<std::uint32_t> g_pid{0};
thread_local std::uint32_t t_tid = 0;

void reset_pid_after_fork() { g_pid.store(0, std::memory_order_relaxed); t_tid = 0; }

etw_status errno_to_status(int err, etw_status fallback)
{
    switch (err) {
    case ENOENT: return ETW_ERROR_FILE_NOT_FOUND;
    case ENOTDIR: return ETW_ERROR_PATH_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS: return ETW_ERROR_ACCESS_DENIED;
    case ENOSPC:
    case EFBIG:
    case EDQUOT: return ETW_ERROR_DISK_FULL;
    case ENAMETOOLONG: return ETW_ERROR_BAD_PATHNAME;
    default: return fallback;
    }
}

} // namespace

std::int64_t qpc_now() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts_to_100ns(ts);
}

std::int64_t filetime_now() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts_to_100ns(ts) + kFiletimeUnixEpoch;
}

std::int64_t coarse_now() noexcept
{
    timespec ts;
#if defined(CLOCK_MONOTONIC_COARSE)
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return ts_to_100ns(ts);
}

bool has_cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return true;
#else
    return false;
#endif
}

std::uint64_t cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return 0;
#endif
}

std::uint32_t cycle_counter_mhz() noexcept
{
    static std::atomic<std::uint32_t> cached{0};
    std::uint32_t v = cached.load(std::memory_order_acquire);
    if (v != 0 || !has_cycle_counter())
        return v;
    // Measure against the monotonic clock over about 20 ms.
    std::int64_t t0 = qpc_now();
    std::uint64_t c0 = cycle_counter();
    sleep_ms(20);
    std::int64_t t1 = qpc_now();
    std::uint64_t c1 = cycle_counter();
    std::int64_t dt = t1 - t0; // 100 ns units
    if (dt <= 0)
        return 0;
    // cycles per microsecond = (c1-c0) / (dt/10)
    double mhz = double(c1 - c0) * 10.0 / double(dt);
    v = mhz < 1.0 ? 1u : std::uint32_t(mhz + 0.5);
    cached.store(v, std::memory_order_release);
    return v;
}

std::int64_t boot_time_filetime() noexcept
{
    timespec rt, bt;
    clock_gettime(CLOCK_REALTIME, &rt);
#if defined(CLOCK_BOOTTIME)
    clock_gettime(CLOCK_BOOTTIME, &bt);
#else
    clock_gettime(CLOCK_MONOTONIC, &bt);
#endif
    return ts_to_100ns(rt) - ts_to_100ns(bt) + kFiletimeUnixEpoch;
}

void local_time_zone(etw_time_zone_information *out) noexcept
{
    std::memset(out, 0, sizeof *out);
    tzset();
    time_t now = time(nullptr);
    struct tm lt;
    localtime_r(&now, &lt);
    // Windows: UTC = local + Bias (minutes). tm_gmtoff is local - UTC in seconds,
    // and includes daylight saving when it is in effect.
    long gmtoff = lt.tm_gmtoff;
    long dst_shift = lt.tm_isdst > 0 ? 3600 : 0;
    out->Bias = std::int32_t(-(gmtoff - dst_shift) / 60);
    out->StandardBias = 0;
    out->DaylightBias = daylight ? -60 : 0;
    auto copy_name = [](std::uint16_t *dst, const char *src) {
        for (int i = 0; src && src[i] && i < 31; ++i)
            dst[i] = std::uint16_t(static_cast<unsigned char>(src[i]));
    };
    copy_name(out->StandardName, tzname[0]);
    if (daylight)
        copy_name(out->DaylightName, tzname[1]);
}

void thread_cpu_times(std::uint64_t *kernel, std::uint64_t *user) noexcept
{
    *kernel = 0;
    *user = 0;
#if defined(RUSAGE_THREAD)
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0) {
        *kernel = std::uint64_t(ru.ru_stime.tv_sec) * 10'000'000u + std::uint64_t(ru.ru_stime.tv_usec) * 10u;
        *user = std::uint64_t(ru.ru_utime.tv_sec) * 10'000'000u + std::uint64_t(ru.ru_utime.tv_usec) * 10u;
    }
#else
    timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        *user = std::uint64_t(ts_to_100ns(ts));
#endif
}

std::uint32_t processor_count() noexcept
{
    static const std::uint32_t n = [] {
        long v = sysconf(_SC_NPROCESSORS_CONF);
        return v < 1 ? 1u : std::uint32_t(v);
    }();
    return n;
}

std::uint32_t current_processor() noexcept
{
    int cpu = sched_getcpu(); // rseq or vDSO getcpu: no system call
    if (cpu < 0)
        return 0;
    std::uint32_t n = processor_count();
    return std::uint32_t(cpu) < n ? std::uint32_t(cpu) : std::uint32_t(cpu) % n;
}

std::uint32_t process_id() noexcept
{
    std::uint32_t pid = g_pid.load(std::memory_order_relaxed);
    if (pid == 0) {
        static const int registered = pthread_atfork(nullptr, nullptr, reset_pid_after_fork);
        (void)registered;
        pid = std::uint32_t(getpid());
        g_pid.store(pid, std::memory_order_relaxed);
    }
    return pid;
}

std::uint32_t thread_id() noexcept
{
    if (t_tid == 0) {
#if defined(SYS_gettid)
        t_tid = std::uint32_t(syscall(SYS_gettid));
#else
        t_tid = std::uint32_t(reinterpret_cast<std::uintptr_t>(pthread_self()));
#endif
    }
    return t_tid;
}

etw_status region_map_private(Region *out, std::size_t size) noexcept
{
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return ETW_ERROR_OUTOFMEMORY;
    out->base = p;
    out->size = size;
    return ETW_OK;
}

etw_status region_commit(const Region &, std::size_t, std::size_t) noexcept { return ETW_OK; }

void region_unmap(Region *region) noexcept
{
    if (region->base)
        munmap(region->base, region->size);
    region->base = nullptr;
    region->size = 0;
}

void wait_on(std::atomic<std::uint32_t> *word, std::uint32_t expected, std::int64_t timeout_ms) noexcept
{
#if defined(__linux__)
    timespec ts;
    timespec *pts = nullptr;
    if (timeout_ms >= 0) {
        ts.tv_sec = time_t(timeout_ms / 1000);
        ts.tv_nsec = long((timeout_ms % 1000) * 1'000'000);
        pts = &ts;
    }
    // Not FUTEX_PRIVATE: the word may live in a region shared between processes.
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(word), FUTEX_WAIT, expected, pts, nullptr, 0);
#else
    std::int64_t waited = 0;
    while (word->load(std::memory_order_acquire) == expected && (timeout_ms < 0 || waited < timeout_ms)) {
        usleep(1000);
        ++waited;
    }
#endif
}

void wake_all(std::atomic<std::uint32_t> *word) noexcept
{
#if defined(__linux__)
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
#else
    (void)word;
#endif
}

void sleep_ms(std::uint32_t ms) noexcept
{
    timespec ts{time_t(ms / 1000), long(ms % 1000) * 1'000'000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

void yield() noexcept { sched_yield(); }

// ---- File ----

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
    int flags = O_RDWR | O_CREAT | O_CLOEXEC;
    if (mode == OpenMode::CreateTruncate)
        flags |= O_TRUNC;
    int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0)
        return errno_to_status(errno, ETW_ERROR_WRITE_FAULT);
    handle_ = fd;
    return ETW_OK;
}

void File::close() noexcept
{
    if (handle_ >= 0)
        ::close(int(handle_));
    handle_ = -1;
}

etw_status File::write_at(std::uint64_t offset, const void *data, std::size_t len) noexcept
{
    const auto *p = static_cast<const std::uint8_t *>(data);
    while (len > 0) {
        ssize_t n = pwrite(int(handle_), p, len, off_t(offset));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno_to_status(errno, ETW_ERROR_WRITE_FAULT);
        }
        if (n == 0)
            return ETW_ERROR_DISK_FULL;
        p += n;
        len -= std::size_t(n);
        offset += std::uint64_t(n);
    }
    return ETW_OK;
}

etw_status File::read_at(std::uint64_t offset, void *data, std::size_t len) noexcept
{
    auto *p = static_cast<std::uint8_t *>(data);
    while (len > 0) {
        ssize_t n = pread(int(handle_), p, len, off_t(offset));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return ETW_ERROR_READ_FAULT;
        }
        if (n == 0)
            return ETW_ERROR_HANDLE_EOF;
        p += n;
        len -= std::size_t(n);
        offset += std::uint64_t(n);
    }
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

} // namespace openetw::platform
