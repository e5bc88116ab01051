// One exported buffer as a JetStream message (docs/FLEET.md): its subject,
// its headers and its message id, and the same facts read back. Pure text
// rules, no I/O.
//
// Subjects: STREAM.<machine>.<session>. With 1,000 hosts a reader or a
// per-host filter (STREAM.host42.>) selects by subject, and the stream's
// per-subject index keeps that cheap; the session instance (its start time)
// and the buffer's place are in the headers, not in the subject, so the
// number of subjects grows with the sessions, never with the buffers.
// Names become subject tokens by escaping every byte outside [A-Za-z0-9_-]
// as %XX: '.', '*', '>' and white space cannot end up in a subject, and two
// names never share a token.
//
// Message id (Nats-Msg-Id): machine/session/start/sequence. JetStream drops
// a message whose id it stored within its duplicate window, so a buffer sent
// again after a lost acknowledgement (a server killed mid-publish) is stored
// once.
#pragma once

#include "base/status.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openetw::exporter {

// Header names.
inline constexpr const char *kHeaderMsgId = "Nats-Msg-Id";
inline constexpr const char *kHeaderMachine = "Openetw-Machine";
inline constexpr const char *kHeaderSession = "Openetw-Session";
inline constexpr const char *kHeaderStart = "Openetw-Start";       // the session's StartTime, FILETIME, decimal
inline constexpr const char *kHeaderSequence = "Openetw-Sequence"; // 0: the log file header buffer; data: 1, 2, ...
inline constexpr const char *kHeaderKind = "Openetw-Kind";         // header, buffer or end

// Which buffer of which session instance a message holds.
struct BufferTag {
    // Header: the log file header buffer as the session started (sequence
    // 0); Buffer: a data buffer; End: the header buffer rewritten at the
    // stop with the final counts (sequence: the last data buffer's + 1).
    enum class Kind : std::uint8_t { Header = 0, Buffer = 1, End = 2 };
    Kind kind = Kind::Header;
    std::string machine;         // the host name, UTF-8
    std::string session;         // the session name, UTF-8
    std::int64_t start_time = 0; // FILETIME of the session's start: one instance of a name
    std::uint64_t sequence = 0;  // 0: the header buffer; data buffers 1, 2, ... in the order the logger wrote them
};

// name as one subject token (and header value): bytes outside
// [A-Za-z0-9_-] become %XX; an empty name is "%".
std::string escape_token(std::string_view name);
// The inverse; false for a token escape_token cannot have made.
bool unescape_token(std::string_view token, std::string *out);

std::string subject_of(const std::string &stream, const BufferTag &tag);
// What a reader subscribes to for every machine and session of the stream,
// and what the stream is created with.
std::string stream_subjects(const std::string &stream);
std::string message_id(const BufferTag &tag);
// The headers of the message, Nats-Msg-Id first.
std::vector<std::pair<std::string, std::string>> message_headers(const BufferTag &tag);
// A message's tag from its headers (get returns false for a header the
// message lacks). ETW_ERROR_INVALID_DATA naming the header missing or malformed.
Status tag_from_headers(const std::function<bool(const char *name, std::string *value)> &get, BufferTag *out);

// The spool's record of one buffer: the tag, then the bytes
// (u64 sequence, i64 start, u8 kind, u16 + machine, u16 + session, payload).
std::vector<std::uint8_t> encode_record(const BufferTag &tag, const std::uint8_t *bytes, std::uint32_t size);
// The same into *into, its storage reused (the export recycles its records' vectors).
void encode_record(const BufferTag &tag, const std::uint8_t *bytes, std::uint32_t size,
                   std::vector<std::uint8_t> *into);
// ETW_ERROR_INVALID_DATA for a record encode_record cannot have made.
Status decode_record(const std::vector<std::uint8_t> &record, BufferTag *tag, std::size_t *payload_offset);

} // namespace openetw::exporter
