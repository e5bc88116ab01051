using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// Reads .etl files, or a running real-time session, and calls back for every buffer,
    /// record and classic event (OpenTrace / ProcessTrace).
    /// </summary>
    /// <remarks>
    /// <para>Callbacks (<see cref="ConsumerOptions"/>) run only on the thread inside
    /// <see cref="Process"/>. The delegates are kept alive by a GCHandle the library owns and
    /// frees when the consumer is closed. An exception thrown by a callback stops processing
    /// and <see cref="Process"/> rethrows it with its original stack.</para>
    /// <para><see cref="Cancel"/> may be called from any thread. <see cref="Dispose"/> cancels
    /// a <see cref="Process"/> running on another thread; the native consumer is closed once
    /// that call has returned.</para>
    /// </remarks>
    public sealed class Consumer : IDisposable
    {
        private readonly ConsumerHandle _handle;
        private readonly ConsumerState _state;
        private int _processing;

        private Consumer(ConsumerHandle handle, ConsumerState state)
        {
            _handle = handle;
            _state = state;
        }

        /// <summary>Opens one .etl file; its first buffer and logfile header are read and checked now.</summary>
        public static Consumer Open(string path, ConsumerOptions? options = null) =>
            Open(new[] { path ?? throw new ArgumentNullException(nameof(path)) }, options);

        /// <summary>Opens several .etl files into one consumer (merged by time unless <see cref="ConsumerOrder.File"/>).</summary>
        public static Consumer Open(IEnumerable<string> paths, ConsumerOptions? options = null)
        {
            ArgumentNullException.ThrowIfNull(paths);
            string[] array = paths.ToArray();
            if (array.Any(p => p is null))
                throw new ArgumentNullException(nameof(paths), "a path is null");
            options ??= new ConsumerOptions();
            var utf8 = new IntPtr[array.Length];
            try
            {
                for (int i = 0; i < array.Length; i++)
                    utf8[i] = Marshal.StringToCoTaskMemUTF8(array[i]);
                var state = new ConsumerState(options);
                ConsumerOptionsNative native = ToNative(options, state);
                // On failure the library has already run user_data_free: nothing to free here.
                N.etw_consumer_open(out ConsumerHandle handle, utf8, (uint)array.Length, ref native);
                return new Consumer(handle, state);
            }
            finally
            {
                foreach (IntPtr p in utf8)
                    Marshal.FreeCoTaskMem(p); // the library copies what it keeps
            }
        }

        /// <summary>
        /// Opens a NATS JetStream stream, <c>nats://HOST[:PORT]/STREAM[?since=UTC]</c>, as a file
        /// is opened: each machine's session instance becomes one file of the consumer
        /// (etw_consumer_open_stream). <paramref name="credentialsFile"/>: the stream's
        /// <c>key = value</c> credentials file; null for the file OPENETW_NATS_CREDENTIALS names
        /// in the process's native environment. See <see cref="NatsStream"/>.
        /// </summary>
        public static Consumer OpenStream(string url, string? credentialsFile, ConsumerOptions? options = null)
        {
            ArgumentNullException.ThrowIfNull(url);
            options ??= new ConsumerOptions();
            var state = new ConsumerState(options);
            ConsumerOptionsNative native = ToNative(options, state);
            // On failure the library has already run user_data_free: nothing to free here.
            N.etw_consumer_open_stream(out ConsumerHandle handle, url, credentialsFile, ref native);
            return new Consumer(handle, state);
        }

        /// <summary>
        /// Attaches a live consumer to the running real-time session <paramref name="sessionName"/>:
        /// its backlog is delivered first, then every buffer as the session flushes it.
        /// </summary>
        public static Consumer OpenSession(string sessionName, ConsumerOptions? options = null)
        {
            ArgumentNullException.ThrowIfNull(sessionName);
            options ??= new ConsumerOptions();
            var state = new ConsumerState(options);
            ConsumerOptionsNative native = ToNative(options, state);
            N.etw_consumer_open_session(out ConsumerHandle handle, sessionName, ref native);
            try
            {
                if (options.OnLoss != null)
                    N.etw_consumer_set_loss_callback(handle, ConsumerCallbacks.Loss);
                if (options.OnRawBuffer != null)
                    N.etw_consumer_set_raw_buffer_callback(handle, ConsumerCallbacks.RawBuffer);
            }
            catch
            {
                handle.Dispose();
                throw;
            }
            return new Consumer(handle, state);
        }

        /// <summary>
        /// Reads everything and runs the callbacks on this thread, blocking; a live consumer
        /// returns once its session has stopped and everything it flushed was delivered.
        /// Returns true when everything was read, false when a callback returned false or
        /// <see cref="Cancel"/> was called. Rethrows an exception a callback threw; throws
        /// <see cref="OpenEtwException"/> for damaged input (after reading all it could),
        /// or <see cref="Status.Busy"/> when already processing. A file consumer starts from
        /// the beginning on each call; a live one continues where it stopped.
        /// </summary>
        public bool Process()
        {
            if (Interlocked.CompareExchange(ref _processing, 1, 0) != 0)
            {
                // The library answers BUSY; the state belongs to the call in progress.
                uint busy = N.etw_consumer_process(_handle);
                throw OpenEtwException.FromStatus(busy == 0 ? (uint)Status.Busy : busy);
            }
            try
            {
                _state.Error = null;
                uint status = N.etw_consumer_process(_handle);
                ExceptionDispatchInfo? error = _state.Error;
                _state.Error = null;
                error?.Throw();
                if (status == (uint)Status.Cancelled)
                    return false;
                if (status != 0)
                    throw OpenEtwException.FromStatus(status);
                return true;
            }
            finally
            {
                Volatile.Write(ref _processing, 0);
            }
        }

        /// <summary>
        /// Runs <see cref="Process"/> on a dedicated thread (it blocks for as long as a live
        /// session runs). Cancelling the token cancels the consumer (permanently) and the task
        /// then throws <see cref="OperationCanceledException"/>.
        /// </summary>
        public Task<bool> ProcessAsync(CancellationToken cancellationToken = default)
        {
            return Task.Factory.StartNew(() =>
            {
                using (cancellationToken.Register(Cancel))
                {
                    bool finished = Process();
                    cancellationToken.ThrowIfCancellationRequested();
                    return finished;
                }
            }, cancellationToken, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        /// <summary>
        /// Stops processing from any thread: the running <see cref="Process"/> returns false
        /// after the callback in progress returns, and later calls return false at once.
        /// Permanent. Does nothing after <see cref="Dispose"/>.
        /// </summary>
        public void Cancel()
        {
            bool added = false;
            try
            {
                _handle.DangerousAddRef(ref added);
                N.etw_consumer_cancel(_handle);
            }
            catch (ObjectDisposedException) { }
            finally
            {
                if (added) _handle.DangerousRelease();
            }
        }

        /// <summary>The number of files opened (1 for a live consumer).</summary>
        public int FileCount
        {
            get
            {
                N.etw_consumer_file_count(out uint count, _handle);
                return (int)count;
            }
        }

        /// <summary>The logfile header facts of a file (a live consumer's file 0 describes the session).</summary>
        public LogfileHeader GetLogfileHeader(int fileIndex = 0)
        {
            ArgumentOutOfRangeException.ThrowIfNegative(fileIndex);
            var native = new LogfileInfoNative { StructSize = (uint)Unsafe.SizeOf<LogfileInfoNative>() };
            N.etw_consumer_logfile_header(ref native, _handle, (uint)fileIndex);
            return new LogfileHeader(native);
        }

        /// <summary>The counters of the last or running <see cref="Process"/> (callable from a callback).</summary>
        public ConsumerStatistics Statistics
        {
            get
            {
                var native = new ConsumerStatsNative { StructSize = (uint)Unsafe.SizeOf<ConsumerStatsNative>() };
                N.etw_consumer_get_stats(ref native, _handle);
                return new ConsumerStatistics(native);
            }
        }

        /// <summary>
        /// Closes the consumer (a live one detaches; the session keeps running). A
        /// <see cref="Process"/> in progress is cancelled, and the close happens when it returns.
        /// </summary>
        public void Dispose()
        {
            if (Volatile.Read(ref _processing) != 0)
                Cancel();
            _handle.Dispose();
        }

        private static ConsumerOptionsNative ToNative(ConsumerOptions options, ConsumerState state)
        {
            uint flags = (options.Order == ConsumerOrder.File ? N.ETW_CONSUMER_ORDER_FILE : N.ETW_CONSUMER_ORDER_TIME)
                       | (options.RawTimestamps ? N.ETW_CONSUMER_RAW_TIMESTAMP : 0);
            return new ConsumerOptionsNative
            {
                StructSize = (uint)Unsafe.SizeOf<ConsumerOptionsNative>(),
                Flags = flags,
                Buffer = options.OnBuffer != null ? ConsumerCallbacks.Buffer : IntPtr.Zero,
                Record = options.OnRecord != null ? ConsumerCallbacks.Record : IntPtr.Zero,
                Event = options.OnEvent != null ? ConsumerCallbacks.Event : IntPtr.Zero,
                EventRecord = options.OnEventRecord != null ? ConsumerCallbacks.EventRecord : IntPtr.Zero,
                // The library owns the handle from here: freed at close, or at once if open fails.
                UserData = UserData.Alloc(state),
                UserDataFree = UserData.FreeFunction,
            };
        }
    }
}
