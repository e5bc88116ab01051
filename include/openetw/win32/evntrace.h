/*
 * openetw/win32/evntrace.h - the classic ETW API of Windows' evntrace.h over
 * OpenETW (libopenetw-win32; pkg-config openetw-win32; docs/WIN32.md).
 *
 * Types, layouts and constant values are Windows' (tests/win32 checks them
 * against mingw-w64's headers for x86_64 and i686). Functions return the
 * Win32 status Windows documents for each case. A names take UTF-8 (the
 * "ANSI code page" here); W names take NUL-terminated UTF-16 (u"..." literals,
 * or L"..." when compiling with -fshort-wchar). UNICODE selects the W names
 * for the generic ones (StartTrace, OpenTrace, KERNEL_LOGGER_NAME, ...).
 *
 * Sessions are ordinary OpenETW sessions (etwctl lists them, etwdump reads
 * their files); threads: every function may be called from any thread.
 */
#ifndef OPENETW_WIN32_EVNTRACE_H
#define OPENETW_WIN32_EVNTRACE_H

#include "win32base.h"
#include "guiddef.h"
#include "wmistr.h"
#include "evntprov.h"

OPENETW_WIN32_BEGIN

/* Defined by libopenetw-win32 (or by the including file under INITGUID). */
DEFINE_GUID(EventTraceGuid, 0x68fdd900, 0x4a3e, 0x11d1, 0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3);
DEFINE_GUID(SystemTraceControlGuid, 0x9e814aad, 0x3204, 0x11d2, 0x9a, 0x82, 0x00, 0x60, 0x08, 0xa8, 0x69, 0x39);
DEFINE_GUID(EventTraceConfigGuid, 0x01853a65, 0x418f, 0x4f36, 0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35);
DEFINE_GUID(DefaultTraceSecurityGuid, 0x0811c1af, 0x7a07, 0x4a06, 0x82, 0xed, 0x86, 0x94, 0x55, 0xcd, 0xf7, 0x13);

#if defined(__WCHAR_MAX__) && __WCHAR_MAX__ <= 0xFFFF
#define KERNEL_LOGGER_NAMEW L"NT Kernel Logger"
#define GLOBAL_LOGGER_NAMEW L"GlobalLogger"
#define EVENT_LOGGER_NAMEW L"EventLog"
#define DIAG_LOGGER_NAMEW L"DiagLog"
#else
#define KERNEL_LOGGER_NAMEW u"NT Kernel Logger"
#define GLOBAL_LOGGER_NAMEW u"GlobalLogger"
#define EVENT_LOGGER_NAMEW u"EventLog"
#define DIAG_LOGGER_NAMEW u"DiagLog"
#endif
#define KERNEL_LOGGER_NAMEA "NT Kernel Logger"
#define GLOBAL_LOGGER_NAMEA "GlobalLogger"
#define EVENT_LOGGER_NAMEA "EventLog"
#define DIAG_LOGGER_NAMEA "DiagLog"

#define MAX_MOF_FIELDS                               16
#define SYSTEM_EVENT_TYPE                            1
#define EVENT_TRACE_TYPE_INFO                        0x00
#define EVENT_TRACE_TYPE_START                       0x01
#define EVENT_TRACE_TYPE_END                         0x02
#define EVENT_TRACE_TYPE_STOP                        0x02
#define EVENT_TRACE_TYPE_DC_START                    0x03
#define EVENT_TRACE_TYPE_DC_END                      0x04
#define EVENT_TRACE_TYPE_EXTENSION                   0x05
#define EVENT_TRACE_TYPE_REPLY                       0x06
#define EVENT_TRACE_TYPE_DEQUEUE                     0x07
#define EVENT_TRACE_TYPE_RESUME                      0x07
#define EVENT_TRACE_TYPE_CHECKPOINT                  0x08
#define EVENT_TRACE_TYPE_SUSPEND                     0x08
#define EVENT_TRACE_TYPE_WINEVT_SEND                 0x09
#define EVENT_TRACE_TYPE_WINEVT_RECEIVE              0xf0
#define TRACE_LEVEL_NONE                             0
#define TRACE_LEVEL_CRITICAL                         1
#define TRACE_LEVEL_FATAL                            1
#define TRACE_LEVEL_ERROR                            2
#define TRACE_LEVEL_WARNING                          3
#define TRACE_LEVEL_INFORMATION                      4
#define TRACE_LEVEL_VERBOSE                          5
#define TRACE_LEVEL_RESERVED6                        6
#define TRACE_LEVEL_RESERVED7                        7
#define TRACE_LEVEL_RESERVED8                        8
#define TRACE_LEVEL_RESERVED9                        9
#define EVENT_TRACE_TYPE_LOAD                        0x0a
#define EVENT_TRACE_TYPE_TERMINATE                   0x0b
#define EVENT_TRACE_TYPE_IO_READ                     0x0a
#define EVENT_TRACE_TYPE_IO_WRITE                    0x0b
#define EVENT_TRACE_TYPE_IO_READ_INIT                0x0c
#define EVENT_TRACE_TYPE_IO_WRITE_INIT               0x0d
#define EVENT_TRACE_TYPE_IO_FLUSH                    0x0e
#define EVENT_TRACE_TYPE_IO_FLUSH_INIT               0x0f
#define EVENT_TRACE_TYPE_MM_TF                       0x0a
#define EVENT_TRACE_TYPE_MM_DZF                      0x0b
#define EVENT_TRACE_TYPE_MM_COW                      0x0c
#define EVENT_TRACE_TYPE_MM_GPF                      0x0d
#define EVENT_TRACE_TYPE_MM_HPF                      0x0e
#define EVENT_TRACE_TYPE_MM_AV                       0x0f
#define EVENT_TRACE_TYPE_SEND                        0x0a
#define EVENT_TRACE_TYPE_RECEIVE                     0x0b
#define EVENT_TRACE_TYPE_CONNECT                     0x0c
#define EVENT_TRACE_TYPE_DISCONNECT                  0x0d
#define EVENT_TRACE_TYPE_RETRANSMIT                  0x0e
#define EVENT_TRACE_TYPE_ACCEPT                      0x0f
#define EVENT_TRACE_TYPE_RECONNECT                   0x10
#define EVENT_TRACE_TYPE_CONNFAIL                    0x11
#define EVENT_TRACE_TYPE_COPY_TCP                    0x12
#define EVENT_TRACE_TYPE_COPY_ARP                    0x13
#define EVENT_TRACE_TYPE_ACKFULL                     0x14
#define EVENT_TRACE_TYPE_ACKPART                     0x15
#define EVENT_TRACE_TYPE_ACKDUP                      0x16
#define EVENT_TRACE_TYPE_GUIDMAP                     0x0a
#define EVENT_TRACE_TYPE_CONFIG                      0x0b
#define EVENT_TRACE_TYPE_SIDINFO                     0x0c
#define EVENT_TRACE_TYPE_SECURITY                    0x0d
#define EVENT_TRACE_TYPE_DBGID_RSDS                  0x40
#define EVENT_TRACE_TYPE_REGCREATE                   0x0a
#define EVENT_TRACE_TYPE_REGOPEN                     0x0b
#define EVENT_TRACE_TYPE_REGDELETE                   0x0c
#define EVENT_TRACE_TYPE_REGQUERY                    0x0d
#define EVENT_TRACE_TYPE_REGSETVALUE                 0x0e
#define EVENT_TRACE_TYPE_REGDELETEVALUE              0x0f
#define EVENT_TRACE_TYPE_REGQUERYVALUE               0x10
#define EVENT_TRACE_TYPE_REGENUMERATEKEY             0x11
#define EVENT_TRACE_TYPE_REGENUMERATEVALUEKEY        0x12
#define EVENT_TRACE_TYPE_REGQUERYMULTIPLEVALUE       0x13
#define EVENT_TRACE_TYPE_REGSETINFORMATION           0x14
#define EVENT_TRACE_TYPE_REGFLUSH                    0x15
#define EVENT_TRACE_TYPE_REGKCBCREATE                0x16
#define EVENT_TRACE_TYPE_REGKCBDELETE                0x17
#define EVENT_TRACE_TYPE_REGKCBRUNDOWNBEGIN          0x18
#define EVENT_TRACE_TYPE_REGKCBRUNDOWNEND            0x19
#define EVENT_TRACE_TYPE_REGVIRTUALIZE               0x1a
#define EVENT_TRACE_TYPE_REGCLOSE                    0x1b
#define EVENT_TRACE_TYPE_REGSETSECURITY              0x1c
#define EVENT_TRACE_TYPE_REGQUERYSECURITY            0x1d
#define EVENT_TRACE_TYPE_REGCOMMIT                   0x1e
#define EVENT_TRACE_TYPE_REGPREPARE                  0x1f
#define EVENT_TRACE_TYPE_REGROLLBACK                 0x20
#define EVENT_TRACE_TYPE_REGMOUNTHIVE                0x21
#define EVENT_TRACE_TYPE_CONFIG_CPU                  0x0a
#define EVENT_TRACE_TYPE_CONFIG_PHYSICALDISK         0x0b
#define EVENT_TRACE_TYPE_CONFIG_LOGICALDISK          0x0c
#define EVENT_TRACE_TYPE_CONFIG_NIC                  0x0d
#define EVENT_TRACE_TYPE_CONFIG_VIDEO                0x0e
#define EVENT_TRACE_TYPE_CONFIG_SERVICES             0x0f
#define EVENT_TRACE_TYPE_CONFIG_POWER                0x10
#define EVENT_TRACE_TYPE_CONFIG_NETINFO              0x11
#define EVENT_TRACE_TYPE_CONFIG_OPTICALMEDIA         0x12
#define EVENT_TRACE_TYPE_CONFIG_IRQ                  0x15
#define EVENT_TRACE_TYPE_CONFIG_PNP                  0x16
#define EVENT_TRACE_TYPE_CONFIG_IDECHANNEL           0x17
#define EVENT_TRACE_TYPE_CONFIG_NUMANODE             0x18
#define EVENT_TRACE_TYPE_CONFIG_PLATFORM             0x19
#define EVENT_TRACE_TYPE_CONFIG_PROCESSORGROUP       0x1a
#define EVENT_TRACE_TYPE_CONFIG_PROCESSORNUMBER      0x1b
#define EVENT_TRACE_TYPE_CONFIG_DPI                  0x1c
#define EVENT_TRACE_TYPE_CONFIG_CI_INFO              0x1d
#define EVENT_TRACE_TYPE_CONFIG_MACHINEID            0x1e
#define EVENT_TRACE_TYPE_CONFIG_DEFRAG               0x1f
#define EVENT_TRACE_TYPE_CONFIG_MOBILEPLATFORM       0x20
#define EVENT_TRACE_TYPE_CONFIG_DEVICEFAMILY         0x21
#define EVENT_TRACE_TYPE_CONFIG_FLIGHTID             0x22
#define EVENT_TRACE_TYPE_CONFIG_PROCESSOR            0x23
#define EVENT_TRACE_TYPE_OPTICAL_IO_READ             0x37
#define EVENT_TRACE_TYPE_OPTICAL_IO_WRITE            0x38
#define EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH            0x39
#define EVENT_TRACE_TYPE_OPTICAL_IO_READ_INIT        0x3a
#define EVENT_TRACE_TYPE_OPTICAL_IO_WRITE_INIT       0x3b
#define EVENT_TRACE_TYPE_OPTICAL_IO_FLUSH_INIT       0x3c
#define EVENT_TRACE_TYPE_FLT_PREOP_INIT              0x60
#define EVENT_TRACE_TYPE_FLT_POSTOP_INIT             0x61
#define EVENT_TRACE_TYPE_FLT_PREOP_COMPLETION        0x62
#define EVENT_TRACE_TYPE_FLT_POSTOP_COMPLETION       0x63
#define EVENT_TRACE_TYPE_FLT_PREOP_FAILURE           0x64
#define EVENT_TRACE_TYPE_FLT_POSTOP_FAILURE          0x65
#define EVENT_TRACE_FLAG_PROCESS                     0x00000001
#define EVENT_TRACE_FLAG_THREAD                      0x00000002
#define EVENT_TRACE_FLAG_IMAGE_LOAD                  0x00000004
#define EVENT_TRACE_FLAG_DISK_IO                     0x00000100
#define EVENT_TRACE_FLAG_DISK_FILE_IO                0x00000200
#define EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS          0x00001000
#define EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS          0x00002000
#define EVENT_TRACE_FLAG_NETWORK_TCPIP               0x00010000
#define EVENT_TRACE_FLAG_REGISTRY                    0x00020000
#define EVENT_TRACE_FLAG_DBGPRINT                    0x00040000
#define EVENT_TRACE_FLAG_PROCESS_COUNTERS            0x00000008
#define EVENT_TRACE_FLAG_CSWITCH                     0x00000010
#define EVENT_TRACE_FLAG_DPC                         0x00000020
#define EVENT_TRACE_FLAG_INTERRUPT                   0x00000040
#define EVENT_TRACE_FLAG_SYSTEMCALL                  0x00000080
#define EVENT_TRACE_FLAG_DISK_IO_INIT                0x00000400
#define EVENT_TRACE_FLAG_ALPC                        0x00100000
#define EVENT_TRACE_FLAG_SPLIT_IO                    0x00200000
#define EVENT_TRACE_FLAG_DRIVER                      0x00800000
#define EVENT_TRACE_FLAG_PROFILE                     0x01000000
#define EVENT_TRACE_FLAG_FILE_IO                     0x02000000
#define EVENT_TRACE_FLAG_FILE_IO_INIT                0x04000000
#define EVENT_TRACE_FLAG_DISPATCHER                  0x00000800
#define EVENT_TRACE_FLAG_VIRTUAL_ALLOC               0x00004000
#define EVENT_TRACE_FLAG_VAMAP                       0x00008000
#define EVENT_TRACE_FLAG_NO_SYSCONFIG                0x10000000
#define EVENT_TRACE_FLAG_JOB                         0x00080000
#define EVENT_TRACE_FLAG_DEBUG_EVENTS                0x00400000
#define EVENT_TRACE_FLAG_EXTENSION                   0x80000000
#define EVENT_TRACE_FLAG_FORWARD_WMI                 0x40000000
#define EVENT_TRACE_FLAG_ENABLE_RESERVE              0x20000000
#define EVENT_TRACE_FILE_MODE_NONE                   0x00000000
#define EVENT_TRACE_FILE_MODE_SEQUENTIAL             0x00000001
#define EVENT_TRACE_FILE_MODE_CIRCULAR               0x00000002
#define EVENT_TRACE_FILE_MODE_APPEND                 0x00000004
#define EVENT_TRACE_REAL_TIME_MODE                   0x00000100
#define EVENT_TRACE_DELAY_OPEN_FILE_MODE             0x00000200
#define EVENT_TRACE_BUFFERING_MODE                   0x00000400
#define EVENT_TRACE_PRIVATE_LOGGER_MODE              0x00000800
#define EVENT_TRACE_ADD_HEADER_MODE                  0x00001000
#define EVENT_TRACE_USE_GLOBAL_SEQUENCE              0x00004000
#define EVENT_TRACE_USE_LOCAL_SEQUENCE               0x00008000
#define EVENT_TRACE_RELOG_MODE                       0x00010000
#define EVENT_TRACE_USE_PAGED_MEMORY                 0x01000000
#define EVENT_TRACE_FILE_MODE_NEWFILE                0x00000008
#define EVENT_TRACE_FILE_MODE_PREALLOCATE            0x00000020
#define EVENT_TRACE_NONSTOPPABLE_MODE                0x00000040
#define EVENT_TRACE_SECURE_MODE                      0x00000080
#define EVENT_TRACE_USE_KBYTES_FOR_SIZE              0x00002000
#define EVENT_TRACE_PRIVATE_IN_PROC                  0x00020000
#define EVENT_TRACE_MODE_RESERVED                    0x00100000
#define EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING       0x10000000
#define EVENT_TRACE_SYSTEM_LOGGER_MODE               0x02000000
#define EVENT_TRACE_ADDTO_TRIAGE_DUMP                0x80000000
#define EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN          0x00400000
#define EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN       0x00800000
#define EVENT_TRACE_INDEPENDENT_SESSION_MODE         0x08000000
#define EVENT_TRACE_COMPRESSED_MODE                  0x04000000
#define EVENT_TRACE_CONTROL_QUERY                    0
#define EVENT_TRACE_CONTROL_STOP                     1
#define EVENT_TRACE_CONTROL_UPDATE                   2
#define EVENT_TRACE_CONTROL_FLUSH                    3
#define EVENT_TRACE_CONTROL_INCREMENT_FILE           4
#define TRACE_MESSAGE_SEQUENCE                       1
#define TRACE_MESSAGE_GUID                           2
#define TRACE_MESSAGE_COMPONENTID                    4
#define TRACE_MESSAGE_TIMESTAMP                      8
#define TRACE_MESSAGE_PERFORMANCE_TIMESTAMP          16
#define TRACE_MESSAGE_SYSTEMINFO                     32
#define TRACE_MESSAGE_POINTER32                      0x0040
#define TRACE_MESSAGE_POINTER64                      0x0080
#define TRACE_MESSAGE_FLAG_MASK                      0xffff
#define EVENT_TRACE_USE_PROCTIME                     0x0001
#define EVENT_TRACE_USE_NOCPUTIME                    0x0002
#define TRACE_HEADER_FLAG_USE_TIMESTAMP              0x00000200
#define TRACE_HEADER_FLAG_TRACED_GUID                0x00020000
#define TRACE_HEADER_FLAG_LOG_WNODE                  0x00040000
#define TRACE_HEADER_FLAG_USE_GUID_PTR               0x00080000
#define TRACE_HEADER_FLAG_USE_MOF_PTR                0x00100000
#define ETW_NULL_TYPE_VALUE                          0
#define ETW_OBJECT_TYPE_VALUE                        1
#define ETW_STRING_TYPE_VALUE                        2
#define ETW_SBYTE_TYPE_VALUE                         3
#define ETW_BYTE_TYPE_VALUE                          4
#define ETW_INT16_TYPE_VALUE                         5
#define ETW_UINT16_TYPE_VALUE                        6
#define ETW_INT32_TYPE_VALUE                         7
#define ETW_UINT32_TYPE_VALUE                        8
#define ETW_INT64_TYPE_VALUE                         9
#define ETW_UINT64_TYPE_VALUE                        10
#define ETW_CHAR_TYPE_VALUE                          11
#define ETW_SINGLE_TYPE_VALUE                        12
#define ETW_DOUBLE_TYPE_VALUE                        13
#define ETW_BOOLEAN_TYPE_VALUE                       14
#define ETW_DECIMAL_TYPE_VALUE                       15
#define ETW_GUID_TYPE_VALUE                          101
#define ETW_ASCIICHAR_TYPE_VALUE                     102
#define ETW_ASCIISTRING_TYPE_VALUE                   103
#define ETW_COUNTED_STRING_TYPE_VALUE                104
#define ETW_POINTER_TYPE_VALUE                       105
#define ETW_SIZET_TYPE_VALUE                         106
#define ETW_HIDDEN_TYPE_VALUE                        107
#define ETW_BOOL_TYPE_VALUE                          108
#define ETW_COUNTED_ANSISTRING_TYPE_VALUE            109
#define ETW_REVERSED_COUNTED_STRING_TYPE_VALUE       110
#define ETW_REVERSED_COUNTED_ANSISTRING_TYPE_VALUE   111
#define ETW_NON_NULL_TERMINATED_STRING_TYPE_VALUE    112
#define ETW_REDUCED_ANSISTRING_TYPE_VALUE            113
#define ETW_REDUCED_STRING_TYPE_VALUE                114
#define ETW_SID_TYPE_VALUE                           115
#define ETW_VARIANT_TYPE_VALUE                       116
#define ETW_PTVECTOR_TYPE_VALUE                      117
#define ETW_WMITIME_TYPE_VALUE                       118
#define ETW_DATETIME_TYPE_VALUE                      119
#define ETW_REFRENCE_TYPE_VALUE                      120
#define TRACE_MESSAGE_MAXIMUM_SIZE                   (64 * 1024)
#define DEFINE_TRACE_MOF_FIELD(M, P, LEN, TYP) \
    (M)->DataPtr = (ULONG64)(ULONG_PTR)(P);    \
    (M)->Length = (ULONG)(LEN);                \
    (M)->DataType = (ULONG)(TYP);

#define EVENT_CONTROL_CODE_DISABLE_PROVIDER 0
#define EVENT_CONTROL_CODE_ENABLE_PROVIDER 1
#define EVENT_CONTROL_CODE_CAPTURE_STATE 2
#define ENABLE_TRACE_PARAMETERS_VERSION 1
#define ENABLE_TRACE_PARAMETERS_VERSION_2 2
#define EVENT_ENABLE_PROPERTY_SID 0x00000001
#define EVENT_ENABLE_PROPERTY_TS_ID 0x00000002
#define EVENT_ENABLE_PROPERTY_STACK_TRACE 0x00000004
#define EVENT_ENABLE_PROPERTY_PSM_KEY 0x00000008
#define EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 0x00000010
#define EVENT_ENABLE_PROPERTY_PROVIDER_GROUP 0x00000020
#define EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0 0x00000040
#define EVENT_ENABLE_PROPERTY_PROCESS_START_KEY 0x00000080
#define EVENT_ENABLE_PROPERTY_EVENT_KEY 0x00000100
#define EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE 0x00000200
#define EVENT_ENABLE_PROPERTY_ENABLE_SILOS 0x00000400
#define EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING 0x00000800
#define TRACE_PROVIDER_FLAG_LEGACY (0x00000001)
#define TRACE_PROVIDER_FLAG_PRE_ENABLE (0x00000002)

typedef ULONG64 TRACEHANDLE, *PTRACEHANDLE;
typedef TRACEHANDLE PROCESSTRACE_HANDLE;
typedef TRACEHANDLE CONTROLTRACE_ID;
/* OpenTrace's failure value: (TRACEHANDLE)(UINT64)UINTPTR_MAX, as on Windows. */
#define INVALID_PROCESSTRACE_HANDLE ((TRACEHANDLE)UINTPTR_MAX)

typedef struct _EVENT_TRACE_HEADER {
    USHORT Size;
    __extension__ union {
        USHORT FieldTypeFlags;
        __extension__ struct {
            UCHAR HeaderType;
            UCHAR MarkerFlags;
        };
    };
    __extension__ union {
        ULONG Version;
        struct {
            UCHAR Type;
            UCHAR Level;
            USHORT Version;
        } Class;
    };
    ULONG ThreadId;
    ULONG ProcessId;
    LARGE_INTEGER TimeStamp;
    __extension__ union {
        GUID Guid;
        ULONGLONG GuidPtr;
    };
    __extension__ union {
        __extension__ struct {
            ULONG KernelTime;
            ULONG UserTime;
        };
        ULONG64 ProcessorTime;
        __extension__ struct {
            ULONG ClientContext;
            ULONG Flags;
        };
    };
} EVENT_TRACE_HEADER, *PEVENT_TRACE_HEADER;

typedef struct _EVENT_INSTANCE_HEADER {
    USHORT Size;
    __extension__ union {
        USHORT FieldTypeFlags;
        __extension__ struct {
            UCHAR HeaderType;
            UCHAR MarkerFlags;
        };
    };
    __extension__ union {
        ULONG Version;
        struct {
            UCHAR Type;
            UCHAR Level;
            USHORT Version;
        } Class;
    };
    ULONG ThreadId;
    ULONG ProcessId;
    LARGE_INTEGER TimeStamp;
    ULONGLONG RegHandle;
    ULONG InstanceId;
    ULONG ParentInstanceId;
    __extension__ union {
        __extension__ struct {
            ULONG KernelTime;
            ULONG UserTime;
        };
        ULONG64 ProcessorTime;
        __extension__ struct {
            ULONG EventId;
            ULONG Flags;
        };
    };
    ULONGLONG ParentRegHandle;
} EVENT_INSTANCE_HEADER, *PEVENT_INSTANCE_HEADER;

typedef struct _MOF_FIELD {
    ULONG64 DataPtr;
    ULONG Length;
    ULONG DataType;
} MOF_FIELD, *PMOF_FIELD;

typedef struct _TRACE_LOGFILE_HEADER {
    ULONG BufferSize;
    __extension__ union {
        ULONG Version;
        struct {
            UCHAR MajorVersion;
            UCHAR MinorVersion;
            UCHAR SubVersion;
            UCHAR SubMinorVersion;
        } VersionDetail;
    };
    ULONG ProviderVersion;
    ULONG NumberOfProcessors;
    LARGE_INTEGER EndTime;
    ULONG TimerResolution;
    ULONG MaximumFileSize;
    ULONG LogFileMode;
    ULONG BuffersWritten;
    __extension__ union {
        GUID LogInstanceGuid;
        __extension__ struct {
            ULONG StartBuffers;
            ULONG PointerSize;
            ULONG EventsLost;
            ULONG CpuSpeedInMHz;
        };
    };
    LPWSTR LoggerName;
    LPWSTR LogFileName;
    TIME_ZONE_INFORMATION TimeZone;
    LARGE_INTEGER BootTime;
    LARGE_INTEGER PerfFreq;
    LARGE_INTEGER StartTime;
    ULONG ReservedFlags;
    ULONG BuffersLost;
} TRACE_LOGFILE_HEADER, *PTRACE_LOGFILE_HEADER;

typedef struct EVENT_INSTANCE_INFO {
    HANDLE RegHandle;
    ULONG InstanceId;
} EVENT_INSTANCE_INFO, *PEVENT_INSTANCE_INFO;

typedef struct _EVENT_TRACE_PROPERTIES {
    WNODE_HEADER Wnode;
    ULONG BufferSize;
    ULONG MinimumBuffers;
    ULONG MaximumBuffers;
    ULONG MaximumFileSize;
    ULONG LogFileMode;
    ULONG FlushTimer;
    ULONG EnableFlags;
    __extension__ union {
        LONG AgeLimit;
        LONG FlushThreshold;
    };
    ULONG NumberOfBuffers;
    ULONG FreeBuffers;
    ULONG EventsLost;
    ULONG BuffersWritten;
    ULONG LogBuffersLost;
    ULONG RealTimeBuffersLost;
    HANDLE LoggerThreadId;
    ULONG LogFileNameOffset;
    ULONG LoggerNameOffset;
} EVENT_TRACE_PROPERTIES, *PEVENT_TRACE_PROPERTIES;

/* Used when Wnode.Flags has WNODE_FLAG_VERSIONED_PROPERTIES. FilterDesc and
 * FilterDescCount: the session's own filters, applied to every provider it
 * enables (EVENT_FILTER_TYPE_PID and _EXECUTABLE_NAME; another type gives
 * ERROR_NOT_SUPPORTED; docs/FILTERS.md). V2Options is read by no one here. */
typedef struct _EVENT_TRACE_PROPERTIES_V2 {
    WNODE_HEADER Wnode;
    ULONG BufferSize;
    ULONG MinimumBuffers;
    ULONG MaximumBuffers;
    ULONG MaximumFileSize;
    ULONG LogFileMode;
    ULONG FlushTimer;
    ULONG EnableFlags;
    __extension__ union {
        LONG AgeLimit;
        LONG FlushThreshold;
    };
    ULONG NumberOfBuffers;
    ULONG FreeBuffers;
    ULONG EventsLost;
    ULONG BuffersWritten;
    ULONG LogBuffersLost;
    ULONG RealTimeBuffersLost;
    HANDLE LoggerThreadId;
    ULONG LogFileNameOffset;
    ULONG LoggerNameOffset;
    __extension__ union {
        __extension__ struct {
            ULONG VersionNumber : 8;
        };
        ULONG V2Control;
    };
    ULONG FilterDescCount;
    PEVENT_FILTER_DESCRIPTOR FilterDesc;
    __extension__ union {
        __extension__ struct {
            ULONG Wow : 1;
            ULONG QpcDeltaTracking : 1;
            ULONG LargeMdlPages : 1;
            ULONG ExcludeKernelStack : 1;
        };
        ULONG64 V2Options;
    };
} EVENT_TRACE_PROPERTIES_V2, *PEVENT_TRACE_PROPERTIES_V2;

typedef struct _TRACE_GUID_REGISTRATION {
    LPCGUID Guid;
    HANDLE RegHandle;
} TRACE_GUID_REGISTRATION, *PTRACE_GUID_REGISTRATION;

typedef struct _TRACE_GUID_PROPERTIES {
    GUID Guid;
    ULONG GuidType;
    ULONG LoggerId;
    ULONG EnableLevel;
    ULONG EnableFlags;
    BOOLEAN IsEnable;
} TRACE_GUID_PROPERTIES, *PTRACE_GUID_PROPERTIES;

#ifndef ETW_BUFFER_CONTEXT_DEF
#define ETW_BUFFER_CONTEXT_DEF
typedef struct _ETW_BUFFER_CONTEXT {
    __extension__ union {
        __extension__ struct {
            UCHAR ProcessorNumber;
            UCHAR Alignment;
        };
        USHORT ProcessorIndex;
    };
    USHORT LoggerId;
} ETW_BUFFER_CONTEXT, *PETW_BUFFER_CONTEXT;
#endif

typedef struct _EVENT_TRACE {
    EVENT_TRACE_HEADER Header;
    ULONG InstanceId;
    ULONG ParentInstanceId;
    GUID ParentGuid;
    PVOID MofData;
    ULONG MofLength;
    __extension__ union {
        ULONG ClientContext;
        ETW_BUFFER_CONTEXT BufferContext;
    };
} EVENT_TRACE, *PEVENT_TRACE;

typedef struct _EVENT_RECORD EVENT_RECORD, *PEVENT_RECORD;
typedef struct _EVENT_TRACE_LOGFILEW EVENT_TRACE_LOGFILEW, *PEVENT_TRACE_LOGFILEW;
typedef struct _EVENT_TRACE_LOGFILEA EVENT_TRACE_LOGFILEA, *PEVENT_TRACE_LOGFILEA;
typedef ULONG (WINAPI *PEVENT_TRACE_BUFFER_CALLBACKW)(PEVENT_TRACE_LOGFILEW Logfile);
typedef ULONG (WINAPI *PEVENT_TRACE_BUFFER_CALLBACKA)(PEVENT_TRACE_LOGFILEA Logfile);
typedef VOID (WINAPI *PEVENT_CALLBACK)(PEVENT_TRACE pEvent);
typedef VOID (WINAPI *PEVENT_RECORD_CALLBACK)(PEVENT_RECORD EventRecord);
typedef ULONG (WINAPI *WMIDPREQUEST)(WMIDPREQUESTCODE RequestCode, PVOID RequestContext, ULONG *BufferSize,
                                     PVOID Buffer);

struct _EVENT_TRACE_LOGFILEW {
    LPWSTR LogFileName;
    LPWSTR LoggerName;
    LONGLONG CurrentTime;
    ULONG BuffersRead;
    __extension__ union {
        ULONG LogFileMode;
        ULONG ProcessTraceMode;
    };
    EVENT_TRACE CurrentEvent;
    TRACE_LOGFILE_HEADER LogfileHeader;
    PEVENT_TRACE_BUFFER_CALLBACKW BufferCallback;
    ULONG BufferSize;
    ULONG Filled;
    ULONG EventsLost;
    __extension__ union {
        PEVENT_CALLBACK EventCallback;
        PEVENT_RECORD_CALLBACK EventRecordCallback;
    };
    ULONG IsKernelTrace;
    PVOID Context;
};

struct _EVENT_TRACE_LOGFILEA {
    LPSTR LogFileName;
    LPSTR LoggerName;
    LONGLONG CurrentTime;
    ULONG BuffersRead;
    __extension__ union {
        ULONG LogFileMode;
        ULONG ProcessTraceMode;
    };
    EVENT_TRACE CurrentEvent;
    TRACE_LOGFILE_HEADER LogfileHeader;
    PEVENT_TRACE_BUFFER_CALLBACKA BufferCallback;
    ULONG BufferSize;
    ULONG Filled;
    ULONG EventsLost;
    __extension__ union {
        PEVENT_CALLBACK EventCallback;
        PEVENT_RECORD_CALLBACK EventRecordCallback;
    };
    ULONG IsKernelTrace;
    PVOID Context;
};

typedef struct _ENABLE_TRACE_PARAMETERS_V1 {
    ULONG Version;
    ULONG EnableProperty;
    ULONG ControlFlags;
    GUID SourceId;
    PEVENT_FILTER_DESCRIPTOR EnableFilterDesc;
} ENABLE_TRACE_PARAMETERS_V1, *PENABLE_TRACE_PARAMETERS_V1;

typedef struct _ENABLE_TRACE_PARAMETERS {
    ULONG Version;
    ULONG EnableProperty;
    ULONG ControlFlags;
    GUID SourceId;
    PEVENT_FILTER_DESCRIPTOR EnableFilterDesc;
    ULONG FilterDescCount;
} ENABLE_TRACE_PARAMETERS, *PENABLE_TRACE_PARAMETERS;

/* What TraceSetInformation and TraceQueryInformation set or query (the
 * SDK's values; TRACE_INFO_CLASS is the same enumeration). Served here:
 * TraceStackTracingInfo (set), TraceSampledProfileIntervalInfo (set and
 * query), TraceProfileSourceListInfo (query); any other class is
 * ERROR_NOT_SUPPORTED (docs/WIN32.md, "Trace information"). */
typedef enum _TRACE_QUERY_INFO_CLASS {
    TraceGuidQueryList = 0,
    TraceGuidQueryInfo = 1,
    TraceGuidQueryProcess = 2,
    TraceStackTracingInfo = 3,
    TraceSystemTraceEnableFlagsInfo = 4,
    TraceSampledProfileIntervalInfo = 5,
    TraceProfileSourceConfigInfo = 6,
    TraceProfileSourceListInfo = 7,
    TracePmcEventListInfo = 8,
    TracePmcCounterListInfo = 9,
    TraceSetDisallowList = 10,
    TraceVersionInfo = 11,
    TraceGroupQueryList = 12,
    TraceGroupQueryInfo = 13,
    TraceDisallowListQuery = 14,
    TraceInfoReserved15 = 15,
    TraceCompressionInfo = 15, /* mingw-w64's name of 15 */
    TracePeriodicCaptureStateListInfo = 16,
    TracePeriodicCaptureStateInfo = 17,
    TraceProviderBinaryTracking = 18,
    TraceMaxLoggersQuery = 19,
    TraceLbrConfigurationInfo = 20,
    TraceLbrEventListInfo = 21,
    TraceMaxPmcCounterQuery = 22,
    TraceStreamCount = 23,
    TraceStackCachingInfo = 24,
    TracePmcCounterOwners = 25,
    TraceUnifiedStackCachingInfo = 26,
    TracePmcSessionInformation = 27,
    TraceContextRegisterInfo = 28,
    MaxTraceSetInfoClass
} TRACE_QUERY_INFO_CLASS, TRACE_INFO_CLASS;

/* EnumerateTraceGuidsEx(TraceGuidQueryInfo): a TRACE_GUID_INFO, then
 * InstanceCount TRACE_PROVIDER_INSTANCE_INFO blocks, each followed by its
 * EnableCount TRACE_ENABLE_INFO entries. */
typedef struct _TRACE_GUID_INFO {
    ULONG InstanceCount;
    ULONG Reserved;
} TRACE_GUID_INFO, *PTRACE_GUID_INFO;

typedef struct _TRACE_PROVIDER_INSTANCE_INFO {
    ULONG NextOffset; /* from this block to the next; 0 for the last */
    ULONG EnableCount;
    ULONG Pid;
    ULONG Flags; /* TRACE_PROVIDER_FLAG_* */
} TRACE_PROVIDER_INSTANCE_INFO, *PTRACE_PROVIDER_INSTANCE_INFO;

typedef struct _TRACE_ENABLE_INFO {
    ULONG IsEnabled;
    UCHAR Level;
    UCHAR Reserved1;
    USHORT LoggerId;
    ULONG EnableProperty;
    ULONG Reserved2;
    ULONGLONG MatchAnyKeyword;
    ULONGLONG MatchAllKeyword;
} TRACE_ENABLE_INFO, *PTRACE_ENABLE_INFO;

/* A kernel event by class GUID and event type (TraceStackTracingInfo). */
typedef struct _CLASSIC_EVENT_ID {
    GUID EventGuid;
    UCHAR Type;
    UCHAR Reserved[7];
} CLASSIC_EVENT_ID, *PCLASSIC_EVENT_ID;

/* A profile source's sampling interval in 100 ns units
 * (TraceSampledProfileIntervalInfo); source 0 is the timer. */
typedef struct _TRACE_PROFILE_INTERVAL {
    ULONG Source;
    ULONG Interval;
} TRACE_PROFILE_INTERVAL, *PTRACE_PROFILE_INTERVAL;

/* One profile source (TraceProfileSourceListInfo): entries follow one
 * another NextEntryOffset bytes apart; 0 ends the list. */
typedef struct _PROFILE_SOURCE_INFO {
    ULONG NextEntryOffset;
    ULONG Source;
    ULONG MinInterval;
    ULONG MaxInterval;
    ULONG64 Reserved;
    WCHAR Description[ANYSIZE_ARRAY];
} PROFILE_SOURCE_INFO, *PPROFILE_SOURCE_INFO;

/* ---- Controllers (statuses: docs/WIN32.md, "Status rules") ---- */

/* Starts a session named InstanceName from Properties; on success
 * *TraceHandle and Properties->Wnode.HistoricalContext receive its handle,
 * the name is copied to LoggerNameOffset and the adjusted settings and
 * statistics are written back. */
ULONG WMIAPI StartTraceW(PTRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI StartTraceA(PTRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
/* Queries, stops, updates or flushes the session of TraceHandle (when not 0)
 * or named InstanceName, and fills Properties as Windows does. */
ULONG WMIAPI ControlTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties,
                           ULONG ControlCode);
ULONG WMIAPI ControlTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties,
                           ULONG ControlCode);
ULONG WMIAPI StopTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI StopTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI QueryTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI QueryTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI UpdateTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI UpdateTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI FlushTraceW(TRACEHANDLE TraceHandle, LPCWSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
ULONG WMIAPI FlushTraceA(TRACEHANDLE TraceHandle, LPCSTR InstanceName, PEVENT_TRACE_PROPERTIES Properties);
/* Fills PropertyArray[0..] with the running sessions (every process's);
 * *LoggerCount receives how many run. ERROR_MORE_DATA when they do not fit. */
ULONG WMIAPI QueryAllTracesW(PEVENT_TRACE_PROPERTIES *PropertyArray, ULONG PropertyArrayCount, PULONG LoggerCount);
ULONG WMIAPI QueryAllTracesA(PEVENT_TRACE_PROPERTIES *PropertyArray, ULONG PropertyArrayCount, PULONG LoggerCount);
/* Enables (Enable TRUE) or disables a classic provider for the session. */
ULONG WMIAPI EnableTrace(ULONG Enable, ULONG EnableFlag, ULONG EnableLevel, LPCGUID ControlGuid,
                         TRACEHANDLE TraceHandle);
/* EnableParameters (may be NULL): Version ENABLE_TRACE_PARAMETERS_VERSION (one
 * filter at EnableFilterDesc, or none when NULL) or _VERSION_2 (FilterDescCount
 * of them); EnableProperty is kept with the enablement; the filters are
 * checked and applied as docs/FILTERS.md says (ERROR_INVALID_PARAMETER or
 * ERROR_NOT_SUPPORTED for bad or unsupported ones). */
ULONG WMIAPI EnableTraceEx2(TRACEHANDLE TraceHandle, LPCGUID ProviderId, ULONG ControlCode, UCHAR Level,
                            ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword, ULONG Timeout,
                            PENABLE_TRACE_PARAMETERS EnableParameters);
/* EnableTraceEx2 with one filter (EnableFilterDesc, may be NULL); SourceId
 * may be NULL; IsEnabled is a control code. */
ULONG WMIAPI EnableTraceEx(LPCGUID ProviderId, LPCGUID SourceId, TRACEHANDLE TraceHandle, ULONG IsEnabled,
                           UCHAR Level, ULONGLONG MatchAnyKeyword, ULONGLONG MatchAllKeyword, ULONG EnableProperty,
                           PEVENT_FILTER_DESCRIPTOR EnableFilterDesc);
/* Sets a setting of InformationClass from the InformationLength bytes at
 * TraceInformation: the kernel events whose stacks a system logger records
 * (TraceStackTracingInfo, an array of CLASSIC_EVENT_ID; length 0 turns
 * stacks off), the profile interval (TraceSampledProfileIntervalInfo,
 * TRACE_PROFILE_INTERVAL: SessionHandle 0 for the running system loggers and
 * those this process starts afterwards, or one session's handle). */
ULONG WMIAPI TraceSetInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
                                 PVOID TraceInformation, ULONG InformationLength);
/* Writes the setting of InformationClass into the InformationLength bytes
 * at TraceInformation (TraceSampledProfileIntervalInfo, for the Source the
 * buffer names; TraceProfileSourceListInfo); *ReturnLength (when not NULL)
 * receives the bytes written, or those needed with ERROR_BAD_LENGTH. */
ULONG WMIAPI TraceQueryInformation(TRACEHANDLE SessionHandle, TRACE_INFO_CLASS InformationClass,
                                   PVOID TraceInformation, ULONG InformationLength, PULONG ReturnLength);

/* The providers of the namespace (etw_provider_list, etw_provider_query):
 * TraceGuidQueryList writes their GUIDs (InBuffer NULL, InBufferSize 0);
 * TraceGuidQueryInfo, for the GUID in InBuffer (InBufferSize
 * sizeof(GUID)), a TRACE_GUID_INFO with a TRACE_PROVIDER_INSTANCE_INFO per
 * registering process (one with TRACE_PROVIDER_FLAG_PRE_ENABLE and Pid 0
 * when sessions enable it and no process registers it), each followed by a
 * TRACE_ENABLE_INFO per session enabling it. *ReturnLength receives the
 * bytes written, or with ERROR_INSUFFICIENT_BUFFER (OutBufferSize too small,
 * 0 included) those needed. ERROR_INVALID_PARAMETER for a NULL
 * ReturnLength, OutBuffer NULL with a size, a wrong InBuffer for the class;
 * ERROR_WMI_GUID_NOT_FOUND for a GUID nobody registers or enables;
 * ERROR_NOT_SUPPORTED for the other classes. */
/* The registered providers, each once, into the structures GuidPropertiesArray
 * points to: Guid and, when a session enables it, IsEnable TRUE with the first
 * such session's LoggerId (its handle's low 16 bits), EnableLevel and
 * EnableFlags (the low 32 bits of its MatchAnyKeyword). *GuidCount receives
 * how many there are; ERROR_MORE_DATA when PropertyArrayCount is smaller (the
 * first PropertyArrayCount are filled). ERROR_INVALID_PARAMETER for a NULL
 * array, element or GuidCount, or a count of 0. */
ULONG WMIAPI EnumerateTraceGuids(PTRACE_GUID_PROPERTIES *GuidPropertiesArray, ULONG PropertyArrayCount,
                                 PULONG GuidCount);
ULONG WMIAPI EnumerateTraceGuidsEx(TRACE_QUERY_INFO_CLASS TraceQueryInfoClass, PVOID InBuffer, ULONG InBufferSize,
                                   PVOID OutBuffer, ULONG OutBufferSize, PULONG ReturnLength);

/* ---- Classic providers ---- */

ULONG WMIAPI RegisterTraceGuidsW(WMIDPREQUEST RequestAddress, PVOID RequestContext, LPCGUID ControlGuid,
                                 ULONG GuidCount, PTRACE_GUID_REGISTRATION TraceGuidReg, LPCWSTR MofImagePath,
                                 LPCWSTR MofResourceName, PTRACEHANDLE RegistrationHandle);
ULONG WMIAPI RegisterTraceGuidsA(WMIDPREQUEST RequestAddress, PVOID RequestContext, LPCGUID ControlGuid,
                                 ULONG GuidCount, PTRACE_GUID_REGISTRATION TraceGuidReg, LPCSTR MofImagePath,
                                 LPCSTR MofResourceName, PTRACEHANDLE RegistrationHandle);
ULONG WMIAPI UnregisterTraceGuids(TRACEHANDLE RegistrationHandle);
/* In a WMI_ENABLE_EVENTS callback: the logger handle from Buffer (a
 * WNODE_HEADER). INVALID_HANDLE_VALUE and GetLastError() on failure. */
TRACEHANDLE WMIAPI GetTraceLoggerHandle(PVOID Buffer);
/* 0 with GetLastError() ERROR_INVALID_HANDLE for a bad handle. */
UCHAR WMIAPI GetTraceEnableLevel(TRACEHANDLE TraceHandle);
ULONG WMIAPI GetTraceEnableFlags(TRACEHANDLE TraceHandle);
ULONG WMIAPI TraceEvent(TRACEHANDLE TraceHandle, PEVENT_TRACE_HEADER EventTrace);

/* ---- Consumers ---- */

/* Opens a log file (LogFileName) or, with PROCESS_TRACE_MODE_REAL_TIME, a
 * running real-time session (LoggerName). INVALID_PROCESSTRACE_HANDLE and
 * GetLastError() on failure; on success Logfile->LogfileHeader is filled. */
TRACEHANDLE WMIAPI OpenTraceW(PEVENT_TRACE_LOGFILEW Logfile);
TRACEHANDLE WMIAPI OpenTraceA(PEVENT_TRACE_LOGFILEA Logfile);
/* Delivers the events of the handles on this thread (files merged in time
 * order), calling BufferCallback, EventCallback or EventRecordCallback. */
ULONG WMIAPI ProcessTrace(PTRACEHANDLE HandleArray, ULONG HandleCount, LPFILETIME StartTime, LPFILETIME EndTime);
ULONG WMIAPI CloseTrace(TRACEHANDLE TraceHandle);

#ifdef UNICODE
#define PEVENT_TRACE_BUFFER_CALLBACK PEVENT_TRACE_BUFFER_CALLBACKW
#define EVENT_TRACE_LOGFILE EVENT_TRACE_LOGFILEW
#define PEVENT_TRACE_LOGFILE PEVENT_TRACE_LOGFILEW
#define KERNEL_LOGGER_NAME KERNEL_LOGGER_NAMEW
#define GLOBAL_LOGGER_NAME GLOBAL_LOGGER_NAMEW
#define EVENT_LOGGER_NAME EVENT_LOGGER_NAMEW
#define RegisterTraceGuids RegisterTraceGuidsW
#define StartTrace StartTraceW
#define ControlTrace ControlTraceW
#define StopTrace StopTraceW
#define QueryTrace QueryTraceW
#define UpdateTrace UpdateTraceW
#define FlushTrace FlushTraceW
#define QueryAllTraces QueryAllTracesW
#define OpenTrace OpenTraceW
#else
#define PEVENT_TRACE_BUFFER_CALLBACK PEVENT_TRACE_BUFFER_CALLBACKA
#define EVENT_TRACE_LOGFILE EVENT_TRACE_LOGFILEA
#define PEVENT_TRACE_LOGFILE PEVENT_TRACE_LOGFILEA
#define KERNEL_LOGGER_NAME KERNEL_LOGGER_NAMEA
#define GLOBAL_LOGGER_NAME GLOBAL_LOGGER_NAMEA
#define EVENT_LOGGER_NAME EVENT_LOGGER_NAMEA
#define RegisterTraceGuids RegisterTraceGuidsA
#define StartTrace StartTraceA
#define ControlTrace ControlTraceA
#define StopTrace StopTraceA
#define QueryTrace QueryTraceA
#define UpdateTrace UpdateTraceA
#define FlushTrace FlushTraceA
#define QueryAllTraces QueryAllTracesA
#define OpenTrace OpenTraceA
#endif

OPENETW_WIN32_END

#endif /* OPENETW_WIN32_EVNTRACE_H */
