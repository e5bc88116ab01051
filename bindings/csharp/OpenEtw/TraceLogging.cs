using System;
using System.Collections.Generic;
using System.Text;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// What a TraceLogging event is besides its name and fields (EventSourceOptions): level,
    /// keywords, opcode, channel, and the EVENT_DESCRIPTOR's id, version and task, plus optional
    /// activity ids. <c>new TraceLoggingOptions()</c> is TraceLogging's default: verbose
    /// level, channel 11, the rest 0.
    /// </summary>
    public readonly record struct TraceLoggingOptions
    {
        /// <summary>TraceLogging's defaults: Level Verbose, Channel 11 (ETW_TL_CHANNEL).</summary>
        public TraceLoggingOptions() { }

        /// <summary>Sessions take levels up to their own (default Verbose, 5).</summary>
        public EtwLevel Level { get; init; } = EtwLevel.Verbose;
        /// <summary>Sessions take it by their MatchAnyKeyword / MatchAllKeyword (0: always).</summary>
        public ulong Keywords { get; init; }
        /// <summary>The opcode (e.g. 1 start, 2 stop).</summary>
        public byte Opcode { get; init; }
        /// <summary>The channel (default 11, TraceLogging's).</summary>
        public byte Channel { get; init; } = (byte)N.ETW_TL_CHANNEL;
        /// <summary>EVENT_DESCRIPTOR.Id (TraceLogging events are told apart by name: usually 0).</summary>
        public ushort Id { get; init; }
        /// <summary>EVENT_DESCRIPTOR.Version.</summary>
        public byte Version { get; init; }
        /// <summary>EVENT_DESCRIPTOR.Task.</summary>
        public ushort Task { get; init; }
        /// <summary>The event's activity id; null: the thread's (<see cref="OpenEtw.ActivityId"/>).</summary>
        public Guid? ActivityId { get; init; }
        /// <summary>A related activity id, as an extended data item; null: none.</summary>
        public Guid? RelatedActivityId { get; init; }
    }

    // TraceLogging writing (tracelogging.h): self-describing events, as EventSource.Write.
    public sealed partial class Provider
    {
        /// <summary>
        /// Registers a TraceLogging provider by name, as EventSource and TraceLoggingRegister
        /// do: its GUID is <see cref="GuidFromName"/>(<paramref name="name"/>), and every event it
        /// writes carries the name (its PROV_TRAITS), so readers show it.
        /// </summary>
        /// <exception cref="OpenEtwException">InvalidParameter for an empty name or one too long for the traits.</exception>
        public Provider(string name, Action<ProviderEnableInfo>? enableCallback = null)
            : this(GuidFromName(name), enableCallback)
        {
            try { SetName(name); }
            catch { Dispose(); throw; }
        }

        /// <summary>The name set by the name constructor or <see cref="SetName"/>, or null.</summary>
        public string? Name { get; private set; }

        /// <summary>
        /// The provider GUID TraceLogging and .NET EventSource derive from a provider name (SHA-1,
        /// name upper-cased, version 5): "MyCompany.MyComponent" gives ce5fa4ea-ab00-5402-8b76-9f76ac858fb5.
        /// </summary>
        public static Guid GuidFromName(string name)
        {
            if (name is null)
                throw new OpenEtwException(Status.InvalidParameter, "name is null");
            N.etw_provider_guid_from_name(out Guid guid, name);
            return guid;
        }

        /// <summary>
        /// Sets the provider's name (and an optional provider group) as its traits: every event
        /// written afterwards carries them. Once per provider: a second call throws
        /// AlreadyExists. Any thread.
        /// </summary>
        public unsafe void SetName(string name, Guid? group = null)
        {
            if (name is null)
                throw new OpenEtwException(Status.InvalidParameter, "name is null");
            Guid g = group ?? default;
            N.etw_provider_set_name(_handle, name, group.HasValue ? (IntPtr)(&g) : IntPtr.Zero);
            Name = name;
        }

        /// <summary>
        /// Writes a TraceLogging event named <paramref name="eventName"/> whose fields are the
        /// public properties of <paramref name="data"/> (an anonymous type or any object), in
        /// declaration order, typed as EventSource.Write types them: sbyte..ulong, nint/nuint
        /// (64-bit), float, double, decimal (as double), bool (UINT8 shown as boolean), char
        /// (UINT16 shown as a character), enums (their underlying integer), string (counted
        /// UTF-16), Guid, DateTime (FILETIME, UTC), TimeSpan (Int64 ticks), byte[] (binary),
        /// arrays of the fixed-size ones, and List&lt;T&gt; of numbers, char or Guid; properties
        /// marked [EventIgnore] are left out. null data writes an event without fields.
        /// A type is reflected once: its layout (compiled getters, field names) is cached.
        /// When no session takes the event (none enables the provider, or none at this level
        /// and keywords) this returns at once, looking at nothing.
        /// Any thread.
        /// </summary>
        /// <exception cref="OpenEtwException">InvalidParameter (a property type without a TraceLogging
        /// type, more than 128 fields, a string or binary above 65535 bytes, a null event name),
        /// ArithmeticOverflow (the values or the metadata too large for one event), MoreData /
        /// NotEnoughMemory / LogFileFull when a session could not take it.</exception>
        public void Write<T>(string eventName, T data) => Write(eventName, new TraceLoggingOptions(), data);

        /// <summary>As <see cref="Write{T}(string, T)"/>, with level, keywords, opcode and the rest.</summary>
        public void Write<T>(string eventName, in TraceLoggingOptions options, T data)
        {
            Status status = TryWrite(eventName, options, data, out string? message);
            if (status != Status.Ok)
                throw new OpenEtwException(status, message ?? "");
        }

        /// <summary>As <see cref="Write{T}(string, in TraceLoggingOptions, T)"/>, returning the status instead of throwing.</summary>
        public Status TryWrite<T>(string eventName, in TraceLoggingOptions options, T data) =>
            TryWrite(eventName, options, data, out _);

        // Fields built at run time: names and values copied into one pinned block per call.
        private unsafe Status WriteFields(string eventName, in TraceLoggingOptions options, TraceLoggingFields fields,
                                          out string? message)
        {
            message = null;
            var list = new List<TraceLoggingField>(fields);
            int total = Encoding.UTF8.GetByteCount(eventName) + 1;
            foreach (TraceLoggingField f in list)
                total += Encoding.UTF8.GetByteCount(f.Name) + 1 + f.Value.Length;
            byte[] block = GC.AllocateUninitializedArray<byte>(total, pinned: true);
            var native = new TlFieldNative[list.Count];
            fixed (byte* start = block)
            fixed (TlFieldNative* nativeFields = native)
            {
                int used = 0;
                int Put(string text) // the text's offset in block, written NUL-terminated
                {
                    int at = used;
                    used += Encoding.UTF8.GetBytes(text, block.AsSpan(used));
                    block[used++] = 0;
                    return at;
                }
                IntPtr utf8Name = (IntPtr)(start + Put(eventName));
                for (int i = 0; i < list.Count; i++)
                {
                    TraceLoggingField f = list[i];
                    if (f.Name.Contains('\0'))
                    {
                        message = $"field {i}: the name \"{f.Name.Replace("\0", "\\0")}\" holds a NUL character";
                        return Status.InvalidParameter;
                    }
                    IntPtr name = (IntPtr)(start + Put(f.Name));
                    f.Value.CopyTo(block, used);
                    native[i] = new TlFieldNative
                    {
                        Name = name, Data = (IntPtr)(start + used), Size = (uint)f.Value.Length,
                        InType = f.InType, OutType = f.OutType,
                    };
                    used += f.Value.Length;
                }
                var d = new EventDescriptorNative
                {
                    Id = options.Id, Version = options.Version, Channel = options.Channel, Level = (byte)options.Level,
                    Opcode = options.Opcode, Task = options.Task, Keyword = options.Keywords,
                };
                Guid activity = options.ActivityId ?? default, related = options.RelatedActivityId ?? default;
                var status = (Status)N.etw_provider_write_tracelogging(_handle, utf8Name, ref d,
                    options.ActivityId.HasValue ? (IntPtr)(&activity) : IntPtr.Zero,
                    options.RelatedActivityId.HasValue ? (IntPtr)(&related) : IntPtr.Zero,
                    (uint)list.Count, (IntPtr)nativeFields);
                if (status is Status.InvalidParameter or Status.ArithmeticOverflow)
                    message = N.etw_last_error_message();
                return status;
            }
        }

        // One thread's value buffer, pinned: a record's payload is below 64 KB.
        [ThreadStatic] private static byte[]? t_values;
        [ThreadStatic] private static bool t_busy;
        private const int ValuesCapacity = 0x10000;

        private unsafe Status TryWrite<T>(string eventName, in TraceLoggingOptions options, T data, out string? message)
        {
            message = null;
            // As TraceLoggingWrite: an event no session takes (by level and keywords) reads nothing.
            if (!EnabledHint || N.etw_provider_is_enabled(_handle, (byte)options.Level, options.Keywords) == 0)
                return Status.Ok;
            if (eventName is null || eventName.Contains('\0'))
            {
                message = eventName is null ? "eventName is null" : $"eventName \"{eventName.Replace("\0", "\\0")}\" holds a NUL character";
                return Status.InvalidParameter;
            }
            object? owner = data; // boxed once when T is a struct (a class is not copied)
            if (owner is TraceLoggingFields dynamicFields)
                return WriteFields(eventName, options, dynamicFields, out message);
            TraceLoggingLayout layout = owner is null ? TraceLoggingLayout.Empty : TraceLoggingLayout.For(owner.GetType());
            if (layout.Error is not null)
            {
                message = layout.Error;
                return Status.InvalidParameter;
            }
            // A getter that writes an event itself (re-entry on this thread) gets its own buffer.
            byte[] values = !t_busy ? (t_values ??= GC.AllocateUninitializedArray<byte>(ValuesCapacity, pinned: true))
                                    : GC.AllocateUninitializedArray<byte>(ValuesCapacity, pinned: true);
            bool outer = !t_busy;
            t_busy = true;
            try
            {
                FieldWriter[] fields = layout.Fields;
                TlFieldNative* native = stackalloc TlFieldNative[fields.Length];
                fixed (byte* bytes = values)
                {
                    int used = 0;
                    for (int i = 0; i < fields.Length; i++)
                    {
                        int size = fields[i].Write(owner!, new Span<byte>(bytes + used, ValuesCapacity - used));
                        if (size < 0)
                        {
                            message = $"field '{fields[i].Name}': the event's values pass {ValuesCapacity - 1} bytes";
                            return Status.ArithmeticOverflow;
                        }
                        native[i] = new TlFieldNative
                        {
                            Name = fields[i].Utf8Name, Data = (IntPtr)(bytes + used), Size = (uint)size,
                            InType = fields[i].InType, OutType = fields[i].OutType,
                        };
                        used += size;
                    }
                    int nameMax = eventName.Length * 3 + 1;
                    Span<byte> name = nameMax <= 1024 ? stackalloc byte[nameMax] : new byte[nameMax];
                    Utf8Z.Encode(eventName, name);
                    var d = new EventDescriptorNative
                    {
                        Id = options.Id, Version = options.Version, Channel = options.Channel, Level = (byte)options.Level,
                        Opcode = options.Opcode, Task = options.Task, Keyword = options.Keywords,
                    };
                    Guid activity = options.ActivityId ?? default, related = options.RelatedActivityId ?? default;
                    fixed (byte* utf8Name = name)
                    {
                        var status = (Status)N.etw_provider_write_tracelogging(_handle, (IntPtr)utf8Name, ref d,
                            options.ActivityId.HasValue ? (IntPtr)(&activity) : IntPtr.Zero,
                            options.RelatedActivityId.HasValue ? (IntPtr)(&related) : IntPtr.Zero,
                            (uint)fields.Length, (IntPtr)native);
                        // The library's sentence for what it checked; a session's drop sets none.
                        if (status is Status.InvalidParameter or Status.ArithmeticOverflow)
                            message = N.etw_last_error_message();
                        return status;
                    }
                }
            }
            finally
            {
                if (outer)
                    t_busy = false;
            }
        }
    }
}
