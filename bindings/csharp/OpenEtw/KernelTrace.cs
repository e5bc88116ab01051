using System;
using System.Runtime.ExceptionServices;
using System.Text;
using System.Threading;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// The system logger in one object (krabsetw's kernel_trace, ferrisetw's KernelTrace): a
    /// real-time system logger session recording the kernel events its flags select, and a
    /// consumer delivering them, decoded, to callbacks on a thread of its own.
    /// </summary>
    /// <remarks>
    /// <para>Register callbacks (<see cref="OnEvent"/>, <see cref="On(string, Action{KernelEvent})"/>)
    /// before <see cref="Start"/>; they run on the trace's thread, in time order, and receive a
    /// <see cref="KernelEvent"/> (fields by name, pid, tid, timestamp) that outlives the call.</para>
    /// <para><see cref="Stop"/> (or <see cref="Dispose"/>, e.g. <c>using var</c>) stops the session,
    /// waits until every event was delivered, closes the consumer and joins the thread.
    /// Failures throw <see cref="OpenEtwException"/> with the library's status and message:
    /// <see cref="Status.InvalidParameter"/> for an unknown flag name, <see cref="Status.NotSupported"/>
    /// for a flag this system does not serve, <see cref="Status.AccessDenied"/> without the right
    /// to read kernel events, <see cref="Status.AlreadyExists"/> when a session has the name.</para>
    /// </remarks>
    public sealed class KernelTrace : IDisposable
    {
        /// <summary>"NT Kernel Logger": the system logger's own name, the default.</summary>
        public const string KernelLoggerName = N.ETW_KERNEL_LOGGER_NAME;

        private readonly object _gate = new();
        private (Func<KernelEvent, bool> Matches, Action<KernelEvent> Callback)[] _callbacks = [];
        private Properties? _props;
        private Session? _session;
        private Consumer? _consumer;
        private Thread? _thread;
        private ExceptionDispatchInfo? _error;
        private SessionStatistics? _final;

        /// <summary>
        /// A kernel trace of <paramref name="flags"/> in a session named <paramref name="name"/>;
        /// any name but <see cref="KernelLoggerName"/> starts a system logger of its own
        /// (SystemLogger mode), so several can run at once. Nothing starts before <see cref="Start"/>.
        /// </summary>
        public KernelTrace(KernelFlags flags, string name = KernelLoggerName)
        {
            ArgumentNullException.ThrowIfNull(name);
            Flags = flags;
            Name = name;
        }

        /// <summary>As above, with flag names such as "process,thread" (see <see cref="ParseFlags"/>).</summary>
        public KernelTrace(string flags, string name = KernelLoggerName) : this(ParseFlags(flags), name) { }

        /// <summary>
        /// EnableFlags from names joined by ',', '+' or '|': short names ("process", "image_load"),
        /// EVENT_TRACE_FLAG_* names, xperf groups ("PROC_THREAD") or one number
        /// (etw_enable_flags_parse). <see cref="Status.InvalidParameter"/> names an unknown flag.
        /// </summary>
        public static KernelFlags ParseFlags(string text)
        {
            ArgumentNullException.ThrowIfNull(text);
            if (text.Contains('\0'))
                throw new ArgumentException("kernel flags contain a NUL character", nameof(text));
            byte[] utf8 = Encoding.UTF8.GetBytes(text + "\0"); // the C string the library reads
            N.etw_enable_flags_parse(out uint mask, ref utf8[0]);
            return (KernelFlags)mask;
        }

        /// <summary>The flags it records.</summary>
        public KernelFlags Flags { get; }

        /// <summary>The session name.</summary>
        public string Name { get; }

        /// <summary>The running session, for control calls (Query, Flush); null when not running.</summary>
        public Session? Session => _thread is null ? null : _session;

        /// <summary>True between <see cref="Start"/> and <see cref="Stop"/>.</summary>
        public bool IsRunning => _thread is not null;

        /// <summary>Calls <paramref name="callback"/> for every event.</summary>
        public KernelTrace OnEvent(Action<KernelEvent> callback) => Add(_ => true, callback);

        /// <summary>
        /// Calls <paramref name="callback"/> for one event, "Class/Event" ("Process/Start"), or
        /// for every event of a class, "Class" ("Process"); names compare case-insensitively.
        /// </summary>
        public KernelTrace On(string eventOrClass, Action<KernelEvent> callback)
        {
            ArgumentException.ThrowIfNullOrEmpty(eventOrClass);
            return eventOrClass.Contains('/')
                ? Add(e => string.Equals(e.EventName, eventOrClass, StringComparison.OrdinalIgnoreCase), callback)
                : Add(e => string.Equals(e.ClassName, eventOrClass, StringComparison.OrdinalIgnoreCase), callback);
        }

        /// <summary>
        /// Calls <paramref name="callback"/> for the events of a class with an event type
        /// (Class.Type: ("Process", 2) is Process/End).
        /// </summary>
        public KernelTrace On(string className, byte opcode, Action<KernelEvent> callback)
        {
            ArgumentException.ThrowIfNullOrEmpty(className);
            return Add(e => e.Opcode == opcode && string.Equals(e.ClassName, className, StringComparison.OrdinalIgnoreCase),
                       callback);
        }

        private KernelTrace Add(Func<KernelEvent, bool> matches, Action<KernelEvent> callback)
        {
            ArgumentNullException.ThrowIfNull(callback);
            lock (_gate) // replaced, never mutated: the delivery thread reads a consistent array
                _callbacks = [.. _callbacks, (matches, callback)];
            return this;
        }

        private bool Dispatch(TraceRecord record)
        {
            var callbacks = Volatile.Read(ref _callbacks);
            if (callbacks.Length == 0)
                return true;
            var e = new KernelEvent(record);
            foreach (var (matches, callback) in callbacks)
                if (matches(e))
                    callback(e);
            return true;
        }

        /// <summary>
        /// Starts the session (its DCStart rundown describes what runs) and the delivery thread.
        /// Throws what the start threw; no session is left running then.
        /// </summary>
        public void Start()
        {
            lock (_gate)
            {
                if (_thread is not null)
                    throw new InvalidOperationException($"the kernel trace '{Name}' is already running");
                var mode = LogFileMode.RealTime;
                if (!string.Equals(Name, KernelLoggerName, StringComparison.OrdinalIgnoreCase))
                    mode |= LogFileMode.SystemLogger; // the kernel logger's name makes it one already
                var props = new Properties(Name) { LogFileMode = mode, EnableFlags = Flags };
                Session? session = null;
                try
                {
                    session = Session.Start(props);
                    _consumer = Consumer.OpenSession(Name, new ConsumerOptions { OnRecord = Dispatch });
                }
                catch
                {
                    session?.Dispose(); // stops it
                    props.Dispose();
                    throw;
                }
                (_props, _session, _error, _final) = (props, session, null, null);
                _thread = new Thread(Deliver) { Name = $"KernelTrace {Name}", IsBackground = true };
                _thread.Start(_consumer);
            }
        }

        private void Deliver(object? consumer)
        {
            try
            {
                ((Consumer)consumer!).Process();
            }
            catch (Exception e)
            {
                _error = ExceptionDispatchInfo.Capture(e); // rethrown by Stop
            }
        }

        /// <summary>
        /// Stops the session, waits until every event was delivered, closes the consumer and
        /// joins the thread; returns the final statistics (those of the last run when not
        /// running). Rethrows the first exception a callback threw (which also ended the
        /// delivery), or the stop's <see cref="OpenEtwException"/>.
        /// </summary>
        public SessionStatistics Stop()
        {
            lock (_gate)
            {
                if (_thread is not Thread thread)
                    return _final ?? default;
                try
                {
                    _final = _session!.Stop(_props);
                }
                catch (OpenEtwException e) when (e.Status == Status.WmiInstanceNotFound)
                {
                    // Stopped elsewhere (etwctl stop): its feed has ended too.
                }
                catch
                {
                    _consumer!.Cancel(); // the feed would not end by itself
                    throw;
                }
                finally
                {
                    thread.Join();
                    _consumer!.Dispose();
                    _session!.Dispose();
                    _props!.Dispose();
                    (_thread, _consumer, _session, _props) = (null, null, null, null);
                }
                ExceptionDispatchInfo? error = _error;
                _error = null;
                error?.Throw();
                return _final ?? default;
            }
        }

        /// <summary>Stops (ignoring failures: call <see cref="Stop"/> to see them) and releases everything.</summary>
        public void Dispose()
        {
            try { Stop(); }
            catch (Exception) { /* Stop() reports; Dispose must not throw */ }
        }
    }
}
