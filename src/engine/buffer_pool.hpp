// A session's buffer pool: control block, per-stream slots, buffer
// descriptors and the buffers themselves, all in ONE region and addressed by
// offsets and indices, never pointers; every shared member is an atomic
// inside the region, so the same layout serves processes that share it.
//
// Region layout (offsets from the region base):
//   0                 ControlBlock (configuration, counters, list heads)
//   streams_offset    StreamSlot[streams]        one cache line each
//   descs_offset      BufferDesc[capacity]       one cache line each
//   data_offset       buffer[capacity], buffer_size bytes each, page aligned
//
// A session hosted for other processes keeps the region in a named file
// (create with a path; others attach()): writers in every process then
// reserve in the same buffers. Nothing read from the region is trusted:
// every index is checked against this process's copy of the capacity and
// every offset against its buffer size, so a process scribbling over the
// region garbles events but crashes no one.
//
// Reservation scheme (the writer's hot path, lock-free, no system call, no
// allocation): each stream (a CPU, or one stream with
// NO_PER_PROCESSOR_BUFFERING) has a current buffer. A buffer's 64-bit state
// word packs {reserved offset:25, events:20, writers:16, SEALED:1}. A writer
// reserves with one CAS that advances the offset and counts itself as a
// writer, but only while the buffer is open and the record fits, so the
// committed bytes are always contiguous; it copies the record and commits
// with one atomic subtract. A writer that finds the buffer full takes a free
// buffer (or grows the pool up to MaximumBuffers), installs it in the stream
// slot with a CAS and seals the old one. The actor that sees a sealed buffer
// reach zero writers (the sealer or the last committer) hands it to the
// logger's flush queue, once. Installed buffers are opened only after they
// are in the slot, so a writer holding a stale index either reserves space in
// a live buffer or fails harmlessly.
#pragma once

#include "platform/process.hpp"
#include "platform/region.hpp"
#include "platform/sync.hpp"

#include <openetw/status.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::engine {

// The layout of a session's region (ControlBlock and what follows it), which
// writers of other processes map: a region of another layout is refused.
// src/host/protocol.hpp ties the request protocol to it.
inline constexpr std::uint32_t kRegionLayout = 9;

inline constexpr std::uint32_t kNoBuffer = 0xFFFFFFFFu;

struct alignas(64) StreamSlot {
    std::atomic<std::uint32_t> current;
};

// One process writing into a region it does not host: claimed at attach,
// `inside` counts its writes in progress (the host waits for it to drain
// before a stop, and tells a dead writer's unfinished records by it).
inline constexpr std::uint32_t kWriterSlots = 64;
struct alignas(64) WriterSlot {
    std::atomic<std::uint32_t> pid;
    std::atomic<std::uint32_t> inside;
    std::atomic<std::uint64_t> start; // process start time (platform::process_start_time)
};

// One thread that owns a buffer of the session (engine/owned_buffers.hpp),
// of the hosting process or of another one. Claimed by a CAS on pid; the
// owner alone writes `inside`; the logger writes `request`; both take
// `current` out by CAS.
inline constexpr std::uint32_t kThreadSlots = 64;
struct alignas(64) ThreadSlot {
    std::atomic<std::uint32_t> pid;     // the owner's process (0: free)
    std::atomic<std::uint32_t> exited;  // 1: the owner thread exited (set by it; other processes' owners)
    std::atomic<std::uint64_t> gen;     // the owner thread's life in its process (0: claim in progress)
    std::atomic<std::uint64_t> start;   // the owner process's start time (platform::process_start_time)
    std::atomic<std::uint32_t> current; // the owned buffer (kNoBuffer: none)
    std::atomic<std::uint32_t> request; // the logger's seal requests (a sequence)
    // Owners of other processes: the low half odd while inside a write (a
    // store, then the closing and request loads, ordered by the host's
    // remote barrier or the owner's own fence; the logger's side is the
    // mirror image, so one of the two sees the other); the high half the
    // committed offset of the owner's buffer as the write entered it.
    std::atomic<std::uint64_t> inside;
};

// One cache line each: an owner commits every event with a store to its
// buffer's state, and two owners' descriptors on one line would make each
// event of one writer a cache miss of the other's.
struct alignas(64) BufferDesc {
    std::atomic<std::uint64_t> state;
    std::atomic<std::uint32_t> next; // free list / flush queue link
    std::atomic<std::uint32_t> stream;
    std::atomic<std::uint32_t> owner; // pid that took it from the free list; 0 once free again
    // An owned buffer's thread slot: whoever takes it out of a slot first
    // checks the slot is its own (a scribbled slot must not hand on another
    // owner's buffer, which that owner would hand on again).
    std::atomic<std::uint32_t> slot;
    // A shared region's free buffer whose body still holds an owned use's
    // bytes: a CAS-protocol writer clears it before installing it (records
    // there must start on zero, format/buffer_repair.hpp). Owned buffers need
    // no clearing (their state word says what was committed), so the logger
    // frees them without touching their bodies; a CAS-used buffer it clears
    // as it frees it (BufferPool::release).
    std::atomic<std::uint32_t> dirty;
};

struct ControlBlock {
    std::uint32_t magic;
    std::uint32_t layout_version;
    std::uint64_t region_size;
    std::uint32_t buffer_size; // bytes
    std::uint32_t streams;
    std::uint32_t capacity; // buffers the region can hold
    std::uint32_t min_buffers;
    std::uint64_t streams_offset;
    std::uint64_t descs_offset;
    std::uint64_t data_offset;
    // The cycle counter's rate when the session's timestamps are its
    // readings (clock 3, and clock 1 where it is the system clock), 0 when
    // they are 100 ns times. Set by the session's creator before any other
    // process can map the region; every writer stamps alike.
    std::uint64_t cycle_hz;

    alignas(64) std::atomic<std::uint32_t> max_buffers;
    std::atomic<std::uint32_t> allocated;  // NumberOfBuffers
    std::atomic<std::uint32_t> free_count; // FreeBuffers
    std::atomic<std::uint64_t> free_head;  // index | tag << 32

    alignas(64) std::atomic<std::uint64_t> flush_head; // index | tag << 32
    std::atomic<std::uint32_t> wake_word;              // futex word of the logger
    std::atomic<std::uint32_t> logger_waiting;         // 1 while the logger may sleep on wake_word
    std::atomic<std::uint32_t> wake_at;                // see BufferPool::set_wake_at

    alignas(64) std::atomic<std::uint32_t> events_lost;
    std::atomic<std::uint32_t> buffers_written;
    std::atomic<std::uint32_t> log_buffers_lost;
    std::atomic<std::uint32_t> real_time_buffers_lost;
    // Real-time: non-zero while the backlog is full and no consumer is
    // attached; writers then refuse events (ETW_ERROR_LOG_FILE_FULL).
    std::atomic<std::uint32_t> rt_refusing;

    // space_word changes whenever a buffer may have become obtainable (one
    // freed, or MaximumBuffers raised): writers that found none drop at once
    // until it does (OwnedBuffers::starved).
    // Lossless writers wait on space_word for a free buffer (or the end of
    // refusal); release() bumps it and wakes only when space_waiters != 0.
    alignas(64) std::atomic<std::uint32_t> space_word;
    std::atomic<std::uint32_t> space_waiters;

    // Writers in other processes (engine/remote_writers.hpp).
    alignas(64) std::atomic<std::uint32_t> closing; // a stop began: remote writers refuse
    std::atomic<std::uint32_t> remote_writers;      // writer slots ever claimed
    std::atomic<std::uint32_t> records_skipped;     // unfinished records of dead writers
    // 1: the host issues platform::remote_barrier() before it reads owners'
    // inside words, so owners of other processes that registered for it
    // leave out their fence (engine/owned_buffers.hpp).
    std::atomic<std::uint32_t> remote_barrier;
    WriterSlot writers[kWriterSlots];
    ThreadSlot threads[kThreadSlots];
};

class BufferPool {
public:
    // State word layout.
    static constexpr std::uint64_t kOffsetMask = (1ull << 25) - 1;
    static constexpr unsigned kEventsShift = 25;
    static constexpr std::uint64_t kEventOne = 1ull << kEventsShift;
    static constexpr unsigned kWritersShift = 45;
    static constexpr std::uint64_t kWriterOne = 1ull << kWritersShift;
    static constexpr std::uint64_t kSealed = 1ull << 63;
    // Set with the writers cleared when the logger takes a buffer whose
    // writers died: its records are checked one by one (format/buffer_repair).
    static constexpr std::uint64_t kForced = 1ull << 62;
    // An owned buffer (engine/owned_buffers.hpp): one thread of this process
    // writes it with plain bumps and release stores of this word; the CAS
    // protocol never reserves in it (writers stay 0).
    static constexpr std::uint64_t kOwned = 1ull << 61;

    static std::uint32_t offset_of(std::uint64_t s) { return std::uint32_t(s & kOffsetMask); }
    static std::uint32_t events_of(std::uint64_t s) { return std::uint32_t((s >> kEventsShift) & 0xFFFFF); }
    static std::uint32_t writers_of(std::uint64_t s) { return std::uint32_t((s >> kWritersShift) & 0xFFFF); }
    // A free buffer's state: sealed, no events, no writers, not owned (its
    // offset 0 before first use, the header size after).
    static bool is_free_state(std::uint64_t s) { return (s & ~kOffsetMask) == kSealed; }

    // The region size for these parameters.
    static std::size_t region_size(std::uint32_t buffer_size, std::uint32_t streams, std::uint32_t capacity);

    BufferPool() = default;
    ~BufferPool();
    BufferPool(const BufferPool &) = delete;
    BufferPool &operator=(const BufferPool &) = delete;

    // Maps a region (private, or the file shared_path when not empty) and
    // initializes it with min_buffers allocated and free. A shared file
    // that finds no room fails (ETW_ERROR_DISK_FULL, region.hpp), leaving
    // no file; the pool then holds nothing.
    // capacity >= max_buffers >= min_buffers >= 1.
    etw_status create(std::uint32_t buffer_size, std::uint32_t streams, std::uint32_t min_buffers,
                      std::uint32_t max_buffers, std::uint32_t capacity, const std::string &shared_path = {}) noexcept;
    // Uses a region another process created (adopted: unmapped with the
    // pool). ETW_ERROR_INVALID_DATA when its layout is not one this build
    // made or does not match the region's size.
    etw_status attach(platform::Region region) noexcept;
    // The shared region's file descriptor (-1 for a private region).
    std::intptr_t region_fd() const noexcept { return region_.fd; }
    bool is_shared() const noexcept { return region_.fd >= 0; }
    std::uint32_t capacity() const noexcept { return capacity_; }
    // Buffers allocated so far (never more than the capacity).
    std::uint32_t allocated() const noexcept;

    ControlBlock &control() const noexcept { return *static_cast<ControlBlock *>(region_.base); }
    // The accessors below use addresses derived once from the region's
    // offsets at create() (the region is mapped once and never moves; in a
    // shared region each process derives its own).
    std::uint32_t buffer_size() const noexcept { return buffer_size_; }
    std::uint32_t streams() const noexcept { return streams_; }
    // The buffer stream of a processor. Its number is not bounded by the
    // platform: no division in the common case, none with one stream
    // (NO_PER_PROCESSOR_BUFFERING).
    std::uint32_t stream_of(std::uint32_t cpu) const noexcept
    {
        return cpu < streams_ ? cpu : streams_ == 1 ? 0 : cpu % streams_;
    }
    std::uint8_t *buffer(std::uint32_t idx) const noexcept { return data_ + std::size_t(idx) * buffer_size_; }
    BufferDesc &desc(std::uint32_t idx) const noexcept { return descs_[idx]; }
    StreamSlot &slot(std::uint32_t s) const noexcept { return slots_[s]; }

    struct Reservation {
        std::uint32_t index;
        std::uint32_t offset;
    };
    // HOT. Reserves size bytes (a multiple of 8, at most buffer_size - 0x48)
    // in the stream's buffer. ETW_ERROR_NOT_ENOUGH_MEMORY when no buffer is
    // free and the pool is at its maximum; the caller counts the loss (or,
    // in a lossless session, waits for space and tries again).
    // Inline fast path: the stream's open buffer has room (one CAS);
    // everything else (switch, growth, loss, contention) is reserve_slow.
    etw_status reserve(std::uint32_t stream, std::uint32_t size, Reservation *out) noexcept
    {
        const std::uint32_t idx = slots_[stream].current.load(std::memory_order_acquire);
        if (idx < capacity_) [[likely]] {
            auto &state = descs_[idx].state;
            std::uint64_t v = state.load(std::memory_order_acquire);
            const std::uint32_t off = offset_of(v);
            // (off is 8-aligned unless another process scribbled over the word)
            if (!(v & (kSealed | kOwned)) && off + size <= buffer_size_ && (off & 7) == 0 &&
                state.compare_exchange_strong(v, v + size + kEventOne + kWriterOne, std::memory_order_acq_rel,
                                              std::memory_order_acquire)) [[likely]] {
                out->index = idx;
                out->offset = off;
                return ETW_OK;
            }
        }
        return reserve_slow(stream, size, out);
    }
    etw_status reserve_slow(std::uint32_t stream, std::uint32_t size, Reservation *out) noexcept;
    // HOT. Ends the write begun by reserve.
    void commit(const Reservation &r) noexcept
    {
        const std::uint64_t old = descs_[r.index].state.fetch_sub(kWriterOne, std::memory_order_acq_rel);
        if ((old & kSealed) && writers_of(old) == 1) [[unlikely]]
            hand_off(r.index);
    }

    // Owned buffers: takes a free buffer (growing the pool up to its
    // maximum) and opens it for the owner of thread slot `slot`, tagged with
    // the stream whose processor it holds; kNoBuffer when none. The caller
    // keeps it in no stream slot and hands it on with seal().
    std::uint32_t acquire_owned(std::uint32_t stream, std::uint32_t slot) noexcept;
    // Seals a buffer nobody can reserve in any more (out of its slot) and
    // hands it to the logger when its writers are done (an owned buffer: at
    // once). Returns its state as the seal found it.
    std::uint64_t seal(std::uint32_t idx) noexcept;

    // Seals the stream's current buffer if it holds events, so it is flushed
    // as soon as its writers commit. Returns true if a buffer was sealed.
    bool seal_stream(std::uint32_t stream) noexcept;
    // A stop that gave up waiting for a writer held inside its write: takes
    // every stream's buffer out of its slot, sealed (an empty one too), so
    // that the writer, when it goes on, reserves nowhere but in
    // reserve_slow, which refuses once `closing` is set.
    void close_streams() noexcept;

    // Buffers sealed while writers still hold space in them: (index, state).
    struct Stuck {
        std::uint32_t index;
        std::uint64_t state;
    };
    std::vector<Stuck> stuck_buffers() const;
    // Seals every open buffer that is no stream's or thread slot's current
    // one: a writer replaced it in its slot and died before sealing it (a
    // live writer about to seal it finds it sealed: one hand-off either way).
    // An owned buffer holding events is sealed only if its owner's process
    // is gone (a live owner seals its own), or with held_owners: a stop that
    // gave up waiting for owners held inside a write, one of which may hold
    // it between emptying its slot and sealing it (its seal then finds it
    // sealed: one hand-off).
    void seal_detached(bool held_owners = false) noexcept;
    // Sealed buffers holding events whose writers are all done: they are in
    // the flush queue, held by the logger, or their hand-off died with its
    // process. Logger side.
    std::vector<Stuck> sealed_idle() const;
    // The buffers in the flush queue now (logger side: nothing else takes
    // from it, so the walk is stable).
    std::vector<std::uint32_t> queued() const;
    // Hands a buffer to the logger's queue (one whose hand-off died).
    void requeue(std::uint32_t idx) noexcept { hand_off(idx); }
    // Takes the buffers of `stuck` whose state has not changed since (their
    // writers will never commit: their processes died, and the caller made
    // sure every live writer finished what it had begun before stuck was
    // taken): clears their writers, marks them kForced and hands them off.
    // Returns how many.
    std::uint32_t force_stuck(const std::vector<Stuck> &stuck) noexcept;

    // Buffers a writer process took from the free list and died before
    // installing (sealed or owned, empty, in no stream or thread slot, owner
    // gone): (index, state, owner). Taken before the caller waits for live writers to finish.
    struct Unopened {
        std::uint32_t index;
        std::uint64_t state;
        std::uint32_t owner;
    };
    std::vector<Unopened> unopened_of_dead() const;
    // Returns to the free list those of `lost` whose state and owner have not
    // changed since, that are in no stream slot and not in `held` (the flush
    // queue and what the logger holds): the caller made sure every live
    // writer finished what it had begun before lost was taken. Returns how many.
    std::uint32_t reclaim_unopened(const std::vector<Unopened> &lost, const std::vector<std::uint32_t> &held) noexcept;

    // Logger side: takes every handed-off buffer, oldest first, into out
    // (capacity entries). Returns the count.
    std::uint32_t take_flushed(std::uint32_t *out, std::uint32_t max) noexcept;
    // Returns a flushed buffer to the free list and wakes lossless writers
    // waiting for one.
    void release(std::uint32_t idx) noexcept;
    // Wakes writers waiting in wait_for_space (space may have appeared).
    void notify_space() noexcept;
    std::uint32_t free_count() const noexcept { return control().free_count.load(std::memory_order_acquire); }
    // Free buffers plus those the pool may still grow by.
    std::uint32_t spare() const noexcept
    {
        const ControlBlock &cb = control();
        const std::uint32_t max = std::min(cb.max_buffers.load(std::memory_order_relaxed), capacity_);
        const std::uint32_t n = allocated();
        return free_count() + (max > n ? max - n : 0);
    }

    // Raises (or lowers, not below what is allocated) the maximum; at most capacity.
    std::uint32_t set_max_buffers(std::uint32_t max) noexcept;

    std::atomic<std::uint32_t> &wake_word() const noexcept { return control().wake_word; }
    // A hand-off wakes a sleeping logger only while at most n buffers are
    // free (0, the default: always). Owned writers hand on before they take
    // the next buffer, so once writes stop at least n are free (less one per
    // other writer switching meanwhile) or the logger was woken. In the
    // region: writers of other processes wake it alike (a wake per buffer
    // would have the logger preempt a writer per buffer; a buffering
    // session's logger recycles ahead of them all: Session::plan_ring).
    void set_wake_at(std::uint32_t n) noexcept { control().wake_at.store(n, std::memory_order_relaxed); }

private:
    friend struct BufferPoolTestAccess; // tests/engine/buffer_pool_test.cpp: a writer dying between two steps
    std::uint32_t acquire_free() noexcept;
    void push_free(std::uint32_t idx) noexcept;
    void hand_off(std::uint32_t idx) noexcept;

    bool is_current(std::uint32_t idx) const noexcept;
    void derive(std::uint64_t streams_offset, std::uint64_t descs_offset, std::uint64_t data_offset) noexcept;

    platform::Region region_{};
    std::uint8_t *data_ = nullptr;
    BufferDesc *descs_ = nullptr;
    StreamSlot *slots_ = nullptr;
    // This process's copies of the layout: never re-read from the region.
    std::uint32_t buffer_size_ = 0;
    std::uint32_t streams_ = 0;
    std::uint32_t capacity_ = 0;
    std::uint64_t data_offset_ = 0;
};

} // namespace openetw::engine
