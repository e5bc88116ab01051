// A test-only MS-XCA plain LZ77 encoder (MS-XCA 2.3), so tests can build
// compressed buffers and check the decoder by round trips. Greedy matching
// over hash chains; emits every length form (short, nibble, byte, 16- and
// 32-bit).
#pragma once

#include <cstdint>
#include <vector>

namespace etltest {

std::vector<std::uint8_t> xpress_compress(const std::vector<std::uint8_t> &input);

} // namespace etltest
