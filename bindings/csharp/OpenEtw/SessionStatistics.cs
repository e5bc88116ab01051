using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// The statistics of a session (the output members of EVENT_TRACE_PROPERTIES) at the
    /// moment a query, update, flush or stop returned.
    /// </summary>
    public readonly record struct SessionStatistics(
        uint NumberOfBuffers, uint FreeBuffers, uint EventsLost, uint BuffersWritten,
        uint LogBuffersLost, uint RealTimeBuffersLost, ulong LoggerThreadId)
    {
        internal static SessionStatistics From(Properties props)
        {
            EventTraceProperties r = props.GetRecord();
            return new SessionStatistics(r.NumberOfBuffers, r.FreeBuffers, r.EventsLost, r.BuffersWritten,
                                         r.LogBuffersLost, r.RealTimeBuffersLost, r.LoggerThreadId);
        }
    }

    /// <summary>Session settings beyond EVENT_TRACE_PROPERTIES (etw_session_options).</summary>
    public sealed record SessionOptions
    {
        /// <summary>Writers wait (bounded) for space instead of dropping events.</summary>
        public bool Lossless { get; init; }

        /// <summary>The longest wait of a lossless writer in milliseconds; 0 = 1000.</summary>
        public uint LosslessTimeoutMs { get; init; }

        /// <summary>Real-time buffers kept while no consumer is attached; 0 = the maximum.</summary>
        public uint RealtimeBacklogBuffers { get; init; }

        /// <summary>
        /// At start: an orphaned session holding the name (its host process died) is stopped
        /// first, its log file finished. Not reported by <see cref="Session.Options"/>.
        /// </summary>
        public bool ReplaceOrphan { get; init; }

        /// <summary>
        /// At start: the orphaned session holding the name is stopped (every committed buffer
        /// written) and goes on in this process with its last settings (the properties give
        /// only the name and receive what started), appending to its sequential log file,
        /// its providers enabled again. <see cref="Status.WmiInstanceNotFound"/> when no
        /// orphan has the name, <see cref="Status.AlreadyExists"/> when its host is alive;
        /// not with <see cref="ReplaceOrphan"/> (<see cref="Status.InvalidParameter"/>).
        /// Not reported by <see cref="Session.Options"/>.
        /// </summary>
        public bool TakeOverOrphan { get; init; }

        /// <summary>
        /// At start: the session runs in this process and ends with it, also where sessions
        /// are system-wide (ETW_SESSION_IN_PROCESS). Without it a start that reaches no
        /// session host fails saying why. Not reported by <see cref="Session.Options"/>.
        /// </summary>
        public bool InProcess { get; init; }

        /// <summary>
        /// A system logger's sampled profile (<c>KernelFlags.Profile</c>): the interval in 100 ns
        /// units; 0 = 10000 (1 ms), else 1221 to 10000000 (<see cref="Status.InvalidParameter"/>
        /// outside).
        /// </summary>
        public uint ProfileInterval { get; init; }

        /// <summary>
        /// At start: the session's own filters (EVENT_TRACE_PROPERTIES_V2.FilterDesc), applied to
        /// every provider it enables: <see cref="PidFilter"/> and <see cref="ExecutableNameFilter"/>
        /// only (another type: <see cref="Status.NotSupported"/>; bad ones as
        /// <see cref="Session.EnableProvider(Guid, EtwLevel, ulong, ulong, EnableOptions)"/> says).
        /// Not reported by <see cref="Session.Options"/>.
        /// </summary>
        public IReadOnlyList<EventFilter>? Filters { get; init; }

        internal SessionOptionsNative ToNative() => new SessionOptionsNative
        {
            StructSize = (uint)Unsafe.SizeOf<SessionOptionsNative>(),
            Flags = (Lossless ? NativeMethods.ETW_SESSION_LOSSLESS : 0)
                    | (ReplaceOrphan ? NativeMethods.ETW_SESSION_REPLACE_ORPHAN : 0)
                    | (TakeOverOrphan ? NativeMethods.ETW_SESSION_TAKE_OVER_ORPHAN : 0)
                    | (InProcess ? NativeMethods.ETW_SESSION_IN_PROCESS : 0),
            LosslessTimeoutMs = LosslessTimeoutMs,
            RealtimeBacklogBuffers = RealtimeBacklogBuffers,
            ProfileInterval = ProfileInterval,
        };

        internal static SessionOptions FromNative(in SessionOptionsNative n) => new SessionOptions
        {
            Lossless = (n.Flags & NativeMethods.ETW_SESSION_LOSSLESS) != 0,
            LosslessTimeoutMs = n.LosslessTimeoutMs,
            RealtimeBacklogBuffers = n.RealtimeBacklogBuffers,
            ProfileInterval = n.ProfileInterval,
        };
    }

    /// <summary>Rights over a system-wide session (ETW_SESSION_RIGHT_*), set by <see cref="Session.Grant"/>.</summary>
    [Flags]
    public enum SessionRights : uint
    {
        /// <summary>No right (granting it revokes the user's rights).</summary>
        None = 0,
        /// <summary>Query, update, flush, stop, enable providers, grant.</summary>
        Control = NativeMethods.ETW_SESSION_RIGHT_CONTROL,
        /// <summary>The user's providers log into the session.</summary>
        Log = NativeMethods.ETW_SESSION_RIGHT_LOG,
        /// <summary>The user's real-time consumers attach.</summary>
        Consume = NativeMethods.ETW_SESSION_RIGHT_CONSUME,
        /// <summary>Every right.</summary>
        All = NativeMethods.ETW_SESSION_RIGHT_ALL,
    }

    /// <summary>The state of a session's host process (ETW_SESSION_HOST_*).</summary>
    public enum SessionHostState : uint
    {
        /// <summary>The host process is alive.</summary>
        Running = NativeMethods.ETW_SESSION_HOST_RUNNING,
        /// <summary>The host process died: stop the session to free its name.</summary>
        Orphaned = NativeMethods.ETW_SESSION_HOST_ORPHANED,
    }

    /// <summary>Where a session runs (etw_session_host_info).</summary>
    public readonly record struct SessionHostInfo(uint ProcessId, SessionHostState State, bool IsLocal)
    {
        internal static SessionHostInfo FromNative(in SessionHostInfoNative n) =>
            new SessionHostInfo(n.ProcessId, (SessionHostState)n.State, n.IsLocal != 0);
    }
}
