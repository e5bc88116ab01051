// Where the records of a plain (uncompressed) buffer end, checked against
// the filled end its header gives (ETL_FORMAT.md sections 2.1 and 2.2):
// records lie in [0x48, Offset) and 0xFF fill follows. A header that
// disagrees with its records is a warning when every record could still be
// framed, a problem when bytes past the records are neither records nor
// fill (whatever they held is not read). Pure functions over bytes.
#pragma once

#include "format/buffer_header.hpp"
#include "format/problem.hpp"

#include <cstdint>
#include <span>

namespace openetw::format {

struct FilledEnd {
    std::uint32_t filled = 0; // read records up to here (may exceed the stored bytes: the file ends early)
    Problem warning;          // the header disagrees with the records; none was left out
    Problem problem;          // what follows the records is neither records nor fill
};

// stored holds at most BufferSize bytes (fewer when the file ends early).
// Returns false, with out.problem set, when neither Offset nor SavedOffset
// is a filled end within the buffer and no record frames from 0x48.
bool find_filled_end(std::span<const std::uint8_t> stored, const BufferHeader &header, FilledEnd &out);

} // namespace openetw::format
