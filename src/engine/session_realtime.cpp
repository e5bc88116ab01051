// A session's real-time channel (docs/ENGINE.md, "Real-time delivery"):
// the queue of flushed buffers the logger appends to, the readers' cursors,
// the backlog limit and the refusal flag.
#include "engine/session.hpp"

#include <algorithm>

namespace openetw::engine {

void Session::rt_update_refusal()
{
    ControlBlock &cb = pool_.control();
    // Refuse only when nothing would take the events: no reader, no file.
    const bool refuse = rt_readers_.empty() && !has_file_.load(std::memory_order_acquire) &&
                        rt_queue_.size() >= rt_limit_ && !rt_ended_;
    const std::uint32_t was = cb.rt_refusing.exchange(refuse ? 1u : 0u, std::memory_order_acq_rel);
    if (!was && refuse)
        OwnedBuffers::renew_all(cb); // owners check the flag only when they renew
    if (was && !refuse)
        pool_.notify_space();
}

void Session::rt_push(std::uint32_t idx, std::uint32_t events)
{
    ControlBlock &cb = pool_.control();
    std::lock_guard<std::mutex> lock(rt_mutex_);
    if (rt_readers_.empty() && rt_queue_.size() >= rt_limit_) {
        // Backlog full and nobody reading: the buffer is lost for real time.
        cb.real_time_buffers_lost.fetch_add(1, std::memory_order_release);
        if (!file_.is_open())
            cb.events_lost.fetch_add(events, std::memory_order_release);
        pool_.release(idx);
        rt_update_refusal();
        return;
    }
    rt_queue_.push_back({idx, events});
    rt_update_refusal();
    rt_cv_.notify_all();
}

void Session::rt_release_passed()
{
    while (!rt_queue_.empty()) {
        for (const RealtimeReader *r : rt_readers_)
            if (r->next_ <= rt_base_)
                return;
        if (rt_readers_.empty())
            return; // kept as backlog
        pool_.release(rt_queue_.front().index);
        rt_queue_.pop_front();
        ++rt_base_;
    }
}

void Session::rt_trim(std::size_t keep)
{
    ControlBlock &cb = pool_.control();
    while (rt_queue_.size() > keep) {
        const RtEntry e = rt_queue_.back(); // the newest go; the oldest are kept
        rt_queue_.pop_back();
        cb.real_time_buffers_lost.fetch_add(1, std::memory_order_release);
        if (!has_file_.load(std::memory_order_acquire))
            cb.events_lost.fetch_add(e.events, std::memory_order_release);
        pool_.release(e.index);
    }
    rt_update_refusal();
}

Status Session::attach(std::unique_ptr<RealtimeReader> *out)
{
    if (!is_realtime())
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the session is not a real-time session (ETW_REAL_TIME_MODE)");
    std::unique_ptr<RealtimeReader> r(new RealtimeReader(shared_from_this()));
    std::lock_guard<std::mutex> lock(rt_mutex_);
    if (rt_ended_ || state.load() != Running)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session has stopped");
    r->next_ = rt_base_; // everything still held, oldest first
    const ControlBlock &cb = pool_.control();
    r->seen_events_lost_ = cb.events_lost.load(std::memory_order_acquire);
    r->seen_buffers_lost_ = cb.real_time_buffers_lost.load(std::memory_order_acquire);
    rt_readers_.push_back(r.get());
    rt_update_refusal();
    *out = std::move(r);
    return Status::ok();
}

void Session::rt_detach(RealtimeReader *r)
{
    std::lock_guard<std::mutex> lock(rt_mutex_);
    rt_readers_.erase(std::remove(rt_readers_.begin(), rt_readers_.end(), r), rt_readers_.end());
    if (rt_readers_.empty()) {
        // What the last reader did not take stays as backlog, within the limit;
        // after the end nothing will read it.
        rt_trim(rt_ended_ ? 0 : rt_limit_);
    } else {
        rt_release_passed();
    }
}

RealtimeReader::~RealtimeReader() { session_->rt_detach(this); }

void RealtimeReader::interrupt()
{
    std::lock_guard<std::mutex> lock(session_->rt_mutex_);
    interrupted_ = true;
    session_->rt_cv_.notify_all();
}

RealtimeReader::Next RealtimeReader::next(std::vector<std::uint8_t> &out, LossReport *loss)
{
    return take(out, loss, true);
}

RealtimeReader::Next RealtimeReader::try_next(std::vector<std::uint8_t> &out, LossReport *loss)
{
    return take(out, loss, false);
}

RealtimeReader::Next RealtimeReader::take(std::vector<std::uint8_t> &out, LossReport *loss, bool wait)
{
    Session &s = *session_;
    std::unique_lock<std::mutex> lock(s.rt_mutex_);
    auto ready = [&] { return interrupted_ || next_ < s.rt_base_ + s.rt_queue_.size() || s.rt_ended_; };
    if (wait)
        s.rt_cv_.wait(lock, ready);
    if (loss) {
        const ControlBlock &cb = s.pool_.control();
        const std::uint32_t ev = cb.events_lost.load(std::memory_order_acquire);
        const std::uint32_t bu = cb.real_time_buffers_lost.load(std::memory_order_acquire);
        loss->events_lost = ev - seen_events_lost_;
        loss->buffers_lost = bu - seen_buffers_lost_;
        seen_events_lost_ = ev;
        seen_buffers_lost_ = bu;
    }
    if (interrupted_)
        return Next::Interrupted;
    if (next_ >= s.rt_base_ + s.rt_queue_.size())
        return s.rt_ended_ ? Next::End : Next::Interrupted;
    const std::uint32_t idx = s.rt_queue_[std::size_t(next_ - s.rt_base_)].index;
    const std::uint32_t bs = s.pool_.buffer_size();
    lock.unlock();
    // The entry cannot be released while next_ points at it: copy unlocked.
    out.resize(bs);
    std::memcpy(out.data(), s.pool_.buffer(idx), bs);
    lock.lock();
    ++next_;
    s.rt_release_passed();
    return Next::Buffer;
}

} // namespace openetw::engine
