#include "format/buffer_repair.hpp"

#include "format/etl_layout.hpp"

#include <cstring>

namespace openetw::etl {

RepairResult repair_buffer(std::uint8_t *b, std::uint32_t filled, std::uint32_t buffer_size) noexcept
{
    RepairResult r;
    if (filled > buffer_size)
        filled = buffer_size;
    std::uint32_t w = std::uint32_t(kBufferHeaderSize);
    std::uint32_t p = w;
    while (p + 4 <= filled) {
        const std::uint32_t size = std::uint32_t(b[p]) | (std::uint32_t(b[p + 1]) << 8);
        if (size == 0) {
            // Its writer died before writing anything (the Size comes first),
            // so its space is still zero: the next record starts at the next
            // 8-aligned word that is not.
            p += 8;
            while (p + 2 <= filled && b[p] == 0 && b[p + 1] == 0)
                p += 8;
            continue;
        }
        const std::uint32_t step = std::uint32_t(align8(size));
        if (size < kFullHeaderSize || step > filled - p)
            break;                           // a scribbled size: where the next record starts is unknown
        const bool finished = b[p + 3] != 0; // MarkerFlags, published last
        if (finished) {
            if (w != p)
                std::memmove(b + w, b + p, step);
            w += step;
            ++r.kept;
        }
        p += step;
    }
    r.filled = w;
    return r;
}

} // namespace openetw::etl
