#include "decode/extended_items.hpp"

#include <cinttypes>
#include <cstdio>

namespace openetw::decode {

namespace {

std::uint64_t le(const std::uint8_t *p, unsigned n)
{
    std::uint64_t v = 0;
    for (unsigned i = 0; i < n; ++i)
        v |= std::uint64_t(p[i]) << (8 * i);
    return v;
}

constexpr std::uint16_t kStackTrace32 = 5, kStackTrace64 = 6;
constexpr std::size_t kMaxSubAuthorities = 15; // SID_MAX_SUB_AUTHORITIES

} // namespace

Status read_stack_item(std::uint16_t ext_type, const std::uint8_t *data, std::size_t size, std::uint64_t *match_id,
                       std::uint64_t *addresses, std::uint32_t capacity, std::uint32_t *count)
{
    if (ext_type != kStackTrace32 && ext_type != kStackTrace64)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the item is of type " + std::to_string(ext_type) +
                                                     ", not a stack (STACK_TRACE32 5 or STACK_TRACE64 6)");
    const unsigned width = ext_type == kStackTrace64 ? 8 : 4;
    if (size < 8 || (size - 8) % width != 0)
        return Fail(ETW_ERROR_INVALID_DATA, "the stack item's " + std::to_string(size) +
                                                " bytes are not a MatchId and whole " + std::to_string(width) +
                                                "-byte addresses");
    if (match_id)
        *match_id = le(data, 8);
    const std::size_t n = (size - 8) / width;
    *count = std::uint32_t(n);
    for (std::size_t i = 0; i < n && i < capacity; ++i)
        addresses[i] = le(data + 8 + i * width, width);
    if (capacity < n)
        return Fail(ETW_ERROR_MORE_DATA, "the stack has " + std::to_string(n) + " addresses, room was given for " +
                                             std::to_string(capacity));
    return Status::ok();
}

Status sid_text(const std::uint8_t *data, std::size_t size, std::string *out)
{
    if (size < 8 || data[0] != 1 || data[1] > kMaxSubAuthorities || size != 8 + 4 * std::size_t(data[1]))
        return Fail(ETW_ERROR_INVALID_DATA, "the " + std::to_string(size) +
                                                " bytes are no SID (revision 1, at most 15 subauthorities, 8 bytes and "
                                                "4 per subauthority)");
    std::uint64_t authority = 0;
    for (int i = 2; i < 8; ++i)
        authority = authority << 8 | data[i];
    char part[32];
    if (authority < (1ull << 32))
        std::snprintf(part, sizeof part, "S-1-%" PRIu64, authority);
    else
        std::snprintf(part, sizeof part, "S-1-0x%012" PRIX64, authority);
    std::string text = part;
    for (std::size_t i = 0; i < data[1]; ++i) {
        std::snprintf(part, sizeof part, "-%" PRIu32, std::uint32_t(le(data + 8 + 4 * i, 4)));
        text += part;
    }
    *out = std::move(text);
    return Status::ok();
}

} // namespace openetw::decode
