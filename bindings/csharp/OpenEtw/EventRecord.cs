using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// Called for EVENT_HEADER records (manifest-based, TraceLogging and EventWrite events) as
    /// ProcessTrace's EventRecordCallback sees them, after the record callback. Return true to continue.
    /// </summary>
    public delegate bool EventRecordCallback(EventRecord eventRecord);

    /// <summary>
    /// An EVENT_HEADER record as an EVENT_RECORD: the EVENT_HEADER fields, the
    /// EVENT_DESCRIPTOR, the extended data items and the user data; a view valid only during
    /// the callback, like <see cref="TraceRecord"/>. Decoded like TraceRecord (with
    /// <see cref="ConsumerOptions.Schemas"/>): <see cref="PayloadByName"/>, <see cref="Fields"/>...
    /// </summary>
    public readonly unsafe ref struct EventRecord
    {
        private readonly EventRecordNative* _e;

        internal EventRecord(EventRecordNative* e) => _e = e;

        /// <summary>EVENT_HEADER.Flags as stored (EVENT_HEADER_FLAG_*).</summary>
        public ushort Flags => _e->Flags;
        /// <summary>EVENT_HEADER.EventProperty (EVENT_HEADER_PROPERTY_*).</summary>
        public ushort EventProperty => _e->EventProperty;
        /// <summary>EVENT_HEADER.ThreadId.</summary>
        public uint ThreadId => _e->ThreadId;
        /// <summary>EVENT_HEADER.ProcessId.</summary>
        public uint ProcessId => _e->ProcessId;
        /// <summary>As <see cref="TraceRecord.Timestamp"/>: FILETIME, or raw with <see cref="ConsumerOptions.RawTimestamps"/>.</summary>
        public long Timestamp => _e->Timestamp;
        /// <summary>EVENT_HEADER.ProviderId.</summary>
        public Guid ProviderId => _e->ProviderId;
        /// <summary>EVENT_DESCRIPTOR.Id.</summary>
        public ushort Id => _e->Id;
        /// <summary>EVENT_DESCRIPTOR.Version.</summary>
        public byte Version => _e->Version;
        /// <summary>EVENT_DESCRIPTOR.Channel.</summary>
        public byte Channel => _e->Channel;
        /// <summary>EVENT_DESCRIPTOR.Level.</summary>
        public EtwLevel Level => (EtwLevel)_e->Level;
        /// <summary>EVENT_DESCRIPTOR.Opcode.</summary>
        public byte Opcode => _e->Opcode;
        /// <summary>EVENT_DESCRIPTOR.Task.</summary>
        public ushort Task => _e->Task;
        /// <summary>EVENT_DESCRIPTOR.Keyword.</summary>
        public ulong Keyword => _e->Keyword;
        /// <summary>With <see cref="UserTime"/>: ProcessorTime in private sessions.</summary>
        public uint KernelTime => _e->KernelTime;
        /// <summary>See <see cref="KernelTime"/>.</summary>
        public uint UserTime => _e->UserTime;
        /// <summary>EVENT_HEADER.ActivityId.</summary>
        public Guid ActivityId => _e->ActivityId;

        /// <summary>The number of extended data items (EVENT_HEADER_EXTENDED_DATA_ITEM).</summary>
        public int ExtendedDataCount => _e->ExtendedDataCount;

        /// <summary>An extended data item; its data is borrowed like the record.</summary>
        public ExtendedItem GetExtendedItem(int index)
        {
            if ((uint)index >= _e->ExtendedDataCount)
                throw new ArgumentOutOfRangeException(nameof(index));
            return new ExtendedItem(&((ExtendedItemNative*)_e->ExtendedData)[index]);
        }

        /// <summary>The user data (payload); borrowed for the callback.</summary>
        public ReadOnlySpan<byte> UserData => new ReadOnlySpan<byte>((void*)_e->UserData, _e->UserDataLength);

        /// <summary>Every decoded fact of the same record.</summary>
        public TraceRecord Record => new TraceRecord((RecordNative*)_e->Record);

#pragma warning disable CS1591 // as TraceRecord's members of the same names
        public DecodedEvent? Decode() => Record.Decode();
        public string EventName => Record.EventName;
        public string ProviderName => Record.ProviderName;
        public string TaskName => Record.TaskName;
        public string OpcodeName => Record.OpcodeName;
        public IReadOnlyList<string> PayloadNames => Record.PayloadNames;
        public IReadOnlyDictionary<string, object> Fields => Record.Fields;
        public object? PayloadByName(string name) => Record.PayloadByName(name);
        public string? PayloadString(string name) => Record.PayloadString(name);
#pragma warning restore CS1591
    }
}

namespace OpenEtw.Interop
{
    /// <summary>etw_event_record (consumer.h).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct EventRecordNative
    {
        public uint StructSize;
        public ushort Flags;
        public ushort EventProperty;
        public uint ThreadId;
        public uint ProcessId;
        public long Timestamp;
        public Guid ProviderId;
        public ushort Id;
        public byte Version;
        public byte Channel;
        public byte Level;
        public byte Opcode;
        public ushort Task;
        public ulong Keyword;
        public uint KernelTime;
        public uint UserTime;
        public Guid ActivityId;
        public ushort ExtendedDataCount;
        public ushort UserDataLength;
        public uint Reserved0;
        public IntPtr ExtendedData;
        public IntPtr UserData;
        public IntPtr Record;
    }
}
