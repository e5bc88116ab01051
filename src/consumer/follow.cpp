// Consumer::run_follow: a followed stream (docs/FLEET.md, "Following a
// stream"). Messages come in the stream's order; each session instance
// becomes a file index when its header buffer arrives, each data buffer a
// one-buffer Stream in a heap ordered by its next record's time. A record
// is delivered once it is kFollowLatenessMs older than this machine's clock
// (a buffer that was still being filled elsewhere can then no longer hold an
// earlier one), or at once in file order. Records that come later than that
// are delivered when they come. Cancel or close ends the loop: what was
// fetched is delivered first (unless close came from a callback).
#include "consumer/consumer.hpp"
#include "consumer/follow_source.hpp"
#include "export/nats_export.hpp"
#include "export/nats_follow.hpp"
#include "platform/clock.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <queue>
#include <tuple>

namespace openetw::consumer {

namespace {

constexpr int kPollMs = 200; // the longest a cancel waits for the follower
// Buffers held for the merge at most: past this the oldest record goes
// even before its time (a reader far behind must not hold the whole stream).
constexpr std::size_t kMaxHeldBuffers = 4096;

} // namespace

Status Consumer::run_follow()
{
    const bool file_order = (options_.flags & ETW_CONSUMER_ORDER_FILE) != 0;
    ImageBudget budget; // outlives the streams
    std::vector<std::unique_ptr<Stream>> streams;
    std::vector<std::size_t> free_slots;
    struct Instance {
        FollowSource *source;
        std::vector<std::uint8_t> header; // not queued yet
    };
    std::map<std::tuple<std::string, std::string, std::int64_t>, Instance> instances;
    // (time, raw, arrival order, slot): ties keep the order buffers came in.
    using Entry = std::tuple<std::int64_t, std::int64_t, std::uint64_t, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap;
    std::uint64_t arrivals = 0;

    auto report_loss = [&](std::uint64_t buffers) {
        if (buffers == 0)
            return true;
        std::string why;
        if (hooks_.loss(0, std::uint32_t(std::min<std::uint64_t>(buffers, UINT32_MAX)), &why))
            return true;
        stop_ = Fail(ETW_ERROR_CANCELLED, why);
        return false;
    };
    // Moves the stream in slot to its next record (delivering finished
    // buffers); false when processing stops.
    auto step = [&](std::size_t slot, std::uint64_t order, Status &error) {
        Stream &s = *streams[slot];
        for (;;) {
            Stream::Event event;
            if (Status st = s.advance(event); !st) {
                error = st;
                return false;
            }
            if (event == Stream::Event::Record) {
                heap.emplace(s.key().filetime, s.key().raw, order, slot);
                return true;
            }
            if (event == Stream::Event::Exhausted) {
                streams[slot].reset();
                free_slots.push_back(slot);
                return true;
            }
            if (!deliver(s, event))
                return false;
        }
    };
    auto take = [&](Status &error) {
        const auto [time, raw, order, slot] = heap.top();
        heap.pop();
        streams[slot]->use_image();
        if (!deliver_record(*streams[slot]))
            return false;
        return step(slot, order, error);
    };
    // A buffer of an instance becomes a one-buffer stream in the heap.
    auto queue = [&](FollowSource &source, std::uint64_t sequence, std::vector<std::uint8_t> bytes, Status &error) {
        BufferLocation loc;
        if (!source.add(sequence, std::move(bytes), &loc))
            return true; // stored twice
        std::size_t slot = streams.size();
        if (!free_slots.empty()) {
            slot = free_slots.back();
            free_slots.pop_back();
        } else {
            streams.emplace_back();
        }
        streams[slot] = std::make_unique<Stream>(source, std::vector<BufferLocation>{loc});
        streams[slot]->set_budget(&budget);
        return step(slot, arrivals++, error);
    };
    // Header buffers wait until records may go (so that an instance that
    // stopped in the stored part is read from its final header, as a replay
    // reads it); queued then, each before its instance's records.
    auto queue_headers = [&](Status &error) {
        for (auto &[key, inst] : instances) {
            if (inst.header.empty())
                continue;
            std::vector<std::uint8_t> bytes = std::move(inst.header);
            inst.header.clear();
            if (!queue(*inst.source, 0, std::move(bytes), error))
                return false;
        }
        return true;
    };
    auto add_message = [&](exporter::FollowedMessage &m, Status &error) {
        const auto key = std::make_tuple(m.tag.machine, m.tag.session, m.tag.start_time);
        auto it = instances.find(key);
        if (m.tag.kind == exporter::BufferTag::Kind::Header) {
            if (it != instances.end())
                return true; // stored twice
            const std::string name = follow_url_ + "#" + exporter::escape_token(m.tag.machine) + "/" +
                                     exporter::escape_token(m.tag.session) + "/" + std::to_string(m.tag.start_time);
            std::unique_ptr<FollowSource> source;
            if (Status st = FollowSource::open(m.bytes, name, file_count(), source); !st) {
                note_problem(st.code, st.message); // this instance cannot be read; the others can
                return true;
            }
            instances.emplace(key, Instance{source.get(), std::move(m.bytes)});
            {
                std::lock_guard<std::mutex> lock(sources_mutex_);
                sources_.push_back(std::move(source));
            }
            stats_.file_count = file_count();
            return true;
        }
        if (it == instances.end()) {
            // Its header is not in the stream (retention, or before since=).
            return m.tag.kind == exporter::BufferTag::Kind::End || report_loss(1);
        }
        if (m.tag.kind == exporter::BufferTag::Kind::End) {
            // The header buffer with the final counts: read in its place when
            // that is not delivered yet; its counts become the file's, and its
            // lost events are told.
            if (!it->second.header.empty())
                it->second.header = m.bytes;
            std::uint32_t events_lost = 0;
            if (!it->second.source->finish(m.bytes, &events_lost) || events_lost == 0)
                return true;
            std::string why;
            if (hooks_.loss(events_lost, 0, &why))
                return true;
            stop_ = Fail(ETW_ERROR_CANCELLED, why);
            return false;
        }
        return queue(*it->second.source, m.tag.sequence, std::move(m.bytes), error);
    };

    std::vector<exporter::FollowedMessage> messages;
    cancel_drains_ = true;
    struct Reset {
        bool &flag;
        ~Reset() { flag = false; }
    } reset{cancel_drains_}; // whatever way the loop ends
    for (;;) {
        if (cancel_.load(std::memory_order_relaxed)) {
            // What was fetched is delivered, in order (a close from a callback
            // stops it: deliver_record then returns false).
            Status error;
            if (queue_headers(error))
                while (!heap.empty() && take(error)) {
                }
            cancel_drains_ = false;
            stop_requested();
            return error;
        }
        // Due: its time is the lateness window behind this machine's clock;
        // held while the stored part is still being read (it may hold older records).
        const std::int64_t horizon = platform::filetime_now() - std::int64_t(kFollowLatenessMs) * 10000;
        Status error;
        const bool may_release = file_order || follower_->caught_up() || heap.size() > kMaxHeldBuffers;
        if (may_release && !queue_headers(error))
            return error;
        while (!heap.empty() && (file_order || heap.size() > kMaxHeldBuffers ||
                                 (follower_->caught_up() && std::get<0>(heap.top()) <= horizon)))
            if (!take(error))
                return error;
        int wait = kPollMs;
        if (!heap.empty() && follower_->caught_up()) {
            const std::int64_t due_ms = (std::get<0>(heap.top()) - horizon) / 10000 + 1;
            wait = int(std::clamp<std::int64_t>(due_ms, 1, kPollMs));
        }
        messages.clear();
        std::uint64_t discarded = 0;
        if (Status st = follower_->poll(wait, &messages, &discarded); !st)
            return st;
        if (!report_loss(discarded))
            return Status::ok();
        for (exporter::FollowedMessage &m : messages)
            if (!add_message(m, error))
                return error;
    }
}

} // namespace openetw::consumer
