#include "export/publish_window.hpp"

#include <algorithm>

namespace openetw::exporter {

PublishWindow::PublishWindow(std::uint32_t capacity, std::int64_t ack_wait_ms, std::int64_t retry_wait_ms)
    : capacity_(std::max(1u, capacity)), ack_wait_ms_(ack_wait_ms), retry_wait_ms_(retry_wait_ms)
{}

PublishWindow::Entry *PublishWindow::find(std::uint64_t ordinal)
{
    if (flight_.empty() || ordinal < flight_.front().ordinal || ordinal - flight_.front().ordinal >= flight_.size())
        return nullptr;
    return &flight_[std::size_t(ordinal - flight_.front().ordinal)];
}

bool PublishWindow::next(std::uint64_t first, std::uint64_t end, std::int64_t now, std::uint64_t *ordinal)
{
    if (failing_) {
        if (std::any_of(flight_.begin(), flight_.end(), [](const Entry &e) { return e.state == State::Awaited; }))
            return false; // their answers still say what the server stored
        // Back to the oldest unacknowledged record: the acknowledged prefix
        // was taken, so that is the queue's first.
        flight_.clear();
        next_ = first;
        failing_ = false;
        probing_ = true;
        retry_at_ = now + retry_wait_ms_;
        ++failures_;
    }
    if (now < retry_at_)
        return false;
    next_ = std::max(next_, first);
    if (flight_.size() >= (probing_ ? 1u : capacity_) || next_ >= end)
        return false;
    *ordinal = next_;
    return true;
}

void PublishWindow::sent(std::uint64_t ordinal, std::int64_t now)
{
    flight_.push_back({ordinal, now, State::Awaited});
    next_ = ordinal + 1;
}

void PublishWindow::acked(std::uint64_t ordinal)
{
    if (Entry *e = find(ordinal)) {
        e->state = State::Acked;
        probing_ = false; // the server stores again: the whole window
    }
}

void PublishWindow::failed(std::uint64_t ordinal, const std::string &why)
{
    last_error_ = why;
    failing_ = true;
    if (Entry *e = find(ordinal); e && e->state == State::Awaited)
        e->state = State::Failed;
}

void PublishWindow::expire(std::int64_t now)
{
    for (Entry &e : flight_)
        if (e.state == State::Awaited && now - e.sent >= ack_wait_ms_) {
            e.state = State::Failed;
            failing_ = true;
            last_error_ = "no acknowledgement within " + std::to_string(ack_wait_ms_) + " ms";
        }
}

void PublishWindow::fail_awaited(const std::string &why)
{
    for (Entry &e : flight_)
        if (e.state == State::Awaited) {
            e.state = State::Failed;
            failing_ = true;
            last_error_ = why;
        }
}

std::uint64_t PublishWindow::take_acked()
{
    std::uint64_t n = 0;
    while (!flight_.empty() && flight_.front().state == State::Acked) {
        flight_.pop_front();
        ++n;
    }
    return n;
}

std::uint64_t PublishWindow::awaited() const
{
    return std::uint64_t(
        std::count_if(flight_.begin(), flight_.end(), [](const Entry &e) { return e.state == State::Awaited; }));
}

std::int64_t PublishWindow::wait_hint(std::int64_t now) const
{
    std::int64_t at = retry_at_ > now ? retry_at_ : INT64_MAX;
    for (const Entry &e : flight_)
        if (e.state == State::Awaited) {
            at = std::min(at, e.sent + ack_wait_ms_);
            break; // sent in order: the first awaited expires first
        }
    return at == INT64_MAX ? INT64_MAX : std::max<std::int64_t>(0, at - now);
}

} // namespace openetw::exporter
