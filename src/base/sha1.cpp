#include "base/sha1.hpp"

#include <cstring>

namespace openetw {

namespace {
inline std::uint32_t rol(std::uint32_t x, int n) noexcept { return (x << n) | (x >> (32 - n)); }
} // namespace

void Sha1::block(const std::uint8_t *p) noexcept
{
    std::uint32_t w[80];
    for (int i = 0; i < 16; ++i)
        w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 | std::uint32_t(p[4 * i + 2]) << 8 |
               p[4 * i + 3];
    for (int i = 16; i < 80; ++i)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
    for (int i = 0; i < 80; ++i) {
        std::uint32_t f, k;
        if (i < 20) {
            f = (b & c) | (~b & d);
            k = 0x5A827999u;
        } else if (i < 40) {
            f = b ^ c ^ d;
            k = 0x6ED9EBA1u;
        } else if (i < 60) {
            f = (b & c) | (b & d) | (c & d);
            k = 0x8F1BBCDCu;
        } else {
            f = b ^ c ^ d;
            k = 0xCA62C1D6u;
        }
        const std::uint32_t t = rol(a, 5) + f + e + k + w[i];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = t;
    }
    h_[0] += a;
    h_[1] += b;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
}

void Sha1::update(const void *data, std::size_t size) noexcept
{
    const auto *p = static_cast<const std::uint8_t *>(data);
    total_ += size;
    while (size) {
        const std::size_t n = size < 64 - used_ ? size : 64 - used_;
        std::memcpy(buf_ + used_, p, n);
        used_ += n;
        p += n;
        size -= n;
        if (used_ == 64) {
            block(buf_);
            used_ = 0;
        }
    }
}

void Sha1::finish(std::uint8_t out[20]) noexcept
{
    const std::uint64_t bits = total_ * 8;
    const std::uint8_t pad = 0x80;
    update(&pad, 1);
    const std::uint8_t zero = 0;
    while (used_ != 56)
        update(&zero, 1);
    std::uint8_t len[8];
    for (int i = 0; i < 8; ++i)
        len[i] = std::uint8_t(bits >> (56 - 8 * i));
    update(len, 8);
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 4; ++j)
            out[4 * i + j] = std::uint8_t(h_[i] >> (24 - 8 * j));
}

} // namespace openetw
