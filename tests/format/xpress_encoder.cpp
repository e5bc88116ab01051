#include "xpress_encoder.hpp"

#include <cstddef>

namespace etltest {

namespace {

struct Writer {
    std::vector<std::uint8_t> out;
    std::size_t flag_pos = 0;
    std::uint64_t flags = 0;
    int flag_count = 0;
    std::size_t nibble_pos = 0; // 0: no half-used nibble byte

    void put8(std::uint32_t v) { out.push_back(static_cast<std::uint8_t>(v)); }
    void put16(std::uint32_t v)
    {
        put8(v);
        put8(v >> 8);
    }
    void put32(std::uint32_t v)
    {
        put16(v);
        put16(v >> 16);
    }
    void store_flags(std::size_t pos, std::uint32_t v)
    {
        for (int i = 0; i < 4; ++i)
            out[pos + i] = static_cast<std::uint8_t>(v >> (8 * i));
    }
    void start()
    {
        flag_pos = out.size();
        put32(0);
    }
    void flag(bool bit)
    {
        flags = (flags << 1) | (bit ? 1u : 0u);
        if (++flag_count == 32) {
            store_flags(flag_pos, static_cast<std::uint32_t>(flags));
            flags = 0;
            flag_count = 0;
            start();
        }
    }
    void literal(std::uint8_t b)
    {
        put8(b);
        flag(false);
    }
    void match(std::uint32_t distance, std::uint32_t length)
    {
        std::uint32_t l = length - 3;
        const std::uint32_t d = distance - 1;
        if (l < 7) {
            put16((d << 3) | l);
        } else {
            put16((d << 3) | 7);
            l -= 7;
            const std::uint32_t nibble = l < 15 ? l : 15;
            if (nibble_pos == 0) {
                nibble_pos = out.size();
                put8(nibble);
            } else {
                out[nibble_pos] |= static_cast<std::uint8_t>(nibble << 4);
                nibble_pos = 0;
            }
            if (l >= 15) {
                l -= 15;
                if (l < 255) {
                    put8(l);
                } else {
                    put8(255);
                    l += 15 + 7;
                    if (l < (1u << 16)) {
                        put16(l);
                    } else {
                        put16(0);
                        put32(l);
                    }
                }
            }
        }
        flag(true);
    }
    void finish()
    {
        // Unused flag bits are 1: the decoder stops at a match flag with no input left.
        const int unused = 32 - flag_count;
        const std::uint64_t word = (flags << unused) | ((std::uint64_t(1) << unused) - 1);
        store_flags(flag_pos, static_cast<std::uint32_t>(word));
    }
};

} // namespace

std::vector<std::uint8_t> xpress_compress(const std::vector<std::uint8_t> &in)
{
    Writer w;
    w.start();
    const std::size_t n = in.size();
    constexpr std::size_t kHash = 1u << 15;
    std::vector<std::int64_t> head(kHash, -1), prev(n, -1);
    auto hash = [&](std::size_t i) {
        return ((in[i] * 2654435761u) ^ (in[i + 1] << 8) ^ (in[i + 2] << 16)) & (kHash - 1);
    };
    std::size_t i = 0;
    while (i < n) {
        std::size_t best_len = 0, best_dist = 0;
        if (i + 3 <= n) {
            std::int64_t cand = head[hash(i)];
            for (int depth = 0; cand >= 0 && depth < 32; ++depth, cand = prev[static_cast<std::size_t>(cand)]) {
                const std::size_t c = static_cast<std::size_t>(cand);
                if (i - c > 8192)
                    break;
                std::size_t len = 0;
                while (i + len < n && in[c + len] == in[i + len])
                    ++len;
                if (len > best_len) {
                    best_len = len;
                    best_dist = i - c;
                }
            }
        }
        const std::size_t step = best_len >= 3 ? best_len : 1;
        if (best_len >= 3)
            w.match(static_cast<std::uint32_t>(best_dist), static_cast<std::uint32_t>(best_len));
        else
            w.literal(in[i]);
        for (std::size_t k = 0; k < step; ++k, ++i) {
            if (i + 3 <= n) {
                const std::size_t h = hash(i);
                prev[i] = head[h];
                head[h] = static_cast<std::int64_t>(i);
            }
        }
    }
    w.finish();
    return w.out;
}

} // namespace etltest
