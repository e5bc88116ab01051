// The enable properties (ENABLE_TRACE_PARAMETERS.EnableProperty) a session
// asks of a provider's EVENT_HEADER events, written as extended data items
// (docs/ENGINE.md, "Enable properties"):
//   SID               the writer's effective uid as S-1-22-1-<uid>
//   TS_ID             the writing process's session id (getsid; Windows: its
//                     Remote Desktop Services session)
//   PROCESS_START_KEY (start time in clock ticks after boot << 22) | pid:
//                     unique within the boot (a pid is below 2^22)
//   EVENT_KEY         a number unique to the event within the writing
//                     process, the same in every session that takes it
//   STACK_TRACE       the writing thread's user stack, at most 192 frames
//   IGNORE_KEYWORD_0  events with keyword 0 are not written to that session
// in that order after RELATED_ACTIVITYID. Classic (TraceEvent) events have
// no extended data: they carry none of the items and IGNORE_KEYWORD_0,
// a filter on an EVENT_DESCRIPTOR's keyword, leaves them alone.
//
// Thread rules: write_with_properties runs on the writing thread inside its
// grace section, takes no lock and allocates nothing, but once per session
// and process: before its first event with a stack it writes the process's
// module map (Image/DCStart and ImageID/DbgID_RSDS records, as the system
// logger's rundown writes them), read from /proc.
#pragma once

#include "engine/engine.hpp"

#include <cstdint>

namespace openetw::engine {

// EVENT_ENABLE_PROPERTY_* (evntrace.h).
inline constexpr std::uint32_t kEnablePropertySid = 0x001;
inline constexpr std::uint32_t kEnablePropertyTsId = 0x002;
inline constexpr std::uint32_t kEnablePropertyStackTrace = 0x004;
inline constexpr std::uint32_t kEnablePropertyIgnoreKeyword0 = 0x010;
inline constexpr std::uint32_t kEnablePropertyProcessStartKey = 0x080;
inline constexpr std::uint32_t kEnablePropertyEventKey = 0x100;
// The bits that add an item.
inline constexpr std::uint32_t kEnablePropertyItems = kEnablePropertySid | kEnablePropertyTsId |
                                                      kEnablePropertyStackTrace | kEnablePropertyProcessStartKey |
                                                      kEnablePropertyEventKey;

// Control path (republish, under the engine mutex): what the properties
// need before events take them (the process's keys; the unwinder's
// one-time set-up, so that the first stack costs what the others do).
void prepare_event_properties(std::uint32_t any_property) noexcept;

// HOT for sessions with properties: an EVENT_HEADER event of size bytes
// (checked by the caller) to each session of snap that takes it, each with
// the items its properties ask; the first failure, as each_session gives.
// ETW_ERROR_ARITHMETIC_OVERFLOW for a session whose items would take the
// event past ETW_MAX_EVENT_SIZE (Windows drops it too).
[[gnu::noinline]] etw_status write_with_properties(const ProviderSnapshot &snap, const EventHeaderInput &e,
                                                   std::uint32_t size) noexcept;

// PROCESS_START_KEY of a process: its start time (platform::process_start_time)
// and pid; 0 when the start time is unknown.
std::uint64_t process_start_key(std::uint64_t start_time, std::uint32_t pid) noexcept;

} // namespace openetw::engine
