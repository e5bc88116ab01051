using System;
using System.Buffers.Binary;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// What a session asks of a provider's EVENT_HEADER events (ENABLE_TRACE_PARAMETERS.EnableProperty,
    /// EVENT_ENABLE_PROPERTY_*): each property adds an extended data item to the events
    /// (<see cref="ExtendedItems"/> reads them back). Classic events carry none.
    /// </summary>
    [Flags]
    public enum EnableProperties : uint
    {
        /// <summary>No property.</summary>
        None = 0,
        /// <summary>The writer's user as a SID item (S-1-22-1-uid on POSIX).</summary>
        Sid = N.ETW_EVENT_ENABLE_PROPERTY_SID,
        /// <summary>The writer's terminal session id.</summary>
        TsId = N.ETW_EVENT_ENABLE_PROPERTY_TS_ID,
        /// <summary>The writing thread's stack.</summary>
        StackTrace = N.ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE,
        /// <summary>PSM key (accepted; no item on POSIX).</summary>
        PsmKey = N.ETW_EVENT_ENABLE_PROPERTY_PSM_KEY,
        /// <summary>Events of keyword 0 are not written to the session.</summary>
        IgnoreKeyword0 = N.ETW_EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0,
        /// <summary>The provider GUID is a provider group's.</summary>
        ProviderGroup = N.ETW_EVENT_ENABLE_PROPERTY_PROVIDER_GROUP,
        /// <summary>Keyword 0 events go to the session even with keywords set.</summary>
        EnableKeyword0 = N.ETW_EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0,
        /// <summary>A key unique to the writing process within the boot.</summary>
        ProcessStartKey = N.ETW_EVENT_ENABLE_PROPERTY_PROCESS_START_KEY,
        /// <summary>A key unique to the event within the writing process.</summary>
        EventKey = N.ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY,
        /// <summary>Excludes InPrivate processes (accepted).</summary>
        ExcludeInPrivate = N.ETW_EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE,
        /// <summary>Enables silos (accepted).</summary>
        EnableSilos = N.ETW_EVENT_ENABLE_PROPERTY_ENABLE_SILOS,
        /// <summary>Source container tracking (accepted).</summary>
        SourceContainerTracking = N.ETW_EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING,
    }

    /// <summary>
    /// A filter at the source (EVENT_FILTER_DESCRIPTOR and its payload): decided in the writing
    /// process before any buffer work. The constructors only encode what they are given; the
    /// library checks it when the enable call is made (an empty id list, more than 8 pids or
    /// two filters of one type throw <see cref="OpenEtwException"/> with its status and
    /// message). docs/FILTERS.md says what each type does.
    /// </summary>
    public abstract class EventFilter
    {
        private protected EventFilter(uint type) => Type = type;

        /// <summary>EVENT_FILTER_DESCRIPTOR.Type (ETW_EVENT_FILTER_TYPE_*).</summary>
        public uint Type { get; }

        /// <summary>The payload bytes EVENT_FILTER_DESCRIPTOR.Ptr points to.</summary>
        public abstract byte[] ToPayload();

        // EVENT_FILTER_EVENT_ID: FilterIn, Reserved, Count, then Count ids (also STACKWALK's).
        private protected static byte[] EventIds(bool include, ushort[] ids)
        {
            ArgumentNullException.ThrowIfNull(ids);
            var bytes = new byte[4 + 2 * ids.Length];
            bytes[0] = include ? (byte)1 : (byte)0;
            // A count that does not fit makes Size and Count disagree: the library says so.
            BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(2), (ushort)Math.Min(ids.Length, ushort.MaxValue));
            for (int i = 0; i < ids.Length; i++)
                BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(4 + 2 * i), ids[i]);
            return bytes;
        }
    }

    /// <summary>EVENT_ID: only these event ids are written (include) or every id but these.</summary>
    public sealed class EventIdFilter : EventFilter
    {
        /// <summary>A filter admitting (<paramref name="include"/> true) or excluding <paramref name="ids"/>.</summary>
        public EventIdFilter(bool include, params ushort[] ids) : base(N.ETW_EVENT_FILTER_TYPE_EVENT_ID)
        {
            ArgumentNullException.ThrowIfNull(ids);
            Include = include;
            _ids = (ushort[])ids.Clone();
        }

        private readonly ushort[] _ids;

        /// <summary>True: only these ids pass; false: all but these.</summary>
        public bool Include { get; }

        /// <summary>The event ids.</summary>
        public IReadOnlyList<ushort> Ids => _ids;

        /// <inheritdoc/>
        public override byte[] ToPayload() => EventIds(Include, _ids);
    }

    /// <summary>STACKWALK: with <see cref="EnableProperties.StackTrace"/>, only these ids carry stacks (include) or all but these.</summary>
    public sealed class StackwalkFilter : EventFilter
    {
        /// <summary>Stacks on <paramref name="ids"/> only.</summary>
        public StackwalkFilter(params ushort[] ids) : this(true, ids) { }

        /// <summary>Stacks on <paramref name="ids"/> only (<paramref name="include"/> true) or on all but them.</summary>
        public StackwalkFilter(bool include, params ushort[] ids) : base(N.ETW_EVENT_FILTER_TYPE_STACKWALK)
        {
            ArgumentNullException.ThrowIfNull(ids);
            Include = include;
            _ids = (ushort[])ids.Clone();
        }

        private readonly ushort[] _ids;

        /// <summary>True: only these ids carry stacks; false: all but these.</summary>
        public bool Include { get; }

        /// <summary>The event ids.</summary>
        public IReadOnlyList<ushort> Ids => _ids;

        /// <inheritdoc/>
        public override byte[] ToPayload() => EventIds(Include, _ids);
    }

    /// <summary>PID: only processes of these ids are enabled (at most 8, MAX_EVENT_FILTER_PID_COUNT).</summary>
    public sealed class PidFilter : EventFilter
    {
        /// <summary>A filter admitting the processes <paramref name="processIds"/>.</summary>
        public PidFilter(params int[] processIds) : base(N.ETW_EVENT_FILTER_TYPE_PID)
        {
            ArgumentNullException.ThrowIfNull(processIds);
            ProcessIds = (int[])processIds.Clone();
        }

        /// <summary>The process ids.</summary>
        public IReadOnlyList<int> ProcessIds { get; }

        /// <inheritdoc/>
        public override byte[] ToPayload()
        {
            var bytes = new byte[4 * ProcessIds.Count];
            for (int i = 0; i < ProcessIds.Count; i++)
                BinaryPrimitives.WriteInt32LittleEndian(bytes.AsSpan(4 * i), ProcessIds[i]);
            return bytes;
        }
    }

    /// <summary>
    /// EXECUTABLE_NAME: only processes whose executable has one of these names are enabled
    /// (Windows' list form: names joined by ';', compared without case).
    /// </summary>
    public sealed class ExecutableNameFilter : EventFilter
    {
        /// <summary>A filter admitting the executables <paramref name="names"/> (each may itself be a ';' list).</summary>
        public ExecutableNameFilter(params string[] names) : base(N.ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME)
        {
            ArgumentNullException.ThrowIfNull(names);
            Names = string.Join(';', names);
        }

        /// <summary>The names as the filter carries them, joined by ';'.</summary>
        public string Names { get; }

        /// <inheritdoc/>
        public override byte[] ToPayload() => Encoding.Unicode.GetBytes(Names + "\0");
    }

    /// <summary>
    /// EVENT_NAME: TraceLogging events named in <see cref="Names"/> are written (include) or
    /// every name but these; the filter applies to events of level up to <see cref="Level"/>
    /// (None: every level) and keywords matching <see cref="MatchAnyKeyword"/> /
    /// <see cref="MatchAllKeyword"/>. Other events pass as the session's level and keywords decide.
    /// </summary>
    public sealed class EventNameFilter : EventFilter
    {
        /// <summary>A filter admitting <paramref name="names"/>.</summary>
        public EventNameFilter(params string[] names) : this(true, names) { }

        /// <summary>A filter admitting (<paramref name="include"/> true) or excluding <paramref name="names"/>.</summary>
        public EventNameFilter(bool include, params string[] names) : base(N.ETW_EVENT_FILTER_TYPE_EVENT_NAME)
        {
            ArgumentNullException.ThrowIfNull(names);
            Include = include;
            Names = (string[])names.Clone();
        }

        /// <summary>True: only these names pass; false: all but these.</summary>
        public bool Include { get; }

        /// <summary>The event names.</summary>
        public IReadOnlyList<string> Names { get; }

        /// <summary>The highest level the filter applies to; None: every level.</summary>
        public EtwLevel Level { get; init; }

        /// <summary>The keywords the filter applies to (any of them; 0: every keyword).</summary>
        public ulong MatchAnyKeyword { get; init; }

        /// <summary>The keywords the filter applies to (all of them).</summary>
        public ulong MatchAllKeyword { get; init; }

        /// <inheritdoc/>
        public override byte[] ToPayload()
        {
            var text = new List<byte>();
            foreach (string name in Names)
            {
                text.AddRange(Encoding.UTF8.GetBytes(name));
                text.Add(0);
            }
            var bytes = new byte[20 + text.Count];
            BinaryPrimitives.WriteUInt64LittleEndian(bytes, MatchAnyKeyword);
            BinaryPrimitives.WriteUInt64LittleEndian(bytes.AsSpan(8), MatchAllKeyword);
            bytes[16] = (byte)Level;
            bytes[17] = Include ? (byte)1 : (byte)0;
            BinaryPrimitives.WriteUInt16LittleEndian(bytes.AsSpan(18), (ushort)Math.Min(Names.Count, ushort.MaxValue));
            text.CopyTo(bytes, 20);
            return bytes;
        }
    }

    /// <summary>Any filter type with its payload as bytes (a PAYLOAD filter built by hand, or a type this binding has no class for).</summary>
    public sealed class RawEventFilter : EventFilter
    {
        private readonly byte[] _payload;

        /// <summary>A filter of <paramref name="type"/> (ETW_EVENT_FILTER_TYPE_*) with <paramref name="payload"/>.</summary>
        public RawEventFilter(uint type, ReadOnlySpan<byte> payload) : base(type) => _payload = payload.ToArray();

        /// <inheritdoc/>
        public override byte[] ToPayload() => (byte[])_payload.Clone();
    }

    /// <summary>
    /// The enable parameters of <see cref="Session.EnableProvider(Guid, EtwLevel, ulong, ulong, EnableOptions)"/>
    /// (ENABLE_TRACE_PARAMETERS): properties and filters at the source, as TraceEvent's
    /// TraceEventProviderOptions carries them.
    /// </summary>
    public sealed class EnableOptions
    {
        /// <summary>The extended data items the session asks for.</summary>
        public EnableProperties Properties { get; set; }

        /// <summary>The filters (at most 13, one of each type), given in this order.</summary>
        public IList<EventFilter> Filters { get; } = new List<EventFilter>();

        /// <summary>ENABLE_TRACE_PARAMETERS.SourceId: accepted, not used.</summary>
        public Guid SourceId { get; set; }

        // TraceEvent's TraceEventProviderOptions spellings: each non-empty list becomes one more
        // filter after Filters (so giving a list and a filter of its type is "given twice").

        /// <summary>Only these processes (a PID filter, at most 8).</summary>
        public IList<int>? ProcessIdFilter { get; set; }

        /// <summary>Only processes of these executable names (an EXECUTABLE_NAME filter).</summary>
        public IList<string>? ProcessNameFilter { get; set; }

        /// <summary>Only these event ids (an EVENT_ID filter admitting them).</summary>
        public IList<int>? EventIdsToEnable { get; set; }

        /// <summary>Every event id but these (an EVENT_ID filter excluding them; not with <see cref="EventIdsToEnable"/>).</summary>
        public IList<int>? EventIdsToDisable { get; set; }

        /// <summary>Stacks on these ids only (a STACKWALK filter admitting them).</summary>
        public IList<int>? EventIdStacksToEnable { get; set; }

        /// <summary>Stacks on every id but these (a STACKWALK filter excluding them).</summary>
        public IList<int>? EventIdStacksToDisable { get; set; }

        /// <summary>Adds <see cref="EnableProperties.StackTrace"/> to <see cref="Properties"/>.</summary>
        public bool StacksEnabled { get; set; }

        /// <summary>The properties and every filter, the lists' filters after <see cref="Filters"/>.</summary>
        internal (EnableProperties Properties, List<EventFilter> Filters) Resolve()
        {
            var filters = new List<EventFilter>(Filters);
            static ushort[] Ids(IList<int> ids) => ids.Select(i => unchecked((ushort)i)).ToArray();
            if (EventIdsToEnable is { Count: > 0 })
                filters.Add(new EventIdFilter(true, Ids(EventIdsToEnable)));
            if (EventIdsToDisable is { Count: > 0 })
                filters.Add(new EventIdFilter(false, Ids(EventIdsToDisable)));
            if (ProcessIdFilter is { Count: > 0 })
                filters.Add(new PidFilter(ProcessIdFilter.ToArray()));
            if (ProcessNameFilter is { Count: > 0 })
                filters.Add(new ExecutableNameFilter(ProcessNameFilter.ToArray()));
            if (EventIdStacksToEnable is { Count: > 0 })
                filters.Add(new StackwalkFilter(true, Ids(EventIdStacksToEnable)));
            if (EventIdStacksToDisable is { Count: > 0 })
                filters.Add(new StackwalkFilter(false, Ids(EventIdStacksToDisable)));
            return (Properties | (StacksEnabled ? EnableProperties.StackTrace : 0), filters);
        }
    }
}

namespace OpenEtw.Interop
{
    /// <summary>
    /// Filters as the C calls take them: descriptors and payloads in arrays on the pinned
    /// object heap (never moved, collected with this object, so nothing to free by hand).
    /// Keep the object alive (GC.KeepAlive) until the call that reads them returns.
    /// </summary>
    internal sealed class PinnedFilters
    {
        private readonly EventFilterDescriptorNative[] _descriptors;
        private readonly byte[][] _payloads;

        public PinnedFilters(IEnumerable<EventFilter>? filters)
        {
            var list = filters is null ? new List<EventFilter>() : new List<EventFilter>(filters);
            _descriptors = GC.AllocateArray<EventFilterDescriptorNative>(list.Count, pinned: true);
            _payloads = new byte[list.Count][];
            for (int i = 0; i < list.Count; i++)
            {
                EventFilter filter = list[i] ?? throw new ArgumentNullException(nameof(filters), $"filter {i} is null");
                byte[] payload = filter.ToPayload();
                _payloads[i] = GC.AllocateUninitializedArray<byte>(payload.Length, pinned: true);
                payload.CopyTo(_payloads[i], 0);
                _descriptors[i] = new EventFilterDescriptorNative
                {
                    // An empty payload goes as a NULL pointer with Size 0: the library names it.
                    Ptr = payload.Length == 0 ? 0 : (ulong)System.Runtime.InteropServices.Marshal.UnsafeAddrOfPinnedArrayElement(_payloads[i], 0),
                    Size = (uint)payload.Length,
                    Type = filter.Type,
                };
            }
        }

        public uint Count => (uint)_descriptors.Length;

        /// <summary>The descriptor array's address; IntPtr.Zero when there are none.</summary>
        public IntPtr Pointer => _descriptors.Length == 0
            ? IntPtr.Zero
            : System.Runtime.InteropServices.Marshal.UnsafeAddrOfPinnedArrayElement(_descriptors, 0);
    }
}
