// Buffering mode (docs/ENGINE.md, "Buffering mode"): the session keeps its
// newest buffers in a ring. A writer of this process that finds no free
// buffer recycles the oldest one itself, as Windows' buffering mode and
// LTTng's overwrite mode do, so events are refused only when every buffer
// is being written (or pinned by a snapshot); the logger keeps `reserve_`
// buffers free so that writers rarely need to.
#include "core/session.hpp"

namespace openetw::core {

void Session::recycle()
{
    while (pool_.free_count() < reserve_ && ring_.size() > ring_pinned_)
        pool_.release(ring_.take(ring_pinned_)); // the oldest buffer not in a snapshot is reused
}

bool Session::recycle_oldest() noexcept
{
    std::lock_guard<std::mutex> lock(ring_mutex_);
    // Buffers sealed since the logger last ran are the newest: into the
    // ring first (hand-off order), then the oldest goes.
    drain_buffers();
    if (pool_.free_count() != 0)
        return true; // drained empty buffers, or another writer freed one
    if (ring_.size() <= ring_pinned_)
        return false;
    pool_.release(ring_.take(ring_pinned_));
    return true;
}

bool Session::reserve_recycling(std::uint32_t stream, std::uint32_t size, BufferPool::Reservation *res) noexcept
{
    // Other writers may take the freed buffer first: each round frees
    // another one, and the pool bounds the rounds.
    for (std::uint32_t round = 0; round < pool_.capacity(); ++round) {
        if (!recycle_oldest())
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
    for (std::uint32_t idx : pinned) {
        const std::uint32_t events = BufferPool::events_of(pool_.desc(idx).state.load(std::memory_order_acquire));
        if (out.write_buffer(pool_.buffer(idx), events) == LogFile::Outcome::Written)
            cb.buffers_written.fetch_add(1, std::memory_order_release);
        else
            ++lost;
    }
    {
        std::lock_guard<std::mutex> lock(ring_mutex_);
        ring_pinned_ = 0;
    }
    if (lost)
        cb.log_buffers_lost.fetch_add(lost, std::memory_order_release);
    Status st = out.finish(platform::filetime_now(), cb.events_lost.load(), lost);
    if (st && lost)
        return Fail(ETW_ERROR_WRITE_FAULT, std::to_string(lost) + " buffers could not be written to \"" + path + "\"");
    return st;
}

} // namespace openetw::core
