// The on-disk vocabulary of .etl files (ETL_FORMAT.md sections 2-5): buffer
// header layout, record markers and header kinds, buffer flags and types,
// EventTrace-group hook ids. Shared by the writer and the reader; pure
// constants and little-endian byte access, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace openetw::etl {

// ---- Little-endian access at any alignment ----
// On a little-endian host each is one unaligned load or store (the byte
// loops are not always merged, and the writer's hot path uses these).
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
template <class T>
inline T rd_le(const std::uint8_t *p)
{
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class T>
inline void wr_le(std::uint8_t *p, T v)
{
    std::memcpy(p, &v, sizeof v);
}
#else
template <class T>
inline T rd_le(const std::uint8_t *p)
{
    T v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i)
        v = T(v | T(T(p[i]) << (8 * i)));
    return v;
}
template <class T>
inline void wr_le(std::uint8_t *p, T v)
{
    for (std::size_t i = 0; i < sizeof(T); ++i)
        p[i] = std::uint8_t(v >> (8 * i));
}
#endif
inline std::uint16_t rd16(const std::uint8_t *p) { return rd_le<std::uint16_t>(p); }
inline std::uint32_t rd32(const std::uint8_t *p) { return rd_le<std::uint32_t>(p); }
inline std::uint64_t rd64(const std::uint8_t *p) { return rd_le<std::uint64_t>(p); }
inline void wr16(std::uint8_t *p, std::uint16_t v) { wr_le(p, v); }
inline void wr32(std::uint8_t *p, std::uint32_t v) { wr_le(p, v); }
inline void wr64(std::uint8_t *p, std::uint64_t v) { wr_le(p, v); }

inline constexpr std::size_t align8(std::size_t n) { return (n + 7) & ~std::size_t(7); }

// ---- WMI_BUFFER_HEADER (0x48 bytes, 32- and 64-bit alike) ----
inline constexpr std::size_t kBufferHeaderSize = 0x48;
namespace buf {
inline constexpr std::size_t BufferSize = 0x00; // bytes on disk, header included
inline constexpr std::size_t SavedOffset = 0x04;
inline constexpr std::size_t CurrentOffset = 0x08;
inline constexpr std::size_t ReferenceCount = 0x0C;
inline constexpr std::size_t TimeStamp = 0x10; // raw session clock at flush
inline constexpr std::size_t SequenceNumber = 0x18;
inline constexpr std::size_t ClockFrequency = 0x20; // union; ignore when reading
inline constexpr std::size_t ProcessorIndex = 0x28; // u16 (or u8 ProcessorNumber + u8 Alignment)
inline constexpr std::size_t LoggerId = 0x2A;       // u16
inline constexpr std::size_t State = 0x2C;
inline constexpr std::size_t Offset = 0x30;     // filled bytes, header included
inline constexpr std::size_t BufferFlag = 0x34; // u16
inline constexpr std::size_t BufferType = 0x36; // u16
inline constexpr std::size_t Reserved = 0x38;   // 16 bytes; ignore when reading
} // namespace buf

// ETW_BUFFER_FLAG_*
inline constexpr std::uint16_t kFlagNormal = 0x0000;
inline constexpr std::uint16_t kFlagFlushMarker = 0x0001;
inline constexpr std::uint16_t kFlagEventsLost = 0x0002;
inline constexpr std::uint16_t kFlagBufferLost = 0x0004;
inline constexpr std::uint16_t kFlagRtBackupCorrupt = 0x0008;
inline constexpr std::uint16_t kFlagRtBackup = 0x0010;
inline constexpr std::uint16_t kFlagProcIndex = 0x0020;
inline constexpr std::uint16_t kFlagCompressed = 0x0040;

// ETW_BUFFER_TYPE_*
inline constexpr std::uint16_t kTypeGeneric = 0;
inline constexpr std::uint16_t kTypeRundown = 1;
inline constexpr std::uint16_t kTypeCtxSwap = 2;
inline constexpr std::uint16_t kTypeRefTime = 3;
inline constexpr std::uint16_t kTypeHeader = 4;
inline constexpr std::uint16_t kTypeBatched = 5;
inline constexpr std::uint16_t kTypeEmptyMarker = 6;
inline constexpr std::uint16_t kTypeDbgInfo = 7;

// ETW_BUFFER_STATE
inline constexpr std::uint32_t kStateFlush = 3;

// ---- Record markers (first u32 of every record) ----
inline constexpr std::uint32_t kTraceHeaderFlag = 0x80000000u; // TRACE_HEADER_FLAG
inline constexpr std::uint32_t kTraceHeaderEventTrace = 0x40000000u;
inline constexpr std::uint32_t kTraceMessage = 0x10000000u;
inline constexpr std::uint8_t kMarkerFixedHeader = 0xC0;         // flags byte of fixed kinds
inline constexpr std::uint8_t kMarkerMessage = 0x90;             // flags byte of WPP records
inline constexpr std::uint32_t kEndOfBufferMarker = 0xFFFFFFFFu; // 0xFF fill

// HeaderType byte (TRACE_HEADER_TYPE_*)
enum HeaderType : std::uint8_t {
    kSystem32 = 0x01,
    kSystem64 = 0x02,
    kCompact32 = 0x03,
    kCompact64 = 0x04,
    kFullHeader32 = 0x0A,
    kInstance32 = 0x0B,
    kTimed = 0x0C,
    kError = 0x0D,
    kWnodeHeader = 0x0E,
    kMessage = 0x0F,
    kPerfInfo32 = 0x10,
    kPerfInfo64 = 0x11,
    kEventHeader32 = 0x12,
    kEventHeader64 = 0x13,
    kFullHeader64 = 0x14,
    kInstance64 = 0x15,
};

// Fixed header sizes.
inline constexpr std::size_t kSystemHeaderSize = 0x20;
inline constexpr std::size_t kCompactHeaderSize = 0x18;
inline constexpr std::size_t kPerfInfoHeaderSize = 0x10;
inline constexpr std::size_t kFullHeaderSize = 0x30;
inline constexpr std::size_t kInstanceHeaderSize = 0x48;
inline constexpr std::size_t kEventHeaderSize = 0x50;
inline constexpr std::size_t kMessageHeaderSize = 0x08;

// Extension-item bits in the Version word of SYSTEM/COMPACT/PERFINFO headers.
inline constexpr std::uint16_t kPebsIndexFlag = 0x8000;   // + 8 bytes
inline constexpr std::uint16_t kPmcCountersMask = 0x0700; // + 8 bytes per counter

// ---- EventTrace group (Group 0) hook ids ----
inline constexpr std::uint16_t kHookHeader = 0x0000; // WMI_LOG_TYPE_HEADER
inline constexpr std::uint16_t kHookHeaderExtension = 0x0005;
inline constexpr std::uint16_t kHookRundownComplete = 0x0008;
inline constexpr std::uint16_t kHookGroupMasksEnd = 0x0020;
inline constexpr std::uint16_t kHookDbgIdRsds = 0x0040;
inline constexpr std::uint16_t kHookBuildLab = 0x0042;
inline constexpr std::uint16_t kHookPartitionInfo = 0x0050;

// ---- TRACE_LOGFILE_HEADER.Version ----
inline constexpr std::uint32_t kVersionLayout15 = 0x0501000Au; // OS 10.0, layout 1.5 (live sessions)
inline constexpr std::uint32_t kVersionLayout20 = 0x0002000Au; // OS 10.0, layout 2.0 (compressed/relogged)

// TRACE_LOGFILE_HEADER as stored: 0x118 bytes for 64-bit sessions, 0x110 for 32-bit.
inline constexpr std::size_t kLogfileHeader64Size = 0x118;
inline constexpr std::size_t kLogfileHeader32Size = 0x110;

// COMPRESSION_FORMAT_* in buffer 0's State (low 16 bits) for compressed files.
inline constexpr std::uint16_t kCompressionFormatXpress = 3;
inline constexpr std::uint16_t kCompressionFormatXpressHuff = 4;

// The EventTrace provider GUID that classic kernel group 0 events map to.
// {68fdd900-4a3e-11d1-84f4-0000f80464e3}
inline constexpr std::uint8_t kEventTraceGuidBytes[16] = {0x00, 0xd9, 0xfd, 0x68, 0x3e, 0x4a, 0xd1, 0x11,
                                                          0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3};

} // namespace openetw::etl

// ---- Reader additions (append only) ----
namespace openetw::etl {

// MAX_ETW_BUFFER_SIZE on Windows 8 and later: no stored buffer or buffer
// image is larger, so a reader never allocates more for one buffer.
inline constexpr std::uint32_t kMaxBufferBytes = 16u * 1024u * 1024u;

// TRACE_LOGFILE_HEADER field offsets shared by both forms (up to the
// pointer slots at 0x38; the rest shifts with the session pointer size).
namespace tlh {
inline constexpr std::size_t BufferSize = 0x00;
inline constexpr std::size_t Version = 0x04;
inline constexpr std::size_t ProviderVersion = 0x08;
inline constexpr std::size_t NumberOfProcessors = 0x0C;
inline constexpr std::size_t EndTime = 0x10;
inline constexpr std::size_t TimerResolution = 0x18;
inline constexpr std::size_t MaximumFileSize = 0x1C;
inline constexpr std::size_t LogFileMode = 0x20;
inline constexpr std::size_t BuffersWritten = 0x24;
inline constexpr std::size_t StartBuffers = 0x28;
inline constexpr std::size_t PointerSize = 0x2C;
inline constexpr std::size_t EventsLost = 0x30;
inline constexpr std::size_t CpuSpeedInMHz = 0x34;
inline constexpr std::size_t LoggerName = 0x38; // pointer slot, 4 or 8 bytes
inline constexpr std::size_t TimeZoneSize = 0xAC;
} // namespace tlh

// EVENT_HEADER.Flags bit that announces extended data items.
inline constexpr std::uint16_t kEventHeaderFlagExtendedInfo = 0x0001;
inline constexpr std::size_t kExtendedItemHeaderSize = 8;
// Bytes an item of data_size bytes takes: its 8-byte header {ItemSize,
// ExtType, Linkage, DataSize} and the data padded to 8.
constexpr std::uint32_t extended_item_size(std::uint32_t data_size)
{
    return std::uint32_t(kExtendedItemHeaderSize + align8(data_size));
}
inline constexpr std::uint16_t kEventHeaderFlagStringOnly = 0x0004;
inline constexpr std::uint16_t kExtTypeRelatedActivityId = 0x0001; // EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID
inline constexpr std::uint16_t kExtTypeEventSchemaTl = 0x000B;     // EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL
inline constexpr std::uint16_t kExtTypeProvTraits = 0x000C;        // EVENT_HEADER_EXT_TYPE_PROV_TRAITS

// MESSAGE_TRACE_HEADER.OptionFlags (TRACE_MESSAGE_*).
inline constexpr std::uint16_t kMessageSequence = 0x0001;
inline constexpr std::uint16_t kMessageGuid = 0x0002;
inline constexpr std::uint16_t kMessageComponentId = 0x0004;
inline constexpr std::uint16_t kMessageTimestamp = 0x0008;
inline constexpr std::uint16_t kMessagePerformanceTimestamp = 0x0010;
inline constexpr std::uint16_t kMessageSystemInfo = 0x0020;
inline constexpr std::uint16_t kMessagePointer32 = 0x0040;
inline constexpr std::uint16_t kMessagePointer64 = 0x0080;

// EVENT_TRACE_COMPRESSED_MODE in TRACE_LOGFILE_HEADER.LogFileMode.
inline constexpr std::uint32_t kCompressedMode = 0x04000000u;

} // namespace openetw::etl
