using System;
using System.Runtime.InteropServices;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// One buffer, passed to the buffer callback after its last record (also for buffers
    /// with no readable record): a view valid only during the callback, like
    /// <see cref="TraceRecord"/>.
    /// </summary>
    public readonly unsafe ref struct TraceBuffer
    {
        private readonly BufferInfoNative* _b;

        internal TraceBuffer(BufferInfoNative* buffer) => _b = buffer;

#pragma warning disable CS1591 // consumer.h documents every member of etw_buffer_info
        public uint FileIndex => _b->FileIndex;
        /// <summary>Position in the file, 0 = the header buffer.</summary>
        public uint BufferIndex => _b->BufferIndex;
        public uint Processor => _b->Processor;
        public ulong FileOffset => _b->FileOffset;
        public ulong SequenceNumber => _b->SequenceNumber;
        /// <summary>Flush time: FILETIME, or raw with <see cref="ConsumerOptions.RawTimestamps"/>.</summary>
        public long Timestamp => _b->Timestamp;
        public long TimestampRaw => _b->TimestampRaw;
        public uint BufferSize => _b->BufferSize;
        public uint StoredSize => _b->StoredSize;
        public uint FilledSize => _b->FilledSize;
        public uint SavedOffset => _b->SavedOffset;
        public uint Offset => _b->Offset;
        public uint State => _b->State;
        public ushort BufferFlag => _b->BufferFlag;
        public ushort BufferType => _b->BufferType;
        public ushort LoggerId => _b->LoggerId;
        /// <summary>Records delivered from this buffer.</summary>
        public uint RecordCount => _b->RecordCount;
        /// <summary>Records skipped or cut off in this buffer.</summary>
        public uint CorruptRecords => _b->CorruptRecords;
        public BufferStatus StatusFlags => (BufferStatus)_b->StatusFlags;
        /// <summary><see cref="OpenEtw.Status.Ok"/>, or the first problem found in this buffer.</summary>
        public Status Status => (Status)_b->Status;
#pragma warning restore CS1591

        /// <summary>The problem, naming file and offsets; "" when <see cref="Status"/> is Ok.</summary>
        public string Message => Marshal.PtrToStringUTF8(_b->Message) ?? "";

        /// <summary>The bytes as stored; borrowed for the callback.</summary>
        public ReadOnlySpan<byte> Data => new ReadOnlySpan<byte>((void*)_b->Data, checked((int)_b->StoredSize));

        /// <summary>What records are read from (the decompressed copy of compressed buffers).</summary>
        public ReadOnlySpan<byte> Image => new ReadOnlySpan<byte>((void*)_b->Image, checked((int)_b->ImageSize));
    }
}
