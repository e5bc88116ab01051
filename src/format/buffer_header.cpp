#include "format/buffer_header.hpp"

#include "format/etl_layout.hpp"
#include "format/filled_end.hpp"
#include "format/xpress.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::format {

using namespace openetw::etl;

std::uint32_t BufferHeader::processor() const
{
    return (flags & kFlagProcIndex) ? processor_word : (processor_word & 0xFFu);
}

bool BufferHeader::compressed() const { return (flags & kFlagCompressed) != 0; }

BufferHeader parse_buffer_header(std::span<const std::uint8_t> bytes)
{
    const std::uint8_t *p = bytes.data();
    BufferHeader h;
    h.buffer_size = rd32(p + buf::BufferSize);
    h.saved_offset = rd32(p + buf::SavedOffset);
    h.current_offset = rd32(p + buf::CurrentOffset);
    h.timestamp = static_cast<std::int64_t>(rd64(p + buf::TimeStamp));
    h.sequence_number = rd64(p + buf::SequenceNumber);
    h.processor_word = rd16(p + buf::ProcessorIndex);
    h.logger_id = rd16(p + buf::LoggerId);
    h.state = rd32(p + buf::State);
    h.offset = rd32(p + buf::Offset);
    h.flags = rd16(p + buf::BufferFlag);
    h.type = rd16(p + buf::BufferType);
    return h;
}

namespace {

bool plain_image(std::span<const std::uint8_t> stored, const BufferHeader &h, BufferImage &image, Problem &problem)
{
    FilledEnd end;
    if (!find_filled_end(stored, h, end)) {
        problem = end.problem;
        return false;
    }
    image.bytes = stored;
    image.decompressed = false;
    image.warning = end.warning;
    if (end.filled > stored.size()) {
        // The file ends inside the filled part: the records before the cut are intact.
        problem.set(ETW_ERROR_HANDLE_EOF, static_cast<std::uint32_t>(stored.size()),
                    text_printf("the file ends 0x%zX bytes into the buffer, before its filled end 0x%X", stored.size(),
                                end.filled));
        image.filled = static_cast<std::uint32_t>(stored.size());
        return true;
    }
    image.filled = end.filled;
    if (end.problem)
        problem = end.problem;
    return true;
}

bool compressed_image(std::span<const std::uint8_t> stored, const BufferHeader &h, const ImageContext &context,
                      std::vector<std::uint8_t> &scratch, BufferImage &image, Problem &problem)
{
    if (context.compression_format != kCompressionFormatXpress) {
        problem.set(ETW_ERROR_NOT_SUPPORTED, static_cast<std::uint32_t>(buf::BufferFlag),
                    text_printf("the buffer is compressed with format %u; only XPRESS (3) is supported",
                                unsigned(context.compression_format)));
        return false;
    }
    if (stored.size() < h.buffer_size) {
        problem.set(ETW_ERROR_HANDLE_EOF, static_cast<std::uint32_t>(stored.size()),
                    text_printf("the file ends 0x%zX bytes into a compressed buffer of 0x%X bytes", stored.size(),
                                h.buffer_size));
        return false;
    }
    // A compressed buffer's Offset is the size of its uncompressed image,
    // which cannot exceed the session's buffer size.
    std::uint32_t limit = kMaxBufferBytes;
    if (context.session_buffer_size >= kBufferHeaderSize && context.session_buffer_size < limit)
        limit = context.session_buffer_size;
    if (h.offset < kBufferHeaderSize || h.offset > limit) {
        problem.set(ETW_ERROR_BAD_LENGTH, static_cast<std::uint32_t>(buf::Offset),
                    text_printf("the uncompressed size (Offset) 0x%X is outside 0x48..0x%X", h.offset, limit));
        return false;
    }
    scratch.resize(h.offset);
    std::memcpy(scratch.data(), stored.data(), kBufferHeaderSize);
    const auto packed = stored.subspan(kBufferHeaderSize, h.buffer_size - kBufferHeaderSize);
    const auto result = xpress_decompress(packed, std::span<std::uint8_t>(scratch).subspan(kBufferHeaderSize));
    if (!result.ok) {
        problem.set(ETW_ERROR_INVALID_DATA, static_cast<std::uint32_t>(kBufferHeaderSize + result.input_position),
                    text_printf("the compressed data is corrupt at stored byte 0x%zX: %s",
                                kBufferHeaderSize + result.input_position, result.error));
        return false;
    }
    if (result.produced != h.offset - kBufferHeaderSize) {
        problem.set(ETW_ERROR_INVALID_DATA, static_cast<std::uint32_t>(buf::Offset),
                    text_printf("the compressed data expands to 0x%zX bytes, Offset promises 0x%X",
                                kBufferHeaderSize + result.produced, h.offset));
        return false;
    }
    image.bytes = std::span<const std::uint8_t>(scratch.data(), h.offset);
    image.filled = h.offset;
    image.decompressed = true;
    return true;
}

} // namespace

bool make_buffer_image(std::span<const std::uint8_t> stored, const BufferHeader &header, const ImageContext &context,
                       std::vector<std::uint8_t> &scratch, BufferImage &image, Problem &problem)
{
    problem.clear();
    image = BufferImage{};
    if (stored.size() < kBufferHeaderSize) {
        problem.set(ETW_ERROR_HANDLE_EOF, 0,
                    text_printf("only 0x%zX bytes of the 0x48-byte buffer header are present", stored.size()));
        return false;
    }
    if (header.buffer_size < kBufferHeaderSize || header.buffer_size > kMaxBufferBytes) {
        problem.set(ETW_ERROR_BAD_LENGTH, static_cast<std::uint32_t>(buf::BufferSize),
                    text_printf("BufferSize 0x%X is outside 0x48..0x%X", header.buffer_size, kMaxBufferBytes));
        return false;
    }
    stored = stored.first(std::min<std::size_t>(stored.size(), header.buffer_size));
    if (header.compressed())
        return compressed_image(stored, header, context, scratch, image, problem);
    return plain_image(stored, header, image, problem);
}

} // namespace openetw::format
