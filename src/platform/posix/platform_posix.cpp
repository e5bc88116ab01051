// POSIX (Linux first) implementation of platform.hpp.
#include "platform/platform.hpp"

#include <cerrno>
#include <mutex>
#include <string>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <sys/types.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <linux/membarrier.h>
#endif

namespace openetw::platform {

namespace {

constexpr std::int64_t kFiletimeUnixEpoch = 116444736000000000LL; // 1970-01-01 in FILETIME

std::int64_t ts_to_100ns(const timespec &ts) { return std::int64_t(ts.tv_sec) * 10'000'000 + ts.tv_nsec / 100; }

void reset_pid_after_fork()
{
    detail::g_pid.store(0, std::memory_order_relaxed);
    detail::t_tid = 0;
}

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

std::int64_t filetime_now() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts_to_100ns(ts) + kFiletimeUnixEpoch;
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

bool cycle_counter_is_system_clock() noexcept
{
#if defined(__linux__) && (defined(__x86_64__) || defined(__i386__))
    static const bool yes = [] {
        // The kernel switches away from "tsc" (for good) when it finds the
        // counter unstable; a process that started before keeps its choice,
        // which is no worse than the clock the kernel gave up.
        const int fd = ::open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return false;
        char text[16] = {};
        const ssize_t n = ::read(fd, text, sizeof text - 1);
        ::close(fd);
        return n >= 3 && std::strncmp(text, "tsc", 3) == 0 && (n == 3 || text[3] == '\n');
    }();
    return yes;
#else
    return false;
#endif
}

namespace {

// The wall time of instant t on a clock that is offset seconds ahead of UTC.
etw_systemtime wall_systemtime(time_t t, long offset)
{
    const time_t wall = t + offset;
    struct tm lt;
    gmtime_r(&wall, &lt);
    etw_systemtime st{};
    st.wYear = std::uint16_t(lt.tm_year + 1900);
    st.wMonth = std::uint16_t(lt.tm_mon + 1);
    st.wDayOfWeek = std::uint16_t(lt.tm_wday);
    st.wDay = std::uint16_t(lt.tm_mday);
    st.wHour = std::uint16_t(lt.tm_hour);
    st.wMinute = std::uint16_t(lt.tm_min);
    st.wSecond = std::uint16_t(lt.tm_sec);
    return st;
}

int is_dst_at(time_t t)
{
    struct tm lt;
    localtime_r(&t, &lt);
    return lt.tm_isdst > 0;
}

// The zone of this year, from a scan of local time.
void compute_local_time_zone(etw_time_zone_information *out) noexcept
{
    std::memset(out, 0, sizeof *out);
    tzset();
    const time_t now = time(nullptr);
    struct tm lt;
    localtime_r(&now, &lt);
    // This year's transitions, found by scanning local time hour by hour and
    // narrowing to the second: the tz database has no other portable API.
    // They are stored in the absolute format (wYear set), each as the
    // wall time in force before the change, as TIME_ZONE_INFORMATION expects.
    struct tm jan1 = {};
    jan1.tm_year = lt.tm_year;
    jan1.tm_mday = 1;
    jan1.tm_isdst = -1;
    const time_t start = mktime(&jan1);
    long std_off = lt.tm_gmtoff, dst_off = lt.tm_gmtoff;
    bool have_std = !lt.tm_isdst, have_dst = lt.tm_isdst > 0;
    int prev = is_dst_at(start);
    for (time_t t = start; t < start + 366 * 86400; t += 3600) {
        const int cur = is_dst_at(t + 3600);
        if (cur == prev)
            continue;
        time_t lo = t, hi = t + 3600; // is_dst(lo) == prev, is_dst(hi) == cur
        while (hi - lo > 1) {
            const time_t mid = lo + (hi - lo) / 2;
            (is_dst_at(mid) == prev ? lo : hi) = mid;
        }
        struct tm before, after;
        const time_t last = hi - 1;
        localtime_r(&last, &before);
        localtime_r(&hi, &after);
        // Windows states a transition in the wall time in force before it.
        const etw_systemtime when = wall_systemtime(hi, before.tm_gmtoff);
        if (cur) {
            out->DaylightDate = when;
            dst_off = after.tm_gmtoff;
            have_dst = true;
        } else {
            out->StandardDate = when;
            std_off = after.tm_gmtoff;
            have_std = true;
        }
        prev = cur;
    }
    // Windows: UTC = local + Bias (+ StandardBias or DaylightBias), in minutes.
    if (!have_std) // daylight time all year: treat the current offset as standard
        std_off = dst_off;
    out->Bias = std::int32_t(-std_off / 60);
    out->StandardBias = 0;
    out->DaylightBias = have_dst ? std::int32_t(-(dst_off - std_off) / 60) : 0;
    auto copy_name = [](std::uint16_t *dst, const char *src) {
        for (int i = 0; src && src[i] && i < 31; ++i)
            dst[i] = std::uint16_t(static_cast<unsigned char>(src[i]));
    };
    copy_name(out->StandardName, tzname[0]);
    if (have_dst)
        copy_name(out->DaylightName, tzname[1]);
}

} // namespace

// The scan below calls localtime ~9000 times (about 150 us): it is done once
// per process and year (and again if TZ changes), not at every session start.
void local_time_zone(etw_time_zone_information *out) noexcept
{
    static std::mutex m;
    static bool cached = false;
    static int cached_year = 0;
    static std::string cached_tz;
    static etw_time_zone_information cached_info;
    const char *tz = std::getenv("TZ");
    const std::string tz_now = tz ? std::string("=") + tz : std::string();
    const time_t now = time(nullptr);
    struct tm lt;
    localtime_r(&now, &lt);
    std::lock_guard<std::mutex> lock(m);
    if (!cached || cached_year != lt.tm_year || cached_tz != tz_now) {
        compute_local_time_zone(&cached_info);
        cached = true;
        cached_year = lt.tm_year;
        cached_tz = tz_now;
    }
    *out = cached_info;
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

namespace {
using GetCpu = long (*)(unsigned *cpu, unsigned *node, void *cache);

// The vDSO's getcpu, looked up once. Without rseq, sched_getcpu() would
// check the rseq area again and then call it (or make the system call
// where there is no vDSO: aarch64, valgrind); calling it directly leaves
// out that wrapper, on the write path of every event.
GetCpu vdso_getcpu() noexcept
{
#if defined(__linux__)
    void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (vdso != nullptr)
        if (void *f = dlsym(vdso, "__vdso_getcpu"))
            return reinterpret_cast<GetCpu>(f);
#endif
    return nullptr;
}
// Looked up as the library loads, not at the first event: a lazy lookup
// would take a guard and the loader's lock on the write path, where a
// signal handler writing an event could re-enter it. (Before this runs it
// is null: the system call, which is as correct.)
const GetCpu g_vdso_getcpu = vdso_getcpu();

unsigned getcpu_call() noexcept
{
    unsigned cpu = 0;
    if (const GetCpu getcpu = g_vdso_getcpu) [[likely]] {
        if (getcpu(&cpu, nullptr, nullptr) != 0)
            cpu = 0;
        return cpu;
    }
#if defined(__linux__) && defined(__x86_64__)
    // The system call itself, as glibc makes it without a vDSO (its
    // variadic syscall() wrapper costs more than the call's setup).
    long rc;
    asm volatile("syscall" : "=a"(rc) : "0"(long(SYS_getcpu)), "D"(&cpu), "S"(0L), "d"(0L) : "rcx", "r11", "memory");
    if (rc != 0)
        cpu = 0;
#elif defined(__linux__) && defined(SYS_getcpu)
    if (syscall(SYS_getcpu, &cpu, nullptr, nullptr) != 0)
        cpu = 0;
#else
    const int c = sched_getcpu();
    cpu = c < 0 ? 0u : unsigned(c);
#endif
    return cpu;
}

#if defined(__linux__) && defined(__x86_64__)
// Which read of TSC_AUX this machine allows (detail::g_aux_read), if any.
int aux_read() noexcept
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    int how = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (c >> 22) & 1)
        how = 1;
    else if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (d >> 27) & 1)
        how = 2;
    if (how == 0 || processor_count() > 4096)
        return 0; // (12 bits of processor number)
    // Trusted where it agrees with the kernel's answer, read between two
    // that agree (the thread did not move meanwhile).
    for (int i = 0; i < 64; ++i) {
        const unsigned before = getcpu_call(), aux = detail::read_aux(how), after = getcpu_call();
        if (before == after)
            return aux == before ? how : 0;
    }
    return 0;
}
#endif
} // namespace

#if defined(__linux__) && defined(__x86_64__)
int detail::g_aux_read = aux_read(); // (at load, as g_vdso_getcpu; 0 before)
#endif

std::uint32_t current_processor_slow() noexcept
{
    return getcpu_call();
}

namespace detail {

// The cached ids are reset in a forked child (registered at the first use).
static void reset_ids_after_fork_once() noexcept
{
    static const int registered = pthread_atfork(nullptr, nullptr, reset_pid_after_fork);
    (void)registered;
}

std::uint32_t process_id_first() noexcept
{
    reset_ids_after_fork_once();
    const std::uint32_t pid = std::uint32_t(getpid());
    g_pid.store(pid, std::memory_order_relaxed);
    return pid;
}

std::uint32_t thread_id_first() noexcept
{
    reset_ids_after_fork_once();
#if defined(SYS_gettid)
    t_tid = std::uint32_t(syscall(SYS_gettid));
#else
    t_tid = std::uint32_t(reinterpret_cast<std::uintptr_t>(pthread_self()));
#endif
    return t_tid;
}

} // namespace detail

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
    int r;
    do
        r = posix_fallocate(int(region.fd), off_t(offset), off_t(len));
    while (r == EINTR);
    return r == 0 ? ETW_OK : ETW_ERROR_NOT_ENOUGH_MEMORY;
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

#if defined(__linux__) && defined(SYS_membarrier)
namespace {
long membarrier(int cmd) noexcept { return syscall(SYS_membarrier, cmd, 0u, 0); }
} // namespace

bool process_barrier_init() noexcept
{
    const long cmds = membarrier(MEMBARRIER_CMD_QUERY);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        return false;
    return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
}

void process_barrier() noexcept
{
    if (membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
        return;
    if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 && membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0)
        return;
    if (membarrier(MEMBARRIER_CMD_GLOBAL) == 0)
        return;
    std::abort();
}

namespace {
long membarrier_commands() noexcept
{
    static const long cmds = membarrier(MEMBARRIER_CMD_QUERY);
    return cmds;
}
} // namespace

bool remote_barrier_available() noexcept
{
    const long cmds = membarrier_commands();
    return cmds >= 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) != 0;
}

bool remote_barrier_register() noexcept
{
    // Once per process: a forked child (its own mm) registers again rather
    // than trust its parent's registration. Registering twice is harmless.
    static std::atomic<std::uint32_t> registered_pid{0};
    const std::uint32_t pid = process_id();
    if (registered_pid.load(std::memory_order_acquire) == pid)
        return true;
    if (!remote_barrier_available() || membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) != 0)
        return false;
    registered_pid.store(pid, std::memory_order_release);
    return true;
}

void remote_barrier() noexcept
{
    if (membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0)
        return;
    if (membarrier(MEMBARRIER_CMD_GLOBAL) == 0)
        return;
    std::abort();
}
#else
bool process_barrier_init() noexcept { return false; }
void process_barrier() noexcept { std::abort(); }
bool remote_barrier_available() noexcept { return false; }
bool remote_barrier_register() noexcept { return false; }
void remote_barrier() noexcept { std::abort(); }
#endif

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
    int flags = mode == OpenMode::ReadExisting ? O_RDONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_CLOEXEC;
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
