using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

// The Windows-layout records of records.h as blittable structs with the Windows field
// names: passed to native code by reference, without copies or marshalling. The tests
// check every size against the header's ETW_*_SIZE and the offsets that matter.
namespace OpenEtw
{
#pragma warning disable CS1591 // field names are the Windows ones, documented in records.h
    /// <summary>WNODE_HEADER (48 bytes). Guid uses System.Guid, whose layout is the Windows one.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct WnodeHeader
    {
        public uint BufferSize;
        public uint ProviderId;
        public ulong HistoricalContext;
        public long TimeStamp;
        public Guid Guid;
        public uint ClientContext;
        public uint Flags;
    }

    /// <summary>EVENT_TRACE_PROPERTIES (120 bytes), without the names that follow it in a block.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct EventTraceProperties
    {
        public WnodeHeader Wnode;
        public uint BufferSize;
        public uint MinimumBuffers;
        public uint MaximumBuffers;
        public uint MaximumFileSize;
        public uint LogFileMode;
        public uint FlushTimer;
        public uint EnableFlags;
        public int AgeLimit;
        public uint NumberOfBuffers;
        public uint FreeBuffers;
        public uint EventsLost;
        public uint BuffersWritten;
        public uint LogBuffersLost;
        public uint RealTimeBuffersLost;
        public nuint LoggerThreadId;
        public uint LogFileNameOffset;
        public uint LoggerNameOffset;
    }

    /// <summary>EVENT_TRACE_HEADER.Class.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct EventClass
    {
        public byte Type;
        public byte Level;
        public ushort Version;
    }

    /// <summary>EVENT_TRACE_HEADER (48 bytes); see records.h for the overlays.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct EventTraceHeader
    {
        public ushort Size;
        public byte HeaderType;
        public byte MarkerFlags;
        public EventClass Class;
        public uint ThreadId;
        public uint ProcessId;
        public long TimeStamp;
        public Guid Guid;
        public uint ClientContext;
        public uint Flags;
    }

    /// <summary>MOF_FIELD (16 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct MofField
    {
        public ulong DataPtr;
        public uint Length;
        public uint DataType;
    }

    /// <summary>SYSTEMTIME (16 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SystemTime
    {
        public ushort Year;
        public ushort Month;
        public ushort DayOfWeek;
        public ushort Day;
        public ushort Hour;
        public ushort Minute;
        public ushort Second;
        public ushort Milliseconds;
    }

    /// <summary>32 UTF-16 code units, NUL-padded (TIME_ZONE_INFORMATION names).</summary>
    [InlineArray(32)]
    public struct Utf16Name32
    {
        private ushort _element;

        /// <summary>The text up to the first NUL.</summary>
        public override readonly string ToString()
        {
            ReadOnlySpan<char> chars = MemoryMarshal.Cast<ushort, char>(
                MemoryMarshal.CreateReadOnlySpan(ref Unsafe.AsRef(in _element), 32));
            int end = chars.IndexOf('\0');
            return new string(end < 0 ? chars : chars[..end]);
        }
    }

    /// <summary>TIME_ZONE_INFORMATION (172 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct TimeZoneInformation
    {
        public int Bias;
        public Utf16Name32 StandardName;
        public SystemTime StandardDate;
        public int StandardBias;
        public Utf16Name32 DaylightName;
        public SystemTime DaylightDate;
        public int DaylightBias;
    }

    /// <summary>The raw TRACE_LOGFILE_HEADER of a 64-bit session (0x118 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct TraceLogfileHeader64
    {
        public uint BufferSize;
        public uint Version;
        public uint ProviderVersion;
        public uint NumberOfProcessors;
        public long EndTime;
        public uint TimerResolution;
        public uint MaximumFileSize;
        public uint LogFileMode;
        public uint BuffersWritten;
        public uint StartBuffers;
        public uint PointerSize;
        public uint EventsLost;
        public uint CpuSpeedInMHz;
        public ulong LoggerName;
        public ulong LogFileName;
        public TimeZoneInformation TimeZone;
        public uint Reserved0;
        public long BootTime;
        public long PerfFreq;
        public long StartTime;
        public uint ReservedFlags;
        public uint BuffersLost;
    }

    /// <summary>The raw TRACE_LOGFILE_HEADER of a 32-bit session (0x110 bytes).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct TraceLogfileHeader32
    {
        public uint BufferSize;
        public uint Version;
        public uint ProviderVersion;
        public uint NumberOfProcessors;
        public long EndTime;
        public uint TimerResolution;
        public uint MaximumFileSize;
        public uint LogFileMode;
        public uint BuffersWritten;
        public uint StartBuffers;
        public uint PointerSize;
        public uint EventsLost;
        public uint CpuSpeedInMHz;
        public uint LoggerName;
        public uint LogFileName;
        public TimeZoneInformation TimeZone;
        public uint Reserved0;
        public long BootTime;
        public long PerfFreq;
        public long StartTime;
        public uint ReservedFlags;
        public uint BuffersLost;
    }
#pragma warning restore CS1591
}
