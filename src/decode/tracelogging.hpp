// TraceLogging self-describing events: the schema carried by the event
// itself in its EVENT_HEADER extended data (TraceLoggingProvider.h):
//   EVENT_SCHEMA_TL (type 11): UINT16 Size, UINT8 Extension[] (chained by
//     bit 7), char EventName[], then per field: char Name[], UINT8 InType
//     (bits 0-4 type, 0x20 constant count, 0x40 variable count, 0x60 custom,
//     0x80 OutType follows), [UINT8 OutType (0x80: tag bytes follow, chained
//     by bit 7)], [UINT16 constant count], [UINT16 custom schema size, bytes];
//     a STRUCT field has no data and its OutType slot holds how many of the
//     following fields are its members.
//   PROV_TRAITS (type 12): UINT16 Size, char ProviderName[], traits.
#pragma once

#include "decode/schema.hpp"
#include "format/problem.hpp"

#include <cstdint>
#include <span>

namespace openetw::decode {

using format::Problem;
using format::text_printf;

inline constexpr std::uint16_t kExtTypeEventSchemaTl = 11;
inline constexpr std::uint16_t kExtTypeProvTraits = 12;

// Builds out (cleared first) from an EVENT_SCHEMA_TL item's data. Returns
// false with problem set (ETW_ERROR_INVALID_DATA, `at` the offset in the
// metadata) for metadata that is truncated, unterminated, nests structs
// deeper than 32 levels or uses a type code TraceLogging does not define.
bool parse_tracelogging_event(std::span<const std::uint8_t> metadata, EventSchema &out, Problem &problem);

// The provider name of a PROV_TRAITS item; false when malformed.
bool parse_provider_traits(std::span<const std::uint8_t> traits, std::string &name);

} // namespace openetw::decode
