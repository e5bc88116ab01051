// The address of a JetStream stream, as a session exports to it and a
// consumer reads it: nats://HOST[:PORT][,HOST[:PORT]...]/STREAM[?since=TIME][&follow=1]
// (several servers: the nodes of a cluster, any of which will do; the
// client moves to another when one fails). Pure text rules,
// no I/O, every OS. Credentials never travel in the URL (they would show in
// `ps` and in shell histories): a URL with a user part is refused and the
// credentials come from a file (credentials.hpp).
#pragma once

#include "base/status.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openetw::exporter {

inline constexpr std::uint16_t kDefaultNatsPort = 4222;
inline constexpr std::size_t kMaxStreamName = 64; // JetStream allows more; a subject prefix stays short

struct ExportUrl {
    std::string host; // the first server, as written: a name, an IPv4 address, or [an IPv6 address]
    std::uint16_t port = kDefaultNatsPort;
    // The servers after the first, in the order written: "HOST:PORT".
    std::vector<std::string> more_servers;
    std::string stream;
    // Readers only: replay from this UTC time (nanoseconds since 1970); 0:
    // from the stream's first message.
    std::int64_t since_unix_ns = 0;
    // Readers only (follow=1): after what is stored, keep reading what
    // sessions publish until the consumer is cancelled (FLEET.md, "Following").
    bool follow = false;

    // The servers' addresses for the NATS client ("nats://HOST:PORT", a
    // comma-separated list of them when there are several).
    std::string server() const;
    // The URL again, in its canonical form (no query).
    std::string text() const;
};

// True when text names a stream (starts with "nats://"), whether or not the
// rest is valid: the consumer then reads it as a stream, never as a file.
bool is_nats_url(std::string_view text);

// ETW_ERROR_INVALID_PARAMETER for a URL that is not nats://HOST[:PORT][,...]/STREAM
// (another scheme, a user part, no host (also between commas), a port outside 1..65535, no stream,
// an unknown query), ETW_ERROR_INVALID_NAME for a stream name that is empty,
// longer than kMaxStreamName, or holds anything but letters, digits, '-' and
// '_'; each with a sentence naming the part at fault.
Status parse_export_url(std::string_view text, ExportUrl *out);

} // namespace openetw::exporter
