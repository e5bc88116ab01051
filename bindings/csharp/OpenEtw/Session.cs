using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// A trace session (StartTrace / ControlTrace / EnableTraceEx2): collects the events of
    /// the providers it enables into a log file, live consumers or memory.
    /// </summary>
    /// <remarks>
    /// A session runs until stopped, whatever happens to the objects that refer to it.
    /// <see cref="Dispose"/> stops it when <see cref="StopOnDispose"/> is true (the default
    /// for <see cref="Start"/>, so a forgotten session does not linger as an orphan; false for
    /// <see cref="Open"/>), ignoring failures: call <see cref="Stop"/> to see them. Every
    /// member may be called from any thread. Calls that enable or disable providers run their
    /// enable callbacks on the calling thread and rethrow what those callbacks throw.
    /// </remarks>
    public sealed class Session : IDisposable
    {
        private readonly SessionHandle _handle;
        private volatile bool _stopped;

        private Session(SessionHandle handle, bool stopOnDispose)
        {
            _handle = handle;
            StopOnDispose = stopOnDispose;
        }

        /// <summary>
        /// Starts a session. <paramref name="properties"/> receives the settings the session
        /// uses (adjusted buffers, GUID, clock) and its handle in HistoricalContext.
        /// </summary>
        public static Session Start(Properties properties, SessionOptions? options = null)
        {
            ArgumentNullException.ThrowIfNull(properties);
            SessionHandle? handle = null;
            try
            {
                // A private session enables its provider at start: its callback runs here.
                EnableCallbackErrors.Run(() =>
                {
                    if (options is null)
                        N.etw_session_start(out handle, properties.Handle);
                    else
                    {
                        var filters = new PinnedFilters(options.Filters);
                        SessionOptionsNative native = options.ToNative();
                        native.FilterCount = filters.Count;
                        native.Filters = filters.Pointer;
                        N.etw_session_start_ex(out handle, properties.Handle, ref native);
                        GC.KeepAlive(filters); // copied by the library before it returned
                    }
                });
            }
            catch (Exception) when (handle is { IsInvalid: false })
            {
                // Started, but a callback threw: nobody would own the session, so stop it.
                try { EnableCallbackErrors.Run(() => N.etw_session_stop(handle, properties.Handle)); }
                catch (Exception) { /* the first exception is the one to report */ }
                handle.Dispose();
                throw;
            }
            return new Session(handle!, stopOnDispose: true);
        }

        /// <summary>Opens a running session by name (case-insensitive) to control it.</summary>
        public static Session Open(string sessionName)
        {
            ArgumentNullException.ThrowIfNull(sessionName);
            N.etw_session_open(out SessionHandle handle, sessionName);
            return new Session(handle, stopOnDispose: false);
        }

        /// <summary>Whether <see cref="Dispose"/> stops the session.</summary>
        public bool StopOnDispose { get; set; }

        /// <summary>
        /// Lets the session outlive this object: <see cref="Dispose"/> then only releases the
        /// handle, and the session runs until someone stops it (<see cref="Open"/> by name and
        /// <see cref="Stop"/>, or <c>etwctl stop</c>): the logman workflow.
        /// </summary>
        public void Detach() => StopOnDispose = false;

        /// <summary>The session handle value (Wnode.HistoricalContext).</summary>
        public ulong TraceHandle => N.etw_session_handle(_handle);

        /// <summary>The options the session runs with, defaults applied.</summary>
        public SessionOptions Options
        {
            get
            {
                var native = new SessionOptionsNative { StructSize = (uint)Unsafe.SizeOf<SessionOptionsNative>() };
                N.etw_session_get_options(ref native, _handle);
                return SessionOptions.FromNative(native);
            }
        }

        /// <summary>
        /// The process hosting the session and whether it is alive: an orphaned session
        /// (its host died) still answers Query and Stop.
        /// </summary>
        public SessionHostInfo HostInfo
        {
            get
            {
                var native = new SessionHostInfoNative { StructSize = (uint)Unsafe.SizeOf<SessionHostInfoNative>() };
                N.etw_session_get_host_info(ref native, _handle);
                return SessionHostInfo.FromNative(native);
            }
        }

        /// <summary>The current settings and statistics; <paramref name="into"/>, if given, receives the settings.</summary>
        public SessionStatistics Query(Properties? into = null) =>
            WithProperties(into, p => N.etw_session_query(_handle, p.Handle));

        /// <summary>
        /// Changes FlushTimer, MaximumBuffers, EnableFlags and the log file name from
        /// <paramref name="changes"/>, which then receives the current settings.
        /// </summary>
        public SessionStatistics Update(Properties changes)
        {
            ArgumentNullException.ThrowIfNull(changes);
            return WithProperties(changes, p => N.etw_session_update(_handle, p.Handle));
        }

        /// <summary>
        /// Writes every buffer holding events and returns when they are written (a
        /// buffering session writes its buffers to its log file name).
        /// </summary>
        public SessionStatistics Flush(Properties? into = null) =>
            WithProperties(into, p => N.etw_session_flush(_handle, p.Handle));

        /// <summary>Buffering sessions: writes the buffers held as a complete .etl file at <paramref name="path"/>.</summary>
        public SessionStatistics FlushToFile(string path, Properties? into = null)
        {
            ArgumentNullException.ThrowIfNull(path);
            return WithProperties(into, p => N.etw_session_flush_to_file(_handle, path, p.Handle));
        }

        /// <summary>
        /// Stops the session: disables its providers, writes every buffer, finishes the log
        /// file. <see cref="OpenEtwException"/> with <see cref="Status.WmiInstanceNotFound"/>
        /// when it has already stopped.
        /// </summary>
        public SessionStatistics Stop(Properties? into = null) =>
            WithProperties(into, p =>
            {
                try
                {
                    EnableCallbackErrors.Run(() => N.etw_session_stop(_handle, p.Handle));
                }
                finally
                {
                    _stopped = true; // stopped even when a file error or a callback's exception is reported
                }
            });

        /// <summary>
        /// Enables a provider GUID for this session (again to change level or keywords); it
        /// need not be registered yet. <paramref name="level"/> None takes every level;
        /// <paramref name="matchAnyKeyword"/> 0 means all.
        /// </summary>
        public void EnableProvider(Guid provider, EtwLevel level = EtwLevel.None,
                                   ulong matchAnyKeyword = 0, ulong matchAllKeyword = 0) =>
            EnableCallbackErrors.Run(() => N.etw_session_enable_provider(
                _handle, provider, N.ETW_CONTROL_CODE_ENABLE_PROVIDER, (byte)level, matchAnyKeyword, matchAllKeyword));

        /// <summary>
        /// Enables a provider GUID with enable parameters (EnableTraceEx2 with
        /// ENABLE_TRACE_PARAMETERS): <paramref name="options"/> gives the properties (extended
        /// data items on the provider's events) and the filters at the source. Enabling again
        /// replaces level, keywords, properties and filters. A bad filter (no ids, more than 8
        /// pids, a type given twice, ...) throws <see cref="OpenEtwException"/> with the
        /// library's status (<see cref="Status.InvalidParameter"/>, or
        /// <see cref="Status.NotSupported"/> for a type OpenETW does not implement) and a message
        /// naming the filter by its index.
        /// </summary>
        public void EnableProvider(Guid provider, EtwLevel level, ulong matchAnyKeyword, ulong matchAllKeyword,
                                   EnableOptions options)
        {
            ArgumentNullException.ThrowIfNull(options);
            var (properties, list) = options.Resolve();
            var filters = new PinnedFilters(list);
            var native = new EnableParametersNative
            {
                StructSize = (uint)Unsafe.SizeOf<EnableParametersNative>(),
                EnableProperty = (uint)properties,
                MatchAnyKeyword = matchAnyKeyword,
                MatchAllKeyword = matchAllKeyword,
                Level = (byte)level,
                FilterCount = filters.Count,
                SourceId = options.SourceId,
                Filters = filters.Pointer,
            };
            EnableCallbackErrors.Run(() => N.etw_session_enable_provider_ex(
                _handle, provider, N.ETW_CONTROL_CODE_ENABLE_PROVIDER, ref native));
            GC.KeepAlive(filters); // the library copied the filters before returning
        }

        /// <summary>
        /// Asks the provider's registrations this session enables to log their state
        /// (EVENT_CONTROL_CODE_CAPTURE_STATE): each callback gets <see cref="ProviderEnableInfo.CaptureState"/>
        /// true with this call's level and keywords; the enablement does not change. Throws for
        /// a GUID the session does not enable (ETW_ERROR_WMI_GUID_NOT_FOUND).
        /// </summary>
        public void CaptureState(Guid provider, EtwLevel level = EtwLevel.None, ulong matchAnyKeyword = 0,
                                 ulong matchAllKeyword = 0) =>
            EnableCallbackErrors.Run(() => N.etw_session_enable_provider(
                _handle, provider, N.ETW_CONTROL_CODE_CAPTURE_STATE, (byte)level, matchAnyKeyword, matchAllKeyword));

        /// <summary>Disables a provider GUID for this session.</summary>
        public void DisableProvider(Guid provider) =>
            EnableCallbackErrors.Run(() => N.etw_session_enable_provider(
                _handle, provider, N.ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0));

        /// <summary>
        /// Sets the rights of user <paramref name="userId"/> over the session
        /// (EventAccessControl), replacing what the user had; <see cref="SessionRights.None"/>
        /// revokes. A session starts owner-only: its host's user and root hold every right.
        /// Works on a session hosted here or, with the control right, in another process.
        /// <see cref="Status.InvalidParameter"/> for unknown bits; <see cref="Status.NotSupported"/>
        /// for a private session or where sessions are not system-wide (OPENETW_REGISTRY=none).
        /// </summary>
        public void Grant(uint userId, SessionRights rights) =>
            N.etw_session_grant(_handle, userId, (uint)rights);

        /// <summary>
        /// Changes a running system logger's sampled-profile interval (TraceSampledProfileIntervalInfo),
        /// in 100 ns units, 1221 to 10000000: the profile's source reopens at it at once, and
        /// <see cref="Options"/> reports it. <see cref="Status.InvalidParameter"/> outside the range;
        /// <see cref="Status.NotSupported"/> for a session that is no system logger;
        /// <see cref="Status.AccessDenied"/> without the control right over another process's session.
        /// </summary>
        public void SetProfileInterval(uint interval100ns) =>
            N.etw_session_set_profile_interval(_handle, interval100ns);

        /// <summary>The running sessions (QueryAllTraces): their names, settings and statistics.</summary>
        public static IReadOnlyList<Properties> List()
        {
            N.etw_session_list(out uint count, null!, 0);
            while (true)
            {
                var array = new Properties[count];
                var pointers = new IntPtr[count];
                bool[] added = new bool[count];
                uint status;
                uint found;
                try
                {
                    for (int i = 0; i < array.Length; i++)
                    {
                        array[i] = new Properties("(listed)");
                        array[i].Handle.DangerousAddRef(ref added[i]); // raw pointers below
                        pointers[i] = array[i].Handle.DangerousGetHandle();
                    }
                    status = N.etw_session_list(out found, pointers, count);
                }
                finally
                {
                    for (int i = 0; i < array.Length; i++)
                        if (added[i]) array[i].Handle.DangerousRelease();
                }
                if (status == (uint)Status.MoreData)
                {
                    // Sessions started meanwhile: ask again with room for them.
                    foreach (Properties p in array) p.Dispose();
                    count = found;
                    continue;
                }
                if (status != 0)
                {
                    foreach (Properties p in array) p.Dispose();
                    throw OpenEtwException.FromStatus(status);
                }
                for (uint i = found; i < count; i++)
                    array[i].Dispose(); // sessions stopped meanwhile
                return found == count ? array : array[..(int)found];
            }
        }

        /// <summary>How many sessions may run at once (running sessions are not affected).</summary>
        public static uint MaxSessions
        {
            get => N.etw_session_max_sessions();
            set => N.etw_session_set_max_sessions(value);
        }

        /// <summary>Stops the session if <see cref="StopOnDispose"/> (ignoring failures), then releases the handle.</summary>
        public void Dispose()
        {
            if (_handle.IsClosed)
                return;
            try
            {
                if (StopOnDispose && !_stopped)
                {
                    try { Stop(); }
                    catch (Exception) { /* already stopped elsewhere, or a failure Stop() would have shown */ }
                }
            }
            finally
            {
                _handle.Dispose();
            }
        }

        private static SessionStatistics WithProperties(Properties? into, Action<Properties> call)
        {
            // The C calls take a properties object to fill; a scratch one when the caller gives none.
            Properties props = into ?? new Properties("(statistics)");
            try
            {
                call(props);
                return SessionStatistics.From(props);
            }
            finally
            {
                if (into is null)
                    props.Dispose();
            }
        }
    }
}
