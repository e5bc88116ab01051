#include "decode/message_table.hpp"

#include "decode/value_format.hpp"

namespace openetw::decode {

namespace {

std::uint32_t u32(std::span<const std::uint8_t> b, std::size_t at)
{
    return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
           static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

// Most messages read from one table (ids are 32-bit; a damaged block could claim billions).
constexpr std::uint64_t kMaxMessages = 1u << 20;

bool fail(Problem &problem, std::uint64_t at, const std::string &what)
{
    problem.set(ETW_ERROR_INVALID_DATA, static_cast<std::uint32_t>(at),
                "MESSAGETABLE: " + what + text_printf(" (offset 0x%llx)", static_cast<unsigned long long>(at)));
    return false;
}

// Drops what mc appends to a message: a line break, and "%0" (no line break).
void trim(std::string &s)
{
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == '\0' || s.back() == ' '))
        s.pop_back();
    if (s.size() >= 2 && s.compare(s.size() - 2, 2, "%0") == 0)
        s.resize(s.size() - 2);
}

} // namespace

bool read_message_table(std::span<const std::uint8_t> r, MessageTable &out, Problem &problem)
{
    if (r.size() < 4)
        return fail(problem, 0, "the resource is too short for its block count");
    const std::uint32_t blocks = u32(r, 0);
    if (blocks > (r.size() - 4) / 12)
        return fail(problem, 0, text_printf("%u blocks do not fit in %zu bytes", blocks, r.size()));
    std::uint64_t total = 0;
    for (std::uint32_t b = 0; b < blocks; ++b) {
        const std::size_t block = 4 + 12 * std::size_t{b};
        const std::uint32_t low = u32(r, block), high = u32(r, block + 4);
        std::uint64_t at = u32(r, block + 8);
        if (high < low)
            return fail(problem, block, text_printf("block %u has ids 0x%x..0x%x, in the wrong order", b, low, high));
        total += std::uint64_t{high} - low + 1;
        if (total > kMaxMessages)
            return fail(
                problem, block,
                text_printf("the table holds more than %llu messages", static_cast<unsigned long long>(kMaxMessages)));
        for (std::uint64_t id = low; id <= high; ++id) {
            // MESSAGE_RESOURCE_ENTRY: USHORT Length (of the entry), USHORT Flags (1: UTF-16), text.
            if (at + 4 > r.size())
                return fail(problem, at,
                            text_printf("message 0x%llx is outside the resource", static_cast<unsigned long long>(id)));
            const std::uint16_t length = static_cast<std::uint16_t>(r[at] | r[at + 1] << 8);
            const std::uint16_t flags = static_cast<std::uint16_t>(r[at + 2] | r[at + 3] << 8);
            if (length < 4 || at + length > r.size())
                return fail(problem, at,
                            text_printf("message 0x%llx has length %u, outside the resource",
                                        static_cast<unsigned long long>(id), length));
            std::string text;
            const std::uint8_t *p = r.data() + at + 4;
            std::uint32_t bytes = length - 4u;
            if (flags & 1) {
                std::uint32_t n = 0;
                while (n + 1 < bytes && (p[n] || p[n + 1]))
                    n += 2;
                append_utf16le(p, n, text);
            } else {
                std::uint32_t n = 0;
                while (n < bytes && p[n])
                    ++n;
                append_8bit(p, n, text);
            }
            trim(text);
            out[static_cast<std::uint32_t>(id)] = std::move(text);
            at += length;
        }
    }
    return true;
}

} // namespace openetw::decode
