using System;
using System.Collections.Concurrent;
using System.Linq.Expressions;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// How the public properties of one .NET type become TraceLogging fields, built once per
    /// type by reflection and cached: each property gets a compiled getter that writes its
    /// value's bytes (no boxing), its UTF-8 name kept in native memory for the process's life
    /// (as EventSource keeps its per-type metadata), and its in/out types as EventSource
    /// maps them.
    /// </summary>
    internal sealed class TraceLoggingLayout
    {
        private static readonly ConcurrentDictionary<Type, TraceLoggingLayout> s_cache = new();

        // How many times each type was reflected: tests prove a type is reflected once.
        private static readonly ConcurrentDictionary<Type, int> s_builds = new();
        internal static int Builds(Type type) => s_builds.TryGetValue(type, out int n) ? n : 0;

        public readonly FieldWriter[] Fields;
        /// <summary>Why the type cannot be written, or null: kept so a bad type fails the same way every time.</summary>
        public readonly string? Error;

        private TraceLoggingLayout(FieldWriter[] fields, string? error) => (Fields, Error) = (fields, error);

        public static readonly TraceLoggingLayout Empty = new(Array.Empty<FieldWriter>(), null);

        public static TraceLoggingLayout For(Type type) => s_cache.GetOrAdd(type, Build);

        private static TraceLoggingLayout Build(Type type)
        {
            s_builds.AddOrUpdate(type, 1, (_, n) => n + 1);
            var props = type.GetProperties(BindingFlags.Public | BindingFlags.Instance);
            var fields = new System.Collections.Generic.List<FieldWriter>();
            foreach (var p in props)
            {
                if (p.GetMethod is not { IsPublic: true } || p.GetIndexParameters().Length != 0 ||
                    p.IsDefined(typeof(System.Diagnostics.Tracing.EventIgnoreAttribute)))
                    continue; // as EventSource: public getters, no indexers, none marked [EventIgnore]
                FieldWriter? w = FieldWriter.Create(type, p);
                if (w is null)
                    return new TraceLoggingLayout(Array.Empty<FieldWriter>(),
                        $"property '{p.Name}' of {type.Name} is a {p.PropertyType.Name}, which has no TraceLogging type " +
                        "(integers, bool, char, float, double, decimal, enums, string, Guid, DateTime, TimeSpan, byte[], " +
                        "arrays of the fixed-size ones, List<T> of the fixed-size numbers, char and Guid)");
                fields.Add(w);
            }
            if (fields.Count > N.ETW_TL_MAX_FIELDS)
                return new TraceLoggingLayout(Array.Empty<FieldWriter>(),
                    $"{type.Name} has {fields.Count} properties: an event has at most {N.ETW_TL_MAX_FIELDS} fields");
            return new TraceLoggingLayout(fields.ToArray(), null);
        }
    }

    /// <summary>One field: its name, types, and a writer of its value's bytes.</summary>
    internal abstract class FieldWriter
    {
        public readonly string Name;
        public readonly IntPtr Utf8Name; // NUL-terminated, never freed (the layout cache lives as long)
        public readonly byte InType, OutType;

        protected FieldWriter(string name, uint inType, uint outType)
        {
            Name = name;
            Utf8Name = Marshal.StringToCoTaskMemUTF8(name);
            (InType, OutType) = ((byte)inType, (byte)outType);
        }

        /// <summary>Writes the value's bytes into <paramref name="dest"/>: their count, or -1 when they do not fit.</summary>
        public abstract int Write(object owner, Span<byte> dest);

        private const uint Array = N.ETW_TL_IN_ARRAY;

        /// <summary>The writer for property <paramref name="p"/>, or null when its type has no TraceLogging type.</summary>
        public static FieldWriter? Create(Type owner, PropertyInfo p)
        {
            var o = Expression.Parameter(typeof(object), "o");
            Expression value = Expression.Property(Expression.Convert(o, owner), p);
            Type t = p.PropertyType;
            if (t.IsEnum)
            {
                t = Enum.GetUnderlyingType(t);
                value = Expression.Convert(value, t);
            }
            string n = p.Name;
            if (t == typeof(string))
                return new StringWriter(n, Getter<string?>(value, o));
            if (t == typeof(byte[]))
                return new BinaryWriter(n, Getter<byte[]?>(value, o));
            if (t.IsArray && t.GetArrayRank() == 1)
            {
                Type e = t.GetElementType()!;
                if (e == typeof(bool))
                    return new ArrayWriter<bool, byte>(n, N.ETW_TL_IN_UINT8 | Array, N.ETW_TL_OUT_BOOLEAN, Getter<bool[]?>(value, o), b => b ? (byte)1 : (byte)0);
                if (e == typeof(DateTime))
                    return new ArrayWriter<DateTime, long>(n, N.ETW_TL_IN_FILETIME | Array, 0, Getter<DateTime[]?>(value, o), FileTime);
                return s_elements.TryGetValue(e, out var types) ? Generic(nameof(ArrayOf), e, n, types, value, o) : null;
            }
            // List<T> of the fixed-size types that need no conversion, as arrays (EventSource takes enumerables).
            if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(System.Collections.Generic.List<>))
            {
                Type e = t.GetGenericArguments()[0];
                return s_elements.TryGetValue(e, out var types) ? Generic(nameof(ListOf), e, n, types, value, o) : null;
            }
            // Scalars: EventSource's types (bool is Boolean8: a UINT8 shown as a boolean; char is
            // Char16; decimal is written as a double; TimeSpan as its Int64 ticks; pointers by width).
            return t == typeof(bool) ? Scalar<byte>(n, N.ETW_TL_IN_UINT8, N.ETW_TL_OUT_BOOLEAN, Expression.Condition(value, Expression.Constant((byte)1), Expression.Constant((byte)0)), o)
                 : t == typeof(char) ? Scalar<ushort>(n, N.ETW_TL_IN_UINT16, N.ETW_TL_OUT_STRING, Expression.Convert(value, typeof(ushort)), o)
                 : t == typeof(sbyte) ? Scalar<sbyte>(n, N.ETW_TL_IN_INT8, 0, value, o)
                 : t == typeof(byte) ? Scalar<byte>(n, N.ETW_TL_IN_UINT8, 0, value, o)
                 : t == typeof(short) ? Scalar<short>(n, N.ETW_TL_IN_INT16, 0, value, o)
                 : t == typeof(ushort) ? Scalar<ushort>(n, N.ETW_TL_IN_UINT16, 0, value, o)
                 : t == typeof(int) ? Scalar<int>(n, N.ETW_TL_IN_INT32, 0, value, o)
                 : t == typeof(uint) ? Scalar<uint>(n, N.ETW_TL_IN_UINT32, 0, value, o)
                 : t == typeof(long) ? Scalar<long>(n, N.ETW_TL_IN_INT64, 0, value, o)
                 : t == typeof(ulong) ? Scalar<ulong>(n, N.ETW_TL_IN_UINT64, 0, value, o)
                 : t == typeof(nint) ? Scalar<long>(n, N.ETW_TL_IN_INT64, 0, Expression.Convert(value, typeof(long)), o)
                 : t == typeof(nuint) ? Scalar<ulong>(n, N.ETW_TL_IN_UINT64, 0, Expression.Convert(value, typeof(ulong)), o)
                 : t == typeof(float) ? Scalar<float>(n, N.ETW_TL_IN_FLOAT, 0, value, o)
                 : t == typeof(double) ? Scalar<double>(n, N.ETW_TL_IN_DOUBLE, 0, value, o)
                 : t == typeof(decimal) ? Scalar<double>(n, N.ETW_TL_IN_DOUBLE, 0, Expression.Convert(value, typeof(double)), o)
                 : t == typeof(Guid) ? Scalar<Guid>(n, N.ETW_TL_IN_GUID, 0, value, o)
                 : t == typeof(DateTime) ? Scalar<long>(n, N.ETW_TL_IN_FILETIME, 0, Expression.Call(typeof(FieldWriter).GetMethod(nameof(FileTime), BindingFlags.NonPublic | BindingFlags.Static)!, value), o)
                 : t == typeof(TimeSpan) ? Scalar<long>(n, N.ETW_TL_IN_INT64, 0, Expression.Property(value, nameof(TimeSpan.Ticks)), o)
                 : null;
        }

        /// <summary>A DateTime as FILETIME (UTC; Unspecified taken as UTC); before 1601, 0 (as EventSource).</summary>
        internal static long FileTime(DateTime d)
        {
            if (d.Kind == DateTimeKind.Local)
                d = d.ToUniversalTime();
            return d.Ticks < 504911232000000000L ? 0 : d.Ticks - 504911232000000000L;
        }

        private static Func<object, T> Getter<T>(Expression value, ParameterExpression o) =>
            Expression.Lambda<Func<object, T>>(value, o).Compile();

        private static FieldWriter Scalar<T>(string n, uint inType, uint outType, Expression value, ParameterExpression o)
            where T : unmanaged => new ScalarWriter<T>(n, inType, outType, Getter<T>(value, o));

        // Element types stored as they are in memory, and their array in/out types (enums are not
        // here: their arrays would need a per-element conversion).
        private static readonly System.Collections.Generic.Dictionary<Type, (uint In, uint Out)> s_elements = new()
        {
            [typeof(char)] = (N.ETW_TL_IN_UINT16 | Array, N.ETW_TL_OUT_STRING), // Char16
            [typeof(sbyte)] = (N.ETW_TL_IN_INT8 | Array, 0),
            [typeof(byte)] = (N.ETW_TL_IN_UINT8 | Array, 0), // a List<byte>: byte[] is binary
            [typeof(short)] = (N.ETW_TL_IN_INT16 | Array, 0),
            [typeof(ushort)] = (N.ETW_TL_IN_UINT16 | Array, 0),
            [typeof(int)] = (N.ETW_TL_IN_INT32 | Array, 0),
            [typeof(uint)] = (N.ETW_TL_IN_UINT32 | Array, 0),
            [typeof(long)] = (N.ETW_TL_IN_INT64 | Array, 0),
            [typeof(ulong)] = (N.ETW_TL_IN_UINT64 | Array, 0),
            [typeof(float)] = (N.ETW_TL_IN_FLOAT | Array, 0),
            [typeof(double)] = (N.ETW_TL_IN_DOUBLE | Array, 0),
            [typeof(Guid)] = (N.ETW_TL_IN_GUID | Array, 0),
        };

        private static FieldWriter Generic(string method, Type element, string n, (uint In, uint Out) types,
                                           Expression value, ParameterExpression o) =>
            (FieldWriter)typeof(FieldWriter).GetMethod(method, BindingFlags.NonPublic | BindingFlags.Static)!
                .MakeGenericMethod(element).Invoke(null, new object[] { n, types.In, types.Out, value, o })!;

        private static FieldWriter ArrayOf<T>(string n, uint inType, uint outType, Expression value, ParameterExpression o)
            where T : unmanaged => new ArrayWriter<T, T>(n, inType, outType, Getter<T[]?>(value, o), null);

        private static FieldWriter ListOf<T>(string n, uint inType, uint outType, Expression value, ParameterExpression o)
            where T : unmanaged => new ListWriter<T>(n, inType, outType, Getter<System.Collections.Generic.List<T>?>(value, o));
    }

    internal sealed class ScalarWriter<T> : FieldWriter where T : unmanaged
    {
        private readonly Func<object, T> _get;
        public ScalarWriter(string name, uint inType, uint outType, Func<object, T> get) : base(name, inType, outType) => _get = get;

        public override unsafe int Write(object owner, Span<byte> dest)
        {
            T v = _get(owner);
            return MemoryMarshal.TryWrite(dest, in v) ? sizeof(T) : -1;
        }
    }

    /// <summary>An array of a fixed-size type: its elements' bytes (the library writes the count).</summary>
    internal sealed class ArrayWriter<TElem, TStore> : FieldWriter where TElem : unmanaged where TStore : unmanaged
    {
        private readonly Func<object, TElem[]?> _get;
        private readonly Func<TElem, TStore>? _convert; // null: TElem is stored as it is

        public ArrayWriter(string name, uint inType, uint outType, Func<object, TElem[]?> get, Func<TElem, TStore>? convert)
            : base(name, inType, outType) => (_get, _convert) = (get, convert);

        public override unsafe int Write(object owner, Span<byte> dest)
        {
            TElem[] items = _get(owner) ?? System.Array.Empty<TElem>(); // null is an empty array
            int size = items.Length * sizeof(TStore);
            if (size > dest.Length)
                return -1;
            if (_convert is null)
                MemoryMarshal.AsBytes(items.AsSpan()).CopyTo(dest);
            else
            {
                Span<TStore> to = MemoryMarshal.Cast<byte, TStore>(dest.Slice(0, size));
                for (int i = 0; i < items.Length; i++)
                    to[i] = _convert(items[i]);
            }
            return size;
        }
    }

    /// <summary>A List of a fixed-size type: its elements' bytes, read in place (null is empty).</summary>
    internal sealed class ListWriter<T> : FieldWriter where T : unmanaged
    {
        private readonly Func<object, System.Collections.Generic.List<T>?> _get;

        public ListWriter(string name, uint inType, uint outType, Func<object, System.Collections.Generic.List<T>?> get)
            : base(name, inType, outType) => _get = get;

        public override int Write(object owner, Span<byte> dest)
        {
            ReadOnlySpan<byte> bytes = MemoryMarshal.AsBytes(System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_get(owner)));
            return bytes.TryCopyTo(dest) ? bytes.Length : -1;
        }
    }

    /// <summary>string: CountedUtf16String as EventSource writes it (null is empty).</summary>
    internal sealed class StringWriter : FieldWriter
    {
        private readonly Func<object, string?> _get;
        public StringWriter(string name, Func<object, string?> get) : base(name, N.ETW_TL_IN_COUNTEDSTRING, 0) => _get = get;

        public override int Write(object owner, Span<byte> dest)
        {
            ReadOnlySpan<byte> bytes = MemoryMarshal.AsBytes((_get(owner) ?? "").AsSpan());
            return bytes.TryCopyTo(dest) ? bytes.Length : -1;
        }
    }

    /// <summary>byte[]: Binary as EventSource writes it (null is empty).</summary>
    internal sealed class BinaryWriter : FieldWriter
    {
        private readonly Func<object, byte[]?> _get;
        public BinaryWriter(string name, Func<object, byte[]?> get) : base(name, N.ETW_TL_IN_BINARY, 0) => _get = get;

        public override int Write(object owner, Span<byte> dest)
        {
            byte[] bytes = _get(owner) ?? System.Array.Empty<byte>();
            return bytes.AsSpan().TryCopyTo(dest) ? bytes.Length : -1;
        }
    }

    /// <summary>The UTF-8 of an event name, NUL-terminated, into a caller's buffer.</summary>
    internal static class Utf8Z
    {
        public static int Encode(string s, Span<byte> dest)
        {
            int n = Encoding.UTF8.GetBytes(s, dest.Slice(0, dest.Length - 1));
            dest[n] = 0;
            return n;
        }
    }
}
