// Formats one decoded value as text, as TdhFormatProperty would (decimal
// integers, 0x-prefixed upper-case hex, {GUID}, S-1-... SIDs, UTF-8 text),
// with ISO 8601 times instead of locale-dependent ones; and as a JSON value.
#pragma once

#include "decode/schema.hpp"

#include <cstdint>
#include <string>

namespace openetw::decode {

// Appends the text of the value of field f held in [p, p + n) to out.
// map (may be null) names integer values. pointer_size sizes WBEMSID.
void format_value(const Field &f, const ValueMap *map, const std::uint8_t *p, std::uint32_t n,
                  std::uint32_t pointer_size, std::string &out);

// What kind of JSON value format_value's text becomes.
enum class JsonKind : std::uint8_t { Number, Bool, String };
JsonKind json_kind(const Field &f, const ValueMap *map, const std::uint8_t *p, std::uint32_t n);

// Appends the value as JSON: numbers and booleans bare, the rest as a quoted string.
void format_json(const Field &f, const ValueMap *map, const std::uint8_t *p, std::uint32_t n,
                 std::uint32_t pointer_size, std::string &out, std::string &scratch);

// Text helpers shared by the sources.
void append_utf16le(const std::uint8_t *p, std::uint32_t bytes, std::string &out); // lossy: bad units -> U+FFFD
void append_8bit(const std::uint8_t *p, std::uint32_t bytes,
                 std::string &out);                               // UTF-8 if valid, else CP1252 as Latin-1
void append_guid_braced(const std::uint8_t *p, std::string &out); // {XXXXXXXX-XXXX-...}
void append_filetime(std::uint64_t filetime, std::string &out);   // 2024-01-02T03:04:05.1234567Z

} // namespace openetw::decode
