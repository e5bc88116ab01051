// EVENT_HEADER extended data items as an .etl record stores them: each an
// 8-byte header {ItemSize, ExtType, Linkage, DataSize} (ItemSize counting
// the header and the data padded to 8 bytes; Linkage 1 on every item but
// the last), then the data. The items the enable properties add
// (EVENT_ENABLE_PROPERTY_*), their ExtType numbers (evntcons.h) and data
// layouts. Pure over bytes; no allocation (the event-writing path uses them).
#pragma once

#include "format/etl_layout.hpp"

#include <cstdint>
#include <cstring>

namespace openetw::etl {

// EVENT_HEADER_EXT_TYPE_*.
inline constexpr std::uint16_t kExtTypeSid = 0x0002;
inline constexpr std::uint16_t kExtTypeTsId = 0x0003;
inline constexpr std::uint16_t kExtTypeStackTrace32 = 0x0005;
inline constexpr std::uint16_t kExtTypeStackTrace64 = 0x0006;
inline constexpr std::uint16_t kExtTypeEventKey = 0x000A;
inline constexpr std::uint16_t kExtTypeProcessStartKey = 0x000D;

// A stack longer than this loses its outermost frames (ENABLE_TRACE_PARAMETERS:
// "the maximum number of frames (192)").
inline constexpr std::uint32_t kStackTraceMaxFrames = 192;

// A Unix user's SID, S-1-22-1-<uid> (Samba's and Windows' "Unix User"
// authority): Revision 1, SubAuthorityCount 2, IdentifierAuthority
// {0,0,0,0,0,22} (big-endian 48 bits), SubAuthority {1, uid} (little-endian).
inline constexpr std::uint32_t kUnixUserSidSize = 16;
inline void write_unix_user_sid(std::uint8_t *out, std::uint32_t uid) noexcept
{
    const std::uint8_t head[8] = {1, 2, 0, 0, 0, 0, 0, 22};
    std::memcpy(out, head, 8);
    wr32(out + 8, 1);
    wr32(out + 12, uid);
}

// EVENT_EXTENDED_ITEM_STACK_TRACE64/32: MatchId (8 bytes; 0, user and kernel
// frames not split over events) then one address of 8 (or 4) bytes per frame.
constexpr std::uint32_t stack_trace_data_size(std::uint32_t frames, std::uint32_t pointer_size)
{
    return 8 + frames * pointer_size;
}

// Writes items one after the other at a caller's buffer (which the caller
// sized with extended_item_size), each with Linkage 1 until finish() clears
// the last one's.
class ExtendedItemWriter {
public:
    explicit ExtendedItemWriter(std::uint8_t *out) noexcept : begin_(out), pos_(out) {}
    // Writes the header of an item of data_size bytes and zeroes its padding;
    // returns where its data goes.
    std::uint8_t *add(std::uint16_t ext_type, std::uint16_t data_size) noexcept
    {
        const std::uint32_t size = extended_item_size(data_size);
        wr16(pos_, std::uint16_t(size));
        wr16(pos_ + 2, ext_type);
        wr16(pos_ + 4, 1);
        wr16(pos_ + 6, data_size);
        if (size != kExtendedItemHeaderSize)
            std::memset(pos_ + size - 8, 0, 8); // the padding, if any (the data overwrites the rest)
        last_ = pos_;
        pos_ += size;
        return last_ + kExtendedItemHeaderSize;
    }
    void add_u32(std::uint16_t ext_type, std::uint32_t v) noexcept { wr32(add(ext_type, 4), v); }
    void add_u64(std::uint16_t ext_type, std::uint64_t v) noexcept { wr64(add(ext_type, 8), v); }
    void add_stack(const std::uint64_t *frames, std::uint32_t count, std::uint32_t pointer_size) noexcept
    {
        std::uint8_t *d = add(pointer_size == 8 ? kExtTypeStackTrace64 : kExtTypeStackTrace32,
                              std::uint16_t(stack_trace_data_size(count, pointer_size)));
        wr64(d, 0); // MatchId
        for (std::uint32_t i = 0; i < count; ++i) {
            if (pointer_size == 8)
                wr64(d + 8 + 8 * i, frames[i]);
            else
                wr32(d + 8 + 4 * i, std::uint32_t(frames[i]));
        }
    }
    // Clears the last item's Linkage, unless more items follow those
    // written here; the bytes written.
    std::uint32_t finish(bool more_follow = false) noexcept
    {
        if (last_ && !more_follow)
            wr16(last_ + 4, 0);
        return std::uint32_t(pos_ - begin_);
    }

private:
    std::uint8_t *begin_;
    std::uint8_t *pos_;
    std::uint8_t *last_ = nullptr;
};

} // namespace openetw::etl
