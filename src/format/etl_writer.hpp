// Pure encoding of .etl bytes (ETL_FORMAT.md sections 2, 3.1, 3.3, 5 and the
// writer checklist of section 9): buffer headers, the logfile-header record
// that opens buffer 0, and classic EVENT_TRACE_HEADER records. No I/O, no
// allocation except where a function returns a vector.
#pragma once

#include "format/etl_layout.hpp"

#include <openetw/records.h>

#include <atomic>
#include <bit>
#include <cstring>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openetw::etl {

// What a data or header buffer's WMI_BUFFER_HEADER says.
struct BufferHeaderFields {
    std::uint32_t buffer_size = 0;     // bytes, header included
    std::uint32_t filled = 0;          // Offset = SavedOffset = CurrentOffset; multiple of 8
    std::int64_t timestamp = 0;        // raw session clock at flush (0 in buffer 0)
    std::uint64_t sequence = 0;        // 0 in buffer 0, then 1..N
    std::uint16_t processor_index = 0; // < NumberOfProcessors
    std::uint16_t logger_id = 0;
    std::uint16_t flags = kFlagProcIndex;
    std::uint16_t type = kTypeGeneric;
};

// Writes the 0x48-byte header at buf (zeroing the union fields).
void write_buffer_header(std::uint8_t *buf, const BufferHeaderFields &f) noexcept;

// Fills [filled, size) with 0xFF, the end-of-data marker of section 2.2.
void fill_buffer_tail(std::uint8_t *buf, std::size_t filled, std::size_t size) noexcept;

// Everything the first record (SYSTEM_TRACE_HEADER + TRACE_LOGFILE_HEADER +
// names) carries.
struct LogfileHeaderFields {
    std::uint32_t buffer_size = 0; // bytes
    std::uint32_t version = kVersionLayout15;
    std::uint32_t provider_version = 0;
    std::uint32_t number_of_processors = 1;
    std::int64_t end_time = 0; // FILETIME
    std::uint32_t timer_resolution = 156250;
    std::uint32_t maximum_file_size = 0;
    std::uint32_t log_file_mode = 0;
    std::uint32_t buffers_written = 1; // including buffer 0
    std::uint32_t start_buffers = 1;
    std::uint32_t pointer_size = 8; // 8: 0x118-byte form, HeaderType 2; 4: 0x110, HeaderType 1
    std::uint32_t events_lost = 0;
    std::uint32_t cpu_speed_mhz = 0;
    etw_time_zone_information time_zone{};
    std::int64_t boot_time = 0;
    std::int64_t perf_freq = 10'000'000;
    std::int64_t start_time = 0;  // FILETIME
    std::uint32_t clock_type = 1; // ReservedFlags
    std::uint32_t buffers_lost = 0;
    // The SYSTEM_TRACE_HEADER part.
    std::uint32_t thread_id = 0;
    std::uint32_t process_id = 0;
    std::int64_t start_raw = 0; // SystemTime: raw session clock at start
    std::u16string logger_name;
    std::u16string log_file_name;
};

// Size of the first record with these names.
std::size_t logfile_record_size(const LogfileHeaderFields &f) noexcept;

// Encodes the whole buffer 0 (header, first record, 0xFF fill) into out,
// which must hold buffer_size bytes. Names that would not fit are shortened
// so the record stays below buffer_size - 0x48. Returns the filled size.
std::size_t encode_header_buffer(std::uint8_t *out, const LogfileHeaderFields &f, std::uint16_t logger_id) noexcept;
std::vector<std::uint8_t> encode_header_buffer(const LogfileHeaderFields &f, std::uint16_t logger_id);

// A record written where a writer may die mid-copy (format/buffer_repair.hpp)
// goes in three steps: begin_record (Size, so the record can be skipped),
// the header's remaining bytes and the payload, then finish_record (Size,
// HeaderType, MarkerFlags: the record is whole). out is 8-aligned.
inline void begin_record(std::uint8_t *out, std::uint16_t size) noexcept
{
    const std::uint8_t le[2] = {std::uint8_t(size), std::uint8_t(size >> 8)};
    std::uint16_t v;
    std::memcpy(&v, le, 2);
    std::atomic_ref<std::uint16_t>(*reinterpret_cast<std::uint16_t *>(out)).store(v, std::memory_order_relaxed);
    std::atomic_signal_fence(std::memory_order_seq_cst); // before the payload, in program order
}
inline void finish_record(std::uint8_t *out, std::uint32_t word0) noexcept
{
    std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t *>(out)).store(word0, std::memory_order_release);
}

// The writer's fields of the 0x30-byte EVENT_TRACE_HEADER of a classic
// event as stored in a file (section 3.3: HeaderType 0x14, or 0x0A for
// 32-bit data, MarkerFlags 0xC0) whose other bytes (Class at 4, Guid at 24)
// are already at out. In three parts, for a writer that keeps the ids as
// one word (engine/owned_buffers.hpp): ThreadId/ProcessId; TimeStamp and the
// times word at 40 (KernelTime/UserTime or ProcessorTime); word0 (Size,
// HeaderType, MarkerFlags), for the caller to store last.
inline void write_full_header_ids(std::uint8_t *out, std::uint32_t thread_id, std::uint32_t process_id) noexcept
{
    wr32(out + 8, thread_id);
    wr32(out + 12, process_id);
}
inline void write_full_header_times(std::uint8_t *out, std::int64_t timestamp, std::uint64_t times) noexcept
{
    wr64(out + 16, std::uint64_t(timestamp));
    wr64(out + 40, times);
}
// (In memory order: the caller stores it as is. size below 0x10000.)
inline std::uint32_t full_header_word0(std::uint32_t size) noexcept
{
    const std::uint8_t type = sizeof(void *) == 8 ? kFullHeader64 : kFullHeader32;
    if constexpr (std::endian::native == std::endian::little) {
        return size | std::uint32_t(type) << 16 | std::uint32_t(kMarkerFixedHeader) << 24;
    } else {
        const std::uint8_t w[4] = {std::uint8_t(size), std::uint8_t(size >> 8), type, kMarkerFixedHeader};
        std::uint32_t word0;
        std::memcpy(&word0, w, 4);
        return word0;
    }
}
// The three at once; returns word0.
inline std::uint32_t write_full_header_fields(std::uint8_t *out, std::uint16_t size, std::uint32_t thread_id,
                                              std::uint32_t process_id, std::int64_t timestamp,
                                              std::uint64_t times) noexcept
{
    write_full_header_ids(out, thread_id, process_id);
    write_full_header_times(out, timestamp, times);
    return full_header_word0(size);
}

// An EVENT_HEADER record (section 3.5): HeaderType 0x13 (0x12 for 32-bit
// data), MarkerFlags 0xC0, Size at +0; Flags at 4, EventProperty 0 at 6,
// ThreadId/ProcessId at 8, TimeStamp at 16, ProviderId at 24, the
// EVENT_DESCRIPTOR at 40, the times word at 56, ActivityId at 64, then the
// extended data items and the user data.
inline constexpr std::uint8_t kEventHeaderOwnType = sizeof(void *) == 8 ? kEventHeader64 : kEventHeader32;
inline std::uint32_t event_header_word0(std::uint32_t size) noexcept
{
    const std::uint8_t w[4] = {std::uint8_t(size), std::uint8_t(size >> 8), kEventHeaderOwnType, kMarkerFixedHeader};
    std::uint32_t word0;
    std::memcpy(&word0, w, 4);
    return word0;
}
// The RELATED_ACTIVITYID item (EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID): an
// 8-byte item header {ItemSize 24, ExtType 1, Linkage, DataSize 16} and the GUID.
inline constexpr std::uint32_t kRelatedActivityItemSize = 24;
inline void write_related_activity_item(std::uint8_t *out, const etw_guid &related, bool more) noexcept
{
    wr16(out, std::uint16_t(kRelatedActivityItemSize));
    wr16(out + 2, kExtTypeRelatedActivityId);
    wr16(out + 4, more ? 1 : 0);
    wr16(out + 6, 16);
    std::memcpy(out + 8, &related, 16);
}

// Any other item: its header (extended_item_size), the data, zeroed
// padding. Returns the end.
inline std::uint8_t *write_extended_item(std::uint8_t *out, std::uint16_t ext_type, const void *data,
                                         std::uint16_t data_size, bool more) noexcept
{
    const std::uint32_t item = extended_item_size(data_size);
    wr16(out, std::uint16_t(item));
    wr16(out + 2, ext_type);
    wr16(out + 4, more ? 1 : 0);
    wr16(out + 6, data_size);
    std::memset(out + item - 8, 0, 8); // the padding, if any (the data overwrites the rest)
    std::memcpy(out + 8, data, data_size);
    return out + item;
}

} // namespace openetw::etl
