// Raw session-clock values to FILETIME (ETL_FORMAT.md section 6, the
// formula of the WNODE_HEADER remarks).
#pragma once

#include <cstdint>

namespace openetw::format {

struct TimeBase {
    std::uint32_t clock_type = 1;        // 1 QPC (also 0 and unknown values), 2 FILETIME, 3 CPU cycles
    std::int64_t reference_raw = 0;      // SystemTime of the logfile header record
    std::int64_t reference_filetime = 0; // TRACE_LOGFILE_HEADER.StartTime
    std::uint64_t perf_freq = 0;         // ticks per second (clock 1)
    std::uint32_t cpu_mhz = 0;           // ticks per microsecond (clock 3)
};

// FILETIME of raw, rounded toward minus infinity. Clock 2 values are already
// FILETIMEs. When the divisor (PerfFreq or CpuSpeedInMHz) is 0 no conversion
// is possible and raw is returned unchanged. Arithmetic wraps instead of
// overflowing on absurd inputs.
std::int64_t to_filetime(const TimeBase &base, std::int64_t raw) noexcept;

// floor(a * b / c) for a < 2^64, without overflow in the intermediate
// product; c must not be 0. rem receives the remainder of the division.
std::uint64_t mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t &rem) noexcept;

// The high 64 bits of a * b: with a 128-bit type where the compiler has one,
// else from 32-bit halves (32-bit targets). Both are exact.
std::uint64_t mul_hi64_portable(std::uint64_t a, std::uint64_t b) noexcept;
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 uint128; // __extension__: -Wpedantic accepts it
#endif
inline std::uint64_t mul_hi64(std::uint64_t a, std::uint64_t b) noexcept
{
#if defined(__SIZEOF_INT128__)
    return static_cast<std::uint64_t>((static_cast<uint128>(a) * b) >> 64);
#else
    return mul_hi64_portable(a, b);
#endif
}

// Exact n / d and n % d for a divisor fixed in advance, without a division
// instruction: m = floor((2^64 - 1) / d) underestimates 2^64 / d by at most
// 1, so mul_hi64(n, m) is floor(n / d) or one less, and one compare fixes it.
class Divider {
public:
    explicit Divider(std::uint64_t d = 1) noexcept : d_(d), m_(UINT64_MAX / d) {}
    std::uint64_t divide(std::uint64_t n, std::uint64_t &rem) const noexcept
    {
        std::uint64_t q = mul_hi64(n, m_);
        std::uint64_t r = n - q * d_;
        if (r >= d_) {
            ++q;
            r -= d_;
        }
        rem = r;
        return q;
    }
    std::uint64_t divisor() const noexcept { return d_; }

private:
    std::uint64_t d_;
    std::uint64_t m_;
};

// to_filetime with the per-file work done once: the hot path multiplies by
// precomputed reciprocals instead of dividing. Bit-identical to to_filetime
// for every input (tests/format/timestamp_converter_test.cpp).
class TimeConverter {
public:
    TimeConverter() = default;
    explicit TimeConverter(const TimeBase &base) noexcept;

    std::int64_t operator()(std::int64_t raw) const noexcept
    {
        if (mode_ == Mode::Identity)
            return raw;
        if (mode_ == Mode::Reference)
            return to_filetime(base_, raw);
        // mul_div's fast path with both divisions by the fixed divisor:
        // delta = q * mul + floor(r * mul / div), where r * mul fits because
        // div <= UINT64_MAX / mul (checked in the constructor).
        const std::uint64_t ur = static_cast<std::uint64_t>(raw);
        const std::uint64_t uref = static_cast<std::uint64_t>(base_.reference_raw);
        const bool negative = raw < base_.reference_raw;
        const std::uint64_t magnitude = negative ? uref - ur : ur - uref;
        std::uint64_t r = 0, rem = 0;
        const std::uint64_t q = div_.divide(magnitude, r);
        std::uint64_t delta = q * mul_ + div_.divide(r * mul_, rem);
        if (negative && rem != 0)
            ++delta; // floor, not truncation, below the reference
        const std::uint64_t ft = static_cast<std::uint64_t>(base_.reference_filetime);
        return static_cast<std::int64_t>(negative ? ft - delta : ft + delta);
    }

private:
    enum class Mode : std::uint8_t { Identity, Scale, Reference };
    Mode mode_ = Mode::Identity;
    TimeBase base_{};
    std::uint64_t mul_ = 1;
    Divider div_{};
};

} // namespace openetw::format
