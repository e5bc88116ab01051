using System;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// A classic event provider (RegisterTraceGuids / TraceEvent): registers a control GUID,
    /// learns when sessions enable it, and writes events to every session that does.
    /// </summary>
    /// <remarks>
    /// <para>The enable callback runs on the thread of the call that changed the provider's
    /// state (<see cref="Session.EnableProvider(Guid, EtwLevel, ulong, ulong)"/>, <see cref="Session.DisableProvider"/>,
    /// <see cref="Session.Stop"/>, a private session's start), or inside this constructor when
    /// a session already enables the GUID; never on a hidden thread. An exception it throws
    /// is caught before it reaches native code and rethrown, with its stack, by that call
    /// once the library has returned (the state change itself has happened). From the
    /// constructor, the provider is unregistered first.</para>
    /// <para><see cref="Write(Guid, byte, EtwLevel, ushort, ReadOnlySpan{byte})"/>,
    /// <see cref="TryWrite"/> and <see cref="IsEnabled()"/> may be called from any number of
    /// threads; <see cref="Dispose"/> (unregister) waits for no write, so do not race it.</para>
    /// </remarks>
    public sealed partial class Provider : IDisposable
    {
        /// <summary>The largest payload an event can carry: EVENT_TRACE_HEADER.Size is 16-bit.</summary>
        public const int MaxPayloadSize = 0xFFFF - (int)N.ETW_EVENT_TRACE_HEADER_SIZE;

        private readonly ProviderHandle _handle;
        private readonly ProviderState _state;

        /// <summary>Registers a provider for <paramref name="guid"/> (several registrations of one GUID are allowed).</summary>
        public Provider(Guid guid, Action<ProviderEnableInfo>? enableCallback = null)
        {
            Guid = guid;
            _state = new ProviderState(enableCallback);
            IntPtr userData = UserData.Alloc(_state);
            ProviderHandle? handle = null;
            try
            {
                EnableCallbackErrors.Run(() =>
                    N.etw_provider_register(out handle, guid, ProviderCallbacks.Enable, userData, UserData.FreeFunction));
            }
            catch (Exception)
            {
                if (handle is { IsInvalid: false })
                    handle.Dispose(); // registered, but the callback threw: unregister frees userData
                else
                    UserData.Free(userData); // on failure the library did not take it
                throw;
            }
            _handle = handle!;
            _enabledWord = N.etw_provider_enabled_word(_handle);
        }

        private readonly IntPtr _enabledWord; // the library's word: valid until Dispose

        /// <summary>
        /// Whether some session enables the provider, read inline from the library's enabled word
        /// (one volatile load, no call): a cheap test before building an event. A hint that may be
        /// a moment late; <see cref="Write(byte, EtwLevel, ReadOnlySpan{byte})"/> checks again and
        /// <see cref="IsEnabled(EtwLevel, ulong)"/> also filters by level and keywords. Not after Dispose.
        /// </summary>
        public unsafe bool EnabledHint => !_handle.IsClosed && System.Threading.Volatile.Read(ref *(uint*)_enabledWord) != 0;

        /// <summary>The control GUID, and the default class GUID of written events.</summary>
        public Guid Guid { get; }

        /// <summary>The last enable notification (all zero before the first).</summary>
        public ProviderEnableInfo EnableInfo => _state.Last is ProviderEnableInfo info ? info : default;

        /// <summary>Whether some session enables the provider.</summary>
        public bool IsEnabled() => N.etw_provider_is_enabled(_handle, 0, 0) != 0;

        /// <summary>Whether some session enables the provider for this level and, when <paramref name="keywords"/> is not 0, one of these keywords.</summary>
        public bool IsEnabled(EtwLevel level, ulong keywords = 0) => N.etw_provider_is_enabled(_handle, (byte)level, keywords) != 0;

        /// <summary>Writes an event of the provider's own class GUID (version 0).</summary>
        public void Write(byte type, EtwLevel level, ReadOnlySpan<byte> payload) =>
            Write(Guid, type, level, 0, payload);

        /// <summary>
        /// Writes a classic event (TraceEvent) to every session that enables the provider and
        /// whose level admits <paramref name="level"/>; a disabled provider costs a load and
        /// a branch. Throws <see cref="OpenEtwException"/> for a failing status, e.g.
        /// <see cref="Status.MoreData"/> (larger than a buffer), <see cref="Status.NotEnoughMemory"/>
        /// or <see cref="Status.LogFileFull"/> (the event was dropped and counted in EventsLost).
        /// </summary>
        /// <param name="eventClass">The class GUID stored in the event.</param>
        /// <param name="type">Class.Type, the opcode (<c>ETW_TYPE_*</c> or a user type from 10).</param>
        /// <param name="level">Class.Level.</param>
        /// <param name="version">Class.Version.</param>
        /// <param name="payload">The event data, copied into the session's buffer before this returns.</param>
        public void Write(Guid eventClass, byte type, EtwLevel level, ushort version, ReadOnlySpan<byte> payload)
        {
            if (payload.Length > MaxPayloadSize)
                throw new OpenEtwException(Status.InvalidParameter,
                    $"payload: {payload.Length} bytes; an event's header and payload may not pass 0xFFFF bytes");
            Status status = TryWrite(eventClass, type, level, version, payload);
            if (status != Status.Ok)
                throw new OpenEtwException(status, ""); // the write path leaves no message: the status text is used
        }

        /// <summary>
        /// As <see cref="Write(Guid, byte, EtwLevel, ushort, ReadOnlySpan{byte})"/>, returning
        /// the status instead of throwing: for hot paths where a dropped event is expected.
        /// </summary>
        public unsafe Status TryWrite(Guid eventClass, byte type, EtwLevel level, ushort version, ReadOnlySpan<byte> payload)
        {
            if (payload.Length > MaxPayloadSize)
                return Status.InvalidParameter;
            fixed (byte* data = payload)
            {
                // The payload is gathered from its span (one MOF_FIELD), not copied here first.
                var ev = new MofEventNative();
                ev.Header.Guid = eventClass;
                ev.Header.Class = new EventClass { Type = type, Level = (byte)level, Version = version };
                ev.Header.Flags = N.ETW_WNODE_FLAG_TRACED_GUID;
                ev.Header.Size = (ushort)N.ETW_EVENT_TRACE_HEADER_SIZE;
                if (!payload.IsEmpty)
                {
                    ev.Header.Flags |= N.ETW_WNODE_FLAG_USE_MOF_PTR;
                    ev.Header.Size += (ushort)N.ETW_MOF_FIELD_SIZE;
                    ev.Field = new MofField { DataPtr = (ulong)data, Length = (uint)payload.Length };
                }
                return (Status)N.etw_provider_trace_event(_handle, ref ev.Header);
            }
        }

        /// <summary>
        /// Writes an event that keeps its descriptor (EventWrite, EventWriteTransfer): an
        /// EVENT_HEADER record with <paramref name="descriptor"/>, the activity id (null: the
        /// thread's, see <see cref="ActivityId"/>), a related activity id as an extended data
        /// item, and <paramref name="payload"/> as its user data (not copied). Each session takes
        /// it by its own level and keywords; written to no session is not an error.
        /// </summary>
        /// <exception cref="OpenEtwException">ArithmeticOverflow above 0xFFFF bytes in all,
        /// MoreData when a session's buffers are too small, NotEnoughMemory / LogFileFull when a
        /// session dropped it.</exception>
        public void WriteEvent(in EventDescriptor descriptor, ReadOnlySpan<byte> payload, Guid? activityId = null,
                               Guid? relatedActivityId = null)
        {
            var status = TryWriteEvent(descriptor, payload, activityId, relatedActivityId);
            if (status != Status.Ok)
                throw new OpenEtwException(status, ""); // the write path leaves no message: the status text is used
        }

        /// <summary>As <see cref="WriteEvent"/>, returning the status instead of throwing.</summary>
        public unsafe Status TryWriteEvent(in EventDescriptor descriptor, ReadOnlySpan<byte> payload,
                                           Guid? activityId = null, Guid? relatedActivityId = null)
        {
            var d = new EventDescriptorNative
            {
                Id = descriptor.Id, Version = descriptor.Version, Channel = descriptor.Channel,
                Level = (byte)descriptor.Level, Opcode = descriptor.Opcode, Task = descriptor.Task,
                Keyword = descriptor.Keyword,
            };
            Guid activity = activityId ?? default, related = relatedActivityId ?? default;
            fixed (byte* bytes = payload)
            {
                var data = new EventDataDescriptorNative { Ptr = (ulong)bytes, Size = (uint)payload.Length };
                return (Status)N.etw_provider_write_event(_handle, ref d, 0,
                    activityId.HasValue ? (IntPtr)(&activity) : IntPtr.Zero,
                    relatedActivityId.HasValue ? (IntPtr)(&related) : IntPtr.Zero,
                    payload.IsEmpty ? 0u : 1u, (IntPtr)(&data));
            }
        }

        /// <summary>Unregisters: when this returns no enable callback runs any more.</summary>
        public void Dispose() => _handle.Dispose();

        /// <inheritdoc/>
        public override string ToString() => $"Provider({Guid})";
    }

    /// <summary>What an EVENT_HEADER event is: EVENT_DESCRIPTOR.</summary>
    /// <param name="Id">The event's id.</param>
    /// <param name="Level">Sessions take levels up to their own (0: always).</param>
    /// <param name="Keyword">Sessions take it by their MatchAnyKeyword / MatchAllKeyword (0: always).</param>
    /// <param name="Version">The event's version.</param>
    /// <param name="Channel">The channel.</param>
    /// <param name="Opcode">The opcode.</param>
    /// <param name="Task">The task.</param>
    public readonly record struct EventDescriptor(ushort Id, EtwLevel Level = 0, ulong Keyword = 0, byte Version = 0,
                                                  byte Channel = 0, byte Opcode = 0, ushort Task = 0);

    /// <summary>
    /// The calling thread's activity id, as EventActivityIdControl: the ActivityId of the
    /// EVENT_HEADER events it writes without one. A thread starts with Guid.Empty.
    /// </summary>
    public static class ActivityId
    {
        private static Guid Control(uint code, Guid id)
        {
            N.etw_activity_id_control(code, ref id);
            return id;
        }

        /// <summary>The thread's id (EVENT_ACTIVITY_CTRL_GET_ID).</summary>
        public static Guid Get() => Control(N.ETW_ACTIVITY_CTRL_GET_ID, default);
        /// <summary>Sets the thread's id (EVENT_ACTIVITY_CTRL_SET_ID).</summary>
        public static void Set(Guid id) => Control(N.ETW_ACTIVITY_CTRL_SET_ID, id);
        /// <summary>A new unique id; the thread's is unchanged (EVENT_ACTIVITY_CTRL_CREATE_ID).</summary>
        public static Guid Create() => Control(N.ETW_ACTIVITY_CTRL_CREATE_ID, default);
        /// <summary>Sets the thread's id, returns the old one (EVENT_ACTIVITY_CTRL_GET_SET_ID).</summary>
        public static Guid GetSet(Guid id) => Control(N.ETW_ACTIVITY_CTRL_GET_SET_ID, id);
        /// <summary>Sets a new unique id as the thread's, returns the old one (EVENT_ACTIVITY_CTRL_CREATE_SET_ID).</summary>
        public static Guid CreateSet() => Control(N.ETW_ACTIVITY_CTRL_CREATE_SET_ID, default);
    }
}
