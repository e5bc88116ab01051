#include "consumer/messages.hpp"

namespace openetw::consumer {

std::string problem_message(const std::string &path, std::uint32_t buffer_index, std::uint64_t buffer_offset,
                            bool decompressed, const format::Problem &problem)
{
    using format::text_printf;
    const unsigned long long base = buffer_offset;
    if (decompressed)
        return path +
               text_printf(": buffer %u at file offset 0x%llX, offset 0x%X of its decompressed image: ", buffer_index,
                           base, problem.at) +
               problem.detail;
    return path +
           text_printf(": file offset 0x%llX (buffer %u at 0x%llX, offset 0x%X): ", base + problem.at, buffer_index,
                       base, problem.at) +
           problem.detail;
}

} // namespace openetw::consumer
