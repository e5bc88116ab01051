// One session instance of a followed stream (docs/FLEET.md, "Following a
// stream") as a BufferSource: its facts from its header buffer, as a file's
// come from its first buffer, and its data buffers kept as they arrive until
// the reader takes each one (by the location add() gave it). Buffers are read
// by location only: the follow loop merges them as they come.
#pragma once

#include "consumer/buffer_source.hpp"

#include <map>
#include <memory>
#include <set>

namespace openetw::consumer {

class FollowSource final : public BufferSource {
public:
    // ETW_ERROR_INVALID_DATA when header_buffer does not read as a log file header buffer.
    static Status open(const std::vector<std::uint8_t> &header_buffer, const std::string &name, std::uint32_t index,
                       std::unique_ptr<FollowSource> &out);

    const SourceInfo &info() const override { return info_; }
    Status rewind() override { return Status::ok(); }
    Status next(StoredBuffer &, bool &have) override
    {
        have = false;
        return Status::ok();
    }
    const format::Problem &end_problem() const override { return end_problem_; }
    bool indexed() const override { return true; }
    Status directory(std::vector<BufferLocation> &out) override
    {
        out.clear();
        return Status::ok();
    }
    // Hands over the buffer kept at loc.index and forgets it.
    Status read(const BufferLocation &loc, StoredBuffer &out) override;

    // Keeps the data buffer of the instance's stream sequence (Openetw-Sequence);
    // false when that sequence came before (a message stored twice).
    bool add(std::uint64_t sequence, std::vector<std::uint8_t> bytes, BufferLocation *loc);
    // The instance stopped: its header's fields become those of the final
    // header buffer (EndTime, BuffersWritten, EventsLost...; the strings stay
    // as they were, callers may hold them). Returns the EventsLost it adds;
    // false when the buffer does not read as a header (nothing changes).
    bool finish(const std::vector<std::uint8_t> &end_buffer, std::uint32_t *events_lost);

private:
    SourceInfo info_;
    format::Problem end_problem_;
    std::uint32_t arrived_ = 0;
    std::map<std::uint32_t, std::vector<std::uint8_t>> kept_; // by arrival index
    std::set<std::uint64_t> sequences_;
};

} // namespace openetw::consumer
