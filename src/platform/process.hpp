// Processors, processes and threads: the processor count and the current
// processor, the ids of the calling process and thread, user ids, a
// process's start time and work in a forked child.
//
// Rules (every header of src/platform): functions marked HOT are on the
// event-writing path and must not allocate, take a lock or make a system
// call in the common case (cached ids and rseq/vDSO processor numbers are
// fine); nothing throws.
// posix/process_posix.cpp and windows/process_windows.cpp implement it.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

// Thread-locals of the write path: on ELF the initial-exec model makes each
// access a thread-pointer-relative load instead of a __tls_get_addr call (the
// library is linked, not dlopen'ed late; a few bytes fit glibc's surplus).
#if defined(__ELF__)
#define OPENETW_FAST_TLS __attribute__((tls_model("initial-exec")))
#else
#define OPENETW_FAST_TLS
#endif

// The kernel's rseq area as glibc registers it (current_processor()).
#if defined(__linux__) && defined(__GLIBC__) && __has_include(<sys/rseq.h>) && \
    (defined(__x86_64__) || defined(__aarch64__))
#include <sys/rseq.h>
#if defined(RSEQ_SIG)
#define OPENETW_RSEQ_CPU 1
#endif
#endif
#if !defined(OPENETW_RSEQ_CPU)
#define OPENETW_RSEQ_CPU 0
#endif

namespace openetw::platform {

// Number of logical processors configured (stable for the process).
std::uint32_t processor_count() noexcept;
// The system call (or its fallback) behind current_processor().
std::uint32_t current_processor_slow() noexcept;
#if defined(__linux__) && defined(__x86_64__)
namespace detail {
// How current_processor() reads the processor number without rseq: 1 RDPID,
// 2 RDTSCP (Linux keeps (node << 12) | cpu in TSC_AUX, for the vDSO's getcpu),
// 0 neither (current_processor_slow()). Set as the library loads, where the
// register's value was checked against the kernel's answer.
extern int g_aux_read;
// The processor number from TSC_AUX, read as `how` says (1 or 2 above).
inline std::uint32_t read_aux(int how) noexcept
{
    if (how == 1) {
        unsigned long aux;
        asm volatile("rdpid %0" : "=r"(aux));
        return std::uint32_t(aux) & 0xFFF;
    }
    unsigned lo, hi, aux;
    asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    return aux & 0xFFF;
}
} // namespace detail
#endif
// HOT. The processor the caller runs on now (a hint: the thread may migrate
// right after). Usually below processor_count(), but not bounded by it:
// callers that index with it bound it themselves. Inline where the C library
// keeps the kernel's rseq area (glibc 2.35+): one load from the thread's own
// area, no call; otherwise, or when rseq is unregistered (valgrind, the
// glibc.pthread.rseq=0 tunable), current_processor_slow().
inline std::uint32_t current_processor() noexcept
{
#if OPENETW_RSEQ_CPU
    // __rseq_offset: from the thread pointer to the registered struct rseq;
    // its cpu_id is negative (as an int) until registered or when refused.
    const auto *area = reinterpret_cast<const volatile struct rseq *>(
        static_cast<const char *>(__builtin_thread_pointer()) + __rseq_offset);
    const std::int32_t cpu = std::int32_t(area->cpu_id);
    if (cpu >= 0) [[likely]]
        return std::uint32_t(cpu);
#endif
#if defined(__linux__) && defined(__x86_64__)
    if (const int how = detail::g_aux_read; how != 0)
        return detail::read_aux(how);
#endif
    return current_processor_slow();
}
// HOT. Ids of the calling process and thread (cached after the first call;
// inline on POSIX: a load and a branch).
#if defined(_WIN32)
std::uint32_t process_id() noexcept;
std::uint32_t thread_id() noexcept;
#else
namespace detail {
inline std::atomic<std::uint32_t> g_pid{0};                   // 0: not known (reset by fork)
inline thread_local std::uint32_t t_tid OPENETW_FAST_TLS = 0; // 0: not known (reset by fork)
std::uint32_t process_id_first() noexcept;
std::uint32_t thread_id_first() noexcept;
} // namespace detail
inline std::uint32_t process_id() noexcept
{
    const std::uint32_t pid = detail::g_pid.load(std::memory_order_relaxed);
    return pid != 0 ? pid : detail::process_id_first();
}
inline std::uint32_t thread_id() noexcept
{
    const std::uint32_t tid = detail::t_tid;
    return tid != 0 ? tid : detail::thread_id_first();
}
#endif
// The pointer size of this build, 4 or 8.
inline constexpr std::uint32_t kPointerSize = sizeof(void *);

// The user id of the calling process (0 where there is none).
std::uint32_t user_id() noexcept;
// The effective user id of the calling process (0 = root).
std::uint32_t effective_user_id() noexcept;

// The session of the calling process (POSIX: its session id, getsid; the
// process of the login or terminal it was started from leads it; Windows:
// its Remote Desktop Services session). 0 when unknown.
std::uint32_t session_id() noexcept;

// The start time of process pid (an opaque, boot-relative value that differs
// between two processes that had the same pid); 0 when there is no such
// process. pid + start time identify a process for orphan detection.
std::uint64_t process_start_time(std::uint32_t pid) noexcept;

// The file name (no folder) of the calling process's executable, as UTF-8
// ("etwctl", "app.exe"); empty when it cannot be read. Not HOT: a system call.
std::string executable_name();

// Has fn run in the child of every later fork, before fork returns there
// (the child's copy of per-thread state is its parent's). Call it once per
// fn: each call adds one. True when it was registered; always false where
// there is no fork (Windows), and nothing runs.
bool run_in_forked_child(void (*fn)()) noexcept;

} // namespace openetw::platform
