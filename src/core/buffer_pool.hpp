// A session's buffer pool: control block, per-stream slots, buffer
// descriptors and the buffers themselves, all in ONE region and addressed by
// offsets and indices, never pointers; every shared member is an atomic
// inside the region. A later issue places the same layout in a named
// shared-memory region so sessions can span processes.
//
// Region layout (offsets from the region base):
//   0                 ControlBlock (configuration, counters, list heads)
//   streams_offset    StreamSlot[streams]        one cache line each
//   descs_offset      BufferDesc[capacity]
//   data_offset       buffer[capacity], buffer_size bytes each, page aligned
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

#include "platform/platform.hpp"

#include <openetw/status.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace openetw::core {

inline constexpr std::uint32_t kNoBuffer = 0xFFFFFFFFu;

struct alignas(64) StreamSlot {
    std::atomic<std::uint32_t> current;
};

struct BufferDesc {
    std::atomic<std::uint64_t> state;
    std::atomic<std::uint32_t> next; // free list / flush queue link
    std::atomic<std::uint32_t> stream;
};

struct ControlBlock {
    std::uint32_t magic;
    std::uint32_t layout_version;
    std::uint64_t region_size;
    std::uint32_t buffer_size;   // bytes
    std::uint32_t streams;
    std::uint32_t capacity;      // buffers the region can hold
    std::uint32_t min_buffers;
    std::uint64_t streams_offset;
    std::uint64_t descs_offset;
    std::uint64_t data_offset;

    alignas(64) std::atomic<std::uint32_t> max_buffers;
    std::atomic<std::uint32_t> allocated;   // NumberOfBuffers
    std::atomic<std::uint32_t> free_count;  // FreeBuffers
    std::atomic<std::uint64_t> free_head;   // index | tag << 32

    alignas(64) std::atomic<std::uint64_t> flush_head; // index | tag << 32
    std::atomic<std::uint32_t> wake_word;              // futex word of the logger
    std::atomic<std::uint32_t> logger_waiting;         // 1 while the logger may sleep on wake_word

    alignas(64) std::atomic<std::uint32_t> events_lost;
    std::atomic<std::uint32_t> buffers_written;
    std::atomic<std::uint32_t> log_buffers_lost;
    std::atomic<std::uint32_t> real_time_buffers_lost;
    // Real-time: non-zero while the backlog is full and no consumer is
    // attached; writers then refuse events (ETW_ERROR_LOG_FILE_FULL).
    std::atomic<std::uint32_t> rt_refusing;

    // Lossless writers wait on space_word for a free buffer (or the end of
    // refusal); release() bumps it and wakes only when space_waiters != 0.
    alignas(64) std::atomic<std::uint32_t> space_word;
    std::atomic<std::uint32_t> space_waiters;
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

    static std::uint32_t offset_of(std::uint64_t s) { return std::uint32_t(s & kOffsetMask); }
    static std::uint32_t events_of(std::uint64_t s) { return std::uint32_t((s >> kEventsShift) & 0xFFFFF); }
    static std::uint32_t writers_of(std::uint64_t s) { return std::uint32_t((s >> kWritersShift) & 0xFFFF); }

    // The region size for these parameters.
    static std::size_t region_size(std::uint32_t buffer_size, std::uint32_t streams, std::uint32_t capacity);

    BufferPool() = default;
    ~BufferPool();
    BufferPool(const BufferPool &) = delete;
    BufferPool &operator=(const BufferPool &) = delete;

    // Maps a private region and initializes it with min_buffers allocated and
    // free. capacity >= max_buffers >= min_buffers >= 1.
    etw_status create(std::uint32_t buffer_size, std::uint32_t streams, std::uint32_t min_buffers,
                      std::uint32_t max_buffers, std::uint32_t capacity) noexcept;

    ControlBlock &control() const noexcept { return *static_cast<ControlBlock *>(region_.base); }
    // The accessors below use addresses derived once from the region's
    // offsets at create() (the region is mapped once and never moves; in a
    // shared region each process derives its own).
    std::uint32_t buffer_size() const noexcept { return buffer_size_; }
    std::uint32_t streams() const noexcept { return streams_; }
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
        if (idx != kNoBuffer) [[likely]] {
            auto &state = descs_[idx].state;
            std::uint64_t v = state.load(std::memory_order_acquire);
            const std::uint32_t off = offset_of(v);
            if (!(v & kSealed) && off + size <= buffer_size_ &&
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

    // Seals the stream's current buffer if it holds events, so it is flushed
    // as soon as its writers commit. Returns true if a buffer was sealed.
    bool seal_stream(std::uint32_t stream) noexcept;

    // Logger side: takes every handed-off buffer, oldest first, into out
    // (capacity entries). Returns the count.
    std::uint32_t take_flushed(std::uint32_t *out, std::uint32_t max) noexcept;
    // Returns a flushed buffer to the free list and wakes lossless writers
    // waiting for one.
    void release(std::uint32_t idx) noexcept;
    // Wakes writers waiting in wait_for_space (space may have appeared).
    void notify_space() noexcept;
    std::uint32_t free_count() const noexcept { return control().free_count.load(std::memory_order_acquire); }

    // Raises (or lowers, not below what is allocated) the maximum; at most capacity.
    std::uint32_t set_max_buffers(std::uint32_t max) noexcept;

    std::atomic<std::uint32_t> &wake_word() const noexcept { return control().wake_word; }

private:
    std::uint32_t acquire_free() noexcept;
    void push_free(std::uint32_t idx) noexcept;
    void seal(std::uint32_t idx) noexcept;
    void hand_off(std::uint32_t idx) noexcept;

    platform::Region region_{};
    std::uint8_t *data_ = nullptr;
    BufferDesc *descs_ = nullptr;
    StreamSlot *slots_ = nullptr;
    std::uint32_t buffer_size_ = 0;
    std::uint32_t streams_ = 0;
};

} // namespace openetw::core
