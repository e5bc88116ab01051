// Raw session-clock values to FILETIME (ETL_FORMAT.md section 6, the
// formula of the WNODE_HEADER remarks).
#pragma once

#include <cstdint>

namespace openetw::format {

struct TimeBase {
    std::uint32_t clock_type = 1;          // 1 QPC (also 0 and unknown values), 2 FILETIME, 3 CPU cycles
    std::int64_t reference_raw = 0;        // SystemTime of the logfile header record
    std::int64_t reference_filetime = 0;   // TRACE_LOGFILE_HEADER.StartTime
    std::uint64_t perf_freq = 0;           // ticks per second (clock 1)
    std::uint32_t cpu_mhz = 0;             // ticks per microsecond (clock 3)
};

// FILETIME of raw, rounded toward minus infinity. Clock 2 values are already
// FILETIMEs. When the divisor (PerfFreq or CpuSpeedInMHz) is 0 no conversion
// is possible and raw is returned unchanged. Arithmetic wraps instead of
// overflowing on absurd inputs.
std::int64_t to_filetime(const TimeBase &base, std::int64_t raw) noexcept;

// floor(a * b / c) for a < 2^64, without overflow in the intermediate
// product; c must not be 0. rem receives the remainder of the division.
std::uint64_t mul_div(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t &rem) noexcept;

} // namespace openetw::format
