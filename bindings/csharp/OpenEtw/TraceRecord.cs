using System;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// One record of any header kind, as the record callback sees it: a view of the
    /// library's etw_record, valid only during the callback. Being a ref struct it cannot be
    /// stored or captured, and neither can its spans; copy what you keep
    /// (<c>record.Payload.ToArray()</c>). Members the kind does not carry are 0;
    /// <see cref="Present"/> says which optional members hold data.
    /// </summary>
    public readonly unsafe ref partial struct TraceRecord
    {
        private readonly RecordNative* _r;

        internal TraceRecord(RecordNative* record) => _r = record;

#pragma warning disable CS1591 // consumer.h documents every member of etw_record
        public RecordKind Kind => (RecordKind)_r->Kind;
        public RecordFields Present => (RecordFields)_r->Present;
        public byte HeaderType => _r->HeaderType;
        public byte MarkerFlags => _r->MarkerFlags;
        /// <summary>The Size field: header, extended data and payload.</summary>
        public ushort Size => _r->Size;
        public uint HeaderSize => _r->HeaderSize;
        public uint PointerSize => _r->PointerSize;
        public uint FileIndex => _r->FileIndex;
        public uint BufferIndex => _r->BufferIndex;
        public uint BufferOffset => _r->BufferOffset;
        public uint Processor => _r->Processor;
        public uint ThreadId => _r->ThreadId;
        public uint ProcessId => _r->ProcessId;
        /// <summary>FILETIME (100 ns since 1601, UTC), or the raw clock value with <see cref="ConsumerOptions.RawTimestamps"/>.</summary>
        public long Timestamp => _r->Timestamp;
        public long TimestampRaw => _r->TimestampRaw;
        /// <summary>Class GUID, ProviderId or message GUID.</summary>
        public Guid Guid => _r->Guid;
        public Guid ActivityId => _r->ActivityId;
        public Guid ParentGuid => _r->ParentGuid;
        public ulong Keyword => _r->Keyword;
        public uint KernelTime => _r->KernelTime;
        public uint UserTime => _r->UserTime;
        public ushort HookId => _r->HookId;
        public ushort VersionWord => _r->VersionWord;
        public ushort EventId => _r->EventId;
        public ushort Task => _r->Task;
        public ushort Version => _r->Version;
        public ushort EventFlags => _r->EventFlags;
        public ushort EventProperty => _r->EventProperty;
        public ushort MessageNumber => _r->MessageNumber;
        public ushort MessageFlags => _r->MessageFlags;
        /// <summary>EVENT_DESCRIPTOR.Opcode or Class.Type.</summary>
        public byte Opcode => _r->Opcode;
        public EtwLevel Level => (EtwLevel)_r->Level;
        public byte Channel => _r->Channel;
        public uint MessageSequence => _r->MessageSequence;
        public uint ComponentId => _r->ComponentId;
        public uint InstanceId => _r->InstanceId;
        public uint ParentInstanceId => _r->ParentInstanceId;
#pragma warning restore CS1591

        /// <summary>User data, MOF data or message arguments; borrowed for the callback.</summary>
        public ReadOnlySpan<byte> Payload => new ReadOnlySpan<byte>((void*)_r->Payload, checked((int)_r->PayloadSize));

        /// <summary>The whole record as stored, <see cref="Size"/> bytes; borrowed for the callback.</summary>
        public ReadOnlySpan<byte> Bytes => new ReadOnlySpan<byte>((void*)_r->Bytes, _r->Size);

        /// <summary>The number of EVENT_HEADER extended data items.</summary>
        public int ExtendedCount => checked((int)_r->ExtendedCount);

        /// <summary>An extended data item; its data is borrowed like the record.</summary>
        public ExtendedItem GetExtendedItem(int index)
        {
            if ((uint)index >= _r->ExtendedCount)
                throw new ArgumentOutOfRangeException(nameof(index));
            return new ExtendedItem(&((ExtendedItemNative*)_r->Extended)[index]);
        }

        /// <summary>The kind's canonical name ("full", "event", ...).</summary>
        public string KindName => NativeMethods.etw_record_kind_name(_r->Kind);
    }

    /// <summary>One EVENT_HEADER extended data item, borrowed like its record.</summary>
    public readonly unsafe ref struct ExtendedItem
    {
        private readonly ExtendedItemNative* _i;

        internal ExtendedItem(ExtendedItemNative* item) => _i = item;

        /// <summary>EVENT_HEADER_EXT_TYPE_*.</summary>
        public ushort ExtType => _i->ExtType;
        /// <summary>Bit 0: another item follows.</summary>
        public ushort Linkage => _i->Linkage;
        /// <summary>The item's data.</summary>
        public ReadOnlySpan<byte> Data => new ReadOnlySpan<byte>((void*)_i->Data, _i->DataSize);
        /// <summary>A stack item's addresses, innermost first, and MatchId (<see cref="ExtendedItems.ReadStack"/>).</summary>
        public ulong[] GetStack(out ulong matchId) => ExtendedItems.ReadStack(ExtType, Data, out matchId);
        /// <summary>A SID item's SID as text (<see cref="ExtendedItems.SidString"/>).</summary>
        public string GetSidString() => ExtendedItems.SidString(ExtType, Data);
    }
}
