// POSIX (Linux first) part of sync.hpp: futex waits, sleeping, robust
// process-shared mutexes and membarrier.
#include "base/sanitizer.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <ctime>
#include <new>

#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <linux/membarrier.h>
#endif

#if OPENETW_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace openetw::platform {

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

static_assert(sizeof(pthread_mutex_t) <= sizeof(SharedMutex::storage), "SharedMutex is too small for pthread_mutex_t");

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

void shared_mutex_unlock(SharedMutex *m) noexcept
{
    pthread_mutex_unlock(reinterpret_cast<pthread_mutex_t *>(m->storage));
}

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

} // namespace openetw::platform
