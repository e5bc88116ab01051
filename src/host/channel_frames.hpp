// The framing every conversation with a session host uses (session_channel
// for one session's requests, host_channel for the host's own): a fixed
// frame head, then a body of little pieces read back with bounds checks.
// Nothing read from a channel is trusted.
#pragma once

#include "base/status.hpp"
#include "host/engine_names.hpp"
#include "host/protocol.hpp"
#include "host/system_registry.hpp"
#include "platform/channel.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::host::frames {

inline constexpr std::uint32_t kMagic = 0x4843454F;           // "OECH"
inline constexpr std::uint32_t kMaxBody = (16u << 20) + 4096; // a 16 MiB buffer and its frame
inline constexpr std::uint32_t kMessageMax = 1024;
// The most bytes Writer::text16 writes for a name or path (kRegistryNameMax
// units), and put_props for a properties record: what request bodies are
// bounded by.
inline constexpr std::uint32_t kText16Max = 4 + 2 * kRegistryNameMax;
inline constexpr std::uint32_t kPropsMax = std::uint32_t(sizeof(etw_event_trace_properties)) + kText16Max;
// The most bytes of an enablement's or a session's filter blob
// (engine/event_filter.hpp): 13 filters of at most 4 KB, and the session's
// own PID and EXECUTABLE_NAME filters, fit.
inline constexpr std::uint32_t kFilterBlobMax = 64u << 10;
// A session's own filters (a start request's options): PID (8 ids) and
// EXECUTABLE_NAME (1 KB), each after its 12-byte record header.
inline constexpr std::uint32_t kSessionFilterBlobMax = (12 + 4 * 8) + (12 + 1024);
// Frame kinds beyond the request codes (session_channel.hpp, host_channel.hpp).
enum Kind : std::uint32_t { Answer = 100, FeedBuffer = 101, FeedEnd = 102 };

struct Frame {
    std::uint32_t magic;
    std::uint32_t kind;   // a request code or a Kind
    std::uint32_t status; // answers
    std::uint32_t length; // body bytes
};

struct Writer {
    std::vector<std::uint8_t> bytes;
    void put(const void *p, std::size_t n);
    void u32(std::uint32_t v) { put(&v, 4); }
    void text16(const std::u16string &s);
    void text8(const std::string &s); // cut at kMessageMax
};

struct Reader {
    const std::vector<std::uint8_t> &bytes;
    std::size_t at = 0;
    bool get(void *p, std::size_t n);
    bool u32(std::uint32_t *v) { return get(v, 4); }
    bool text16(std::u16string *s); // at most kRegistryNameMax units
    bool text8(std::string *s);     // at most kMessageMax bytes
};

// A properties record's settings and log file name (not the session name).
void put_props(Writer &w, const Properties &p);
bool get_props(Reader &r, Properties *p);

// Sends one frame within timeout_ms (negative: no limit; 0: only what goes
// without waiting, for a caller the host does not wait for).
etw_status send_frame(platform::ChannelHandle c, std::uint32_t kind, std::uint32_t status,
                      const std::vector<std::uint8_t> &body, std::intptr_t fd = -1, std::int64_t timeout_ms = -1);
// Reads one frame; false (with why) for a closed channel or a malformed frame.
bool recv_frame(platform::ChannelHandle c, Frame *f, std::vector<std::uint8_t> *body, std::int64_t timeout_ms,
                std::intptr_t *fd, Status *why);
// Sends a request of this build's protocol.
etw_status send_request_frame(platform::ChannelHandle c, std::uint32_t kind, const std::vector<std::uint8_t> &body);
// Host side, a request's head: true when it is of this build's protocol;
// otherwise false, with why to answer.
bool same_protocol(const Frame &f, Status *why);
// Waits for an answer (as long as the host lives: a stop may take a while):
// its status and message; *body keeps what follows the message.
Status await_answer(platform::ChannelHandle c, std::vector<std::uint8_t> *body, std::intptr_t *fd);
// Sends an answer: status, message, then extra (may be empty).
etw_status send_answer(platform::ChannelHandle c, const Status &st, const std::vector<std::uint8_t> &extra,
                       std::intptr_t fd = -1, std::int64_t timeout_ms = -1);

} // namespace openetw::host::frames
