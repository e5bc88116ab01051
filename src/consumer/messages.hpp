// The sentences of damaged-input statuses: the file, the buffer and the
// file offset where the problem was found.
#pragma once

#include "format/problem.hpp"

#include <cstdint>
#include <string>

namespace openetw::consumer {

// "PATH: file offset 0x6120 (buffer 3 at 0x6000, offset 0x120): DETAIL", or
// for a decompressed image "PATH: buffer 3 at file offset 0x6000, offset
// 0x120 of its decompressed image: DETAIL".
std::string problem_message(const std::string &path, std::uint32_t buffer_index, std::uint64_t buffer_offset,
                            bool decompressed, const format::Problem &problem);

} // namespace openetw::consumer
