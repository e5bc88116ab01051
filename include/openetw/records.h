/*
 * openetw/records.h - Windows-layout records, bit for bit.
 *
 * These structures have the layout of their evntrace.h / wmistr.h
 * counterparts on the same target (64-bit or 32-bit), with the Windows field
 * names. Members that are HANDLE- or pointer-sized on Windows are uintptr_t
 * here. Where Windows overlays members in an anonymous union (which C99
 * does not have), the record carries one member and its comment names the
 * overlays. tests/layout checks every size and offset against mingw-w64's
 * own headers for x86_64 and i686.
 *
 * The two TRACE_LOGFILE_HEADER forms are the raw in-file records, whose size
 * follows the *session's* pointer size, not the reader's: 0x118 bytes for a
 * 64-bit session and 0x110 for a 32-bit one (see ETL_FORMAT.md section 5).
 * Their layout is the same on every target.
 */
#ifndef OPENETW_RECORDS_H
#define OPENETW_RECORDS_H

#include <stdint.h>
#include "export.h"

ETW_BEGIN_DECLS

/** GUID in the Windows layout: Data1..Data3 little-endian, Data4 raw bytes. */
typedef struct etw_guid {
    uint32_t Data1;
    uint16_t Data2;
    uint16_t Data3;
    uint8_t  Data4[8];
} etw_guid;

/** WNODE_HEADER (wmistr.h), 48 bytes on every target. */
typedef struct etw_wnode_header {
    uint32_t BufferSize;        /* size of the whole block, names included */
    uint32_t ProviderId;
    uint64_t HistoricalContext; /* overlays Version (low 32 bits) and Linkage;
                                   the session handle on output */
    int64_t  TimeStamp;         /* overlays CountLost and KernelHandle */
    etw_guid Guid;              /* the session GUID */
    uint32_t ClientContext;     /* clock type: ETW_CLOCK_* */
    uint32_t Flags;             /* ETW_WNODE_FLAG_*; must contain TRACED_GUID */
} etw_wnode_header;

/** EVENT_TRACE_PROPERTIES (evntrace.h): 120 bytes on 64-bit and 32-bit. */
typedef struct etw_event_trace_properties {
    etw_wnode_header Wnode;
    uint32_t  BufferSize;       /* KB per buffer, ETW_MIN..ETW_MAX_BUFFER_SIZE_KB */
    uint32_t  MinimumBuffers;
    uint32_t  MaximumBuffers;
    uint32_t  MaximumFileSize;  /* MB, or KB with ETW_USE_KBYTES_FOR_SIZE */
    uint32_t  LogFileMode;      /* ETW_FILE_MODE_* and ETW_*_MODE bits */
    uint32_t  FlushTimer;       /* seconds */
    uint32_t  EnableFlags;      /* ETW_FLAG_*, system loggers only */
    int32_t   AgeLimit;         /* overlays FlushThreshold */
    uint32_t  NumberOfBuffers;  /* output */
    uint32_t  FreeBuffers;      /* output */
    uint32_t  EventsLost;       /* output */
    uint32_t  BuffersWritten;   /* output */
    uint32_t  LogBuffersLost;   /* output */
    uint32_t  RealTimeBuffersLost; /* output */
    uintptr_t LoggerThreadId;   /* output; a HANDLE on Windows */
    uint32_t  LogFileNameOffset;
    uint32_t  LoggerNameOffset;
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t  Reserved32;       /* Windows pads the 32-bit form to 8 bytes */
#endif
} etw_event_trace_properties;

/** EVENT_TRACE_HEADER.Class. */
typedef struct etw_event_class {
    uint8_t  Type;              /* ETW_TYPE_* or a user type from 10 */
    uint8_t  Level;             /* ETW_LEVEL_* */
    uint16_t Version;
} etw_event_class;

/**
 * EVENT_TRACE_HEADER (evntrace.h), 48 bytes on every target.
 *
 * The slot at 0x28 is a union on Windows. A provider fills it on input as
 * ClientContext/Flags (Flags: ETW_WNODE_FLAG_TRACED_GUID, optionally
 * USE_GUID_PTR and USE_MOF_PTR); the engine then stores KernelTime/UserTime,
 * or ProcessorTime (all 8 bytes) in private sessions, in the logged record.
 * With ETW_WNODE_FLAG_USE_GUID_PTR the first 8 bytes of Guid hold GuidPtr,
 * the address of the class GUID (see etw_event_trace_header_set_guid_ptr).
 * FieldTypeFlags (HeaderType, MarkerFlags) is for internal use: the engine
 * overwrites it.
 */
typedef struct etw_event_trace_header {
    uint16_t Size;              /* header + inline payload, or header + MOF_FIELDs */
    uint8_t  HeaderType;
    uint8_t  MarkerFlags;
    etw_event_class Class;      /* overlays the ULONG Version */
    uint32_t ThreadId;
    uint32_t ProcessId;
    int64_t  TimeStamp;
    etw_guid Guid;              /* overlays GuidPtr */
    uint32_t ClientContext;     /* overlays KernelTime (and ProcessorTime low) */
    uint32_t Flags;             /* overlays UserTime (and ProcessorTime high) */
} etw_event_trace_header;

/** MOF_FIELD (evntrace.h), 16 bytes: one piece of a gathered payload. */
typedef struct etw_mof_field {
    uint64_t DataPtr;           /* address of the data, as an integer */
    uint32_t Length;
    uint32_t DataType;
} etw_mof_field;

/** SYSTEMTIME, 16 bytes. */
typedef struct etw_systemtime {
    uint16_t wYear;
    uint16_t wMonth;
    uint16_t wDayOfWeek;
    uint16_t wDay;
    uint16_t wHour;
    uint16_t wMinute;
    uint16_t wSecond;
    uint16_t wMilliseconds;
} etw_systemtime;

/** TIME_ZONE_INFORMATION, 172 bytes (names are UTF-16LE). */
typedef struct etw_time_zone_information {
    int32_t  Bias;              /* minutes, UTC = local + Bias */
    uint16_t StandardName[32];
    etw_systemtime StandardDate;
    int32_t  StandardBias;
    uint16_t DaylightName[32];
    etw_systemtime DaylightDate;
    int32_t  DaylightBias;
} etw_time_zone_information;

/*
 * The raw TRACE_LOGFILE_HEADER of a 64-bit session (0x118 bytes), as stored
 * after the SYSTEM_TRACE_HEADER of a file's first record. Version bytes:
 * OS major, OS minor, then the log-file layout version (1.5 or 2.0).
 * StartBuffers..CpuSpeedInMHz overlay LogInstanceGuid. LoggerName and
 * LogFileName are pointer slots that hold no pointer in files; the names
 * themselves follow the structure as NUL-terminated UTF-16LE.
 */
typedef struct etw_trace_logfile_header64 {
    uint32_t BufferSize;        /* bytes */
    uint32_t Version;
    uint32_t ProviderVersion;   /* OS build number */
    uint32_t NumberOfProcessors;
    int64_t  EndTime;           /* FILETIME */
    uint32_t TimerResolution;   /* 100 ns units */
    uint32_t MaximumFileSize;
    uint32_t LogFileMode;
    uint32_t BuffersWritten;
    uint32_t StartBuffers;
    uint32_t PointerSize;
    uint32_t EventsLost;
    uint32_t CpuSpeedInMHz;
    uint64_t LoggerName;
    uint64_t LogFileName;
    etw_time_zone_information TimeZone;
    uint32_t Reserved0;         /* alignment padding before BootTime */
    int64_t  BootTime;          /* FILETIME */
    int64_t  PerfFreq;          /* ticks per second of clock type 1 */
    int64_t  StartTime;         /* FILETIME */
    uint32_t ReservedFlags;     /* clock type, as Wnode.ClientContext */
    uint32_t BuffersLost;
} etw_trace_logfile_header64;

/** The raw TRACE_LOGFILE_HEADER of a 32-bit session (0x110 bytes). */
typedef struct etw_trace_logfile_header32 {
    uint32_t BufferSize;
    uint32_t Version;
    uint32_t ProviderVersion;
    uint32_t NumberOfProcessors;
    int64_t  EndTime;
    uint32_t TimerResolution;
    uint32_t MaximumFileSize;
    uint32_t LogFileMode;
    uint32_t BuffersWritten;
    uint32_t StartBuffers;
    uint32_t PointerSize;
    uint32_t EventsLost;
    uint32_t CpuSpeedInMHz;
    uint32_t LoggerName;
    uint32_t LogFileName;
    etw_time_zone_information TimeZone;
    uint32_t Reserved0;
    int64_t  BootTime;
    int64_t  PerfFreq;
    int64_t  StartTime;
    uint32_t ReservedFlags;
    uint32_t BuffersLost;
} etw_trace_logfile_header32;

/** Sizes of the records above as Windows defines them (checked at build time). */
#define ETW_WNODE_HEADER_SIZE             48u
#define ETW_EVENT_TRACE_PROPERTIES_SIZE   120u
#define ETW_EVENT_TRACE_HEADER_SIZE       48u
#define ETW_MOF_FIELD_SIZE                16u
#define ETW_TIME_ZONE_INFORMATION_SIZE    172u
#define ETW_TRACE_LOGFILE_HEADER64_SIZE   0x118u
#define ETW_TRACE_LOGFILE_HEADER32_SIZE   0x110u

#ifndef SWIG
/*
 * Stores the address of a class GUID in the GuidPtr overlay and sets
 * ETW_WNODE_FLAG_USE_GUID_PTR. The GUID must outlive the write call.
 * (An inline helper: nothing is exported for it.)
 */
/* C++'s casts in C++ (clang's -Wold-style-cast flags C casts in headers). */
#ifdef __cplusplus
#define ETW_INL_ADDRESS(p) static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p))
#define ETW_INL_BYTES(p) reinterpret_cast<unsigned char *>(p)
#define ETW_INL_BYTE(v) static_cast<unsigned char>(v)
#else
#define ETW_INL_ADDRESS(p) ((uint64_t)(uintptr_t)(p))
#define ETW_INL_BYTES(p) ((unsigned char *)(p))
#define ETW_INL_BYTE(v) ((unsigned char)(v))
#endif
static inline void etw_event_trace_header_set_guid_ptr(etw_event_trace_header *header,
                                                       const etw_guid *guid)
{
    uint64_t address = ETW_INL_ADDRESS(guid);
    unsigned char *slot = ETW_INL_BYTES(&header->Guid);
    unsigned i;
    for (i = 0; i < 8; ++i)
        slot[i] = ETW_INL_BYTE(address >> (8 * i));
    header->Flags |= 0x00080000u; /* ETW_WNODE_FLAG_USE_GUID_PTR */
}
#undef ETW_INL_ADDRESS
#undef ETW_INL_BYTES
#undef ETW_INL_BYTE
#endif

ETW_END_DECLS

#endif /* OPENETW_RECORDS_H */
