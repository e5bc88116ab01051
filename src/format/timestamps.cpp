#include "format/timestamps.hpp"

namespace openetw::format {

std::uint64_t mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t &rem) noexcept
{
    // Fast path: a = q*c + r with r < c; then a*b/c = q*b + r*b/c when r*b fits.
    const std::uint64_t q = a / c;
    const std::uint64_t r = a % c;
    if (b == 0 || r <= UINT64_MAX / b) {
        const std::uint64_t rb = r * b;
        rem = rb % c;
        return q * b + rb / c; // wraps only when the true result exceeds 64 bits
    }
    // Slow path: 128-bit product by 32-bit halves, then bitwise long division.
    const std::uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
    const std::uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    const std::uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    const std::uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    std::uint64_t lo = (ll & 0xFFFFFFFFu) | (mid << 32);
    std::uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    std::uint64_t quotient = 0, r2 = 0;
    for (int i = 127; i >= 0; --i) {
        const std::uint64_t bit = i >= 64 ? (hi >> (i - 64)) & 1u : (lo >> i) & 1u;
        const bool carry = (r2 >> 63) != 0;
        r2 = (r2 << 1) | bit;
        quotient <<= 1;
        if (carry || r2 >= c) {
            r2 -= c;
            quotient |= 1u;
        }
    }
    rem = r2;
    return quotient;
}

std::uint64_t mul_hi64_portable(std::uint64_t a, std::uint64_t b) noexcept
{
    const std::uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32;
    const std::uint64_t b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    const std::uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
    const std::uint64_t mid = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

namespace {

// ref_ft + floor((raw - ref_raw) * mul / div), in wrapping unsigned arithmetic.
std::int64_t scale(const TimeBase &base, std::int64_t raw, std::uint64_t mul, std::uint64_t div) noexcept
{
    const std::uint64_t ur = static_cast<std::uint64_t>(raw);
    const std::uint64_t uref = static_cast<std::uint64_t>(base.reference_raw);
    const bool negative = raw < base.reference_raw;
    const std::uint64_t magnitude = negative ? uref - ur : ur - uref;
    std::uint64_t rem = 0;
    std::uint64_t delta = mul_div(magnitude, mul, div, rem);
    if (negative && rem != 0)
        ++delta; // floor, not truncation, below the reference
    const std::uint64_t ft = static_cast<std::uint64_t>(base.reference_filetime);
    return static_cast<std::int64_t>(negative ? ft - delta : ft + delta);
}

} // namespace

std::int64_t to_filetime(const TimeBase &base, std::int64_t raw) noexcept
{
    switch (base.clock_type) {
    case 2:
        return raw;
    case 3:
        if (base.cpu_mhz == 0)
            return raw;
        return scale(base, raw, 10, base.cpu_mhz); // cycles / (MHz) = us; * 10 = 100 ns
    default:
        if (base.perf_freq == 0)
            return raw;
        return scale(base, raw, 10000000u, base.perf_freq);
    }
}

TimeConverter::TimeConverter(const TimeBase &base) noexcept : base_(base)
{
    std::uint64_t div = 0;
    switch (base.clock_type) {
    case 2:
        break;
    case 3:
        div = base.cpu_mhz;
        mul_ = 10;
        break;
    default:
        div = base.perf_freq;
        mul_ = 10000000u;
        break;
    }
    if (div == 0) {
        mode_ = Mode::Identity; // clock 2, or no divisor: raw values stay
        return;
    }
    // Beyond this r * mul may not fit in 64 bits: mul_div's slow path.
    if (div > UINT64_MAX / mul_) {
        mode_ = Mode::Reference;
        return;
    }
    div_ = Divider(div);
    mode_ = Mode::Scale;
}

} // namespace openetw::format
