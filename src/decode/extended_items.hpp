// The data of EVENT_HEADER extended data items that the enable properties
// add, read back: a stack item's addresses and a SID's text. Pure over
// bytes; the consumer API's etw_extended_item_stack and
// etw_extended_item_sid_string are these.
#pragma once

#include "base/status.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace openetw::decode {

// EVENT_EXTENDED_ITEM_STACK_TRACE64 (ext_type 6) or _STACK_TRACE32 (5):
// *match_id and *count; the first min(count, capacity) addresses to
// addresses. ETW_ERROR_INVALID_PARAMETER for another ext_type,
// ETW_ERROR_INVALID_DATA for a size no stack has, ETW_ERROR_MORE_DATA when
// capacity is short (those that fit are written).
Status read_stack_item(std::uint16_t ext_type, const std::uint8_t *data, std::size_t size, std::uint64_t *match_id,
                       std::uint64_t *addresses, std::uint32_t capacity, std::uint32_t *count);

// A binary SID (revision 1, SubAuthorityCount, 48-bit big-endian
// IdentifierAuthority, 32-bit little-endian subauthorities) as
// "S-1-<authority>-<sub>...": the authority in decimal below 2^32, else
// in hex (0x...), as ConvertSidToStringSid writes it.
// ETW_ERROR_INVALID_DATA for bytes that are no SID.
Status sid_text(const std::uint8_t *data, std::size_t size, std::string *out);

} // namespace openetw::decode
