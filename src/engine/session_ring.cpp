// Buffering mode (docs/ENGINE.md, "Buffering mode"): the session keeps its
// newest buffers in a ring. The logger recycles ahead of the writers: it
// keeps `reserve_` buffers free (the high-water mark), and a hand-off wakes
// it only once no more than the low-water mark are free, so writers switch
// buffers from the free list (owned or CAS protocol) without a lock. A
// writer of this process that still finds no free buffer (the logger
// lagging, or a snapshot pinning the ring) recycles the oldest one itself
// under ring_mutex_, as Windows' buffering mode and LTTng's overwrite mode
// do, so events are refused only when every buffer is being written (or
// pinned by a snapshot).
#include "engine/session.hpp"

#include <algorithm>

namespace openetw::engine {

void Session::plan_ring(std::uint32_t streams, std::uint32_t buffers)
{
    // Small pools keep one free buffer per stream (the ring keeps the rest).
    reserve_ = std::max(1u, std::min(streams, buffers - 1));
    // Owned writers take a buffer only while more than 2 x streams are free
    // (OwnedBuffers::renew), and each stream's CAS writers need one more at a
    // switch: below that the writers wake the logger. Above it, a margin
    // the logger refills at each wake (so it wakes once per several buffers,
    // and writers have buffers left while it is on its way).
    const std::uint32_t low = std::max(3 * streams + 2, buffers / 32);
    const std::uint32_t high = std::max(low + streams + 2, buffers / 16);
    if (high > buffers / 4)
        return; // that would cost more than a quarter of the ring: the small-pool reserve above stands
    reserve_ = high;
    pool_.set_wake_at(low);
}

void Session::recycle()
{
    while (pool_.free_count() < reserve_ && ring_.size() > ring_pinned_)
        pool_.release(ring_.take(ring_pinned_)); // the oldest buffer not in a snapshot is reused
}

bool Session::recycle_oldest(bool force) noexcept
{
    std::lock_guard<std::mutex> lock(ring_mutex_);
    writer_recycles_.fetch_add(1, std::memory_order_relaxed);
    // Buffers sealed since the logger last ran are the newest: into the
    // ring first (hand-off order), then the oldest goes.
    drain_buffers();
    if (!force && pool_.free_count() != 0)
        return true; // drained empty buffers, or another writer freed one
    if (ring_.size() <= ring_pinned_)
        return pool_.free_count() != 0;
    pool_.release(ring_.take(ring_pinned_));
    return true;
}

bool Session::reserve_recycling(std::uint32_t stream, std::uint32_t size, BufferPool::Reservation *res) noexcept
{
    // Other writers may take the freed buffer first: each round frees
    // another one, and the pool bounds the rounds. After a round whose
    // reserve found none, a free count above zero is not trusted: another
    // writer may be taking that one buffer and putting it back (an owner
    // falling back to its stream, a lost install), so that this writer
    // always finds the list empty; the oldest is freed regardless.
    for (std::uint32_t round = 0; round < pool_.capacity(); ++round) {
        if (!recycle_oldest(round > 0))
            return false;
        if (pool_.reserve(stream, size, res) == ETW_OK)
            return true;
    }
    return false;
}
Status Session::write_snapshot(const std::string &path)
{
    ControlBlock &cb = pool_.control();
    LogFile::Config fc = file_config_;
    fc.path = path;
    fc.header.start_buffers = 1;
    LogFile out;
    if (Status st = out.open(fc); !st)
        return st;
    // Pinned while written: writers recycle only buffers retained since.
    std::vector<std::uint32_t> pinned;
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        ring_pinned_ = ring_.size();
        pinned.reserve(ring_pinned_);
        for (std::uint32_t i = 0; i < ring_pinned_; ++i)
            pinned.push_back(ring_.at(i));
    }
    std::uint32_t lost = 0;
    std::uint64_t exported = ring_exported_;
    for (std::uint32_t idx : pinned) {
        const std::uint32_t events = BufferPool::events_of(pool_.desc(idx).state.load(std::memory_order_acquire));
        if (out.write_buffer(pool_.buffer(idx), events, {}) == LogFile::Outcome::Written) {
            cb.buffers_written.fetch_add(1, std::memory_order_release);
            // An export gets what this flush wrote that no earlier flush did,
            // as this file has it (docs/FLEET.md, "Buffering mode").
            if (!ring_arrival_.empty() && ring_arrival_[idx] > ring_exported_) {
                export_buffer(pool_.buffer(idx));
                exported = std::max(exported, ring_arrival_[idx]);
            }
        } else {
            ++lost;
        }
    }
    ring_exported_ = exported;
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        ring_pinned_ = 0;
    }
    if (lost)
        cb.log_buffers_lost.fetch_add(lost, std::memory_order_release);
    Status st = out.finish(platform::filetime_now(), {cb.events_lost.load(), lost});
    if (st && lost)
        return Fail(ETW_ERROR_WRITE_FAULT, std::to_string(lost) + " buffers could not be written to \"" + path + "\"");
    return st;
}

} // namespace openetw::engine
