// Owned buffers (docs/ENGINE.md, "Owned buffers"): a thread that writes to
// a session claims one of its thread slots (in the session's region) and
// owns the buffer the slot names. Only the owner moves that buffer's offset,
// so a reservation is a bump of a thread-local cursor and a commit is one
// release store of the descriptor's state word {offset, events, kOwned}: no
// atomic read-modify-write, no line another writer touches, per event.
//
// The owner seals its buffer (and takes a new one) when it is full, when
// the thread ran on another processor than the buffer's (ProcessorNumber
// stays true), or when the logger asked (a flush, the FlushTimer, a stop, a
// snapshot: `request` changed). The logger takes the buffer of an owner that
// does not write again itself, once the owner is seen outside its write;
// the owner and the logger both CAS the slot's `current` to none, so exactly
// one hands the buffer on. A thread that exits leaves its slot to the
// logger, which takes its buffer at the committed offset and frees the slot.
//
// Owners of the hosting process are seen outside through their grace
// records after a process-wide barrier. Owners of other processes (a
// session hosted by openetw-hostd) cannot be reached by that barrier: their
// write is bracketed by the slot's `inside` word (odd inside), ordered
// before the load of the slot's `request` (which the stop bumps after
// setting `closing`) by the host's barrier on registered processes
// (platform::remote_barrier) or, where there is none, by a full fence of the
// owner's. Their thread's exit marks the slot exited, and a dead process's
// slots are taken with its other leftovers.
//
// Threads without a free slot or cursor, forked children and pools short of
// free buffers keep the per-processor CAS protocol (BufferPool::reserve):
// both kinds of buffers coexist.
#pragma once

#include "engine/buffer_pool.hpp"
#include "engine/grace.hpp"

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

namespace openetw::engine {

// A thread's view of its slot in one session (thread-local). The fields a
// write reads come first: pointers and words ready to use, so the common
// write computes no address and loads no id.
struct OwnedCursor {
    std::uint8_t *pos = nullptr;                      // the next free byte of the owned buffer (null: no buffer)
    std::uint8_t *end = nullptr;                      // the end of the owned buffer (null: no buffer)
    std::atomic<std::uint64_t> *state_word = nullptr; // the buffer's descriptor state
    std::uint64_t state = 0;                          // what the last commit stored there: {offset, events, kOwned}
    ThreadSlot *ts = nullptr;                         // the slot (in the region)
    std::uint64_t ids = 0;                            // ThreadId | ProcessId << 32: the header's bytes 8..15
    std::uint64_t session = 0;                        // OwnedBuffers id (0: unused entry)
    std::uint32_t cpu = 0xFFFFFFFFu;                  // the processor the thread was last seen on here
    std::uint32_t seen = 0;                           // the last request acted upon
    std::uint64_t inside = 0; // the slot's inside word when outside (even; other processes' owners)
    std::uint64_t gen = 0;    // the thread's owner_gen when it claimed
    std::uint32_t slot = 0;   // kNoSlot: none was free (the CAS protocol, for good)
    std::uint32_t index = kNoBuffer;
    std::uint32_t stream = 0; // the buffer's processor stream
    // Set when a write of this thread found no buffer anywhere and was
    // dropped: the pool's space word read before it looked (see starved()).
    bool starved = false;
    std::uint32_t starved_space = 0;

    // Room for size more bytes (integers: pos and end are null without a buffer).
    bool room(std::uint32_t size) const noexcept { return std::uintptr_t(pos) + size <= std::uintptr_t(end); }
};

class OwnedBuffers {
public:
    static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;
    static constexpr unsigned kCursors = 8;

    OwnedBuffers() = default;
    OwnedBuffers(const OwnedBuffers &) = delete;
    OwnedBuffers &operator=(const OwnedBuffers &) = delete;

    // Enables owned buffers in pool for this process's threads: the
    // session's host (remote false) or a writer process attached to a
    // host's region (remote true: writes go through reserve_remote). Without
    // this call every write takes the CAS protocol.
    void enable(BufferPool *pool, bool remote) noexcept;
    ~OwnedBuffers();
    bool enabled() const noexcept { return pool_ != nullptr; }
    bool remote() const noexcept { return remote_; }
    // A writer of another process (remote()): whether its owners fence after
    // entering a write (no remote barrier here, or OPENETW_GRACE_FENCE=1).
    bool owners_fence() const noexcept { return fence_; }

    // HOT, inside the caller's grace section. Reserves size bytes (a
    // multiple of 8, at most buffer size - 0x48) in the calling thread's
    // owned buffer, cpu being the processor it runs on; null when this write
    // is to take the CAS protocol instead. On success the record goes at
    // c->pos, then commit(c, size).
    OwnedCursor *reserve(std::uint32_t cpu, std::uint32_t size) noexcept
    {
        OwnedCursor *c = t_last_; // only ever a cursor with a slot
        if (c == nullptr || c->session != id_) [[unlikely]]
            return claim(cpu, size);
        const std::uint32_t req = c->ts->request.load(std::memory_order_relaxed);
        if (req != c->seen || cpu != c->cpu || !c->room(size)) [[unlikely]]
            return renew(c, req, cpu, size) ? c : nullptr;
        return c;
    }
    // HOT: publishes the record written at c->pos (one release store).
    void commit(OwnedCursor *c, std::uint32_t size) noexcept
    {
        c->pos += size;
        c->state += size + BufferPool::kEventOne;
        c->state_word->store(c->state, std::memory_order_release);
    }

    // HOT, a writer of another process (remote()). As reserve(), but the
    // write is inside the slot's `inside` bracket from here to
    // commit_remote(). Null: take the CAS protocol (the bracket is closed
    // again), whose writers check the session's `closing` flag; so does a
    // write here that renews. The stop bumps every slot's request after
    // setting `closing` (quiesce_owners), so an owner renews then.
    OwnedCursor *reserve_remote(std::uint32_t cpu, std::uint32_t size) noexcept
    {
        OwnedCursor *c = t_last_;
        if (c == nullptr || c->session != id_) [[unlikely]] {
            c = cursor();
            if (c == nullptr)
                return nullptr;
        }
        ThreadSlot &ts = *c->ts;
        ts.inside.store(entering(c), std::memory_order_relaxed);
        // The entering store before the load below (the logger's mirror).
        if (fence_) [[unlikely]]
            full_fence(ts.inside);
        else
            std::atomic_signal_fence(std::memory_order_seq_cst); // the host's remote_barrier() orders it
        const std::uint32_t req = ts.request.load(std::memory_order_relaxed);
        if (req != c->seen || cpu != c->cpu || !c->room(size)) [[unlikely]] {
            if (!renew_remote(c, cpu, size)) {
                ts.inside.store(c->inside, std::memory_order_release);
                return nullptr;
            }
        }
        return c;
    }
    // HOT: commit() and the end of the bracket.
    void commit_remote(OwnedCursor *c, std::uint32_t size) noexcept
    {
        commit(c, size);
        c->inside = std::uint32_t(c->inside + 2);
        c->ts->inside.store(c->inside, std::memory_order_release);
    }
    // The inside word of a write entered now: the bracket's count (low
    // half, odd inside) and the buffer's committed offset (high half), so
    // a stop that takes the buffer of an owner held inside can tell
    // whether its event was committed before (the offset moved past it).
    static std::uint64_t entering(const OwnedCursor *c) noexcept
    {
        return std::uint64_t(BufferPool::offset_of(c->state)) << 32 | std::uint32_t(c->inside + 1);
    }

    // A session out of buffers (no free one, none to grow, the stream's full)
    // drops each event; looking again costs the shared read-modify-writes of
    // the CAS protocol. A write dropped for that marks the calling thread's
    // cursor (mark_starved, with cb.space_word as read before the write
    // looked); until the word changes (BufferPool::notify_space: a buffer
    // freed, MaximumBuffers raised), starved() is true and the thread's
    // writes are dropped at once: the outcome they would have had.
    void mark_starved(std::uint32_t space) noexcept
    {
        OwnedCursor *c = t_last_;
        if (c != nullptr && c->session == id_) {
            c->starved = true;
            c->starved_space = space;
        }
    }
    bool starved(const ControlBlock &cb) noexcept
    {
        OwnedCursor *c = t_last_;
        if (c == nullptr || c->session != id_ || !c->starved)
            return false;
        if (cb.space_word.load(std::memory_order_acquire) == c->starved_space)
            return true;
        c->starved = false;
        return false;
    }

    // A writer of another process (remote()): starved(), checked inside the
    // slot's bracket with the loss counted there (the stop waits for the
    // bracket, so its EventsLost is final). True: dropped and counted.
    // False when the session is stopping (the CAS protocol refuses).
    bool drop_if_starved_remote(ControlBlock &cb) noexcept;

    // Logger thread: hands on every owned buffer holding events. Idle and
    // exited owners' buffers are taken here; an owner inside a write (still
    // inside after a short wait) seals its own at its next write. final: no
    // thread writes to the session any more (a stop after its grace period):
    // every buffer is taken.
    void seal_all(bool final) noexcept;
    // Takes the buffers of owners that exited and frees their slots (the
    // logger, and a thread finding no free slot). dead_processes: also the
    // slots of other processes that died (a system call per such slot: the
    // logger's dead-writer check). Returns how many.
    std::uint32_t reap_exited(bool dead_processes = false) noexcept;
    // The stop (after `closing` was set): waits up to timeout_ms until every
    // owner of a process other than except_pid was seen outside its write
    // (or its process gone). True when all were; later writes of theirs
    // refuse. Also for a dead host's region (orphan recovery).
    static bool quiesce_owners(ControlBlock &cb, std::uint32_t except_pid, std::int64_t timeout_ms) noexcept;
    // An owner of another process inside a write when quiesce_owners gave
    // up (held there: a stopped process, a debugger): its slot, its inside
    // word, and the committed offset of the buffer taken from it (0: none).
    struct Held {
        std::uint32_t slot;
        std::uint64_t inside;
        std::uint32_t taken_offset = 0;
    };
    // Logger thread, the stop: finds the owners of processes other than
    // except_pid held inside a write and takes their buffers at the
    // committed offsets (the rest are taken by seal_all(true)).
    std::vector<Held> take_held_owners(const ControlBlock &cb, std::uint32_t except_pid);
    // How many of held are still in that same write with their event not
    // committed when their buffer was taken: each commits, if ever, into a
    // buffer already on its way, so its event reaches no file.
    static std::uint32_t still_held(const ControlBlock &cb, const std::vector<Held> &held) noexcept;
    // Asks every owner of cb's session to renew at its next write (the
    // checks of its slow path: the stop's `closing`, the real-time
    // refusal; a sealed buffer). Any thread.
    static void renew_all(ControlBlock &cb) noexcept;
    // Testing aid: slots claimed now.
    std::uint32_t claimed() const noexcept;

private:
    // The calling thread's cursor for this session, with a slot (claimed
    // first if needed); null when it has none (the CAS protocol), as when
    // owned buffers are not enabled.
    OwnedCursor *cursor() noexcept;
    OwnedCursor *claim(std::uint32_t cpu, std::uint32_t size) noexcept;
    // The write cannot go on in the cursor's buffer as it is (a request, a
    // new processor, no room): seals it if need be and takes another; false:
    // the CAS protocol for this write.
    bool renew(OwnedCursor *c, std::uint32_t req, std::uint32_t cpu, std::uint32_t size) noexcept;
    // renew() for a writer of another process, inside its bracket (the
    // request loaded again, with acquire): false when the session is stopping.
    bool renew_remote(OwnedCursor *c, std::uint32_t cpu, std::uint32_t size) noexcept;
    // Takes idx out of slot s (if it is still there) and hands it on;
    // returns the committed offset it was taken at (0: not taken).
    std::uint32_t take(std::uint32_t s, std::uint32_t idx) noexcept;
    // Frees slot s, handing on its buffer at the committed offset; false
    // when another reaper won it (or it is being claimed).
    bool free_slot(std::uint32_t s) noexcept;
    // Whether slot s's owner is gone (dead_processes: also when its process
    // died).
    bool exited(std::uint32_t s, bool dead_processes) const noexcept;

    BufferPool *pool_ = nullptr;
    std::uint64_t id_ = 0;
    std::uint32_t pid_ = 0;       // the process that enabled it
    std::uint64_t pid_start_ = 0; // its start time
    bool remote_ = false;
    bool fence_ = true; // remote owners fence (no platform::remote_barrier from the host)
    std::uint32_t buffer_size_ = 0;
    std::uint32_t min_free_ = 0;  // fewer free buffers: owners leave them to the CAS protocol
    ThreadSlot *slots_ = nullptr; // in the region
    // The grace records of this process's owners, by slot (the host's
    // logger tells their sections and exits by them).
    std::unique_ptr<std::atomic<Grace::Reader *>[]> local_;

    static inline thread_local OwnedCursor t_cursors_[kCursors] OPENETW_FAST_TLS;
    static inline thread_local unsigned t_next_ OPENETW_FAST_TLS = 0;           // the entry replaced when all are taken
    static inline thread_local OwnedCursor *t_last_ OPENETW_FAST_TLS = nullptr; // the last one used
    friend struct GraceThreadExit; // forgets the cursors when the thread's grace record goes
    // The thread's exit: its slots in other processes' sessions are marked
    // exited, and its cursors forgotten.
    static void forget_thread() noexcept;
};

} // namespace openetw::engine
