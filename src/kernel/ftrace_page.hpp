// A page of an ftrace ring buffer as trace_pipe_raw gives it
// (events/header_page, events/header_event in tracefs): a u64 time stamp,
// a commit word (the bytes of data, with the "events were missed" flags in
// bits 31 and 30), then events. Each event starts with a 32-bit word:
// type_len (5 bits) and time_delta (27 bits):
//   0        data; its length in the next word, the data after it
//   1..28    data of type_len * 4 bytes
//   29       padding (its length in the next word; none when time_delta is 0)
//   30       time extend: delta = time_delta | next word << 27
//   31       time stamp: the absolute time the same way (the bits it lacks
//            are the page time's)
// The data is a tracepoint's record as its format lays it out, the same
// bytes a perf sample's raw part holds. Pure; nothing outside the page is read.
#pragma once

#include <cstdint>
#include <functional>
#include <span>

namespace openetw::kernel {

struct FtracePageCounts {
    std::uint64_t events = 0;
    std::uint64_t missed = 0; // events the kernel dropped before this page (1 when it did not say how many)
    bool malformed = false;   // the page ended inside an event (the rest skipped)
};

// Calls each(time, data) for every data event of page, in order. The page
// is page_size bytes at most; header_size the offset of its data (16 with
// a 64-bit commit word).
FtracePageCounts parse_ftrace_page(std::span<const std::uint8_t> page, std::size_t header_size,
                                   const std::function<void(std::uint64_t, std::span<const std::uint8_t>)> &each);

} // namespace openetw::kernel
