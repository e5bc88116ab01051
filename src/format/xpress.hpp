// MS-XCA "plain LZ77" (XPRESS) decompression, written from the public
// MS-XCA specification, section 2.4. ETW compresses each data buffer of an
// EVENT_TRACE_COMPRESSED_MODE file this way (ETL_FORMAT.md section 2.5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace openetw::format {

struct XpressResult {
    bool ok = false;
    std::size_t produced = 0;       // bytes written to out
    std::size_t input_position = 0; // where decoding stopped (the fault, when !ok)
    const char *error = "";         // static text, "" when ok
};

// Decodes `in` into `out`. Never reads or writes outside either span: a
// stream that would is reported as an error, as MS-XCA requires. Decoding
// ends successfully where the specification says (a match flag with no
// input left), or when the input is used up with the output exactly full.
XpressResult xpress_decompress(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) noexcept;

} // namespace openetw::format
