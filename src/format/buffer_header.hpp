// WMI_BUFFER_HEADER decoding and the rules for which "filled" field to
// trust (ETL_FORMAT.md section 2), and turning a stored buffer into the
// image its records are read from (decompressing when needed, section 2.5).
#pragma once

#include "format/problem.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace openetw::format {

struct BufferHeader {
    std::uint32_t buffer_size = 0; // bytes on disk (compressed size for compressed buffers)
    std::uint32_t saved_offset = 0;
    std::uint32_t current_offset = 0;
    std::int64_t timestamp = 0; // raw session clock at flush
    std::uint64_t sequence_number = 0;
    std::uint16_t processor_word = 0; // ProcessorIndex, or ProcessorNumber + Alignment byte
    std::uint16_t logger_id = 0;
    std::uint32_t state = 0;
    std::uint32_t offset = 0; // filled bytes incl. header (uncompressed size)
    std::uint16_t flags = 0;  // ETW_BUFFER_FLAG_*
    std::uint16_t type = 0;   // ETW_BUFFER_TYPE_*

    // The 16-bit ProcessorIndex with PROC_INDEX, else the ProcessorNumber byte
    // (Windows 7 puts an Alignment byte of 8 next to it).
    std::uint32_t processor() const;
    bool compressed() const;
};

// bytes must hold at least the 0x48-byte header.
BufferHeader parse_buffer_header(std::span<const std::uint8_t> bytes);

// What make_buffer_image needs to know about the file.
struct ImageContext {
    std::uint32_t session_buffer_size = 0; // TRACE_LOGFILE_HEADER.BufferSize; 0 if unknown
    std::uint16_t compression_format = 3;  // COMPRESSION_FORMAT_* of compressed buffers
};

struct BufferImage {
    std::span<const std::uint8_t> bytes; // the stored bytes, or the decompressed copy
    std::uint32_t filled = 0;            // end of record data (<= bytes.size())
    bool decompressed = false;
    // The header's filled end disagrees with the records, all of which are
    // still read (filled is where they end): not a problem, since no record
    // is left out, but on record (filled_end.hpp).
    Problem warning;
};

// Builds the image of one buffer from its stored bytes (which may be fewer
// than BufferSize when the file ends early). Decompressed images live in
// scratch, which is reused from call to call. Returns false when none of the
// buffer's records can be read; returns true with problem set when the
// buffer is damaged but its leading records can still be read safely; sets
// image.warning when its header disagrees with records all of which are read.
// The image never exceeds etl::kMaxBufferBytes.
bool make_buffer_image(std::span<const std::uint8_t> stored, const BufferHeader &header, const ImageContext &context,
                       std::vector<std::uint8_t> &scratch, BufferImage &image, Problem &problem);

} // namespace openetw::format
