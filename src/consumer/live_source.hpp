// A live real-time session as a BufferSource: buffers arrive as the session's
// logger flushes them (engine::RealtimeReader), in arrival order. next() blocks
// until a buffer comes, the session stops (the end) or interrupt() is called.
// Before each buffer it reports, on the processing thread, the losses counted
// since the previous report and the raw buffer (LiveHooks).
#pragma once

#include "consumer/buffer_source.hpp"
#include "engine/session.hpp"

#include <functional>
#include <memory>

namespace openetw::consumer {

struct LiveHooks {
    // Each returns false to stop processing (with the given reason in *why).
    std::function<bool(std::uint32_t events_lost, std::uint32_t buffers_lost, std::string *why)> loss;
    std::function<bool(const std::vector<std::uint8_t> &bytes, std::string *why)> raw_buffer;
};

class LiveSource final : public BufferSource {
public:
    // Reads a session's real-time feed as source index: header_buffer is
    // its session's logfile-header buffer.
    static Status open(std::unique_ptr<engine::LiveFeed> feed, const std::vector<std::uint8_t> &header_buffer,
                       const std::string &name, std::uint32_t index, const LiveHooks *hooks,
                       std::unique_ptr<LiveSource> &out);

    const SourceInfo &info() const override { return info_; }
    // A live feed cannot go back: a second pass starts where the first ended.
    Status rewind() override { return Status::ok(); }
    Status next(StoredBuffer &out, bool &have) override;
    const format::Problem &end_problem() const override { return end_problem_; }
    void interrupt() override { reader_->interrupt(); }

private:
    LiveSource() = default;
    bool report_loss(std::uint32_t events, std::uint32_t buffers, Status &stop);

    std::unique_ptr<engine::LiveFeed> reader_;
    const LiveHooks *hooks_ = nullptr;
    SourceInfo info_;
    format::Problem end_problem_;
    std::uint32_t delivered_ = 0;
};

} // namespace openetw::consumer
