// Owned buffers (docs/ENGINE.md, "Owned buffers"): a thread of this process
// that writes to a session claims one of its thread slots and owns the
// buffer the slot names. Only the owner moves that buffer's offset, so a
// reservation is a bump of a thread-local cursor and a commit is one release
// store of the descriptor's state word {offset, events, kOwned}: no atomic
// read-modify-write, no line another writer touches, per event.
//
// The owner seals its buffer (and takes a new one) when it is full, when
// the thread ran on another processor than the buffer's (ProcessorNumber
// stays true), or when the logger asked (a flush, the FlushTimer, a stop, a
// snapshot: `request` changed). The logger takes the buffer of an owner that
// does not write again itself, once the owner is seen outside its grace
// section after a process-wide barrier; the owner and the logger both CAS
// the slot's `current` to none, so exactly one hands the buffer on. A thread
// that exits leaves its slot to the logger, which takes its buffer at the
// committed offset and frees the slot.
//
// Writers of other processes, threads without a free slot or cursor, and
// pools short of free buffers keep the per-processor CAS protocol
// (BufferPool::reserve): both kinds of buffers coexist.
#pragma once

#include "core/buffer_pool.hpp"
#include "core/grace.hpp"

#include <atomic>
#include <cstdint>
#include <memory>

namespace openetw::core {

inline constexpr std::uint32_t kThreadSlots = 64;

struct alignas(64) ThreadSlot {
    std::atomic<Grace::Reader *> owner{nullptr}; // the owning thread's grace record
    std::atomic<std::uint64_t> gen{0};           // its owner_gen at the claim (0: claim in progress)
    std::atomic<std::uint32_t> current{kNoBuffer};
    std::atomic<std::uint32_t> request{0};       // the logger's seal requests (a sequence)
};

// A thread's view of its slot in one session (thread-local).
struct OwnedCursor {
    std::uint64_t session = 0; // OwnedBuffers id (0: unused entry)
    std::uint64_t gen = 0;     // the thread's owner_gen when it claimed
    std::uint32_t slot = 0;    // kNoSlot: none was free (the CAS protocol, for good)
    std::uint32_t index = kNoBuffer;
    std::uint32_t offset = 0;  // next free byte; kNoRoom without a buffer
    std::uint32_t events = 0;
    std::uint32_t stream = 0;  // the buffer's processor stream
    std::uint32_t seen = 0;    // the last request acted upon
};

class OwnedBuffers {
public:
    static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;
    static constexpr std::uint32_t kNoRoom = 0x7FFFFFFFu; // offset + any record size > buffer size
    static constexpr unsigned kCursors = 8;

    OwnedBuffers() = default;
    OwnedBuffers(const OwnedBuffers &) = delete;
    OwnedBuffers &operator=(const OwnedBuffers &) = delete;

    // Enables owned buffers in pool (a session of this process); without
    // this call every write takes the CAS protocol.
    void enable(BufferPool *pool) noexcept;
    bool enabled() const noexcept { return pool_ != nullptr; }

    // HOT, inside the caller's grace section. Reserves size bytes (a
    // multiple of 8, at most buffer size - 0x48) in the calling thread's
    // owned buffer for stream; null when this write is to take the CAS
    // protocol instead. On success the record goes at
    // pool->buffer(c->index) + c->offset, then commit(c, size).
    OwnedCursor *reserve(std::uint32_t stream, std::uint32_t size) noexcept
    {
        OwnedCursor *c = t_last_; // only ever a cursor with a slot
        if (c == nullptr || c->session != id_) [[unlikely]]
            return claim(stream, size);
        const std::uint32_t req = slots_[c->slot].request.load(std::memory_order_relaxed);
        if (req != c->seen || stream != c->stream || c->offset + size > buffer_size_) [[unlikely]]
            return renew(c, req, stream, size) ? c : nullptr;
        return c;
    }
    // HOT: publishes the record written at c->offset (one release store).
    void commit(OwnedCursor *c, std::uint32_t size) noexcept
    {
        c->offset += size;
        ++c->events;
        pool_->desc(c->index).state.store(BufferPool::kOwned | c->offset | (std::uint64_t(c->events) << BufferPool::kEventsShift),
                                          std::memory_order_release);
    }

    // Logger thread: hands on every owned buffer holding events. Idle and
    // exited owners' buffers are taken here; an owner inside a write (still
    // inside after a short wait) seals its own at its next write. final: no
    // thread writes to the session any more (a stop after its grace period):
    // every buffer is taken.
    void seal_all(bool final) noexcept;
    // Takes the buffers of owners that exited and frees their slots (the
    // logger, and a thread finding no free slot). Returns how many.
    std::uint32_t reap_exited() noexcept;
    // Testing aid: slots claimed now.
    std::uint32_t claimed() const noexcept;

private:
    // The calling thread's cursor for this session (claiming a slot first if needed).
    OwnedCursor *claim(std::uint32_t stream, std::uint32_t size) noexcept;
    bool renew(OwnedCursor *c, std::uint32_t req, std::uint32_t stream, std::uint32_t size) noexcept;
    // Takes idx out of slot s (if it is still there) and hands it on.
    void take(std::uint32_t s, std::uint32_t idx) noexcept;
    bool exited(std::uint32_t s, Grace::Reader **owner) const noexcept;

    BufferPool *pool_ = nullptr;
    std::uint64_t id_ = 0;
    std::uint32_t pid_ = 0; // the process that enabled it
    std::uint32_t buffer_size_ = 0;
    std::uint32_t min_free_ = 0; // fewer free buffers: owners leave them to the CAS protocol
    std::unique_ptr<ThreadSlot[]> slots_;

    static inline thread_local OwnedCursor t_cursors_[kCursors] OPENETW_FAST_TLS;
    static inline thread_local unsigned t_next_ OPENETW_FAST_TLS = 0; // the entry replaced when all are taken
    static inline thread_local OwnedCursor *t_last_ OPENETW_FAST_TLS = nullptr; // the last one used
    friend struct GraceThreadExit; // forgets the cursors when the thread's grace record goes
    static void forget_thread() noexcept;
};

} // namespace openetw::core
