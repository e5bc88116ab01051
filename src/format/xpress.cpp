// MS-XCA 2.4.4 plain LZ77 decoder. Every read and write is bounds-checked
// because the input comes from files.
#include "format/xpress.hpp"

#include "format/etl_layout.hpp"

namespace openetw::format {

namespace {

XpressResult fail(std::size_t in_pos, std::size_t out_pos, const char *why)
{
    XpressResult r;
    r.ok = false;
    r.produced = out_pos;
    r.input_position = in_pos;
    r.error = why;
    return r;
}

XpressResult done(std::size_t in_pos, std::size_t out_pos)
{
    XpressResult r;
    r.ok = true;
    r.produced = out_pos;
    r.input_position = in_pos;
    return r;
}

} // namespace

XpressResult xpress_decompress(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) noexcept
{
    const std::uint8_t *src = in.data();
    std::uint8_t *dst = out.data();
    const std::size_t in_size = in.size();
    const std::size_t out_size = out.size();

    std::uint32_t flags = 0;
    int flag_count = 0;
    std::size_t ip = 0;
    std::size_t op = 0;
    // Position of the byte whose high nibble is still unused; 0 means none
    // (position 0 always holds the first flag word, so it is never a nibble).
    std::size_t half_byte = 0;

    for (;;) {
        if (flag_count == 0) {
            if (ip == in_size && op == out_size)
                return done(ip, op); // input used up exactly at a flag-word boundary
            if (in_size - ip < 4)
                return fail(ip, op, "the flag word is cut off");
            flags = etl::rd32(src + ip);
            ip += 4;
            flag_count = 32;
        }
        --flag_count;
        if ((flags & (std::uint32_t(1) << flag_count)) == 0) {
            if (ip == in_size) {
                if (op == out_size)
                    return done(ip, op);
                return fail(ip, op, "a literal is missing");
            }
            if (op == out_size)
                return fail(ip, op, "a literal overflows the output");
            dst[op++] = src[ip++];
            continue;
        }
        if (ip == in_size)
            return done(ip, op); // the end the specification defines
        if (in_size - ip < 2)
            return fail(ip, op, "a match token is cut off");
        const std::uint32_t token = etl::rd16(src + ip);
        ip += 2;
        std::uint64_t length = token % 8;
        const std::size_t distance = token / 8 + 1;
        if (length == 7) {
            if (half_byte == 0) {
                if (ip == in_size)
                    return fail(ip, op, "a match length nibble is cut off");
                length = src[ip] % 16;
                half_byte = ip;
                ++ip;
            } else {
                length = src[half_byte] / 16;
                half_byte = 0;
            }
            if (length == 15) {
                if (ip == in_size)
                    return fail(ip, op, "a match length byte is cut off");
                length = src[ip];
                ++ip;
                if (length == 255) {
                    if (in_size - ip < 2)
                        return fail(ip, op, "a 16-bit match length is cut off");
                    length = etl::rd16(src + ip);
                    ip += 2;
                    if (length == 0) {
                        if (in_size - ip < 4)
                            return fail(ip, op, "a 32-bit match length is cut off");
                        length = etl::rd32(src + ip);
                        ip += 4;
                    }
                    if (length < 15 + 7)
                        return fail(ip, op, "an explicit match length is too small");
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        if (distance > op)
            return fail(ip, op, "a match reaches before the start of the output");
        if (length > out_size - op)
            return fail(ip, op, "a match overflows the output");
        // Byte by byte: a match may overlap the bytes it produces.
        for (std::uint64_t i = 0; i < length; ++i, ++op)
            dst[op] = dst[op - distance];
    }
}

} // namespace openetw::format
