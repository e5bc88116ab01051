// The text of a WPP message: its TMF format string with the arguments and
// prefix variables substituted, as TraceFmt prints the message body.
#pragma once

#include "decode/event_decoder.hpp"
#include "decode/tmf.hpp"

#include <string>

namespace openetw::decode {

// What the record's header says, for the prefix variables %1..%9.
struct WppContext {
    std::uint32_t thread_id = 0;   // %3
    std::uint64_t timestamp = 0;   // %4, FILETIME (0: none)
    std::uint32_t kernel_time = 0; // %5
    std::uint32_t user_time = 0;   // %6
    std::uint32_t sequence = 0;    // %7
    std::uint32_t process_id = 0;  // %8
    std::uint32_t processor = 0;   // %9
};

// Appends the message text to out. `%0` (the prefix TraceFmt puts before
// every message) is left out; `%N!spec!` is argument N (N >= 10) or prefix
// variable N (%1 the module, %2 the message name: source file and line) in
// printf notation (flags, width, precision, a length modifier that is
// ignored, and d i u o x X c p e E f g G for numbers; s S Z and anything else
// for the value's text, map names included); `%!KEY!` is the trailer's KEY
// (FUNC, LEVEL, FLAGS, ...; COMPNAME the module); `%%` is '%'. event must be
// the decoded arguments of m (decode_payload over m.schema).
void format_wpp_message(const TmfMessage &m, const DecodedEvent &event, const WppContext &context, std::string &out);

} // namespace openetw::decode
