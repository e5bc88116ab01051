using System;
using System.Runtime.InteropServices;

// The option and view structs of session.h, provider.h and consumer.h, blittable and in
// the C layout (64-bit; LayoutTests checks sizes and offsets). Callbacks read the views
// through pointers; the public layer exposes them as ref struct views or copies.
namespace OpenEtw.Interop
{
#pragma warning disable CS1591, CS0649 // mirrors of C structs documented in the headers
    [StructLayout(LayoutKind.Sequential)]
    internal struct SessionOptionsNative
    {
        public uint StructSize;
        public uint Flags;
        public uint LosslessTimeoutMs;
        public uint RealtimeBacklogBuffers;
        public uint ProfileInterval;
        public uint FilterCount; // added in 1.2: session-level filters, start only
        public IntPtr Filters;
    }

    // etw_event_descriptor (EVENT_DESCRIPTOR): 16 bytes.
    [StructLayout(LayoutKind.Sequential)]
    internal struct EventDescriptorNative
    {
        public ushort Id;
        public byte Version;
        public byte Channel;
        public byte Level;
        public byte Opcode;
        public ushort Task;
        public ulong Keyword;
    }

    // etw_event_data_descriptor (EVENT_DATA_DESCRIPTOR): 16 bytes.
    [StructLayout(LayoutKind.Sequential)]
    internal struct EventDataDescriptorNative
    {
        public ulong Ptr;
        public uint Size;
        public uint Reserved;
    }

    // etw_classic_event_id (CLASSIC_EVENT_ID): 24 bytes.
    [StructLayout(LayoutKind.Sequential)]
    internal struct ClassicEventIdNative
    {
        public Guid EventGuid;
        public byte Type;
        public byte Reserved0, Reserved1, Reserved2, Reserved3, Reserved4, Reserved5, Reserved6;
    }

    // etw_provider_process (the provider listing): 8 bytes.
    [StructLayout(LayoutKind.Sequential)]
    internal struct ProviderProcessNative
    {
        public uint ProcessId;
        public uint Registrations;
    }

    // etw_provider_session (the provider listing): 168 bytes; SessionName is
    // UTF-8, NUL-terminated.
    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct ProviderSessionNative
    {
        public ulong SessionHandle;
        public ulong MatchAnyKeyword;
        public ulong MatchAllKeyword;
        public uint Level;
        public uint FilterCount;
        public uint EnableProperty;
        public uint Reserved;
        public fixed byte SessionName[128];
    }

    /// <summary>etw_event_filter_descriptor (EVENT_FILTER_DESCRIPTOR).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct EventFilterDescriptorNative
    {
        public ulong Ptr;
        public uint Size;
        public uint Type;
    }

    /// <summary>etw_enable_parameters: Filters points to FilterCount EventFilterDescriptorNative the caller pins.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct EnableParametersNative
    {
        public uint StructSize;
        public uint EnableProperty;
        public ulong MatchAnyKeyword;
        public ulong MatchAllKeyword;
        public byte Level;
        public byte Reserved0, Reserved1, Reserved2;
        public uint FilterCount;
        public Guid SourceId;
        public IntPtr Filters;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct SessionHostInfoNative
    {
        public uint StructSize;
        public uint ProcessId;
        public uint State;
        public uint IsLocal;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ProviderEnableInfoNative
    {
        public uint StructSize;
        public uint IsEnabled;
        public uint Level;
        public uint Reserved;
        public ulong MatchAnyKeyword;
        public ulong MatchAllKeyword;
        public ulong SessionHandle;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ExtendedItemNative
    {
        public ushort ExtType;
        public ushort Linkage;
        public ushort ItemSize;
        public ushort DataSize;
        public IntPtr Data;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct RecordNative
    {
        public uint StructSize;
        public uint Kind;
        public uint Present;
        public byte HeaderType;
        public byte MarkerFlags;
        public ushort Size;
        public uint HeaderSize;
        public uint PointerSize;
        public uint FileIndex;
        public uint BufferIndex;
        public uint BufferOffset;
        public uint Processor;
        public uint ThreadId;
        public uint ProcessId;
        public long Timestamp;
        public long TimestampRaw;
        public Guid Guid;
        public Guid ActivityId;
        public Guid ParentGuid;
        public ulong Keyword;
        public uint KernelTime;
        public uint UserTime;
        public ushort HookId;
        public ushort VersionWord;
        public ushort EventId;
        public ushort Task;
        public ushort Version;
        public ushort EventFlags;
        public ushort EventProperty;
        public ushort MessageNumber;
        public ushort MessageFlags;
        public byte Opcode;
        public byte Level;
        public byte Channel;
        public byte Reserved0;
        public ushort Reserved1;
        public uint MessageSequence;
        public uint ComponentId;
        public uint InstanceId;
        public uint ParentInstanceId;
        public uint PayloadSize;
        public uint ExtendedCount;
        public IntPtr Bytes;
        public IntPtr Payload;
        public IntPtr Extended;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ClassicEventNative
    {
        public uint StructSize;
        public uint PayloadSize;
        public EventTraceHeader Header;
        public uint InstanceId;
        public uint ParentInstanceId;
        public Guid ParentGuid;
        public IntPtr Payload;
        public IntPtr Record;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct BufferInfoNative
    {
        public uint StructSize;
        public uint FileIndex;
        public uint BufferIndex;
        public uint Processor;
        public ulong FileOffset;
        public ulong SequenceNumber;
        public long Timestamp;
        public long TimestampRaw;
        public uint BufferSize;
        public uint StoredSize;
        public uint FilledSize;
        public uint SavedOffset;
        public uint Offset;
        public uint State;
        public ushort BufferFlag;
        public ushort BufferType;
        public ushort LoggerId;
        public ushort Reserved0;
        public uint RecordCount;
        public uint CorruptRecords;
        public uint StatusFlags;
        public uint Status;
        public uint ImageSize;
        public uint Reserved1;
        public IntPtr Data;
        public IntPtr Image;
        public IntPtr Message;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ConsumerOptionsNative
    {
        public uint StructSize;
        public uint Flags;
        public IntPtr Buffer;
        public IntPtr Record;
        public IntPtr Event;
        public IntPtr UserData;
        public IntPtr UserDataFree;
        public IntPtr EventRecord; // added in 0.2
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct LogfileInfoNative
    {
        public uint StructSize;
        public uint FileIndex;
        public TraceLogfileHeader64 Header;
        public long ReferenceTimestamp;
        public ulong FileSize;
        public uint HeaderType;
        public uint ThreadId;
        public uint ProcessId;
        public uint CompressionFormat;
        public IntPtr LoggerName;
        public IntPtr LogFileName;
        public IntPtr Path;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ConsumerStatsNative
    {
        public uint StructSize;
        public uint FileCount;
        public ulong Buffers;
        public ulong CorruptBuffers;
        public ulong Records;
        public ulong CorruptRecords;
        public ulong BytesRead;
        public ulong EventsLost;
        public uint FirstProblem;
        public uint Reserved0;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct LossInfoNative
    {
        public uint StructSize;
        public uint EventsLost;
        public uint BuffersLost;
        public uint Reserved;
    }

    /// <summary>An EVENT_TRACE_HEADER followed by one MOF_FIELD: Provider.Write's gathered event.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct MofEventNative
    {
        public EventTraceHeader Header;
        public MofField Field;
    }
#pragma warning restore CS1591, CS0649
}
