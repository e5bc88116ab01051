/*
 * openetw/constants.h - the constants of evntrace.h and wmistr.h.
 *
 * Naming: the Windows name with its EVENT_TRACE_ or TRACE_ prefix replaced
 * by ETW_ (EVENT_TRACE_FILE_MODE_CIRCULAR -> ETW_FILE_MODE_CIRCULAR,
 * EVENT_TRACE_REAL_TIME_MODE -> ETW_REAL_TIME_MODE, TRACE_LEVEL_VERBOSE ->
 * ETW_LEVEL_VERBOSE, EVENT_TRACE_FLAG_PROCESS -> ETW_FLAG_PROCESS); WNODE_
 * names gain an ETW_ prefix. Values are the Windows values.
 */
#ifndef OPENETW_CONSTANTS_H
#define OPENETW_CONSTANTS_H

/* ---- Log file modes: EVENT_TRACE_PROPERTIES.LogFileMode ("Logging Mode Constants") ---- */
#define ETW_FILE_MODE_NONE               0x00000000u /* sequential, no maximum size */
#define ETW_FILE_MODE_SEQUENTIAL         0x00000001u /* stop logging at MaximumFileSize */
#define ETW_FILE_MODE_CIRCULAR           0x00000002u /* wrap at MaximumFileSize */
#define ETW_FILE_MODE_APPEND             0x00000004u /* append to an existing sequential file */
#define ETW_FILE_MODE_NEWFILE            0x00000008u /* new file at MaximumFileSize; name has %d */
#define ETW_FILE_MODE_PREALLOCATE        0x00000020u /* reserve MaximumFileSize up front */
#define ETW_NONSTOPPABLE_MODE            0x00000040u
#define ETW_SECURE_MODE                  0x00000080u
#define ETW_REAL_TIME_MODE               0x00000100u /* deliver to live consumers */
#define ETW_DELAY_OPEN_FILE_MODE         0x00000200u
#define ETW_BUFFERING_MODE               0x00000400u /* in-memory circular; written on flush */
#define ETW_PRIVATE_LOGGER_MODE          0x00000800u /* in-process session */
#define ETW_ADD_HEADER_MODE              0x00001000u
#define ETW_USE_KBYTES_FOR_SIZE          0x00002000u /* MaximumFileSize in KB */
#define ETW_USE_GLOBAL_SEQUENCE          0x00004000u
#define ETW_USE_LOCAL_SEQUENCE           0x00008000u
#define ETW_RELOG_MODE                   0x00010000u
#define ETW_PRIVATE_IN_PROC              0x00020000u /* with PRIVATE_LOGGER_MODE */
#define ETW_MODE_RESERVED                0x00100000u
#define ETW_STOP_ON_HYBRID_SHUTDOWN      0x00400000u
#define ETW_PERSIST_ON_HYBRID_SHUTDOWN   0x00800000u
#define ETW_USE_PAGED_MEMORY             0x01000000u
#define ETW_SYSTEM_LOGGER_MODE           0x02000000u
#define ETW_COMPRESSED_MODE              0x04000000u
#define ETW_INDEPENDENT_SESSION_MODE     0x08000000u
#define ETW_NO_PER_PROCESSOR_BUFFERING   0x10000000u /* one buffer stream */
#define ETW_ADDTO_TRIAGE_DUMP            0x80000000u

/* ---- WNODE_HEADER.Flags and EVENT_TRACE_HEADER.Flags (wmistr.h) ---- */
#define ETW_WNODE_FLAG_ALL_DATA              0x00000001u
#define ETW_WNODE_FLAG_SINGLE_INSTANCE       0x00000002u
#define ETW_WNODE_FLAG_SINGLE_ITEM           0x00000004u
#define ETW_WNODE_FLAG_EVENT_ITEM            0x00000008u
#define ETW_WNODE_FLAG_FIXED_INSTANCE_SIZE   0x00000010u
#define ETW_WNODE_FLAG_TOO_SMALL             0x00000020u
#define ETW_WNODE_FLAG_INSTANCES_SAME        0x00000040u
#define ETW_WNODE_FLAG_STATIC_INSTANCE_NAMES 0x00000080u
#define ETW_WNODE_FLAG_INTERNAL              0x00000100u
#define ETW_WNODE_FLAG_USE_TIMESTAMP         0x00000200u
#define ETW_WNODE_FLAG_PERSIST_EVENT         0x00000400u
#define ETW_WNODE_FLAG_EVENT_REFERENCE       0x00002000u
#define ETW_WNODE_FLAG_ANSI_INSTANCENAMES    0x00004000u
#define ETW_WNODE_FLAG_METHOD_ITEM           0x00008000u
#define ETW_WNODE_FLAG_PDO_INSTANCE_NAMES    0x00010000u
#define ETW_WNODE_FLAG_TRACED_GUID           0x00020000u /* required on properties and events */
#define ETW_WNODE_FLAG_LOG_WNODE             0x00040000u
#define ETW_WNODE_FLAG_USE_GUID_PTR          0x00080000u /* Guid holds GuidPtr */
#define ETW_WNODE_FLAG_USE_MOF_PTR           0x00100000u /* payload is an array of MOF_FIELD */
#define ETW_WNODE_FLAG_NO_HEADER             0x00200000u
#define ETW_WNODE_FLAG_SEND_DATA_BLOCK       0x00400000u
#define ETW_WNODE_FLAG_VERSIONED_PROPERTIES  0x00800000u
#define ETW_WNODE_FLAG_SEVERITY_MASK         0xff000000u

/* ---- Clock types: WNODE_HEADER.ClientContext, TRACE_LOGFILE_HEADER.ReservedFlags ---- */
#define ETW_CLOCK_DEFAULT      0u /* same as ETW_CLOCK_QPC */
#define ETW_CLOCK_QPC          1u /* monotonic high-resolution counter; PerfFreq ticks/s */
#define ETW_CLOCK_SYSTEM_TIME  2u /* FILETIME: 100 ns units since 1601-01-01 UTC */
#define ETW_CLOCK_CPU_CYCLE    3u /* CPU cycle counter; CpuSpeedInMHz ticks/us */

/* ---- Trace levels: EVENT_TRACE_HEADER.Class.Level ---- */
#define ETW_LEVEL_NONE         0u
#define ETW_LEVEL_CRITICAL     1u
#define ETW_LEVEL_FATAL        1u
#define ETW_LEVEL_ERROR        2u
#define ETW_LEVEL_WARNING      3u
#define ETW_LEVEL_INFORMATION  4u
#define ETW_LEVEL_VERBOSE      5u
#define ETW_LEVEL_RESERVED6    6u
#define ETW_LEVEL_RESERVED7    7u
#define ETW_LEVEL_RESERVED8    8u
#define ETW_LEVEL_RESERVED9    9u

/* ---- Event types: EVENT_TRACE_HEADER.Class.Type (user types start at 10) ---- */
#define ETW_TYPE_INFO            0x00u
#define ETW_TYPE_START           0x01u
#define ETW_TYPE_END             0x02u
#define ETW_TYPE_STOP            0x02u
#define ETW_TYPE_DC_START        0x03u
#define ETW_TYPE_DC_END          0x04u
#define ETW_TYPE_EXTENSION       0x05u
#define ETW_TYPE_REPLY           0x06u
#define ETW_TYPE_DEQUEUE         0x07u
#define ETW_TYPE_RESUME          0x07u
#define ETW_TYPE_CHECKPOINT      0x08u
#define ETW_TYPE_SUSPEND         0x08u
#define ETW_TYPE_WINEVT_SEND     0x09u
#define ETW_TYPE_WINEVT_RECEIVE  0xF0u
#define ETW_TYPE_USER_FIRST      0x0Au

/* ---- EnableFlags of the system (kernel) logger: EVENT_TRACE_PROPERTIES.EnableFlags ---- */
#define ETW_FLAG_PROCESS             0x00000001u
#define ETW_FLAG_THREAD              0x00000002u
#define ETW_FLAG_IMAGE_LOAD          0x00000004u
#define ETW_FLAG_PROCESS_COUNTERS    0x00000008u
#define ETW_FLAG_CSWITCH             0x00000010u
#define ETW_FLAG_DPC                 0x00000020u
#define ETW_FLAG_INTERRUPT           0x00000040u
#define ETW_FLAG_SYSTEMCALL          0x00000080u
#define ETW_FLAG_DISK_IO             0x00000100u
#define ETW_FLAG_DISK_FILE_IO        0x00000200u
#define ETW_FLAG_DISK_IO_INIT        0x00000400u
#define ETW_FLAG_DISPATCHER          0x00000800u
#define ETW_FLAG_MEMORY_PAGE_FAULTS  0x00001000u
#define ETW_FLAG_MEMORY_HARD_FAULTS  0x00002000u
#define ETW_FLAG_VIRTUAL_ALLOC       0x00004000u
#define ETW_FLAG_VAMAP               0x00008000u
#define ETW_FLAG_NETWORK_TCPIP       0x00010000u
#define ETW_FLAG_REGISTRY            0x00020000u
#define ETW_FLAG_DBGPRINT            0x00040000u
#define ETW_FLAG_JOB                 0x00080000u
#define ETW_FLAG_ALPC                0x00100000u
#define ETW_FLAG_SPLIT_IO            0x00200000u
#define ETW_FLAG_DEBUG_EVENTS        0x00400000u
#define ETW_FLAG_DRIVER              0x00800000u
#define ETW_FLAG_PROFILE             0x01000000u
#define ETW_FLAG_FILE_IO             0x02000000u
#define ETW_FLAG_FILE_IO_INIT        0x04000000u
#define ETW_FLAG_NO_SYSCONFIG        0x10000000u
#define ETW_FLAG_ENABLE_RESERVE      0x20000000u
#define ETW_FLAG_FORWARD_WMI         0x40000000u
#define ETW_FLAG_EXTENSION           0x80000000u

/* ---- ControlTrace codes ---- */
#define ETW_CONTROL_QUERY            0u
#define ETW_CONTROL_STOP             1u
#define ETW_CONTROL_UPDATE           2u
#define ETW_CONTROL_FLUSH            3u
#define ETW_CONTROL_INCREMENT_FILE   4u

/* ---- TraceMessage option flags (MESSAGE_TRACE_HEADER.OptionFlags) ---- */
#define ETW_MESSAGE_SEQUENCE              0x0001u
#define ETW_MESSAGE_GUID                  0x0002u
#define ETW_MESSAGE_COMPONENTID           0x0004u
#define ETW_MESSAGE_TIMESTAMP             0x0008u
#define ETW_MESSAGE_PERFORMANCE_TIMESTAMP 0x0010u
#define ETW_MESSAGE_SYSTEMINFO            0x0020u
#define ETW_MESSAGE_POINTER32             0x0040u
#define ETW_MESSAGE_POINTER64             0x0080u

/* ---- Limits ---- */
#define ETW_MIN_BUFFER_SIZE_KB       4u       /* EVENT_TRACE_PROPERTIES.BufferSize */
#define ETW_MAX_BUFFER_SIZE_KB       16384u   /* 16 MB (Windows 8 and later) */
#define ETW_DEFAULT_BUFFER_SIZE_KB   64u      /* what etw_properties_create sets */
#define ETW_MAX_SESSION_NAME_LENGTH  1024u    /* characters, without the NUL */
#define ETW_MAX_LOG_FILE_NAME_LENGTH 1024u    /* characters, without the NUL */
#define ETW_LOG_FILE_SUFFIX_ROOM     16u      /* characters reserved for NEWFILE/private suffixes */
#define ETW_MAX_MOF_FIELDS           16u
#define ETW_MAX_EVENT_SIZE           0xFFFFu  /* an event's Size is a 16-bit field */
#define ETW_BUFFER_HEADER_SIZE       0x48u    /* an event must be smaller than BufferSize - this */
#define ETW_MAX_BUFFERS              65536u   /* cap on MinimumBuffers/MaximumBuffers */
#define ETW_DEFAULT_MAX_SESSIONS     64u

/** The GUID of the NT Kernel Logger (SystemTraceControlGuid). */
#define ETW_SYSTEM_TRACE_CONTROL_GUID_INIT \
    { 0x9e814aadu, 0x3204u, 0x11d2u, { 0x9au, 0x82u, 0x00u, 0x60u, 0x08u, 0xa8u, 0x69u, 0x39u } }
#define ETW_KERNEL_LOGGER_NAME "NT Kernel Logger"

#endif /* OPENETW_CONSTANTS_H */
