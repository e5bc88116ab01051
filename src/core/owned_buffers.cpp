#include "core/owned_buffers.hpp"

#include "format/etl_layout.hpp"
#include "platform/platform.hpp"

#if !defined(_WIN32)
#include <pthread.h>
#endif

namespace openetw::core {

namespace {
std::atomic<std::uint64_t> g_ids{0};
constexpr unsigned kBusyOwnerSpins = 256; // yields the logger waits for an owner inside a write
} // namespace

void OwnedBuffers::enable(BufferPool *pool) noexcept
{
#if !defined(_WIN32)
    // A forked child's thread starts with its parent's cursors: forgotten,
    // and the child writes with the CAS protocol (its copy of the slots is
    // its own, and no logger of its own would take an owned buffer).
    static const int registered = pthread_atfork(nullptr, nullptr, &OwnedBuffers::forget_thread);
    (void)registered;
#endif
    pid_ = platform::process_id();
    id_ = g_ids.fetch_add(1, std::memory_order_relaxed) + 1; // never 0 (an unused cursor)
    buffer_size_ = pool->buffer_size();
    min_free_ = 2 * pool->streams();
    slots_.reset(new (std::nothrow) ThreadSlot[kThreadSlots]);
    if (slots_)
        pool_ = pool; // else every write takes the CAS protocol
}

void OwnedBuffers::forget_thread() noexcept
{
    // The thread's record is released (its owner_gen changes): its slots are
    // the logger's now; a write after this (another thread-local's
    // destructor) claims a new slot under the record it attaches next.
    for (OwnedCursor &e : t_cursors_)
        e = OwnedCursor{};
    t_last_ = nullptr;
}

OwnedCursor *OwnedBuffers::claim(std::uint32_t stream, std::uint32_t size) noexcept
{
    if (platform::process_id() != pid_)
        return nullptr; // a forked child (see enable)
    const std::uint64_t gen = Grace::thread_reader()->owner_gen.load(std::memory_order_relaxed);
    OwnedCursor *c = nullptr;
    for (OwnedCursor &e : t_cursors_)
        if (e.session == id_) {
            c = &e;
            break;
        }
    if (c != nullptr && c->gen == gen) {
        if (c->slot == kNoSlot)
            return nullptr; // no slot was free for this thread
        t_last_ = c;
        return reserve(stream, size);
    }
    if (c == nullptr) {
        for (OwnedCursor &e : t_cursors_)
            if (e.session == 0) {
                c = &e;
                break;
            }
        // All taken (sessions this thread wrote to, live or stopped): one is
        // replaced. A live session's slot stays this thread's until it exits;
        // its buffer is taken like an idle owner's.
        if (c == nullptr)
            c = &t_cursors_[t_next_++ % kCursors];
    }
    // (A cursor of an earlier life of the thread record: that slot is the logger's.)
    *c = OwnedCursor{};
    c->session = id_;
    c->gen = gen;
    c->slot = kNoSlot;
    c->offset = kNoRoom;
    Grace::Reader *me = Grace::thread_reader();
    for (std::uint32_t s = 0, round = 0; s < kThreadSlots; ++s) {
        if (s == kThreadSlots - 1 && round++ == 0 && reap_exited() != 0)
            s = 0; // slots of threads that exited since the logger last looked
        ThreadSlot &ts = slots_[s];
        Grace::Reader *expected = nullptr;
        if (ts.owner.load(std::memory_order_relaxed) == nullptr &&
            ts.owner.compare_exchange_strong(expected, me, std::memory_order_acq_rel)) {
            ts.current.store(kNoBuffer, std::memory_order_relaxed);
            c->seen = ts.request.load(std::memory_order_relaxed);
            ts.gen.store(gen, std::memory_order_release);
            c->slot = s;
            break;
        }
    }
    if (c == t_last_)
        t_last_ = nullptr; // (a replaced cursor)
    if (c->slot == kNoSlot)
        return nullptr;
    t_last_ = c;
    return renew(c, c->seen, stream, size) ? c : nullptr;
}

bool OwnedBuffers::renew(OwnedCursor *c, std::uint32_t req, std::uint32_t stream, std::uint32_t size) noexcept
{
    ThreadSlot &ts = slots_[c->slot];
    if (c->index != kNoBuffer) {
        // Full, asked for, or of another processor: handed on by whichever
        // of the owner and the logger takes it out of the slot.
        std::uint32_t idx = c->index;
        if (ts.current.compare_exchange_strong(idx, kNoBuffer, std::memory_order_acq_rel))
            pool_->seal(c->index);
        c->index = kNoBuffer;
        c->offset = kNoRoom;
    }
    c->seen = req;
    // Few free buffers: they are left to the CAS protocol, whose writers
    // share them (and recycle, wait or count the loss).
    if (pool_->spare() <= min_free_ || size > buffer_size_ - etl::kBufferHeaderSize)
        return false;
    const std::uint32_t idx = pool_->acquire_owned(stream);
    if (idx == kNoBuffer)
        return false;
    c->index = idx;
    c->offset = etl::kBufferHeaderSize;
    c->events = 0;
    c->stream = stream;
    ts.current.store(idx, std::memory_order_release);
    return true;
}

void OwnedBuffers::take(std::uint32_t s, std::uint32_t idx) noexcept
{
    if (idx >= pool_->capacity())
        return;
    if (slots_[s].current.compare_exchange_strong(idx, kNoBuffer, std::memory_order_acq_rel))
        pool_->seal(idx);
}

bool OwnedBuffers::exited(std::uint32_t s, Grace::Reader **owner) const noexcept
{
    const ThreadSlot &ts = slots_[s];
    Grace::Reader *r = ts.owner.load(std::memory_order_acquire);
    *owner = r;
    if (r == nullptr)
        return false;
    const std::uint64_t g = ts.gen.load(std::memory_order_acquire);
    // (0: a claim in progress.) The owner's last commit came before its
    // record's owner_gen changed (released at the thread's exit).
    return g != 0 && r->owner_gen.load(std::memory_order_acquire) != g;
}

std::uint32_t OwnedBuffers::reap_exited() noexcept
{
    if (!enabled())
        return 0;
    std::uint32_t freed = 0;
    for (std::uint32_t s = 0; s < kThreadSlots; ++s) {
        Grace::Reader *r;
        if (!exited(s, &r))
            continue;
        // One reaper (the logger, or a writer finding no free slot) wins the
        // slot; while gen is 0 and owner set, nobody else touches it.
        ThreadSlot &ts = slots_[s];
        std::uint64_t g = ts.gen.load(std::memory_order_acquire);
        if (g == 0 || !ts.gen.compare_exchange_strong(g, 0, std::memory_order_acq_rel))
            continue;
        take(s, ts.current.load(std::memory_order_acquire));
        ts.owner.store(nullptr, std::memory_order_release); // claimable again
        ++freed;
    }
    return freed;
}

void OwnedBuffers::seal_all(bool final) noexcept
{
    if (!enabled())
        return;
    reap_exited();
    struct Asked {
        std::uint32_t slot;
        std::uint32_t index; // taken only if still this one: a replacement is the owner's answer
        Grace::Reader *owner;
    };
    Asked asked[kThreadSlots];
    std::uint32_t n = 0;
    for (std::uint32_t s = 0; s < kThreadSlots; ++s) {
        ThreadSlot &ts = slots_[s];
        Grace::Reader *r = ts.owner.load(std::memory_order_acquire);
        if (r == nullptr || ts.gen.load(std::memory_order_acquire) == 0)
            continue;
        const std::uint32_t idx = ts.current.load(std::memory_order_acquire);
        if (idx >= pool_->capacity())
            continue;
        if (final) {
            take(s, idx);
            continue;
        }
        if (BufferPool::events_of(pool_->desc(idx).state.load(std::memory_order_acquire)) == 0)
            continue;
        ts.request.store(ts.request.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        asked[n++] = {s, idx, r};
    }
    if (n == 0)
        return;
    // After the barrier an owner outside its section sees the request at
    // its next write (Grace::barrier): its buffer is the logger's to take.
    Grace::global().barrier();
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t w = asked[i].owner->word.load(std::memory_order_acquire);
        bool outside = !(w & 1);
        for (unsigned spin = 0; !outside && spin < kBusyOwnerSpins; ++spin) {
            platform::yield();
            outside = asked[i].owner->word.load(std::memory_order_acquire) != w; // that write ended
        }
        if (outside)
            take(asked[i].slot, asked[i].index);
        // else the owner is blocked inside a write: it seals at its next one.
    }
}

std::uint32_t OwnedBuffers::claimed() const noexcept
{
    std::uint32_t n = 0;
    if (enabled())
        for (std::uint32_t s = 0; s < kThreadSlots; ++s)
            n += slots_[s].owner.load(std::memory_order_acquire) != nullptr;
    return n;
}

} // namespace openetw::core
