using System;
using System.Buffers.Binary;
using System.Collections;
using System.Collections.Generic;
using System.Text;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>One TraceLogging field built at run time: its name, in-type, out-type and value bytes.</summary>
    /// <param name="Name">The field name.</param>
    /// <param name="InType">ETW_TL_IN_* (with ETW_TL_IN_ARRAY for an array).</param>
    /// <param name="OutType">ETW_TL_OUT_*; 0 for the in-type's default.</param>
    /// <param name="Value">The value's bytes as etw_tl_field takes them (a string's without its NUL).</param>
    public sealed record TraceLoggingField(string Name, byte InType, byte OutType, byte[] Value);

    /// <summary>
    /// The fields of a TraceLogging event whose names and types are known only at run time (a
    /// dictionary, a scenario file), for <see cref="Provider.Write{T}(string, in TraceLoggingOptions, T)"/>:
    /// pass an instance as the data and its fields are written in the order added, each with
    /// the in-type its Add method names. <c>Add(name, value)</c> types values as the anonymous-type
    /// path does (EventSource's types: bool as UINT8 shown as boolean, string as counted UTF-16);
    /// <see cref="AddBool32"/> and <see cref="AddUtf8"/> give TraceLoggingBool (BOOL32) and
    /// TraceLoggingUtf8String (ANSISTRING, UTF-8). Unlike the anonymous-type path, it allocates.
    /// </summary>
    public sealed class TraceLoggingFields : IEnumerable<TraceLoggingField>
    {
        private readonly List<TraceLoggingField> _fields = new();

        /// <summary>The number of fields.</summary>
        public int Count => _fields.Count;

        /// <summary>Adds a field of any in-type with its value's bytes (copied).</summary>
        public TraceLoggingFields Add(string name, byte inType, byte outType, ReadOnlySpan<byte> value)
        {
            ArgumentNullException.ThrowIfNull(name);
            _fields.Add(new TraceLoggingField(name, inType, outType, value.ToArray()));
            return this;
        }

        /// <summary>INT32.</summary>
        public TraceLoggingFields Add(string name, int value) => Scalar(name, N.ETW_TL_IN_INT32, 0, 4, b => BinaryPrimitives.WriteInt32LittleEndian(b, value));
        /// <summary>UINT32.</summary>
        public TraceLoggingFields Add(string name, uint value) => Scalar(name, N.ETW_TL_IN_UINT32, 0, 4, b => BinaryPrimitives.WriteUInt32LittleEndian(b, value));
        /// <summary>INT64.</summary>
        public TraceLoggingFields Add(string name, long value) => Scalar(name, N.ETW_TL_IN_INT64, 0, 8, b => BinaryPrimitives.WriteInt64LittleEndian(b, value));
        /// <summary>UINT64.</summary>
        public TraceLoggingFields Add(string name, ulong value) => Scalar(name, N.ETW_TL_IN_UINT64, 0, 8, b => BinaryPrimitives.WriteUInt64LittleEndian(b, value));
        /// <summary>DOUBLE.</summary>
        public TraceLoggingFields Add(string name, double value) => Scalar(name, N.ETW_TL_IN_DOUBLE, 0, 8, b => BinaryPrimitives.WriteDoubleLittleEndian(b, value));
        /// <summary>UINT8 shown as a boolean (EventSource's bool).</summary>
        public TraceLoggingFields Add(string name, bool value) => Scalar(name, N.ETW_TL_IN_UINT8, N.ETW_TL_OUT_BOOLEAN, 1, b => b[0] = value ? (byte)1 : (byte)0);
        /// <summary>Counted UTF-16 (EventSource's string).</summary>
        public TraceLoggingFields Add(string name, string value)
        {
            ArgumentNullException.ThrowIfNull(value);
            return Add(name, (byte)N.ETW_TL_IN_COUNTEDSTRING, 0, Encoding.Unicode.GetBytes(value));
        }

        /// <summary>BOOL32 (TraceLoggingBool): 4 bytes, 0 or 1.</summary>
        public TraceLoggingFields AddBool32(string name, bool value) =>
            Scalar(name, N.ETW_TL_IN_BOOL32, 0, 4, b => BinaryPrimitives.WriteInt32LittleEndian(b, value ? 1 : 0));

        /// <summary>A NUL-terminated UTF-8 string (ANSISTRING shown as UTF-8, TraceLoggingUtf8String).</summary>
        public TraceLoggingFields AddUtf8(string name, string value)
        {
            ArgumentNullException.ThrowIfNull(value);
            return Add(name, (byte)N.ETW_TL_IN_ANSISTRING, (byte)N.ETW_TL_OUT_UTF8, Encoding.UTF8.GetBytes(value));
        }

        private TraceLoggingFields Scalar(string name, uint inType, uint outType, int size, SpanAction write)
        {
            Span<byte> bytes = stackalloc byte[size];
            write(bytes);
            return Add(name, (byte)inType, (byte)outType, bytes);
        }

        private delegate void SpanAction(Span<byte> bytes);

        /// <inheritdoc/>
        public IEnumerator<TraceLoggingField> GetEnumerator() => _fields.GetEnumerator();

        IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();
    }
}
