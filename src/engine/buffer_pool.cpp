#include "engine/buffer_pool.hpp"

#include "format/etl_layout.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace openetw::engine {

namespace {
constexpr std::uint32_t kMagic = 0x4F455457; // "OETW"
constexpr std::size_t kPage = 4096;
std::size_t round_up(std::size_t n, std::size_t a) { return (n + a - 1) / a * a; }
std::uint64_t pack(std::uint32_t idx, std::uint32_t tag) { return std::uint64_t(idx) | (std::uint64_t(tag) << 32); }
std::uint32_t index_of(std::uint64_t v) { return std::uint32_t(v); }
std::uint32_t tag_of(std::uint64_t v) { return std::uint32_t(v >> 32); }
} // namespace

std::size_t BufferPool::region_size(std::uint32_t buffer_size, std::uint32_t streams, std::uint32_t capacity)
{
    std::size_t off = round_up(sizeof(ControlBlock), 64);
    off += sizeof(StreamSlot) * streams;
    off = round_up(off, 64) + sizeof(BufferDesc) * capacity;
    off = round_up(off, kPage);
    return off + std::size_t(buffer_size) * capacity;
}

BufferPool::~BufferPool() { platform::region_unmap(&region_); }

namespace {
struct Layout {
    std::uint64_t streams_offset, descs_offset, data_offset;
};
Layout layout_of(std::uint32_t streams, std::uint32_t capacity)
{
    Layout l;
    l.streams_offset = round_up(sizeof(ControlBlock), 64);
    l.descs_offset = round_up(l.streams_offset + sizeof(StreamSlot) * streams, 64);
    l.data_offset = round_up(l.descs_offset + sizeof(BufferDesc) * capacity, kPage);
    return l;
}
} // namespace

void BufferPool::derive(std::uint64_t streams_offset, std::uint64_t descs_offset, std::uint64_t data_offset) noexcept
{
    auto *base = static_cast<std::uint8_t *>(region_.base);
    data_ = base + data_offset;
    descs_ = reinterpret_cast<BufferDesc *>(base + descs_offset);
    slots_ = reinterpret_cast<StreamSlot *>(base + streams_offset);
    data_offset_ = data_offset;
}

etw_status BufferPool::create(std::uint32_t buffer_size, std::uint32_t streams, std::uint32_t min_buffers,
                              std::uint32_t max_buffers, std::uint32_t capacity,
                              const std::string &shared_path) noexcept
{
    const std::size_t size = region_size(buffer_size, streams, capacity);
    const Layout l = layout_of(streams, capacity);
    // Everything written below, and the minimum's buffers, is backed before
    // it is touched: a full file system fails the start here, never with a
    // fault on a page (the processes the region is handed to touch the same).
    const std::size_t backed = l.data_offset + std::size_t(buffer_size) * min_buffers;
    const etw_status mapped = shared_path.empty() ? platform::region_map_private(&region_, size)
                                                  : platform::shared_region_create(&region_, shared_path, size, backed);
    if (mapped != ETW_OK)
        return mapped;
    auto *cb = new (region_.base) ControlBlock{};
    cb->layout_version = kRegionLayout;
    cb->region_size = size;
    cb->buffer_size = buffer_size;
    cb->streams = streams;
    cb->capacity = capacity;
    cb->min_buffers = min_buffers;
    cb->streams_offset = l.streams_offset;
    cb->descs_offset = l.descs_offset;
    cb->data_offset = l.data_offset;
    derive(l.streams_offset, l.descs_offset, l.data_offset);
    buffer_size_ = buffer_size;
    streams_ = streams;
    capacity_ = capacity;
    for (std::uint32_t s = 0; s < streams; ++s)
        new (&slot(s)) StreamSlot{};
    for (std::uint32_t s = 0; s < streams; ++s)
        slot(s).current.store(kNoBuffer, std::memory_order_relaxed);
    for (ThreadSlot &ts : cb->threads)
        ts.current.store(kNoBuffer, std::memory_order_relaxed);
    for (std::uint32_t i = 0; i < capacity; ++i) {
        auto *d = new (&desc(i)) BufferDesc{};
        d->state.store(kSealed, std::memory_order_relaxed);
        d->next.store(kNoBuffer, std::memory_order_relaxed);
    }
    cb->max_buffers.store(max_buffers, std::memory_order_relaxed);
    cb->free_head.store(pack(kNoBuffer, 0), std::memory_order_relaxed);
    cb->flush_head.store(pack(kNoBuffer, 0), std::memory_order_relaxed);
    // The session starts with the minimum, all free.
    cb->allocated.store(min_buffers, std::memory_order_relaxed);
    for (std::uint32_t i = min_buffers; i-- > 0;)
        push_free(i);
    // Last: a region with the magic is complete (attach checks it).
    std::atomic_ref<std::uint32_t>(cb->magic).store(kMagic, std::memory_order_release);
    return ETW_OK;
}

etw_status BufferPool::attach(platform::Region region) noexcept
{
    region_ = region;
    if (region.size < sizeof(ControlBlock))
        return ETW_ERROR_INVALID_DATA;
    const ControlBlock &cb = control();
    if (std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t &>(cb.magic)).load(std::memory_order_acquire) !=
            kMagic ||
        cb.layout_version != kRegionLayout)
        return ETW_ERROR_INVALID_DATA;
    // Copied once, then checked against each other and the region's size:
    // later scribbles over these words change nothing here.
    const std::uint32_t bs = cb.buffer_size, streams = cb.streams, capacity = cb.capacity;
    if (bs < 1024 || bs > (1u << 24) || bs % 1024 != 0 || streams == 0 || streams > 4096 || capacity == 0 ||
        capacity > (1u << 20) || region_size(bs, streams, capacity) != region.size)
        return ETW_ERROR_INVALID_DATA;
    const Layout l = layout_of(streams, capacity);
    derive(l.streams_offset, l.descs_offset, l.data_offset);
    buffer_size_ = bs;
    streams_ = streams;
    capacity_ = capacity;
    return ETW_OK;
}

std::uint32_t BufferPool::allocated() const noexcept
{
    const std::uint32_t n = control().allocated.load(std::memory_order_acquire);
    return n < capacity_ ? n : capacity_;
}

void BufferPool::push_free(std::uint32_t idx) noexcept
{
    ControlBlock &cb = control();
    desc(idx).owner.store(0, std::memory_order_relaxed); // published by the CAS below
    std::uint64_t head = cb.free_head.load(std::memory_order_relaxed);
    for (;;) {
        desc(idx).next.store(index_of(head), std::memory_order_relaxed);
        if (cb.free_head.compare_exchange_weak(head, pack(idx, tag_of(head) + 1), std::memory_order_release,
                                               std::memory_order_relaxed))
            break;
    }
    cb.free_count.fetch_add(1, std::memory_order_relaxed);
}

std::uint32_t BufferPool::acquire_free() noexcept
{
    ControlBlock &cb = control();
    std::uint64_t head = cb.free_head.load(std::memory_order_acquire);
    while (index_of(head) < capacity_) { // anything else is the end (or a scribble)
        const std::uint32_t idx = index_of(head);
        const std::uint32_t next = desc(idx).next.load(std::memory_order_relaxed);
        if (cb.free_head.compare_exchange_weak(head, pack(next, tag_of(head) + 1), std::memory_order_acquire,
                                               std::memory_order_acquire)) {
            cb.free_count.fetch_sub(1, std::memory_order_relaxed);
            // Its last writers' commits and the host's clearing were
            // released on the buffer's state: what ordered them reached us
            // through another process, which a race detector here cannot
            // see; this acquire says it where it can.
            if (is_shared())
                (void)desc(idx).state.load(std::memory_order_acquire);
            desc(idx).owner.store(platform::process_id(), std::memory_order_relaxed);
            return idx;
        }
    }
    // No free buffer: grow up to the maximum.
    std::uint32_t n = cb.allocated.load(std::memory_order_relaxed);
    while (n < cb.max_buffers.load(std::memory_order_relaxed) && n < capacity_) {
        // Backed before it is counted: a buffer that cannot be backed is never handed out.
        if (platform::region_commit(region_, data_offset_ + std::size_t(n) * buffer_size_, buffer_size_) != ETW_OK)
            return kNoBuffer;
        if (cb.allocated.compare_exchange_weak(n, n + 1, std::memory_order_acq_rel, std::memory_order_relaxed)) {
            desc(n).owner.store(platform::process_id(), std::memory_order_relaxed);
            return n;
        }
    }
    return kNoBuffer;
}

void BufferPool::hand_off(std::uint32_t idx) noexcept
{
    ControlBlock &cb = control();
    std::uint64_t head = cb.flush_head.load(std::memory_order_relaxed);
    for (;;) {
        desc(idx).next.store(index_of(head), std::memory_order_relaxed);
        if (cb.flush_head.compare_exchange_weak(head, pack(idx, tag_of(head) + 1), std::memory_order_acq_rel,
                                                std::memory_order_relaxed))
            break;
    }
    // Wake the logger: at most once per buffer, never per event, and only
    // when it may be asleep (a busy logger finds the buffer on its own: no
    // system call on the writer's path). Pairs with Session::logger_main:
    // either the logger sees the new wake_word value and does not sleep, or
    // this load sees logger_waiting set and wakes it (seq_cst order). A
    // buffering session's logger is woken only at its low-water mark.
    cb.wake_word.fetch_add(1, std::memory_order_seq_cst);
    if (cb.logger_waiting.load(std::memory_order_seq_cst) != 0) {
        const std::uint32_t wake_at = cb.wake_at.load(std::memory_order_relaxed);
        if (wake_at == 0 || cb.free_count.load(std::memory_order_relaxed) <= wake_at)
            platform::wake_all(&cb.wake_word);
    }
}

std::uint64_t BufferPool::seal(std::uint32_t idx) noexcept
{
    const std::uint64_t old = desc(idx).state.fetch_or(kSealed, std::memory_order_acq_rel);
    if (!(old & kSealed) && writers_of(old) == 0)
        hand_off(idx);
    return old;
}

etw_status BufferPool::reserve_slow(std::uint32_t stream, std::uint32_t size, Reservation *out) noexcept
{
    StreamSlot &sl = slot(stream);
    const std::uint32_t bs = buffer_size_;
    for (;;) {
        const std::uint32_t seen = sl.current.load(std::memory_order_acquire);
        // A scribbled slot is replaced like an empty one (the CAS expects what was seen).
        std::uint32_t idx = seen < capacity_ ? seen : kNoBuffer;
        if (idx != kNoBuffer) {
            auto &state = desc(idx).state;
            std::uint64_t v = state.load(std::memory_order_acquire);
            while (!(v & (kSealed | kOwned))) {
                const std::uint32_t off = offset_of(v);
                if (off + size > bs || (off & 7) != 0) // full (or scribbled)
                    break;
                if (state.compare_exchange_weak(v, v + size + kEventOne + kWriterOne, std::memory_order_acq_rel,
                                                std::memory_order_acquire)) {
                    out->index = idx;
                    out->offset = off;
                    return ETW_OK;
                }
            }
            // Full, or sealed: a sealed buffer leaves its slot before it is
            // sealed, so this one is about to be replaced; replacing it here
            // too is harmless (one CAS wins), and a slot that someone else
            // left pointing at a sealed buffer cannot make writers spin.
            // An owned buffer is in no stream slot unless the slot was
            // scribbled: it is replaced, not sealed (its owner hands it on).
            if ((v & (kSealed | kOwned)) == kOwned)
                idx = kNoBuffer;
        }
        // A stopping session opens no buffer: a writer of another process
        // still inside its write (the stop waited for it) would fill one
        // nobody takes any more.
        if (is_shared() && control().closing.load(std::memory_order_acquire) != 0)
            return ETW_ERROR_WMI_INSTANCE_NOT_FOUND;
        // Switch: the stream has no buffer or it is full.
        const std::uint32_t fresh = acquire_free();
        // Opened below by a CAS from the free state it is in now: a free
        // list another process scribbled over may hand out a buffer in use,
        // which is then left to its users (this event is dropped).
        const std::uint64_t free_state = fresh != kNoBuffer ? desc(fresh).state.load(std::memory_order_acquire) : 0;
        if (fresh != kNoBuffer && !is_free_state(free_state))
            return ETW_ERROR_NOT_ENOUGH_MEMORY;
        if (fresh != kNoBuffer && is_shared() && desc(fresh).dirty.load(std::memory_order_acquire) != 0) {
            // Last used by an owner (release left it as it was): records
            // start on zero here (cleared while still ours alone: nobody
            // reserves in it before the install).
            std::memset(buffer(fresh) + etl::kBufferHeaderSize, 0, buffer_size_ - etl::kBufferHeaderSize);
            desc(fresh).dirty.store(0, std::memory_order_release);
        }
        if (fresh == kNoBuffer) {
            // Out of buffers: let the full one be written, drop this event.
            if (idx != kNoBuffer) {
                std::uint32_t expected = idx;
                if (sl.current.compare_exchange_strong(expected, kNoBuffer, std::memory_order_acq_rel))
                    seal(idx);
            }
            return ETW_ERROR_NOT_ENOUGH_MEMORY;
        }
        desc(fresh).stream.store(stream, std::memory_order_relaxed);
        std::uint32_t expected = seen;
        if (sl.current.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
            // Open only once installed (see the header comment).
            std::uint64_t was = free_state;
            if (!desc(fresh).state.compare_exchange_strong(was, etl::kBufferHeaderSize, std::memory_order_acq_rel)) {
                // Taken by someone else meanwhile (the scribble above): theirs.
                std::uint32_t mine = fresh;
                sl.current.compare_exchange_strong(mine, kNoBuffer, std::memory_order_acq_rel);
            } else if (sl.current.load(std::memory_order_acquire) != fresh) {
                // A writer that saw it still sealed (from its last use) may
                // have replaced it meanwhile, sealing nothing: out of the
                // slot, it goes back to the free list if nobody reserved in
                // it, else it is sealed here (or it would never be written).
                std::uint64_t unused = etl::kBufferHeaderSize;
                if (desc(fresh).state.compare_exchange_strong(unused, kSealed | etl::kBufferHeaderSize,
                                                              std::memory_order_acq_rel)) {
                    push_free(fresh);
                    notify_space(); // free again: so writers that found none learn (OwnedBuffers::starved)
                } else {
                    seal(fresh);
                }
            }
            if (idx != kNoBuffer)
                seal(idx);
        } else {
            push_free(fresh);
            notify_space();
        }
    }
}

std::uint32_t BufferPool::acquire_owned(std::uint32_t stream, std::uint32_t slot) noexcept
{
    const std::uint32_t idx = acquire_free();
    if (idx == kNoBuffer)
        return kNoBuffer;
    desc(idx).stream.store(stream, std::memory_order_relaxed);
    desc(idx).slot.store(slot, std::memory_order_relaxed);
    desc(idx).dirty.store(1, std::memory_order_relaxed); // (published by the CAS below)
    // From the free state only (see reserve_slow): a buffer a scribbled
    // free list handed out while in use stays its users'.
    std::uint64_t v = desc(idx).state.load(std::memory_order_acquire);
    if (!is_free_state(v) ||
        !desc(idx).state.compare_exchange_strong(v, kOwned | etl::kBufferHeaderSize, std::memory_order_acq_rel))
        return kNoBuffer;
    return idx;
}

bool BufferPool::seal_stream(std::uint32_t stream) noexcept
{
    StreamSlot &sl = slot(stream);
    std::uint32_t idx = sl.current.load(std::memory_order_acquire);
    if (idx >= capacity_)
        return false;
    const std::uint64_t v = desc(idx).state.load(std::memory_order_acquire);
    if ((v & (kSealed | kOwned)) || offset_of(v) <= etl::kBufferHeaderSize)
        return false; // empty, already on its way, or (a scribbled slot) an owner's
    if (!sl.current.compare_exchange_strong(idx, kNoBuffer, std::memory_order_acq_rel))
        return false;
    seal(idx);
    return true;
}

void BufferPool::close_streams() noexcept
{
    for (std::uint32_t st = 0; st < streams_; ++st) {
        std::uint32_t idx = slot(st).current.load(std::memory_order_acquire);
        if (idx >= capacity_ || (desc(idx).state.load(std::memory_order_acquire) & kOwned))
            continue; // (a scribbled slot naming an owner's buffer: its owner hands it on)
        if (slot(st).current.compare_exchange_strong(idx, kNoBuffer, std::memory_order_acq_rel))
            seal(idx); // an empty one goes back to the free list from the logger's drain
    }
}

std::uint32_t BufferPool::take_flushed(std::uint32_t *out, std::uint32_t max) noexcept
{
    ControlBlock &cb = control();
    std::uint64_t head = cb.flush_head.load(std::memory_order_acquire);
    while (!cb.flush_head.compare_exchange_weak(head, pack(kNoBuffer, tag_of(head) + 1), std::memory_order_acq_rel,
                                                std::memory_order_acquire)) {
    }
    std::uint32_t n = 0;
    for (std::uint32_t idx = index_of(head); idx < capacity_ && n < max;
         idx = desc(idx).next.load(std::memory_order_relaxed))
        out[n++] = idx;
    // The list is newest first: reverse to hand-off order.
    for (std::uint32_t i = 0; i < n / 2; ++i) {
        std::uint32_t t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    return n;
}

std::vector<BufferPool::Stuck> BufferPool::stuck_buffers() const
{
    std::vector<Stuck> out;
    const std::uint32_t n = allocated();
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t v = desc(i).state.load(std::memory_order_acquire);
        if ((v & kSealed) && writers_of(v) != 0)
            out.push_back({i, v});
    }
    return out;
}

bool BufferPool::is_current(std::uint32_t idx) const noexcept
{
    for (std::uint32_t st = 0; st < streams_; ++st)
        if (slot(st).current.load(std::memory_order_acquire) == idx)
            return true;
    for (const ThreadSlot &ts : control().threads)
        if (ts.pid.load(std::memory_order_acquire) != 0 && ts.current.load(std::memory_order_acquire) == idx)
            return true;
    return false;
}

void BufferPool::seal_detached(bool held_owners) noexcept
{
    const std::uint32_t self = platform::process_id();
    const std::uint32_t n = allocated();
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t v = desc(i).state.load(std::memory_order_acquire);
        if ((v & kSealed) || is_current(i))
            continue;
        if (!(v & kOwned)) {
            seal(i);
            continue;
        }
        // An open owned buffer is its owner's to seal (OwnedBuffers::renew
        // empties the thread slot, then seals), unless the owner's process
        // died in between: its committed events are handed on here. (One
        // opened and never written is freed instead: unopened_of_dead.)
        const std::uint32_t owner = desc(i).owner.load(std::memory_order_relaxed);
        if (events_of(v) != 0 && owner != 0 && owner != self &&
            (held_owners || platform::process_start_time(owner) == 0))
            seal(i);
    }
}

std::vector<BufferPool::Stuck> BufferPool::sealed_idle() const
{
    std::vector<Stuck> out;
    const std::uint32_t n = allocated();
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t v = desc(i).state.load(std::memory_order_acquire);
        if ((v & kSealed) && writers_of(v) == 0 && events_of(v) != 0)
            out.push_back({i, v});
    }
    return out;
}

std::vector<BufferPool::Unopened> BufferPool::unopened_of_dead() const
{
    std::vector<Unopened> out;
    const std::uint32_t self = platform::process_id();
    const std::uint32_t n = allocated();
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint64_t v = desc(i).state.load(std::memory_order_acquire);
        const std::uint32_t owner = desc(i).owner.load(std::memory_order_relaxed);
        // Free and taken buffers look alike (sealed, empty); a free one has
        // no owner. An owned one opened (empty) whose owner died before
        // putting it in its thread slot is in none.
        const bool taken = (v & kSealed) && writers_of(v) == 0;
        const bool opened = (v & (kSealed | kOwned)) == kOwned;
        if (!(taken || opened) || events_of(v) != 0 || owner == 0 || owner == self || is_current(i) ||
            platform::process_start_time(owner) != 0)
            continue;
        out.push_back({i, v, owner});
    }
    return out;
}

std::uint32_t BufferPool::reclaim_unopened(const std::vector<Unopened> &lost,
                                           const std::vector<std::uint32_t> &held) noexcept
{
    std::uint32_t reclaimed = 0;
    for (const Unopened &u : lost) {
        // An owner that changed took it from the free list since: it is live.
        if (desc(u.index).owner.load(std::memory_order_relaxed) != u.owner || is_current(u.index) ||
            std::find(held.begin(), held.end(), u.index) != held.end())
            continue;
        // Unchanged since, and free again (an opened owned one was never written).
        std::uint64_t v = u.state;
        if (!desc(u.index).state.compare_exchange_strong(v, kSealed | etl::kBufferHeaderSize,
                                                         std::memory_order_acq_rel))
            continue;
        push_free(u.index);
        ++reclaimed;
    }
    if (reclaimed != 0)
        notify_space();
    return reclaimed;
}

std::vector<std::uint32_t> BufferPool::queued() const
{
    std::vector<std::uint32_t> out;
    std::uint32_t idx = index_of(control().flush_head.load(std::memory_order_acquire));
    while (idx < capacity_ && out.size() < capacity_) {
        out.push_back(idx);
        idx = desc(idx).next.load(std::memory_order_relaxed);
    }
    return out;
}

std::uint32_t BufferPool::force_stuck(const std::vector<Stuck> &stuck) noexcept
{
    std::uint32_t forced = 0;
    for (const Stuck &s : stuck) {
        // Unchanged since: no live writer is in it (a buffer sealed later, or
        // reused since, may hold live writers and is left alone).
        std::uint64_t v = s.state;
        const std::uint64_t taken = (v & ~(std::uint64_t(0xFFFF) << kWritersShift)) | kForced;
        if (desc(s.index).state.compare_exchange_strong(v, taken, std::memory_order_acq_rel,
                                                        std::memory_order_acquire)) {
            hand_off(s.index);
            ++forced;
        }
    }
    return forced;
}

void BufferPool::release(std::uint32_t idx) noexcept
{
    if (is_shared()) {
        // Writers of other processes may die mid-record: a record's first
        // word is published last, so a CAS-protocol buffer must start zeroed
        // for an unfinished record to show (format/buffer_repair.hpp). A
        // buffer the CAS protocol used is cleared here; one an owner used is
        // not (its state word said what was committed): it is cleared only
        // if the CAS protocol installs it next (BufferDesc::dirty). Its state
        // says "no events" first and its header is cleared last, so whoever
        // recovers a dead host's region (host/orphan_recovery) never takes a
        // free buffer for one holding events, nor a written one for unwritten.
        const std::uint64_t was = desc(idx).state.load(std::memory_order_acquire);
        desc(idx).state.store(kSealed | etl::kBufferHeaderSize, std::memory_order_release);
        std::uint8_t *b = buffer(idx);
        if (was & kOwned) {
            desc(idx).dirty.store(1, std::memory_order_relaxed);
        } else {
            std::memset(b + etl::kBufferHeaderSize, 0, buffer_size_ - etl::kBufferHeaderSize);
            desc(idx).dirty.store(0, std::memory_order_relaxed);
        }
        std::atomic_signal_fence(std::memory_order_seq_cst);
        std::memset(b, 0, etl::kBufferHeaderSize);
        // The clearing is released with the state (for the next user's acquire).
        desc(idx).state.store(kSealed | etl::kBufferHeaderSize, std::memory_order_release);
    } else {
        desc(idx).state.store(kSealed | etl::kBufferHeaderSize, std::memory_order_relaxed); // free (is_free_state)
    }
    push_free(idx);
    notify_space();
}

void BufferPool::notify_space() noexcept
{
    // Pairs with the waiter's space_waiters increment and space_word load
    // (all seq_cst): either the waiter sees the new word, or we see it waiting.
    ControlBlock &cb = control();
    cb.space_word.fetch_add(1, std::memory_order_seq_cst);
    if (cb.space_waiters.load(std::memory_order_seq_cst) != 0)
        platform::wake_all(&cb.space_word);
}

std::uint32_t BufferPool::set_max_buffers(std::uint32_t max) noexcept
{
    ControlBlock &cb = control();
    if (max > capacity_)
        max = capacity_;
    const std::uint32_t allocated = cb.allocated.load(std::memory_order_relaxed);
    if (max < allocated)
        max = allocated;
    if (max < cb.min_buffers)
        max = cb.min_buffers;
    if (max > capacity_)
        max = capacity_; // min_buffers is read from the region
    cb.max_buffers.store(max, std::memory_order_relaxed);
    notify_space(); // room to grow, maybe: writers that found no buffer try again
    return max;
}

} // namespace openetw::engine
