// Synchronisation: waiting on a 32-bit word (futex / WaitOnAddress),
// sleeping and yielding, a lock between processes that survives its
// holder's death, and memory barriers on the threads of this process or of
// other processes.
//
// Rules (every header of src/platform): nothing here is on the
// event-writing path's common case; nothing throws; failures are
// etw_status values or a SharedLock. posix/sync_posix.cpp and
// windows/sync_windows.cpp implement it.
#pragma once

#include <atomic>
#include <cstdint>

namespace openetw::platform {

// ---- Waiting on a word ----

// Blocks while *word == expected, at most timeout_ms (negative: no limit).
// May return spuriously. The word may live in a shared region.
void wait_on(std::atomic<std::uint32_t> *word, std::uint32_t expected, std::int64_t timeout_ms) noexcept;
// Wakes every waiter of wait_on(word, ...).
void wake_all(std::atomic<std::uint32_t> *word) noexcept;
// Sleeps the calling thread.
void sleep_ms(std::uint32_t ms) noexcept;
void yield() noexcept;

// ---- A lock between processes ----

// A robust process-shared mutex: it survives its holder's death. Lives in
// shared memory; initialised once. Windows has none yet: init and unlock do
// nothing and lock fails (sessions stay in one process there).
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

} // namespace openetw::platform
