// Where a session's buffers go besides its file: an export to another
// machine (src/export implements it; the engine knows only this interface).
// The logger thread alone calls begin and publish, so an export never runs
// on a provider's write path; finish runs at the stop, after the last
// publish.
#pragma once

#include "base/status.hpp"

#include <cstdint>

namespace openetw::engine {

class BufferExport {
public:
    virtual ~BufferExport() = default;
    // Once, before any buffer: the session's log file header buffer (the
    // buffer 0 a file of the session starts with) and its StartTime
    // (FILETIME), which names this instance of the session. False when it
    // had to be dropped, as publish.
    virtual bool begin(const std::uint8_t *header, std::uint32_t size, std::int64_t start_time) = 0;
    enum class Offer {
        Queued, // taken (in memory or spooled) for sending
        Full,   // the bound is reached: nothing taken; offer it again once room is made, or count it
        Failed, // the spool cannot be written: nothing taken; count it
    };
    // One data buffer, exactly as it went to the file (SequenceNumber set).
    // Never waits for the network: queued (spooled) for sending. A full
    // queue holds the caller up to room_wait_ms for the sender to make room
    // (a lossless session's logger), 0 not at all. Each buffer takes the
    // next sequence; again: the same buffer offered once more after Full
    // (it keeps its sequence). One the session gives up on keeps its
    // sequence too, a gap the stream's readers report; the session counts
    // it (RealTimeBuffersLost).
    virtual Offer publish(const std::uint8_t *buffer, std::uint32_t size, std::int64_t room_wait_ms, bool again) = 0;

    // The stop: sends the final header buffer (the file's, rewritten with
    // the final counts), then waits, bounded, until everything queued is
    // acknowledged. A failure says what is still queued and where.
    virtual Status finish(const std::uint8_t *final_header, std::uint32_t size) = 0;
};

} // namespace openetw::engine
