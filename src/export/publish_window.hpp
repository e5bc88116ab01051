// The export's acknowledgements in flight (docs/FLEET.md, "Delivery"): the
// sender publishes up to `capacity` records ahead of JetStream's
// acknowledgements instead of one at a time. Records are named by their
// queue ordinal (export_queue.hpp), sent in ordinal order from the queue's
// oldest, and leave the queue only as an acknowledged prefix, so the queue
// (and the spool on disk) always starts with the oldest record not yet known
// stored.
//
// A failure (the publish call fails, the server answers with an error, or no
// acknowledgement within ack_wait_ms) stops sending; once nothing is awaited
// any more the window goes back to the oldest unacknowledged record and,
// after retry_wait_ms, sends it and everything after it again, in order and
// with the same Nats-Msg-Id, so records the server did store are stored once
// (its duplicate window) and none is skipped. It sends that first record
// alone until an acknowledgement comes (a server still electing a leader or
// restarting gets one record every ack_wait_ms, not the whole window again).
//
// Pure bookkeeping with times passed in (milliseconds of a steady clock): the
// sender thread alone owns one.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

namespace openetw::exporter {

class PublishWindow {
public:
    PublishWindow(std::uint32_t capacity, std::int64_t ack_wait_ms, std::int64_t retry_wait_ms);

    // The ordinal to publish now, with the queue holding [first, end):
    // false while the window is full, nothing new is queued, a failure
    // is being settled or its retry time is not reached. The caller then
    // calls sent() or failed() for it.
    bool next(std::uint64_t first, std::uint64_t end, std::int64_t now, std::uint64_t *ordinal);
    void sent(std::uint64_t ordinal, std::int64_t now);
    // The server stored it (a duplicate too). Unknown ordinals (an answer to
    // a send the window already gave up on) are ignored.
    void acked(std::uint64_t ordinal);
    // The publish call or the server refused it; why is kept as last_error().
    void failed(std::uint64_t ordinal, const std::string &why);
    // Fails every record awaited longer than ack_wait_ms.
    void expire(std::int64_t now);
    // Fails every record still awaited (the connection was replaced: their
    // answers may be lost with it), without waiting for ack_wait_ms.
    void fail_awaited(const std::string &why);
    // How many records at the window's front are acknowledged, removed from
    // the window: the caller pops as many from its queue.
    std::uint64_t take_acked();

    bool in_flight() const { return !flight_.empty(); }
    std::uint64_t awaited() const;
    // Milliseconds until expire() or next() could change something by time alone (0: now).
    std::int64_t wait_hint(std::int64_t now) const;
    const std::string &last_error() const { return last_error_; }
    std::uint64_t failures() const { return failures_; } // go-backs so far

private:
    enum class State { Awaited, Acked, Failed };
    struct Entry {
        std::uint64_t ordinal;
        std::int64_t sent;
        State state;
    };
    Entry *find(std::uint64_t ordinal);

    std::uint32_t capacity_;
    std::int64_t ack_wait_ms_;
    std::int64_t retry_wait_ms_;
    std::deque<Entry> flight_; // consecutive ordinals from the queue's oldest
    std::uint64_t next_ = 0;   // the ordinal to send next
    bool failing_ = false;
    bool probing_ = false; // after a go-back: one record in flight until one is acknowledged
    std::int64_t retry_at_ = 0;
    std::uint64_t failures_ = 0;
    std::string last_error_;
};

} // namespace openetw::exporter
