#include "engine/owned_buffers.hpp"

#include "format/etl_layout.hpp"
#include "platform/clock.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace openetw::engine {

namespace {
std::atomic<std::uint64_t> g_ids{0};
constexpr unsigned kBusyOwnerSpins = 256; // yields the logger waits for an owner inside a write

// The owned buffers of sessions this process writes to as another process
// (remote): an exiting thread marks its slots in them exited.
std::mutex g_remote_mutex;
std::vector<OwnedBuffers *> &remote_instances()
{
    static auto *v = new std::vector<OwnedBuffers *>; // never destroyed: threads exit until the end
    return *v;
}

// The logger's (or the stop's) side of an owner's bracket: its stores
// (request, closing) before its loads of the inside words, and the owners'
// entering stores before their loads. Owners that left out their fence
// (registered, the host offering the barrier) get it from the barrier;
// the others fence themselves. Whoever stops or recovers the session may
// not be the process that offered the barrier: it is issued wherever the
// system has it.
void remote_mirror() noexcept
{
    if (platform::remote_barrier_available())
        platform::remote_barrier();
    std::atomic<std::uint64_t> scratch{0};
    full_fence(scratch);
}

bool process_gone(const ThreadSlot &ts, std::uint32_t pid) noexcept
{
    return platform::process_start_time(pid) != ts.start.load(std::memory_order_acquire);
}

// Waits until the owner of ts (another process's) is outside the write it
// may be in: its inside word even or changed, or its process gone. False
// when it stayed inside for `spins` yields.
bool outside_remote(const ThreadSlot &ts, unsigned spins) noexcept
{
    const std::uint64_t w = ts.inside.load(std::memory_order_acquire);
    if (!(w & 1))
        return true;
    for (unsigned i = 0; i < spins; ++i) {
        platform::yield();
        if (ts.inside.load(std::memory_order_acquire) != w)
            return true; // that write ended
    }
    const std::uint32_t pid = ts.pid.load(std::memory_order_acquire);
    return pid == 0 || process_gone(ts, pid);
}
} // namespace

void OwnedBuffers::enable(BufferPool *pool, bool remote) noexcept
{
    // A forked child's thread starts with its parent's cursors: forgotten,
    // and the child writes with the CAS protocol (its copy of the slots is
    // its own, and no logger of its own would take an owned buffer).
    static const bool registered = platform::run_in_forked_child(&OwnedBuffers::forget_thread);
    (void)registered;
    pid_ = platform::process_id();
    pid_start_ = remote ? platform::process_start_time(pid_) : 0;
    id_ = g_ids.fetch_add(1, std::memory_order_relaxed) + 1; // never 0 (an unused cursor)
    buffer_size_ = pool->buffer_size();
    min_free_ = 2 * pool->streams();
    local_.reset(new (std::nothrow) std::atomic<Grace::Reader *>[kThreadSlots]());
    if (!local_ || (remote && pid_start_ == 0))
        return; // every write takes the CAS protocol
    slots_ = pool->control().threads;
    remote_ = remote;
    // The host offers its remote barrier (unless the tests asked for the
    // fences: OPENETW_GRACE_FENCE=1); an owner leaves out its fence only if
    // the host offers it and this process is registered to receive it.
    std::atomic<std::uint32_t> &offer = pool->control().remote_barrier;
    if (remote)
        fence_ = !(offer.load(std::memory_order_acquire) == 1 && platform::remote_barrier_register());
    else
        offer.store(Grace::global().uses_process_barrier() && platform::remote_barrier_available() ? 1 : 0,
                    std::memory_order_release);
    if (remote) {
        std::lock_guard<std::mutex> lock(g_remote_mutex);
        try {
            remote_instances().push_back(this);
        } catch (...) {
            return; // (no memory) the CAS protocol
        }
    }
    pool_ = pool;
}

OwnedBuffers::~OwnedBuffers()
{
    if (!remote_ || pool_ == nullptr)
        return;
    {
        std::lock_guard<std::mutex> lock(g_remote_mutex);
        auto &v = remote_instances();
        v.erase(std::remove(v.begin(), v.end(), this), v.end());
    }
    // This process leaves the session (no write of its threads is in
    // progress: the session was retired after a grace period): its buffers
    // go to the host's logger at their committed offsets, its slots are free.
    for (std::uint32_t s = 0; s < kThreadSlots; ++s)
        if (slots_[s].pid.load(std::memory_order_acquire) == pid_)
            free_slot(s);
}

bool OwnedBuffers::free_slot(std::uint32_t s) noexcept
{
    // One reaper wins the slot; while gen is 0 and pid set, nobody else touches it.
    ThreadSlot &ts = slots_[s];
    std::uint64_t g = ts.gen.load(std::memory_order_acquire);
    if (g == 0 || !ts.gen.compare_exchange_strong(g, 0, std::memory_order_acq_rel))
        return false;
    // (An owner of another process that died inside a write: its record is
    // beyond the committed offset, which is all that is taken.)
    take(s, ts.current.load(std::memory_order_acquire));
    local_[s].store(nullptr, std::memory_order_relaxed);
    ts.pid.store(0, std::memory_order_release); // claimable again
    return true;
}

void OwnedBuffers::forget_thread() noexcept
{
    // Slots in other processes' sessions: marked exited for their host's
    // logger, which cannot see this thread's grace record. The thread's
    // record is released next (its owner_gen changes): its slots in this
    // process's sessions are that logger's then. A write after this
    // (another exit hook) claims a new slot under the record it attaches next.
    {
        std::lock_guard<std::mutex> lock(g_remote_mutex);
        for (OwnedBuffers *o : remote_instances())
            for (const OwnedCursor &e : t_cursors_)
                if (e.session == o->id_ && e.slot != kNoSlot) {
                    ThreadSlot &ts = o->slots_[e.slot];
                    if (ts.pid.load(std::memory_order_acquire) == o->pid_ &&
                        ts.gen.load(std::memory_order_acquire) == e.gen)
                        ts.exited.store(1, std::memory_order_release);
                }
    }
    for (OwnedCursor &e : t_cursors_)
        e = OwnedCursor{};
    t_last_ = nullptr;
}

OwnedCursor *OwnedBuffers::cursor() noexcept
{
    if (!enabled())
        return nullptr;
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
        return c;
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
    c->ids = platform::thread_id() | std::uint64_t(platform::process_id()) << 32;
    Grace::Reader *me = Grace::thread_reader();
    for (std::uint32_t s = 0, round = 0; s < kThreadSlots; ++s) {
        if (s == kThreadSlots - 1 && round++ == 0 && reap_exited() != 0)
            s = 0; // slots of threads that exited since the logger last looked
        ThreadSlot &ts = slots_[s];
        std::uint32_t expected = 0;
        if (ts.pid.load(std::memory_order_relaxed) == 0 &&
            ts.pid.compare_exchange_strong(expected, pid_, std::memory_order_acq_rel)) {
            local_[s].store(me, std::memory_order_relaxed);
            ts.exited.store(0, std::memory_order_relaxed);
            ts.start.store(pid_start_, std::memory_order_relaxed);
            ts.current.store(kNoBuffer, std::memory_order_relaxed);
            // The word goes on from the last owner's (one that died inside
            // a write left it odd): a value the logger saw never comes back.
            c->inside = std::uint32_t(ts.inside.load(std::memory_order_relaxed) + 1) & ~1u;
            ts.inside.store(c->inside, std::memory_order_relaxed);
            c->seen = ts.request.load(std::memory_order_relaxed);
            ts.gen.store(gen, std::memory_order_release);
            c->slot = s;
            c->ts = &ts;
            break;
        }
    }
    if (c == t_last_)
        t_last_ = nullptr; // (a replaced cursor)
    if (c->slot == kNoSlot)
        return nullptr;
    t_last_ = c;
    return c;
}

OwnedCursor *OwnedBuffers::claim(std::uint32_t cpu, std::uint32_t size) noexcept
{
    OwnedCursor *c = cursor();
    if (c == nullptr)
        return nullptr;
    const std::uint32_t req = c->ts->request.load(std::memory_order_relaxed);
    if (req != c->seen || cpu != c->cpu || !c->room(size))
        return renew(c, req, cpu, size) ? c : nullptr;
    return c;
}

bool OwnedBuffers::renew_remote(OwnedCursor *c, std::uint32_t cpu, std::uint32_t size) noexcept
{
    // The request again, with acquire: a stop's bump (a release after its
    // closing store, quiesce_owners) then makes `closing` visible here.
    // (Not a fence: ThreadSanitizer rejects them.)
    const std::uint32_t now = c->ts->request.load(std::memory_order_acquire);
    if (pool_->control().closing.load(std::memory_order_relaxed) != 0)
        return false; // (the caller's CAS protocol refuses the write)
    if (!renew(c, now, cpu, size))
        return false;
    c->ts->inside.store(entering(c), std::memory_order_relaxed); // the same write, in its new buffer
    return true;
}

bool OwnedBuffers::drop_if_starved_remote(ControlBlock &cb) noexcept
{
    OwnedCursor *c = t_last_;
    if (c == nullptr || c->session != id_ || !c->starved)
        return false;
    // The bracket as reserve_remote's: a stop either sees this write inside
    // and waits, or this load sees its bump and the `closing` before it.
    ThreadSlot &ts = *c->ts;
    ts.inside.store(c->inside + 1, std::memory_order_relaxed);
    if (fence_)
        full_fence(ts.inside);
    else
        std::atomic_signal_fence(std::memory_order_seq_cst);
    (void)ts.request.load(std::memory_order_acquire);
    const bool drop = cb.closing.load(std::memory_order_relaxed) == 0 && starved(cb);
    if (drop)
        cb.events_lost.fetch_add(1, std::memory_order_relaxed);
    ts.inside.store(c->inside, std::memory_order_release);
    return drop;
}

void OwnedBuffers::renew_all(ControlBlock &cb) noexcept
{
    for (ThreadSlot &ts : cb.threads)
        ts.request.fetch_add(1, std::memory_order_seq_cst);
}

bool OwnedBuffers::renew(OwnedCursor *c, std::uint32_t req, std::uint32_t cpu, std::uint32_t size) noexcept
{
    // A real-time session refusing events: the write's general path refuses
    // (or waits). The request stays unanswered, so writes come back here
    // until the refusal ends (its start asked every owner: renew_all).
    if (pool_->control().rt_refusing.load(std::memory_order_relaxed) != 0)
        return false;
    const std::uint32_t stream = pool_->stream_of(cpu);
    c->cpu = cpu;
    if (req == c->seen && stream == c->stream && c->room(size))
        return true; // another processor of the same stream
    ThreadSlot &ts = *c->ts;
    if (c->index != kNoBuffer) {
        // Full, asked for, or of another processor: handed on by whichever
        // of the owner and the logger takes it out of the slot.
        std::uint32_t idx = c->index;
        if (ts.current.compare_exchange_strong(idx, kNoBuffer, std::memory_order_acq_rel))
            pool_->seal(c->index);
        c->index = kNoBuffer;
        c->pos = c->end = nullptr;
    }
    c->seen = req;
    // Few free buffers: they are left to the CAS protocol, whose writers
    // share them (and recycle, wait or count the loss).
    if (pool_->spare() <= min_free_ || size > buffer_size_ - etl::kBufferHeaderSize)
        return false;
    const std::uint32_t idx = pool_->acquire_owned(stream, c->slot);
    if (idx == kNoBuffer)
        return false;
    c->index = idx;
    c->pos = pool_->buffer(idx) + etl::kBufferHeaderSize;
    c->end = pool_->buffer(idx) + buffer_size_;
    c->state_word = &pool_->desc(idx).state;
    c->state = BufferPool::kOwned | etl::kBufferHeaderSize; // as acquire_owned left it
    c->stream = stream;
    ts.current.store(idx, std::memory_order_release);
    return true;
}

std::uint32_t OwnedBuffers::take(std::uint32_t s, std::uint32_t idx) noexcept
{
    if (idx >= pool_->capacity())
        return 0;
    // Only the slot's own open buffer is handed on: a slot another process
    // scribbled over may name a buffer of another owner (who would hand it
    // on again) or one on its way already. Such a slot is emptied.
    const BufferDesc &d = pool_->desc(idx);
    const std::uint64_t v = d.state.load(std::memory_order_acquire);
    const bool own = (v & (BufferPool::kSealed | BufferPool::kOwned)) == BufferPool::kOwned &&
                     d.slot.load(std::memory_order_relaxed) == s &&
                     d.owner.load(std::memory_order_relaxed) == slots_[s].pid.load(std::memory_order_relaxed);
    if (!slots_[s].current.compare_exchange_strong(idx, kNoBuffer, std::memory_order_acq_rel) || !own)
        return 0;
    return BufferPool::offset_of(pool_->seal(idx));
}

bool OwnedBuffers::exited(std::uint32_t s, bool dead_processes) const noexcept
{
    const ThreadSlot &ts = slots_[s];
    const std::uint32_t pid = ts.pid.load(std::memory_order_acquire);
    if (pid == 0)
        return false;
    const std::uint64_t g = ts.gen.load(std::memory_order_acquire);
    if (g == 0)
        return false; // a claim in progress
    if (pid == pid_) {
        // A thread of this process: its last commit came before its
        // record's owner_gen changed (released at the thread's exit).
        const Grace::Reader *r = local_[s].load(std::memory_order_acquire);
        return r != nullptr && r->owner_gen.load(std::memory_order_acquire) != g;
    }
    if (ts.exited.load(std::memory_order_acquire) != 0)
        return true; // its exit said so, after its last commit
    return dead_processes && process_gone(ts, pid);
}

std::uint32_t OwnedBuffers::reap_exited(bool dead_processes) noexcept
{
    if (!enabled())
        return 0;
    std::uint32_t freed = 0;
    for (std::uint32_t s = 0; s < kThreadSlots; ++s) {
        if (!exited(s, dead_processes))
            continue;
        // (the logger, or a writer finding no free slot)
        if (free_slot(s))
            ++freed;
    }
    return freed;
}

bool OwnedBuffers::quiesce_owners(ControlBlock &cb, std::uint32_t except_pid, std::int64_t timeout_ms) noexcept
{
    // Owners check `closing` only when they renew (reserve_remote): asked
    // to, after the caller's closing store, before the barrier.
    renew_all(cb);
    remote_mirror(); // the caller's stores before the loads
    const std::int64_t deadline = platform::qpc_now() + timeout_ms * 10'000;
    for (ThreadSlot &ts : cb.threads) {
        const std::uint32_t pid = ts.pid.load(std::memory_order_acquire);
        if (pid == 0 || pid == except_pid)
            continue;
        while (!outside_remote(ts, 64)) {
            if (platform::qpc_now() >= deadline)
                return false;
            platform::sleep_ms(1);
        }
    }
    return true;
}

std::vector<OwnedBuffers::Held> OwnedBuffers::take_held_owners(const ControlBlock &cb, std::uint32_t except_pid)
{
    std::vector<Held> held;
    for (std::uint32_t s = 0; s < kThreadSlots; ++s) {
        const ThreadSlot &ts = cb.threads[s];
        const std::uint32_t pid = ts.pid.load(std::memory_order_acquire);
        const std::uint64_t w = ts.inside.load(std::memory_order_acquire);
        if (pid == 0 || pid == except_pid || !(w & 1) || process_gone(ts, pid))
            continue;
        std::uint32_t taken = 0;
        if (enabled() && ts.gen.load(std::memory_order_acquire) != 0)
            taken = take(s, ts.current.load(std::memory_order_acquire));
        held.push_back({s, w, taken});
    }
    return held;
}

std::uint32_t OwnedBuffers::still_held(const ControlBlock &cb, const std::vector<Held> &held) noexcept
{
    std::uint32_t n = 0;
    for (const Held &h : held) {
        // Its buffer's offset past the one it entered with: its one commit
        // came before the take, and the event is in the buffer.
        const bool committed = h.taken_offset > std::uint32_t(h.inside >> 32);
        n += !committed && cb.threads[h.slot].inside.load(std::memory_order_acquire) == h.inside;
    }
    return n;
}

void OwnedBuffers::seal_all(bool final) noexcept
{
    if (!enabled())
        return;
    reap_exited();
    struct Asked {
        std::uint32_t slot;
        std::uint32_t index;  // taken only if still this one: a replacement is the owner's answer
        Grace::Reader *owner; // null: an owner of another process
    };
    Asked asked[kThreadSlots];
    std::uint32_t n = 0;
    bool any_local = false, any_remote = false;
    for (std::uint32_t s = 0; s < kThreadSlots; ++s) {
        ThreadSlot &ts = slots_[s];
        const std::uint32_t pid = ts.pid.load(std::memory_order_acquire);
        if (pid == 0 || ts.gen.load(std::memory_order_acquire) == 0)
            continue;
        Grace::Reader *r = pid == pid_ ? local_[s].load(std::memory_order_acquire) : nullptr;
        if (pid == pid_ && r == nullptr)
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
        // (A read-modify-write: the stop and the real-time refusal bump it too, renew_all.)
        ts.request.fetch_add(1, std::memory_order_relaxed);
        asked[n++] = {s, idx, r};
        (r != nullptr ? any_local : any_remote) = true;
    }
    if (n == 0)
        return;
    // After the barrier an owner of this process outside its section sees
    // the request at its next write (Grace::barrier); an owner of another
    // process fences after entering its write, as the logger here: its
    // buffer is the logger's to take.
    if (any_local)
        Grace::global().barrier();
    if (any_remote)
        remote_mirror();
    for (std::uint32_t i = 0; i < n; ++i) {
        bool outside;
        if (Grace::Reader *r = asked[i].owner) {
            const std::uint64_t w = r->word.load(std::memory_order_acquire);
            outside = !(w & 1);
            for (unsigned spin = 0; !outside && spin < kBusyOwnerSpins; ++spin) {
                platform::yield();
                outside = r->word.load(std::memory_order_acquire) != w; // that write ended
            }
        } else {
            outside = outside_remote(slots_[asked[i].slot], kBusyOwnerSpins);
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
            n += slots_[s].pid.load(std::memory_order_acquire) != 0;
    return n;
}

} // namespace openetw::engine
