// Following a stream live (docs/FLEET.md, "Following a stream"): an
// ephemeral pull consumer from the stream's start (or ?since=) that is never
// done: poll() hands over the messages stored so far, then each one sessions
// publish, in the stream's order, and counts the messages the stream removed
// (its retention, a purge) before they were read. Built with libnats; without
// it open() fails with ETW_ERROR_NOT_SUPPORTED (nats_absent.cpp).
#pragma once

#include "base/status.hpp"
#include "export/buffer_message.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openetw::exporter {

struct FollowedMessage {
    BufferTag tag;
    std::vector<std::uint8_t> bytes;
};

class NatsFollower {
public:
    virtual ~NatsFollower() = default;
    // Waits at most wait_ms for messages and appends those that came to *out
    // (at most a batch). *discarded grows by the messages the stream removed
    // between two that were read. ETW_ERROR_READ_FAULT when the server is
    // gone for good, ETW_ERROR_INVALID_DATA for a message without our headers.
    virtual Status poll(int wait_ms, std::vector<FollowedMessage> *out, std::uint64_t *discarded) = 0;
    // Whether the last poll read everything the stream held then (the stored
    // part is behind the reader).
    virtual bool caught_up() const = 0;
};

// Connects with the credentials file and creates the consumer. The reader's
// statuses (read_nats_stream), but an empty stream is not an error: what it
// will hold is followed.
Status open_nats_follower(const std::string &url, const std::string &credentials_file,
                          std::unique_ptr<NatsFollower> *out);

} // namespace openetw::exporter
