// Repairs a buffer some of whose writers died mid-record (a session with
// writers in other processes, docs/SYSTEM_SESSIONS.md). Writers publish a
// record's first word (Size, HeaderType, MarkerFlags) in two steps: Size
// right after reserving, HeaderType/MarkerFlags last, into a buffer that
// started zeroed. So a record with a Size but no marker was never finished:
// it is skipped, and the records after it are kept. A record without even a
// Size (the writer died right after reserving) is still all zero: the next
// record starts at the next 8-aligned word that is not. Only a Size that
// cannot be (scribbled) cuts the buffer there.
#pragma once

#include <cstdint>

namespace openetw::etl {

struct RepairResult {
    std::uint32_t filled = 0; // the end of the kept records
    std::uint32_t kept = 0;   // records kept
};

// Compacts the records of [kBufferHeaderSize, filled) in place, keeping the
// finished ones in order. filled is clamped to buffer_size; nothing outside
// the buffer is read or written whatever its contents.
RepairResult repair_buffer(std::uint8_t *buffer, std::uint32_t filled, std::uint32_t buffer_size) noexcept;

} // namespace openetw::etl
