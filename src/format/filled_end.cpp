#include "format/filled_end.hpp"

#include "format/etl_layout.hpp"
#include "format/record_reader.hpp"

namespace openetw::format {

using namespace openetw::etl;

namespace {

// What normally follows the records: 0xFF fill (every Windows file and
// ours), zeros (a zeroed buffer), or nothing (a full buffer).
bool padding_at(std::span<const std::uint8_t> stored, std::uint32_t pos)
{
    if (pos >= stored.size() || stored.size() - pos < 4)
        return true; // too short for any record
    const std::uint32_t word = rd32(stored.data() + pos);
    return word == kEndOfBufferMarker || word == 0;
}

// Whether [from, to) is all 0xFF or all zeros.
bool uniform(std::span<const std::uint8_t> stored, std::uint32_t from, std::uint32_t to)
{
    const std::uint8_t first = stored[from];
    if (first != 0xFF && first != 0)
        return false;
    for (std::uint32_t i = from + 1; i < to; ++i)
        if (stored[i] != first)
            return false;
    return true;
}

void note_garbage(std::span<const std::uint8_t> stored, std::uint32_t end, FilledEnd &out)
{
    if (padding_at(stored, end))
        return;
    out.problem.set(ETW_ERROR_INVALID_DATA, end,
                    text_printf("the 0x%zX bytes from 0x%X to the end of the buffer are neither records nor 0xFF "
                                "fill: what they hold is not read",
                                stored.size() - end, end));
}

} // namespace

bool find_filled_end(std::span<const std::uint8_t> stored, const BufferHeader &h, FilledEnd &out)
{
    out = FilledEnd{};
    const auto limit = static_cast<std::uint32_t>(stored.size());
    auto in_range = [&](std::uint32_t v) { return v >= kBufferHeaderSize && v <= h.buffer_size; };
    const auto at = static_cast<std::uint32_t>(buf::Offset);

    // Framed from the start, since a wrong end may fall inside a record (or
    // in the padding after one); it costs one pass over the record headers.
    std::uint32_t last_start = 0;
    const std::uint32_t records_end = framed_end(stored, kBufferHeaderSize, limit, &last_start);
    if (!in_range(h.offset) && !in_range(h.saved_offset)) {
        // No filled end to trust: the records say where they end.
        const std::uint32_t end = records_end;
        if (end == kBufferHeaderSize) {
            out.problem.set(ETW_ERROR_BAD_LENGTH, at,
                            text_printf("Offset 0x%X and SavedOffset 0x%X are both outside 0x48..BufferSize 0x%X",
                                        h.offset, h.saved_offset, h.buffer_size));
            return false;
        }
        out.filled = end;
        out.warning.set(ETW_ERROR_BAD_LENGTH, at,
                        text_printf("Offset 0x%X and SavedOffset 0x%X are both outside 0x48..BufferSize 0x%X: the "
                                    "records framed from 0x48 are read, up to 0x%X",
                                    h.offset, h.saved_offset, h.buffer_size, end));
        note_garbage(stored, end, out);
        return true;
    }

    // Offset is what Windows 7 through 11 keep right; SavedOffset is 0 in
    // Windows 7 header buffers, so it is only the fallback (section 2.1).
    const bool offset_ok = in_range(h.offset);
    const std::uint32_t claimed = offset_ok ? h.offset : h.saved_offset;
    auto said = [&] {
        return offset_ok ? text_printf("Offset 0x%X", h.offset)
                         : text_printf("Offset 0x%X is outside 0x48..BufferSize 0x%X and SavedOffset 0x%X", h.offset,
                                       h.buffer_size, h.saved_offset);
    };
    out.filled = claimed;
    bool agreed = false; // the records end at out.filled
    if (records_end > align8(claimed)) {
        // Records that start past the claimed end are the buffer's own (a
        // user wants every event): read while well-formed and within the
        // buffer. One record crossing it with none after is rather a
        // damaged Size, which the record reader reports.
        if (last_start >= claimed) {
            out.filled = records_end;
            out.warning.set(ETW_ERROR_BAD_LENGTH, at,
                            said() + text_printf(" falls short of the records, which run on to 0x%X: they are read "
                                                 "up to there",
                                                 records_end));
            agreed = true;
        }
    } else if (records_end >= claimed) {
        agreed = true; // a claimed end short of its 8-byte alignment still agrees
    } else if (claimed <= limit && uniform(stored, records_end, claimed)) {
        // Fill before the claimed end hides nothing.
        out.filled = records_end;
        out.warning.set(
            ETW_ERROR_BAD_LENGTH, at,
            said() + text_printf(" runs past the records, which end at 0x%X: fill follows them up to it", records_end));
        agreed = true;
    }
    // Otherwise the records stop before the claimed end: the record reader reports why.
    if (agreed)
        note_garbage(stored, records_end, out);
    if (!offset_ok && !out.warning)
        out.warning.set(ETW_ERROR_BAD_LENGTH, at, said() + " is taken as the filled end");
    return true;
}

} // namespace openetw::format
