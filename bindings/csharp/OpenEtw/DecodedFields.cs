using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>Which schema described a decoded event (ETW_DECODE_SOURCE_*).</summary>
    public enum DecodeSource : uint
    {
        /// <summary>Metadata carried by the event.</summary>
        TraceLogging = 1,
        /// <summary>A classic kernel (MOF) class.</summary>
        Kernel = 2,
        /// <summary>An instrumentation manifest.</summary>
        Manifest = 3,
    }

    /// <summary>One property as decode.h gives it, in payload order (a flattened tree).</summary>
    public sealed record DecodedProperty(string Name, string Formatted, int Parent, uint ChildCount, uint Kind,
                                         ushort InType, ushort OutType);

    /// <summary>
    /// A decoded event (TDH's role, on any OS): names and fields of TraceLogging, manifest and
    /// kernel (MOF) events, copied from the library so it outlives the callback. Values are
    /// .NET types: integers by width (sbyte ... ulong), float, double, bool, string, byte[],
    /// Guid, DateTime (FILETIME as UTC, SYSTEMTIME as stored), pointers as ulong, arrays as
    /// object[], structs as IReadOnlyDictionary&lt;string, object&gt;; SIDs, IP addresses and
    /// what has no closer type are the library's formatted text.
    /// </summary>
    public sealed class DecodedEvent
    {
        private readonly Dictionary<string, object> _fields;
        private readonly List<string> _names;

#pragma warning disable CS1591 // decode.h documents each name
        public DecodeSource Source { get; }
        public string EventName { get; }
        public string ProviderName { get; }
        public string TaskName { get; }
        public string OpcodeName { get; }
        public string LevelName { get; }
        public string KeywordsName { get; }
        public uint PayloadUsed { get; }
#pragma warning restore CS1591
        /// <summary>Every property (values, arrays, structs, elements) in payload order.</summary>
        public IReadOnlyList<DecodedProperty> Properties { get; }
        /// <summary>Top-level field name to value.</summary>
        public IReadOnlyDictionary<string, object> Fields => _fields;
        /// <summary>The top-level field names in payload order (TraceEvent's PayloadNames).</summary>
        public IReadOnlyList<string> PayloadNames => _names;

        /// <summary>The value of field <paramref name="name"/>, or null when absent (as TraceEvent).</summary>
        public object? PayloadByName(string name) => _fields.TryGetValue(name, out var v) ? v : null;

        /// <summary>The library's formatted text of field <paramref name="name"/>, or null when absent.</summary>
        public string? PayloadString(string name)
        {
            foreach (var p in Properties)
                if (p.Parent < 0 && p.Name == name)
                    return p.Formatted;
            return null;
        }

        /// <summary>The value of field <paramref name="name"/>; KeyNotFoundException names the event when absent.</summary>
        public object this[string name] => _fields.TryGetValue(name, out var v) ? v
            : throw new KeyNotFoundException($"event '{EventName}' has no field '{name}'");

        private unsafe DecodedEvent(DecodedEventNative* e)
        {
            Source = (DecodeSource)e->Source;
            EventName = Text(e->EventName);
            ProviderName = Text(e->ProviderName);
            TaskName = Text(e->TaskName);
            OpcodeName = Text(e->OpcodeName);
            LevelName = Text(e->LevelName);
            KeywordsName = Text(e->KeywordsName);
            PayloadUsed = e->PayloadUsed;
            var raw = (EventPropertyNative*)e->Properties;
            int n = checked((int)e->PropertyCount);
            var props = new DecodedProperty[n];
            var values = new object?[n];
            _fields = new Dictionary<string, object>(StringComparer.Ordinal);
            _names = new List<string>();
            for (int i = 0; i < n; i++)
            {
                EventPropertyNative* p = &raw[i];
                int parent = p->Parent == uint.MaxValue ? -1 : checked((int)p->Parent);
                props[i] = new DecodedProperty(Text(p->Name), Text(p->Value), parent, p->ChildCount, p->Kind,
                                               p->InType, p->OutType);
                var data = p->Data == IntPtr.Zero ? ReadOnlySpan<byte>.Empty
                                                  : new ReadOnlySpan<byte>((void*)p->Data, checked((int)p->DataSize));
                values[i] = p->Kind switch
                {
                    KindArray => new object[p->ChildCount],
                    KindStruct => new Dictionary<string, object>(StringComparer.Ordinal),
                    _ => Convert(props[i], data),
                };
            }
            var filled = new int[n];
            for (int i = 0; i < n; i++)
            {
                object value = values[i]!;
                int parent = props[i].Parent;
                if (parent >= 0 && parent < i && values[parent] is object[] items && filled[parent] < items.Length)
                    items[filled[parent]++] = value;
                else if (parent >= 0 && parent < i && values[parent] is Dictionary<string, object> members)
                    members.TryAdd(props[i].Name, value);
                else if (_fields.TryAdd(props[i].Name, value)) // a repeated name keeps its first value
                    _names.Add(props[i].Name);
            }
            Properties = props;
        }

        private const uint KindArray = 1, KindStruct = 2;
        private const ushort OutString = 1, OutBoolean = 13;

        private static string Text(IntPtr p) => p == IntPtr.Zero ? "" : Marshal.PtrToStringUTF8(p) ?? "";

        /// <summary>The .NET value of one VALUE property from its TDH in-type and its bytes.</summary>
        internal static object Convert(DecodedProperty p, ReadOnlySpan<byte> d)
        {
            switch (p.InType)
            {
                case 1: case 2: case 22: case 23: case >= 300 and <= 307:
                    return p.Formatted; // strings of every kind, as UTF-8 text
            }
            if (p.OutType == OutString || p.OutType is 23 or 24 or 25 or 28 or 34 or 35)
                return p.Formatted; // character arrays as one string; addresses, XML, JSON
            object? v = (p.InType, d.Length) switch
            {
                (0, _) => "",
                (3, 1) => (sbyte)d[0],
                (4, 1) => p.OutType == OutBoolean ? d[0] != 0 : d[0],
                (5, 2) => BinaryPrimitives.ReadInt16LittleEndian(d),
                (6, 2) => BinaryPrimitives.ReadUInt16LittleEndian(d),
                (7, 4) => BinaryPrimitives.ReadInt32LittleEndian(d),
                (8 or 20, 4) => p.OutType == OutBoolean ? BinaryPrimitives.ReadUInt32LittleEndian(d) != 0
                                                        : BinaryPrimitives.ReadUInt32LittleEndian(d),
                (9, 8) => BinaryPrimitives.ReadInt64LittleEndian(d),
                (10 or 21, 8) => BinaryPrimitives.ReadUInt64LittleEndian(d),
                (11, 4) => BinaryPrimitives.ReadSingleLittleEndian(d),
                (12, 8) => BinaryPrimitives.ReadDoubleLittleEndian(d),
                (13, 4) => BinaryPrimitives.ReadUInt32LittleEndian(d) != 0,
                (14 or 25 or 309, _) => d.ToArray(),
                (15, 16) => new Guid(d),
                (16 or 308, 4) => (ulong)BinaryPrimitives.ReadUInt32LittleEndian(d),
                (16 or 308, 8) => BinaryPrimitives.ReadUInt64LittleEndian(d),
                (17, 8) => FileTime(BinaryPrimitives.ReadInt64LittleEndian(d)),
                (18, 16) => SystemTime(d),
                _ => null,
            };
            return v ?? p.Formatted; // SIDs and whatever has no closer type: the library's text
        }

        private static object? FileTime(long ticks) =>
            ticks >= 0 && ticks <= DateTime.MaxValue.Ticks - 504911232000000000L ? DateTime.FromFileTimeUtc(ticks) : null;

        private static object? SystemTime(ReadOnlySpan<byte> d)
        {
            Span<int> w = stackalloc int[8];
            for (int i = 0; i < 8; i++)
                w[i] = BinaryPrimitives.ReadUInt16LittleEndian(d.Slice(i * 2));
            try { return new DateTime(w[0], w[1], w[3], w[4], w[5], w[6], w[7], DateTimeKind.Unspecified); }
            catch (ArgumentOutOfRangeException) { return null; } // not a date: the formatted text
        }

        // ---- Decoding: one decoder per thread and Schemas (decode.h), and the last result of the thread ----
        [ThreadStatic] private static DecodedEvent? t_last;
        [ThreadStatic] private static bool t_lastMissing;
        [ThreadStatic] private static IntPtr t_lastRecord;
        [ThreadStatic] private static (uint, uint, uint, long) t_lastKey;
        [ThreadStatic] private static Schemas? t_lastSchemas;
        [ThreadStatic] private static int t_lastGeneration;

        /// <summary>
        /// Decodes a record the library is delivering: null when no schema describes it;
        /// OpenEtwException (InvalidData) when its payload does not match its schema. The
        /// thread's last answer is reused while the same record is asked about again.
        /// </summary>
        internal static unsafe DecodedEvent? Decode(RecordNative* record) => Decode(record, Schemas.Active);

        /// <summary>As above, with the sources of <paramref name="schemas"/>.</summary>
        internal static unsafe DecodedEvent? Decode(RecordNative* record, Schemas schemas, bool delivered = true)
        {
            var key = (record->FileIndex, record->BufferIndex, record->BufferOffset, record->TimestampRaw);
            DecoderHandle decoder = schemas.Decoder(out int generation);
            // Only a record being delivered is the same one while its pointer and position are.
            if (delivered && t_lastRecord == (IntPtr)record && t_lastKey == key && (t_last != null || t_lastMissing) &&
                ReferenceEquals(t_lastSchemas, schemas) && t_lastGeneration == generation)
                return t_last;
            t_lastRecord = IntPtr.Zero;
            uint status = NativeMethods.etw_decoder_decode(out IntPtr decoded, decoder, (IntPtr)record);
            DecodedEvent? result = null;
            if (status == 0)
                result = new DecodedEvent((DecodedEventNative*)decoded);
            else if (status != (uint)Status.NotFound)
                throw OpenEtwException.FromStatus(status);
            if (delivered)
            {
                (t_last, t_lastMissing, t_lastRecord, t_lastKey) = (result, result == null, (IntPtr)record, key);
                (t_lastSchemas, t_lastGeneration) = (schemas, generation);
            }
            return result;
        }
    }

    // What TraceRecord and ClassicEvent gain: decoded on first use, during the callback.
    public readonly unsafe ref partial struct TraceRecord
    {
        /// <summary>The decoded event (a copy that outlives the callback), or null when no schema describes it.</summary>
        public DecodedEvent? Decode() => DecodedEvent.Decode(_r);
        internal DecodedEvent? DecodeWith(Schemas schemas) => DecodedEvent.Decode(_r, schemas);
        /// <summary>The event's name, or "" when no schema describes it.</summary>
        public string EventName => Decode()?.EventName ?? "";
        /// <summary>The provider's name, or "".</summary>
        public string ProviderName => Decode()?.ProviderName ?? "";
        /// <summary>The task's name where known, or "".</summary>
        public string TaskName => Decode()?.TaskName ?? "";
        /// <summary>The opcode's name where known, or "".</summary>
        public string OpcodeName => Decode()?.OpcodeName ?? "";
        /// <summary>Top-level field names in payload order (empty when no schema describes the event).</summary>
        public IReadOnlyList<string> PayloadNames => Decode()?.PayloadNames ?? Array.Empty<string>();
        /// <summary>Field name to value (empty when no schema describes the event).</summary>
        public IReadOnlyDictionary<string, object> Fields => Decode()?.Fields ?? EmptyFields.Instance;
        /// <summary>The value of a field, or null when absent.</summary>
        public object? PayloadByName(string name) => Decode()?.PayloadByName(name);
        /// <summary>The formatted text of a field, or null when absent.</summary>
        public string? PayloadString(string name) => Decode()?.PayloadString(name);
    }

    public readonly unsafe ref partial struct ClassicEvent
    {
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

    internal static class EmptyFields
    {
        internal static readonly IReadOnlyDictionary<string, object> Instance = new Dictionary<string, object>();
    }
}
