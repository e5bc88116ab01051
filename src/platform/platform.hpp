// The operating-system interface of the engine: clocks, CPU and thread
// identity, memory regions, wait/wake on a 32-bit word, and file I/O.
//
// src/engine and src/host include no OS header; everything it needs from the OS is here.
// One implementation per OS family: src/platform/posix/ (Linux first) and
// src/platform/windows/ (the mingw DLL). Rules for implementers:
//  - Functions marked HOT are called on the event-writing path: they must
//    not allocate, take a lock, or make a system call in the common case
//    (vDSO clock reads, cached ids and rseq/vDSO CPU numbers are fine).
//  - Nothing throws; failures are reported as etw_status values.
//  - All times are in 100 ns units unless the name says otherwise.
#pragma once

#include <openetw/records.h>
#include <openetw/status.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if !defined(_WIN32)
#include <time.h>
#endif

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

// ---- Clocks ----

// HOT. Monotonic high-resolution counter (clock type 1), 100 ns units, so
// its frequency (PerfFreq) is kQpcFrequency. Inline on POSIX (the default
// clock of every event): CLOCK_MONOTONIC through the vDSO.
inline constexpr std::int64_t kQpcFrequency = 10'000'000;
#if defined(_WIN32)
std::int64_t qpc_now() noexcept;
#else
inline std::int64_t qpc_now() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    // (tv_nsec is within [0, 1e9): an unsigned division, without the signed fix-up)
    return std::int64_t(ts.tv_sec) * 10'000'000 + std::int64_t(std::uint64_t(ts.tv_nsec) / 100u);
}
#endif

// HOT. Wall-clock time as a FILETIME (100 ns units since 1601-01-01 UTC).
std::int64_t filetime_now() noexcept;


// True when the CPU has a constant-rate cycle counter that cycle_counter()
// reads (x86 TSC). False elsewhere: clock type 3 then falls back to 2.
bool has_cycle_counter() noexcept;
// HOT. The CPU cycle counter (0 when !has_cycle_counter()). Inline: it is
// the timestamp of every event of a session whose clock it is. Not ordered
// with the instructions around it (no fence): an event's timestamp may be
// read a few cycles early.
inline std::uint64_t cycle_counter() noexcept
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return 0;
#endif
}
// The cycle counter's rate in Hz, measured once per process against the
// monotonic clock (about 20 ms, the first time), 0 when there is none.
std::uint64_t cycle_counter_hz() noexcept;
// The same in MHz, rounded (TRACE_LOGFILE_HEADER.CpuSpeedInMHz).
std::uint32_t cycle_counter_mhz() noexcept;
// True when the cycle counter is the system's own time base, so that it
// can serve as clock type 1 (QPC) for every process of the machine alike:
// Linux on x86 whose kernel keeps time with it (clocksource "tsc", chosen
// only once the kernel found it invariant and in step across processors).
// Windows keeps QueryPerformanceCounter. Checked once per process.
bool cycle_counter_is_system_clock() noexcept;

// FILETIME of the last boot.
std::int64_t boot_time_filetime() noexcept;

// The local time zone in Windows TIME_ZONE_INFORMATION form (Bias, names,
// StandardBias/DaylightBias; transition dates are left zero).
void local_time_zone(etw_time_zone_information *out) noexcept;

// CPU time consumed so far by the calling thread, kernel and user, 100 ns.
// A system call: callers rate-limit it.
void thread_cpu_times(std::uint64_t *kernel, std::uint64_t *user) noexcept;

// ---- Processors, processes, threads ----

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
inline std::atomic<std::uint32_t> g_pid{0};                  // 0: not known (reset by fork)
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

// ---- Memory regions ----

// A block of address space whose pages are backed on first touch. The
// engine addresses everything inside by offsets, so a later named,
// cross-process region can replace the private anonymous one unchanged.
struct Region {
    void *base = nullptr;
    std::size_t size = 0;
    std::intptr_t fd = -1; // the file of a shared region (-1: private)
};
// Maps size bytes, zero-filled, readable and writable, lazily backed
// (commit-on-touch; nothing is reserved against the commit limit).
etw_status region_map_private(Region *out, std::size_t size) noexcept;
// Makes [offset, offset+len) usable before first touch: a shared region
// reserves the file's blocks, so touching them later cannot fault when the
// file system is full (no-op for private regions, committed on touch).
// ETW_ERROR_NOT_ENOUGH_MEMORY when there is no room.
etw_status region_commit(const Region &region, std::size_t offset, std::size_t len) noexcept;
// Unmaps the region and closes its file, if any.
void region_unmap(Region *region) noexcept;
// Backs the pages of [p, p+len) (inside a region) now, without changing
// what they hold, so that first writes there take no page fault; safe while
// other threads write there. Linux 5.14+ (MADV_POPULATE_WRITE); elsewhere,
// and when the kernel refuses, nothing happens (pages are backed on touch).
void memory_prefault(void *p, std::size_t len) noexcept;

// ---- Shared state between processes (system-wide sessions) ----
// See docs/SYSTEM_SESSIONS.md. Where shared_registry_supported() is false
// (Windows, for now) the functions below fail with ETW_ERROR_NOT_SUPPORTED
// and sessions stay in the process that starts them.
bool shared_registry_supported() noexcept;
// The registry file: $OPENETW_REGISTRY, or the default of this user's
// namespace (root: /dev/shm/openetw-3/registry, the system's; any other
// user: /dev/shm/openetw-3-u<uid>/registry); empty when the variable is
// "none" (process-local sessions).
std::string registry_path();
// True when registry_path() is a default namespace (its folder is made by
// the session host, owner-only for users, readable by all for root).
bool registry_path_is_default();

// ---- The session host (docs/SYSTEM_SESSIONS.md, "The session host") ----
// Host: takes the namespace's host lock (the file registry + "-host.lock", owner-only,
// flock'ed for the host's life; *fd keeps it). ETW_ERROR_ALREADY_EXISTS when
// another host holds it; ETW_ERROR_ACCESS_DENIED when the file (or the
// namespace folder) belongs to another user.
etw_status host_lock(const std::string &registry, std::intptr_t *fd) noexcept;
// Host: maps the registry at path, size bytes, writable by this user only
// and readable by every user that can reach its folder. A file that is new,
// or of another size or layout (check says so), is (re)initialised by
// init(base, ctx). ETW_ERROR_ACCESS_DENIED when another user owns it.
etw_status registry_create(Region *out, const std::string &path, std::size_t size, bool (*check)(const void *base),
                           void (*init)(void *base, void *ctx), void *ctx) noexcept;
// Everyone else: maps the registry read-only (nothing written to it by
// another process can reach the caller except as data, checked on use).
// ETW_ERROR_FILE_NOT_FOUND when there is none yet; ETW_ERROR_ACCESS_DENIED
// when it is owned by a user other than the caller or root;
// ETW_ERROR_BAD_LENGTH when its size is not size. *owner: its owner's uid.
etw_status registry_open_readonly(Region *out, const std::string &path, std::size_t size, std::uint32_t *owner) noexcept;
// Starts program (argv[0], an absolute path) as a daemon: a new session,
// standard streams on /dev/null, no descriptor of this process inherited;
// returns once it is started (not waiting for it). ETW_ERROR_FILE_NOT_FOUND.
etw_status spawn_daemon(const std::vector<std::string> &argv) noexcept;
// The folder of the file holding this code (the shared library, or the
// program linking it statically); empty when unknown.
std::string code_directory();
// The names in a folder (no "." or ".."); empty when it cannot be read.
std::vector<std::string> list_folder(const std::string &folder);
// True when path names a regular file this process may execute.
bool is_executable(const std::string &path) noexcept;

// Session regions (docs/SYSTEM_SESSIONS.md): a file of size bytes at path,
// created owner-only (a stale file of that name is replaced) and mapped
// shared; out->fd stays open so the host can hand the region to the
// processes it admits (region_share_fd).
etw_status shared_region_create(Region *out, const std::string &path, std::size_t size) noexcept;
// Maps a region file by name (a stopped host's, for recovery) or from a
// descriptor received from its host (fd is adopted), whole, shared.
// ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_ACCESS_DENIED.
etw_status shared_region_open(Region *out, const std::string &path) noexcept;
etw_status shared_region_adopt(Region *out, std::intptr_t fd) noexcept;
// Removes a file (a region whose session stopped); no error when missing.
void remove_file(const std::string &path) noexcept;
// Closes a descriptor received from another process.
void close_fd(std::intptr_t fd) noexcept;
// The effective user id of the calling process (0 = root).
std::uint32_t effective_user_id() noexcept;

// The start time of process pid (an opaque, boot-relative value that differs
// between two processes that had the same pid); 0 when there is no such
// process. pid + start time identify a process for orphan detection.
std::uint64_t process_start_time(std::uint32_t pid) noexcept;
// The user id of the calling process (0 where there is none).
std::uint32_t user_id() noexcept;

// A lock between processes that survives its holder's death (a robust
// process-shared mutex). Lives in shared memory; initialised once.
struct alignas(16) SharedMutex {
    unsigned char storage[64];
};
void shared_mutex_init(SharedMutex *m) noexcept;
// Locks m within timeout_ms. OwnerDied: the previous holder died holding
// it; the lock is held and usable again, the data it guards may be
// half-updated. Failed: not held (the timeout passed, or another process
// scribbled over the mutex and it is no lock any more).
enum class SharedLock { Locked, OwnerDied, Failed };
SharedLock shared_mutex_lock(SharedMutex *m, std::int64_t timeout_ms) noexcept;
void shared_mutex_unlock(SharedMutex *m) noexcept;

// ---- Waiting on a word (futex / WaitOnAddress) ----

// Blocks while *word == expected, at most timeout_ms (negative: no limit).
// May return spuriously. The word may live in a shared region.
void wait_on(std::atomic<std::uint32_t> *word, std::uint32_t expected, std::int64_t timeout_ms) noexcept;
// Wakes every waiter of wait_on(word, ...).
void wake_all(std::atomic<std::uint32_t> *word) noexcept;
// Sleeps the calling thread.
void sleep_ms(std::uint32_t ms) noexcept;
void yield() noexcept;

// ---- Work at thread exit ----

// Hands a per-thread pointer to on_exit when its thread exits. Use it
// instead of a thread_local object with a destructor: where thread-locals
// are emulated (mingw's emutls), a thread's thread_local objects are freed
// before their destructors run, while on_exit gets the pointer itself.
// on_exit may use thread-locals (they are made anew and freed again) and
// may set() again: it is then called again, up to the system's
// PTHREAD_DESTRUCTOR_ITERATIONS rounds. Keys live as long as the process
// (never destroyed: threads exit until the very end). Built on POSIX
// thread keys on both systems (winpthreads on Windows).
class ThreadExitKey {
public:
    explicit ThreadExitKey(void (*on_exit)(void *)) noexcept; // aborts when no key is left
    ThreadExitKey(const ThreadExitKey &) = delete;
    ThreadExitKey &operator=(const ThreadExitKey &) = delete;
    // The calling thread's pointer; null: nothing is called at its exit.
    void set(void *value) noexcept;

private:
    unsigned long key_ = 0; // pthread_key_t (an unsigned int on both)
};

// ---- A memory barrier on every thread of the process ----

// Readies process_barrier() once per process: true when the system has one
// (Linux: membarrier PRIVATE_EXPEDITED, registered here; Windows:
// FlushProcessWriteBuffers, but not under wine, whose one is a no-op).
// Callers that get false fence on both sides.
bool process_barrier_init() noexcept;
// Returns after every running thread of the process has executed a full
// memory barrier (a system call and inter-processor interrupts: control
// paths only). Only after process_barrier_init() returned true. Registers
// again if the kernel refuses (a forked child), then falls back to the
// kernel's global barrier; aborts the process if neither works (writers
// rely on it and have no fence of their own).
void process_barrier() noexcept;

// ---- A memory barrier on the threads of other processes ----

// Whether remote_barrier() exists here (Linux: membarrier
// GLOBAL_EXPEDITED; not on Windows). Queried once per process.
bool remote_barrier_available() noexcept;
// Registers the calling process, once, so that other processes'
// remote_barrier() reaches its threads. True when it is registered: only
// then may its threads leave out the fence that remote_barrier() stands in
// for (writers of another process's session, engine/owned_buffers.hpp).
bool remote_barrier_register() noexcept;
// Returns after every running thread of every registered process has
// executed a full memory barrier (a system call and inter-processor
// interrupts: control paths only). Only when remote_barrier_available().
// Falls back to the kernel's global barrier (slow, reaches every process);
// aborts the process if neither works (registered writers have no fence).
void remote_barrier() noexcept;

// ---- Files (paths are UTF-8) ----

enum class OpenMode {
    CreateTruncate, // create or truncate, read/write
    OpenOrCreate,   // open existing or create, read/write, keep contents
    ReadExisting,   // open existing, read only (ETW_ERROR_FILE_NOT_FOUND when absent)
};

class File {
public:
    File() = default;
    ~File();
    File(const File &) = delete;
    File &operator=(const File &) = delete;
    File(File &&other) noexcept;
    File &operator=(File &&other) noexcept;

    // ETW_ERROR_PATH_NOT_FOUND when the folder is missing,
    // ETW_ERROR_ACCESS_DENIED, ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_WRITE_FAULT.
    etw_status open(const std::string &path, OpenMode mode) noexcept;
    bool is_open() const noexcept { return handle_ >= 0; }
    void close() noexcept;

    // Writes all len bytes at offset. ETW_ERROR_DISK_FULL when the disk or a
    // file size limit is full, ETW_ERROR_WRITE_FAULT for other errors; part of
    // the data may have been written on failure.
    etw_status write_at(std::uint64_t offset, const void *data, std::size_t len) noexcept;
    // Reads exactly len bytes at offset; ETW_ERROR_HANDLE_EOF when shorter.
    etw_status read_at(std::uint64_t offset, void *data, std::size_t len) noexcept;
    etw_status size(std::uint64_t *out) noexcept;
    etw_status truncate(std::uint64_t size) noexcept;
    // Reserves disk blocks for [0, size) without changing the data.
    etw_status preallocate(std::uint64_t size) noexcept;

private:
    std::intptr_t handle_ = -1;
};

// True when the folder part of path exists (or path has no folder part).
bool parent_directory_exists(const std::string &path) noexcept;
bool file_exists(const std::string &path) noexcept;
// The absolute form of path (as written into .etl headers); path itself on failure.
std::string absolute_path(const std::string &path);

} // namespace openetw::platform
