// Compiled (never run) with the x86_64 and i686 mingw-w64 cross compilers:
// every size and offset of our Windows-layout records must equal those of
// mingw-w64's own <wmistr.h> and <evntrace.h> on the same target.
#include <windows.h>
#include <wmistr.h>
#include <evntrace.h>

#include <openetw/constants.h>
#include <openetw/records.h>

#include <cstddef>

#define SAME_SIZE(ours, theirs) static_assert(sizeof(ours) == sizeof(theirs), #ours " vs " #theirs ": size")

// Same offset and same size of one member.
#define SAME_FIELD(o, of, t, tf)                                                                                       \
    static_assert(offsetof(o, of) == offsetof(t, tf), #o "." #of ": offset");                                          \
    static_assert(sizeof(((o *)nullptr)->of) == sizeof(((t *)nullptr)->tf), #o "." #of ": size")

// GUID
SAME_SIZE(etw_guid, GUID);
SAME_FIELD(etw_guid, Data1, GUID, Data1);
SAME_FIELD(etw_guid, Data2, GUID, Data2);
SAME_FIELD(etw_guid, Data3, GUID, Data3);
SAME_FIELD(etw_guid, Data4, GUID, Data4);

// WNODE_HEADER
SAME_SIZE(etw_wnode_header, WNODE_HEADER);
SAME_FIELD(etw_wnode_header, BufferSize, WNODE_HEADER, BufferSize);
SAME_FIELD(etw_wnode_header, ProviderId, WNODE_HEADER, ProviderId);
SAME_FIELD(etw_wnode_header, HistoricalContext, WNODE_HEADER, HistoricalContext);
SAME_FIELD(etw_wnode_header, TimeStamp, WNODE_HEADER, TimeStamp);
SAME_FIELD(etw_wnode_header, Guid, WNODE_HEADER, Guid);
SAME_FIELD(etw_wnode_header, ClientContext, WNODE_HEADER, ClientContext);
SAME_FIELD(etw_wnode_header, Flags, WNODE_HEADER, Flags);
static_assert(offsetof(etw_wnode_header, HistoricalContext) == offsetof(WNODE_HEADER, Version), "Version overlay");
static_assert(offsetof(etw_wnode_header, TimeStamp) == offsetof(WNODE_HEADER, KernelHandle), "KernelHandle overlay");
static_assert(offsetof(etw_wnode_header, TimeStamp) == offsetof(WNODE_HEADER, CountLost), "CountLost overlay");

// EVENT_TRACE_PROPERTIES
SAME_SIZE(etw_event_trace_properties, EVENT_TRACE_PROPERTIES);
SAME_FIELD(etw_event_trace_properties, Wnode, EVENT_TRACE_PROPERTIES, Wnode);
SAME_FIELD(etw_event_trace_properties, BufferSize, EVENT_TRACE_PROPERTIES, BufferSize);
SAME_FIELD(etw_event_trace_properties, MinimumBuffers, EVENT_TRACE_PROPERTIES, MinimumBuffers);
SAME_FIELD(etw_event_trace_properties, MaximumBuffers, EVENT_TRACE_PROPERTIES, MaximumBuffers);
SAME_FIELD(etw_event_trace_properties, MaximumFileSize, EVENT_TRACE_PROPERTIES, MaximumFileSize);
SAME_FIELD(etw_event_trace_properties, LogFileMode, EVENT_TRACE_PROPERTIES, LogFileMode);
SAME_FIELD(etw_event_trace_properties, FlushTimer, EVENT_TRACE_PROPERTIES, FlushTimer);
SAME_FIELD(etw_event_trace_properties, EnableFlags, EVENT_TRACE_PROPERTIES, EnableFlags);
SAME_FIELD(etw_event_trace_properties, AgeLimit, EVENT_TRACE_PROPERTIES, AgeLimit);
SAME_FIELD(etw_event_trace_properties, NumberOfBuffers, EVENT_TRACE_PROPERTIES, NumberOfBuffers);
SAME_FIELD(etw_event_trace_properties, FreeBuffers, EVENT_TRACE_PROPERTIES, FreeBuffers);
SAME_FIELD(etw_event_trace_properties, EventsLost, EVENT_TRACE_PROPERTIES, EventsLost);
SAME_FIELD(etw_event_trace_properties, BuffersWritten, EVENT_TRACE_PROPERTIES, BuffersWritten);
SAME_FIELD(etw_event_trace_properties, LogBuffersLost, EVENT_TRACE_PROPERTIES, LogBuffersLost);
SAME_FIELD(etw_event_trace_properties, RealTimeBuffersLost, EVENT_TRACE_PROPERTIES, RealTimeBuffersLost);
SAME_FIELD(etw_event_trace_properties, LoggerThreadId, EVENT_TRACE_PROPERTIES, LoggerThreadId);
SAME_FIELD(etw_event_trace_properties, LogFileNameOffset, EVENT_TRACE_PROPERTIES, LogFileNameOffset);
SAME_FIELD(etw_event_trace_properties, LoggerNameOffset, EVENT_TRACE_PROPERTIES, LoggerNameOffset);

// EVENT_TRACE_HEADER
SAME_SIZE(etw_event_trace_header, EVENT_TRACE_HEADER);
SAME_FIELD(etw_event_trace_header, Size, EVENT_TRACE_HEADER, Size);
SAME_FIELD(etw_event_trace_header, HeaderType, EVENT_TRACE_HEADER, HeaderType);
SAME_FIELD(etw_event_trace_header, MarkerFlags, EVENT_TRACE_HEADER, MarkerFlags);
SAME_FIELD(etw_event_trace_header, Class, EVENT_TRACE_HEADER, Class);
SAME_FIELD(etw_event_trace_header, Class.Type, EVENT_TRACE_HEADER, Class.Type);
SAME_FIELD(etw_event_trace_header, Class.Level, EVENT_TRACE_HEADER, Class.Level);
SAME_FIELD(etw_event_trace_header, Class.Version, EVENT_TRACE_HEADER, Class.Version);
SAME_FIELD(etw_event_trace_header, ThreadId, EVENT_TRACE_HEADER, ThreadId);
SAME_FIELD(etw_event_trace_header, ProcessId, EVENT_TRACE_HEADER, ProcessId);
SAME_FIELD(etw_event_trace_header, TimeStamp, EVENT_TRACE_HEADER, TimeStamp);
SAME_FIELD(etw_event_trace_header, Guid, EVENT_TRACE_HEADER, Guid);
SAME_FIELD(etw_event_trace_header, ClientContext, EVENT_TRACE_HEADER, ClientContext);
SAME_FIELD(etw_event_trace_header, Flags, EVENT_TRACE_HEADER, Flags);
static_assert(offsetof(etw_event_trace_header, Guid) == offsetof(EVENT_TRACE_HEADER, GuidPtr), "GuidPtr overlay");
static_assert(offsetof(etw_event_trace_header, ClientContext) == offsetof(EVENT_TRACE_HEADER, KernelTime),
              "KernelTime overlay");
static_assert(offsetof(etw_event_trace_header, Flags) == offsetof(EVENT_TRACE_HEADER, UserTime), "UserTime overlay");
static_assert(offsetof(etw_event_trace_header, ClientContext) == offsetof(EVENT_TRACE_HEADER, ProcessorTime),
              "ProcessorTime overlay");

// MOF_FIELD
SAME_SIZE(etw_mof_field, MOF_FIELD);
SAME_FIELD(etw_mof_field, DataPtr, MOF_FIELD, DataPtr);
SAME_FIELD(etw_mof_field, Length, MOF_FIELD, Length);
SAME_FIELD(etw_mof_field, DataType, MOF_FIELD, DataType);

// SYSTEMTIME and TIME_ZONE_INFORMATION
SAME_SIZE(etw_systemtime, SYSTEMTIME);
SAME_FIELD(etw_systemtime, wYear, SYSTEMTIME, wYear);
SAME_FIELD(etw_systemtime, wMonth, SYSTEMTIME, wMonth);
SAME_FIELD(etw_systemtime, wDayOfWeek, SYSTEMTIME, wDayOfWeek);
SAME_FIELD(etw_systemtime, wDay, SYSTEMTIME, wDay);
SAME_FIELD(etw_systemtime, wHour, SYSTEMTIME, wHour);
SAME_FIELD(etw_systemtime, wMinute, SYSTEMTIME, wMinute);
SAME_FIELD(etw_systemtime, wSecond, SYSTEMTIME, wSecond);
SAME_FIELD(etw_systemtime, wMilliseconds, SYSTEMTIME, wMilliseconds);
SAME_SIZE(etw_time_zone_information, TIME_ZONE_INFORMATION);
SAME_FIELD(etw_time_zone_information, Bias, TIME_ZONE_INFORMATION, Bias);
SAME_FIELD(etw_time_zone_information, StandardName, TIME_ZONE_INFORMATION, StandardName);
SAME_FIELD(etw_time_zone_information, StandardDate, TIME_ZONE_INFORMATION, StandardDate);
SAME_FIELD(etw_time_zone_information, StandardBias, TIME_ZONE_INFORMATION, StandardBias);
SAME_FIELD(etw_time_zone_information, DaylightName, TIME_ZONE_INFORMATION, DaylightName);
SAME_FIELD(etw_time_zone_information, DaylightDate, TIME_ZONE_INFORMATION, DaylightDate);
SAME_FIELD(etw_time_zone_information, DaylightBias, TIME_ZONE_INFORMATION, DaylightBias);

// TRACE_LOGFILE_HEADER: the raw form of the target's own pointer size.
#ifdef _WIN64
typedef etw_trace_logfile_header64 raw_logfile_header;
static_assert(sizeof(raw_logfile_header) == 0x118, "64-bit raw TRACE_LOGFILE_HEADER");
#else
typedef etw_trace_logfile_header32 raw_logfile_header;
static_assert(sizeof(raw_logfile_header) == 0x110, "32-bit raw TRACE_LOGFILE_HEADER");
#endif
SAME_SIZE(raw_logfile_header, TRACE_LOGFILE_HEADER);
SAME_FIELD(raw_logfile_header, BufferSize, TRACE_LOGFILE_HEADER, BufferSize);
SAME_FIELD(raw_logfile_header, Version, TRACE_LOGFILE_HEADER, Version);
SAME_FIELD(raw_logfile_header, ProviderVersion, TRACE_LOGFILE_HEADER, ProviderVersion);
SAME_FIELD(raw_logfile_header, NumberOfProcessors, TRACE_LOGFILE_HEADER, NumberOfProcessors);
SAME_FIELD(raw_logfile_header, EndTime, TRACE_LOGFILE_HEADER, EndTime);
SAME_FIELD(raw_logfile_header, TimerResolution, TRACE_LOGFILE_HEADER, TimerResolution);
SAME_FIELD(raw_logfile_header, MaximumFileSize, TRACE_LOGFILE_HEADER, MaximumFileSize);
SAME_FIELD(raw_logfile_header, LogFileMode, TRACE_LOGFILE_HEADER, LogFileMode);
SAME_FIELD(raw_logfile_header, BuffersWritten, TRACE_LOGFILE_HEADER, BuffersWritten);
SAME_FIELD(raw_logfile_header, StartBuffers, TRACE_LOGFILE_HEADER, StartBuffers);
SAME_FIELD(raw_logfile_header, PointerSize, TRACE_LOGFILE_HEADER, PointerSize);
SAME_FIELD(raw_logfile_header, EventsLost, TRACE_LOGFILE_HEADER, EventsLost);
SAME_FIELD(raw_logfile_header, CpuSpeedInMHz, TRACE_LOGFILE_HEADER, CpuSpeedInMHz);
SAME_FIELD(raw_logfile_header, LoggerName, TRACE_LOGFILE_HEADER, LoggerName);
SAME_FIELD(raw_logfile_header, LogFileName, TRACE_LOGFILE_HEADER, LogFileName);
SAME_FIELD(raw_logfile_header, TimeZone, TRACE_LOGFILE_HEADER, TimeZone);
SAME_FIELD(raw_logfile_header, BootTime, TRACE_LOGFILE_HEADER, BootTime);
SAME_FIELD(raw_logfile_header, PerfFreq, TRACE_LOGFILE_HEADER, PerfFreq);
SAME_FIELD(raw_logfile_header, StartTime, TRACE_LOGFILE_HEADER, StartTime);
SAME_FIELD(raw_logfile_header, ReservedFlags, TRACE_LOGFILE_HEADER, ReservedFlags);
SAME_FIELD(raw_logfile_header, BuffersLost, TRACE_LOGFILE_HEADER, BuffersLost);
static_assert(offsetof(raw_logfile_header, StartBuffers) == offsetof(TRACE_LOGFILE_HEADER, LogInstanceGuid),
              "LogInstanceGuid overlay");

// The constants we copy must keep their Windows values.
static_assert(ETW_EVENT_TRACE_PROPERTIES_SIZE == sizeof(EVENT_TRACE_PROPERTIES), "size constant");
static_assert(ETW_FILE_MODE_NONE == EVENT_TRACE_FILE_MODE_NONE, "ETW_FILE_MODE_NONE");
static_assert(ETW_FILE_MODE_SEQUENTIAL == EVENT_TRACE_FILE_MODE_SEQUENTIAL, "ETW_FILE_MODE_SEQUENTIAL");
static_assert(ETW_FILE_MODE_CIRCULAR == EVENT_TRACE_FILE_MODE_CIRCULAR, "ETW_FILE_MODE_CIRCULAR");
static_assert(ETW_FILE_MODE_APPEND == EVENT_TRACE_FILE_MODE_APPEND, "ETW_FILE_MODE_APPEND");
static_assert(ETW_FILE_MODE_NEWFILE == EVENT_TRACE_FILE_MODE_NEWFILE, "ETW_FILE_MODE_NEWFILE");
static_assert(ETW_FILE_MODE_PREALLOCATE == EVENT_TRACE_FILE_MODE_PREALLOCATE, "ETW_FILE_MODE_PREALLOCATE");
static_assert(ETW_NONSTOPPABLE_MODE == EVENT_TRACE_NONSTOPPABLE_MODE, "ETW_NONSTOPPABLE_MODE");
static_assert(ETW_SECURE_MODE == EVENT_TRACE_SECURE_MODE, "ETW_SECURE_MODE");
static_assert(ETW_REAL_TIME_MODE == EVENT_TRACE_REAL_TIME_MODE, "ETW_REAL_TIME_MODE");
static_assert(ETW_DELAY_OPEN_FILE_MODE == EVENT_TRACE_DELAY_OPEN_FILE_MODE, "ETW_DELAY_OPEN_FILE_MODE");
static_assert(ETW_BUFFERING_MODE == EVENT_TRACE_BUFFERING_MODE, "ETW_BUFFERING_MODE");
static_assert(ETW_PRIVATE_LOGGER_MODE == EVENT_TRACE_PRIVATE_LOGGER_MODE, "ETW_PRIVATE_LOGGER_MODE");
static_assert(ETW_ADD_HEADER_MODE == EVENT_TRACE_ADD_HEADER_MODE, "ETW_ADD_HEADER_MODE");
static_assert(ETW_USE_KBYTES_FOR_SIZE == EVENT_TRACE_USE_KBYTES_FOR_SIZE, "ETW_USE_KBYTES_FOR_SIZE");
static_assert(ETW_USE_GLOBAL_SEQUENCE == EVENT_TRACE_USE_GLOBAL_SEQUENCE, "ETW_USE_GLOBAL_SEQUENCE");
static_assert(ETW_USE_LOCAL_SEQUENCE == EVENT_TRACE_USE_LOCAL_SEQUENCE, "ETW_USE_LOCAL_SEQUENCE");
static_assert(ETW_RELOG_MODE == EVENT_TRACE_RELOG_MODE, "ETW_RELOG_MODE");
static_assert(ETW_PRIVATE_IN_PROC == EVENT_TRACE_PRIVATE_IN_PROC, "ETW_PRIVATE_IN_PROC");
static_assert(ETW_MODE_RESERVED == EVENT_TRACE_MODE_RESERVED, "ETW_MODE_RESERVED");
static_assert(ETW_STOP_ON_HYBRID_SHUTDOWN == EVENT_TRACE_STOP_ON_HYBRID_SHUTDOWN, "ETW_STOP_ON_HYBRID_SHUTDOWN");
static_assert(ETW_PERSIST_ON_HYBRID_SHUTDOWN == EVENT_TRACE_PERSIST_ON_HYBRID_SHUTDOWN,
              "ETW_PERSIST_ON_HYBRID_SHUTDOWN");
static_assert(ETW_USE_PAGED_MEMORY == EVENT_TRACE_USE_PAGED_MEMORY, "ETW_USE_PAGED_MEMORY");
static_assert(ETW_SYSTEM_LOGGER_MODE == EVENT_TRACE_SYSTEM_LOGGER_MODE, "ETW_SYSTEM_LOGGER_MODE");
static_assert(ETW_COMPRESSED_MODE == EVENT_TRACE_COMPRESSED_MODE, "ETW_COMPRESSED_MODE");
static_assert(ETW_INDEPENDENT_SESSION_MODE == EVENT_TRACE_INDEPENDENT_SESSION_MODE, "ETW_INDEPENDENT_SESSION_MODE");
static_assert(ETW_NO_PER_PROCESSOR_BUFFERING == EVENT_TRACE_NO_PER_PROCESSOR_BUFFERING,
              "ETW_NO_PER_PROCESSOR_BUFFERING");
static_assert(ETW_ADDTO_TRIAGE_DUMP == EVENT_TRACE_ADDTO_TRIAGE_DUMP, "ETW_ADDTO_TRIAGE_DUMP");
static_assert(ETW_WNODE_FLAG_ALL_DATA == WNODE_FLAG_ALL_DATA, "ETW_WNODE_FLAG_ALL_DATA");
static_assert(ETW_WNODE_FLAG_SINGLE_INSTANCE == WNODE_FLAG_SINGLE_INSTANCE, "ETW_WNODE_FLAG_SINGLE_INSTANCE");
static_assert(ETW_WNODE_FLAG_SINGLE_ITEM == WNODE_FLAG_SINGLE_ITEM, "ETW_WNODE_FLAG_SINGLE_ITEM");
static_assert(ETW_WNODE_FLAG_EVENT_ITEM == WNODE_FLAG_EVENT_ITEM, "ETW_WNODE_FLAG_EVENT_ITEM");
static_assert(ETW_WNODE_FLAG_FIXED_INSTANCE_SIZE == WNODE_FLAG_FIXED_INSTANCE_SIZE,
              "ETW_WNODE_FLAG_FIXED_INSTANCE_SIZE");
static_assert(ETW_WNODE_FLAG_TOO_SMALL == WNODE_FLAG_TOO_SMALL, "ETW_WNODE_FLAG_TOO_SMALL");
static_assert(ETW_WNODE_FLAG_INSTANCES_SAME == WNODE_FLAG_INSTANCES_SAME, "ETW_WNODE_FLAG_INSTANCES_SAME");
static_assert(ETW_WNODE_FLAG_STATIC_INSTANCE_NAMES == WNODE_FLAG_STATIC_INSTANCE_NAMES,
              "ETW_WNODE_FLAG_STATIC_INSTANCE_NAMES");
static_assert(ETW_WNODE_FLAG_INTERNAL == WNODE_FLAG_INTERNAL, "ETW_WNODE_FLAG_INTERNAL");
static_assert(ETW_WNODE_FLAG_USE_TIMESTAMP == WNODE_FLAG_USE_TIMESTAMP, "ETW_WNODE_FLAG_USE_TIMESTAMP");
static_assert(ETW_WNODE_FLAG_PERSIST_EVENT == WNODE_FLAG_PERSIST_EVENT, "ETW_WNODE_FLAG_PERSIST_EVENT");
static_assert(ETW_WNODE_FLAG_EVENT_REFERENCE == WNODE_FLAG_EVENT_REFERENCE, "ETW_WNODE_FLAG_EVENT_REFERENCE");
static_assert(ETW_WNODE_FLAG_ANSI_INSTANCENAMES == WNODE_FLAG_ANSI_INSTANCENAMES, "ETW_WNODE_FLAG_ANSI_INSTANCENAMES");
static_assert(ETW_WNODE_FLAG_METHOD_ITEM == WNODE_FLAG_METHOD_ITEM, "ETW_WNODE_FLAG_METHOD_ITEM");
static_assert(ETW_WNODE_FLAG_PDO_INSTANCE_NAMES == WNODE_FLAG_PDO_INSTANCE_NAMES, "ETW_WNODE_FLAG_PDO_INSTANCE_NAMES");
static_assert(ETW_WNODE_FLAG_TRACED_GUID == WNODE_FLAG_TRACED_GUID, "ETW_WNODE_FLAG_TRACED_GUID");
static_assert(ETW_WNODE_FLAG_LOG_WNODE == WNODE_FLAG_LOG_WNODE, "ETW_WNODE_FLAG_LOG_WNODE");
static_assert(ETW_WNODE_FLAG_USE_GUID_PTR == WNODE_FLAG_USE_GUID_PTR, "ETW_WNODE_FLAG_USE_GUID_PTR");
static_assert(ETW_WNODE_FLAG_USE_MOF_PTR == WNODE_FLAG_USE_MOF_PTR, "ETW_WNODE_FLAG_USE_MOF_PTR");
static_assert(ETW_WNODE_FLAG_NO_HEADER == WNODE_FLAG_NO_HEADER, "ETW_WNODE_FLAG_NO_HEADER");
static_assert(ETW_WNODE_FLAG_SEND_DATA_BLOCK == WNODE_FLAG_SEND_DATA_BLOCK, "ETW_WNODE_FLAG_SEND_DATA_BLOCK");
static_assert(ETW_WNODE_FLAG_VERSIONED_PROPERTIES == WNODE_FLAG_VERSIONED_PROPERTIES,
              "ETW_WNODE_FLAG_VERSIONED_PROPERTIES");
static_assert(ETW_WNODE_FLAG_SEVERITY_MASK == WNODE_FLAG_SEVERITY_MASK, "ETW_WNODE_FLAG_SEVERITY_MASK");
static_assert(ETW_LEVEL_NONE == TRACE_LEVEL_NONE, "ETW_LEVEL_NONE");
static_assert(ETW_LEVEL_CRITICAL == TRACE_LEVEL_CRITICAL, "ETW_LEVEL_CRITICAL");
static_assert(ETW_LEVEL_FATAL == TRACE_LEVEL_FATAL, "ETW_LEVEL_FATAL");
static_assert(ETW_LEVEL_ERROR == TRACE_LEVEL_ERROR, "ETW_LEVEL_ERROR");
static_assert(ETW_LEVEL_WARNING == TRACE_LEVEL_WARNING, "ETW_LEVEL_WARNING");
static_assert(ETW_LEVEL_INFORMATION == TRACE_LEVEL_INFORMATION, "ETW_LEVEL_INFORMATION");
static_assert(ETW_LEVEL_VERBOSE == TRACE_LEVEL_VERBOSE, "ETW_LEVEL_VERBOSE");
static_assert(ETW_LEVEL_RESERVED6 == TRACE_LEVEL_RESERVED6, "ETW_LEVEL_RESERVED6");
static_assert(ETW_LEVEL_RESERVED7 == TRACE_LEVEL_RESERVED7, "ETW_LEVEL_RESERVED7");
static_assert(ETW_LEVEL_RESERVED8 == TRACE_LEVEL_RESERVED8, "ETW_LEVEL_RESERVED8");
static_assert(ETW_LEVEL_RESERVED9 == TRACE_LEVEL_RESERVED9, "ETW_LEVEL_RESERVED9");
static_assert(ETW_TYPE_INFO == EVENT_TRACE_TYPE_INFO, "ETW_TYPE_INFO");
static_assert(ETW_TYPE_START == EVENT_TRACE_TYPE_START, "ETW_TYPE_START");
static_assert(ETW_TYPE_END == EVENT_TRACE_TYPE_END, "ETW_TYPE_END");
static_assert(ETW_TYPE_STOP == EVENT_TRACE_TYPE_STOP, "ETW_TYPE_STOP");
static_assert(ETW_TYPE_DC_START == EVENT_TRACE_TYPE_DC_START, "ETW_TYPE_DC_START");
static_assert(ETW_TYPE_DC_END == EVENT_TRACE_TYPE_DC_END, "ETW_TYPE_DC_END");
static_assert(ETW_TYPE_EXTENSION == EVENT_TRACE_TYPE_EXTENSION, "ETW_TYPE_EXTENSION");
static_assert(ETW_TYPE_REPLY == EVENT_TRACE_TYPE_REPLY, "ETW_TYPE_REPLY");
static_assert(ETW_TYPE_DEQUEUE == EVENT_TRACE_TYPE_DEQUEUE, "ETW_TYPE_DEQUEUE");
static_assert(ETW_TYPE_RESUME == EVENT_TRACE_TYPE_RESUME, "ETW_TYPE_RESUME");
static_assert(ETW_TYPE_CHECKPOINT == EVENT_TRACE_TYPE_CHECKPOINT, "ETW_TYPE_CHECKPOINT");
static_assert(ETW_TYPE_SUSPEND == EVENT_TRACE_TYPE_SUSPEND, "ETW_TYPE_SUSPEND");
static_assert(ETW_TYPE_WINEVT_SEND == EVENT_TRACE_TYPE_WINEVT_SEND, "ETW_TYPE_WINEVT_SEND");
static_assert(ETW_TYPE_WINEVT_RECEIVE == EVENT_TRACE_TYPE_WINEVT_RECEIVE, "ETW_TYPE_WINEVT_RECEIVE");
static_assert(ETW_FLAG_PROCESS == EVENT_TRACE_FLAG_PROCESS, "ETW_FLAG_PROCESS");
static_assert(ETW_FLAG_THREAD == EVENT_TRACE_FLAG_THREAD, "ETW_FLAG_THREAD");
static_assert(ETW_FLAG_IMAGE_LOAD == EVENT_TRACE_FLAG_IMAGE_LOAD, "ETW_FLAG_IMAGE_LOAD");
static_assert(ETW_FLAG_PROCESS_COUNTERS == EVENT_TRACE_FLAG_PROCESS_COUNTERS, "ETW_FLAG_PROCESS_COUNTERS");
static_assert(ETW_FLAG_CSWITCH == EVENT_TRACE_FLAG_CSWITCH, "ETW_FLAG_CSWITCH");
static_assert(ETW_FLAG_DPC == EVENT_TRACE_FLAG_DPC, "ETW_FLAG_DPC");
static_assert(ETW_FLAG_INTERRUPT == EVENT_TRACE_FLAG_INTERRUPT, "ETW_FLAG_INTERRUPT");
static_assert(ETW_FLAG_SYSTEMCALL == EVENT_TRACE_FLAG_SYSTEMCALL, "ETW_FLAG_SYSTEMCALL");
static_assert(ETW_FLAG_DISK_IO == EVENT_TRACE_FLAG_DISK_IO, "ETW_FLAG_DISK_IO");
static_assert(ETW_FLAG_DISK_FILE_IO == EVENT_TRACE_FLAG_DISK_FILE_IO, "ETW_FLAG_DISK_FILE_IO");
static_assert(ETW_FLAG_DISK_IO_INIT == EVENT_TRACE_FLAG_DISK_IO_INIT, "ETW_FLAG_DISK_IO_INIT");
static_assert(ETW_FLAG_DISPATCHER == EVENT_TRACE_FLAG_DISPATCHER, "ETW_FLAG_DISPATCHER");
static_assert(ETW_FLAG_MEMORY_PAGE_FAULTS == EVENT_TRACE_FLAG_MEMORY_PAGE_FAULTS, "ETW_FLAG_MEMORY_PAGE_FAULTS");
static_assert(ETW_FLAG_MEMORY_HARD_FAULTS == EVENT_TRACE_FLAG_MEMORY_HARD_FAULTS, "ETW_FLAG_MEMORY_HARD_FAULTS");
static_assert(ETW_FLAG_VIRTUAL_ALLOC == EVENT_TRACE_FLAG_VIRTUAL_ALLOC, "ETW_FLAG_VIRTUAL_ALLOC");
static_assert(ETW_FLAG_VAMAP == EVENT_TRACE_FLAG_VAMAP, "ETW_FLAG_VAMAP");
static_assert(ETW_FLAG_NETWORK_TCPIP == EVENT_TRACE_FLAG_NETWORK_TCPIP, "ETW_FLAG_NETWORK_TCPIP");
static_assert(ETW_FLAG_REGISTRY == EVENT_TRACE_FLAG_REGISTRY, "ETW_FLAG_REGISTRY");
static_assert(ETW_FLAG_DBGPRINT == EVENT_TRACE_FLAG_DBGPRINT, "ETW_FLAG_DBGPRINT");
static_assert(ETW_FLAG_JOB == EVENT_TRACE_FLAG_JOB, "ETW_FLAG_JOB");
static_assert(ETW_FLAG_ALPC == EVENT_TRACE_FLAG_ALPC, "ETW_FLAG_ALPC");
static_assert(ETW_FLAG_SPLIT_IO == EVENT_TRACE_FLAG_SPLIT_IO, "ETW_FLAG_SPLIT_IO");
static_assert(ETW_FLAG_DEBUG_EVENTS == EVENT_TRACE_FLAG_DEBUG_EVENTS, "ETW_FLAG_DEBUG_EVENTS");
static_assert(ETW_FLAG_DRIVER == EVENT_TRACE_FLAG_DRIVER, "ETW_FLAG_DRIVER");
static_assert(ETW_FLAG_PROFILE == EVENT_TRACE_FLAG_PROFILE, "ETW_FLAG_PROFILE");
static_assert(ETW_FLAG_FILE_IO == EVENT_TRACE_FLAG_FILE_IO, "ETW_FLAG_FILE_IO");
static_assert(ETW_FLAG_FILE_IO_INIT == EVENT_TRACE_FLAG_FILE_IO_INIT, "ETW_FLAG_FILE_IO_INIT");
static_assert(ETW_FLAG_NO_SYSCONFIG == EVENT_TRACE_FLAG_NO_SYSCONFIG, "ETW_FLAG_NO_SYSCONFIG");
static_assert(ETW_FLAG_ENABLE_RESERVE == EVENT_TRACE_FLAG_ENABLE_RESERVE, "ETW_FLAG_ENABLE_RESERVE");
static_assert(ETW_FLAG_FORWARD_WMI == EVENT_TRACE_FLAG_FORWARD_WMI, "ETW_FLAG_FORWARD_WMI");
static_assert(ETW_FLAG_EXTENSION == EVENT_TRACE_FLAG_EXTENSION, "ETW_FLAG_EXTENSION");
static_assert(ETW_CONTROL_QUERY == EVENT_TRACE_CONTROL_QUERY, "ETW_CONTROL_QUERY");
static_assert(ETW_CONTROL_STOP == EVENT_TRACE_CONTROL_STOP, "ETW_CONTROL_STOP");
static_assert(ETW_CONTROL_UPDATE == EVENT_TRACE_CONTROL_UPDATE, "ETW_CONTROL_UPDATE");
static_assert(ETW_CONTROL_FLUSH == EVENT_TRACE_CONTROL_FLUSH, "ETW_CONTROL_FLUSH");
static_assert(ETW_CONTROL_INCREMENT_FILE == EVENT_TRACE_CONTROL_INCREMENT_FILE, "ETW_CONTROL_INCREMENT_FILE");
static_assert(ETW_MESSAGE_SEQUENCE == TRACE_MESSAGE_SEQUENCE, "ETW_MESSAGE_SEQUENCE");
static_assert(ETW_MESSAGE_GUID == TRACE_MESSAGE_GUID, "ETW_MESSAGE_GUID");
static_assert(ETW_MESSAGE_COMPONENTID == TRACE_MESSAGE_COMPONENTID, "ETW_MESSAGE_COMPONENTID");
static_assert(ETW_MESSAGE_TIMESTAMP == TRACE_MESSAGE_TIMESTAMP, "ETW_MESSAGE_TIMESTAMP");
static_assert(ETW_MESSAGE_PERFORMANCE_TIMESTAMP == TRACE_MESSAGE_PERFORMANCE_TIMESTAMP,
              "ETW_MESSAGE_PERFORMANCE_TIMESTAMP");
static_assert(ETW_MESSAGE_SYSTEMINFO == TRACE_MESSAGE_SYSTEMINFO, "ETW_MESSAGE_SYSTEMINFO");
static_assert(ETW_MESSAGE_POINTER32 == TRACE_MESSAGE_POINTER32, "ETW_MESSAGE_POINTER32");
static_assert(ETW_MESSAGE_POINTER64 == TRACE_MESSAGE_POINTER64, "ETW_MESSAGE_POINTER64");
static_assert(ETW_MAX_MOF_FIELDS == MAX_MOF_FIELDS, "ETW_MAX_MOF_FIELDS");
