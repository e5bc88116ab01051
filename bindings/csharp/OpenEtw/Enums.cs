using System;
using N = OpenEtw.Interop.NativeMethods;

// Names follow .NET style; values come from the C headers through the generated constants.
namespace OpenEtw
{
    /// <summary>Status codes: Win32 error codes, never renumbered.</summary>
    public enum Status : uint
    {
#pragma warning disable CS1591 // the names say it; status.h documents each code
        Ok = N.ETW_OK,
        FileNotFound = N.ETW_ERROR_FILE_NOT_FOUND,
        PathNotFound = N.ETW_ERROR_PATH_NOT_FOUND,
        AccessDenied = N.ETW_ERROR_ACCESS_DENIED,
        InvalidHandle = N.ETW_ERROR_INVALID_HANDLE,
        NotEnoughMemory = N.ETW_ERROR_NOT_ENOUGH_MEMORY,
        InvalidData = N.ETW_ERROR_INVALID_DATA,
        OutOfMemory = N.ETW_ERROR_OUTOFMEMORY,
        BadLength = N.ETW_ERROR_BAD_LENGTH,
        WriteFault = N.ETW_ERROR_WRITE_FAULT,
        ReadFault = N.ETW_ERROR_READ_FAULT,
        HandleEof = N.ETW_ERROR_HANDLE_EOF,
        NotSupported = N.ETW_ERROR_NOT_SUPPORTED,
        InvalidParameter = N.ETW_ERROR_INVALID_PARAMETER,
        DiskFull = N.ETW_ERROR_DISK_FULL,
        InsufficientBuffer = N.ETW_ERROR_INSUFFICIENT_BUFFER,
        InvalidName = N.ETW_ERROR_INVALID_NAME,
        BadPathname = N.ETW_ERROR_BAD_PATHNAME,
        Busy = N.ETW_ERROR_BUSY,
        AlreadyExists = N.ETW_ERROR_ALREADY_EXISTS,
        InvalidFlagNumber = N.ETW_ERROR_INVALID_FLAG_NUMBER,
        MoreData = N.ETW_ERROR_MORE_DATA,
        ArithmeticOverflow = N.ETW_ERROR_ARITHMETIC_OVERFLOW, // an EVENT_HEADER event above 64 KB
        NoMoreItems = N.ETW_ERROR_NO_MORE_ITEMS,
        NotFound = N.ETW_ERROR_NOT_FOUND, // no schema describes the event (decode.h)
        NoUnicodeTranslation = N.ETW_ERROR_NO_UNICODE_TRANSLATION,
        Cancelled = N.ETW_ERROR_CANCELLED,
        InternalError = N.ETW_ERROR_INTERNAL_ERROR,
        NoSystemResources = N.ETW_ERROR_NO_SYSTEM_RESOURCES,
        Timeout = N.ETW_ERROR_TIMEOUT,
        LogFileFull = N.ETW_ERROR_LOG_FILE_FULL,
        WmiGuidNotFound = N.ETW_ERROR_WMI_GUID_NOT_FOUND,
        WmiInstanceNotFound = N.ETW_ERROR_WMI_INSTANCE_NOT_FOUND,
        CtxClosePending = N.ETW_ERROR_CTX_CLOSE_PENDING,
    }

    /// <summary>EVENT_TRACE_PROPERTIES.LogFileMode ("Logging Mode Constants").</summary>
    [Flags]
    public enum LogFileMode : uint
    {
        None = N.ETW_FILE_MODE_NONE,
        Sequential = N.ETW_FILE_MODE_SEQUENTIAL,
        Circular = N.ETW_FILE_MODE_CIRCULAR,
        Append = N.ETW_FILE_MODE_APPEND,
        NewFile = N.ETW_FILE_MODE_NEWFILE,
        Preallocate = N.ETW_FILE_MODE_PREALLOCATE,
        Nonstoppable = N.ETW_NONSTOPPABLE_MODE,
        Secure = N.ETW_SECURE_MODE,
        RealTime = N.ETW_REAL_TIME_MODE,
        DelayOpenFile = N.ETW_DELAY_OPEN_FILE_MODE,
        Buffering = N.ETW_BUFFERING_MODE,
        PrivateLogger = N.ETW_PRIVATE_LOGGER_MODE,
        AddHeader = N.ETW_ADD_HEADER_MODE,
        UseKBytesForSize = N.ETW_USE_KBYTES_FOR_SIZE,
        UseGlobalSequence = N.ETW_USE_GLOBAL_SEQUENCE,
        UseLocalSequence = N.ETW_USE_LOCAL_SEQUENCE,
        Relog = N.ETW_RELOG_MODE,
        PrivateInProc = N.ETW_PRIVATE_IN_PROC,
        Reserved = N.ETW_MODE_RESERVED,
        StopOnHybridShutdown = N.ETW_STOP_ON_HYBRID_SHUTDOWN,
        PersistOnHybridShutdown = N.ETW_PERSIST_ON_HYBRID_SHUTDOWN,
        UsePagedMemory = N.ETW_USE_PAGED_MEMORY,
        SystemLogger = N.ETW_SYSTEM_LOGGER_MODE,
        Compressed = N.ETW_COMPRESSED_MODE,
        IndependentSession = N.ETW_INDEPENDENT_SESSION_MODE,
        NoPerProcessorBuffering = N.ETW_NO_PER_PROCESSOR_BUFFERING,
        AddToTriageDump = N.ETW_ADDTO_TRIAGE_DUMP,
    }

    /// <summary>Wnode.ClientContext: the clock that timestamps events.</summary>
    public enum ClockType : uint
    {
        Default = N.ETW_CLOCK_DEFAULT,
        Qpc = N.ETW_CLOCK_QPC,
        SystemTime = N.ETW_CLOCK_SYSTEM_TIME,
        CpuCycle = N.ETW_CLOCK_CPU_CYCLE,
    }

    /// <summary>EVENT_TRACE_HEADER.Class.Level.</summary>
    public enum EtwLevel : byte
    {
        None = (byte)N.ETW_LEVEL_NONE,
        Critical = (byte)N.ETW_LEVEL_CRITICAL,
        Error = (byte)N.ETW_LEVEL_ERROR,
        Warning = (byte)N.ETW_LEVEL_WARNING,
        Information = (byte)N.ETW_LEVEL_INFORMATION,
        Verbose = (byte)N.ETW_LEVEL_VERBOSE,
    }

    /// <summary>EnableFlags of the system (kernel) logger.</summary>
    [Flags]
    public enum KernelFlags : uint
    {
        None = 0,
        Process = N.ETW_FLAG_PROCESS,
        Thread = N.ETW_FLAG_THREAD,
        ImageLoad = N.ETW_FLAG_IMAGE_LOAD,
        ProcessCounters = N.ETW_FLAG_PROCESS_COUNTERS,
        CSwitch = N.ETW_FLAG_CSWITCH,
        Dpc = N.ETW_FLAG_DPC,
        Interrupt = N.ETW_FLAG_INTERRUPT,
        SystemCall = N.ETW_FLAG_SYSTEMCALL,
        DiskIo = N.ETW_FLAG_DISK_IO,
        DiskFileIo = N.ETW_FLAG_DISK_FILE_IO,
        DiskIoInit = N.ETW_FLAG_DISK_IO_INIT,
        Dispatcher = N.ETW_FLAG_DISPATCHER,
        MemoryPageFaults = N.ETW_FLAG_MEMORY_PAGE_FAULTS,
        MemoryHardFaults = N.ETW_FLAG_MEMORY_HARD_FAULTS,
        VirtualAlloc = N.ETW_FLAG_VIRTUAL_ALLOC,
        VaMap = N.ETW_FLAG_VAMAP,
        NetworkTcpIp = N.ETW_FLAG_NETWORK_TCPIP,
        Registry = N.ETW_FLAG_REGISTRY,
        DbgPrint = N.ETW_FLAG_DBGPRINT,
        Job = N.ETW_FLAG_JOB,
        Alpc = N.ETW_FLAG_ALPC,
        SplitIo = N.ETW_FLAG_SPLIT_IO,
        DebugEvents = N.ETW_FLAG_DEBUG_EVENTS,
        Driver = N.ETW_FLAG_DRIVER,
        Profile = N.ETW_FLAG_PROFILE,
        FileIo = N.ETW_FLAG_FILE_IO,
        FileIoInit = N.ETW_FLAG_FILE_IO_INIT,
        NoSysConfig = N.ETW_FLAG_NO_SYSCONFIG,
        EnableReserve = N.ETW_FLAG_ENABLE_RESERVE,
        ForwardWmi = N.ETW_FLAG_FORWARD_WMI,
        Extension = N.ETW_FLAG_EXTENSION,
#pragma warning restore CS1591
    }

    /// <summary>The header kind of a consumed record (ETW_RECORD_KIND_*).</summary>
    public enum RecordKind : uint
    {
#pragma warning disable CS1591 // consumer.h documents each kind
        System = N.ETW_RECORD_KIND_SYSTEM,
        Compact = N.ETW_RECORD_KIND_COMPACT,
        PerfInfo = N.ETW_RECORD_KIND_PERFINFO,
        Full = N.ETW_RECORD_KIND_FULL,
        Instance = N.ETW_RECORD_KIND_INSTANCE,
        Event = N.ETW_RECORD_KIND_EVENT,
        Message = N.ETW_RECORD_KIND_MESSAGE,
        Error = N.ETW_RECORD_KIND_ERROR,
    }

    /// <summary>Which optional members of a <see cref="TraceRecord"/> hold data (ETW_RECORD_HAS_*).</summary>
    [Flags]
    public enum RecordFields : uint
    {
        None = 0,
        ThreadId = N.ETW_RECORD_HAS_THREAD_ID,
        Timestamp = N.ETW_RECORD_HAS_TIMESTAMP,
        Guid = N.ETW_RECORD_HAS_GUID,
        HookId = N.ETW_RECORD_HAS_HOOK_ID,
        Class = N.ETW_RECORD_HAS_CLASS,
        Descriptor = N.ETW_RECORD_HAS_DESCRIPTOR,
        CpuTime = N.ETW_RECORD_HAS_CPU_TIME,
        ActivityId = N.ETW_RECORD_HAS_ACTIVITY_ID,
        Instance = N.ETW_RECORD_HAS_INSTANCE,
        Message = N.ETW_RECORD_HAS_MESSAGE,
        Sequence = N.ETW_RECORD_HAS_SEQUENCE,
        ComponentId = N.ETW_RECORD_HAS_COMPONENT_ID,
        EventFlags = N.ETW_RECORD_HAS_EVENT_FLAGS,
    }

    /// <summary>What the consumer found in a buffer (ETW_BUFFER_STATUS_*).</summary>
    [Flags]
    public enum BufferStatus : uint
    {
        None = 0,
        Corrupt = N.ETW_BUFFER_STATUS_CORRUPT,
        Decompressed = N.ETW_BUFFER_STATUS_DECOMPRESSED,
        Warning = N.ETW_BUFFER_STATUS_WARNING,
#pragma warning restore CS1591
    }

    /// <summary>The order in which a file consumer delivers records.</summary>
    public enum ConsumerOrder
    {
        /// <summary>Each processor's buffers in sequence, merged by timestamp across processors and files (ProcessTrace's order).</summary>
        Time,
        /// <summary>File by file, buffer by buffer as stored, records by offset.</summary>
        File,
    }
}
