using System;
using System.Runtime.InteropServices;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>
    /// The settings of a trace session: the EVENT_TRACE_PROPERTIES block with its session and
    /// log file names. Build one from a session name and set members, or import a block built
    /// elsewhere with <see cref="FromBlock"/>; <see cref="ToBlock"/> gives the Windows layout.
    /// </summary>
    /// <remarks>
    /// Setters check one member and throw <see cref="OpenEtwException"/> leaving the object
    /// unchanged; <see cref="Validate"/> checks the rules that tie members together.
    /// Not synchronized: use one object from one thread at a time. Members throw
    /// <see cref="ObjectDisposedException"/> after <see cref="Dispose"/>.
    /// </remarks>
    public sealed class Properties : IDisposable
    {
        private static byte s_emptyBlock;
        private readonly PropertiesHandle _handle;

        /// <summary>Creates properties for a session (1..1024 characters).</summary>
        public Properties(string sessionName)
        {
            ArgumentNullException.ThrowIfNull(sessionName);
            N.etw_properties_create(out _handle, sessionName);
        }

        private Properties(PropertiesHandle handle) => _handle = handle;

        internal PropertiesHandle Handle => _handle;

        /// <summary>Imports a Windows-layout block, with complete validation.</summary>
        public static Properties FromBlock(ReadOnlySpan<byte> block)
        {
            // An empty span has a null reference; the library should see "0 bytes", not NULL.
            ref byte first = ref block.IsEmpty ? ref s_emptyBlock : ref MemoryMarshal.GetReference(block);
            N.etw_properties_import(out PropertiesHandle handle, ref first, (nuint)block.Length);
            return new Properties(handle);
        }

        /// <summary>The size of the exported block in bytes.</summary>
        public int BlockSize
        {
            get
            {
                N.etw_properties_export(ref System.Runtime.CompilerServices.Unsafe.NullRef<byte>(), 0,
                                        out nuint size, _handle);
                return checked((int)size);
            }
        }

        /// <summary>Exports the Windows-layout block: record, session name, log file name.</summary>
        public byte[] ToBlock()
        {
            var block = new byte[BlockSize];
            int written = ExportTo(block);
            return written == block.Length ? block : block[..written];
        }

        /// <summary>
        /// Exports into <paramref name="destination"/> and returns the block size; throws
        /// <see cref="OpenEtwException"/> with <see cref="Status.MoreData"/> when it is too small.
        /// </summary>
        public int ExportTo(Span<byte> destination)
        {
            ref byte first = ref destination.IsEmpty ? ref s_emptyBlock : ref MemoryMarshal.GetReference(destination);
            N.etw_properties_export(ref first, (nuint)destination.Length, out nuint size, _handle);
            return checked((int)size);
        }

        /// <summary>A copy, output members included.</summary>
        public Properties Clone()
        {
            N.etw_properties_clone(out PropertiesHandle copy, _handle);
            return new Properties(copy);
        }

        /// <summary>Checks the rules that tie members together, as starting a session does.</summary>
        public void Validate() => N.etw_properties_validate(_handle);

        /// <summary>The fixed record as it would be exported (offsets of the exported block).</summary>
        public EventTraceProperties GetRecord()
        {
            N.etw_properties_get_record(out EventTraceProperties record, _handle);
            return record;
        }

        /// <summary>Frees the native object (also done by the finalizer of the handle).</summary>
        public void Dispose() => _handle.Dispose();

        /// <summary>The session name.</summary>
        public string SessionName
        {
            get => N.etw_properties_session_name(_handle);
            set => N.etw_properties_set_session_name(_handle, value ?? throw new ArgumentNullException(nameof(value)));
        }

        /// <summary>The log file name; null when the session has no log file.</summary>
        public string? LogFileName
        {
            get
            {
                string name = N.etw_properties_log_file_name(_handle);
                return name.Length == 0 ? null : name;
            }
            set => N.etw_properties_set_log_file_name(_handle, value);
        }

        /// <summary>KB per buffer, 4..16384.</summary>
        public uint BufferSize
        {
            get => N.etw_properties_buffer_size(_handle);
            set => N.etw_properties_set_buffer_size(_handle, value);
        }

        /// <summary>MinimumBuffers (raised at start to 2 per processor).</summary>
        public uint MinimumBuffers
        {
            get => N.etw_properties_minimum_buffers(_handle);
            set => N.etw_properties_set_minimum_buffers(_handle, value);
        }

        /// <summary>MaximumBuffers (raised at start to the adjusted minimum).</summary>
        public uint MaximumBuffers
        {
            get => N.etw_properties_maximum_buffers(_handle);
            set => N.etw_properties_set_maximum_buffers(_handle, value);
        }

        /// <summary>MB, or KB with <see cref="LogFileMode.UseKBytesForSize"/>; 0 = no limit.</summary>
        public uint MaximumFileSize
        {
            get => N.etw_properties_maximum_file_size(_handle);
            set => N.etw_properties_set_maximum_file_size(_handle, value);
        }

        /// <summary>The logging mode.</summary>
        public LogFileMode LogFileMode
        {
            get => (LogFileMode)N.etw_properties_log_file_mode(_handle);
            set => N.etw_properties_set_log_file_mode(_handle, (uint)value);
        }

        /// <summary>Seconds between timed flushes (file mode: 0 = none; real-time: 0 = 1 s).</summary>
        public uint FlushTimer
        {
            get => N.etw_properties_flush_timer(_handle);
            set => N.etw_properties_set_flush_timer(_handle, value);
        }

        /// <summary>Kernel EnableFlags: valid only for system loggers.</summary>
        public KernelFlags EnableFlags
        {
            get => (KernelFlags)N.etw_properties_enable_flags(_handle);
            set => N.etw_properties_set_enable_flags(_handle, (uint)value);
        }

        /// <summary>AgeLimit / FlushThreshold (one LONG member).</summary>
        public int FlushThreshold
        {
            get => N.etw_properties_flush_threshold(_handle);
            set => N.etw_properties_set_flush_threshold(_handle, value);
        }

        /// <summary>The clock that timestamps events.</summary>
        public ClockType ClockType
        {
            get => (ClockType)N.etw_properties_clock_type(_handle);
            set => N.etw_properties_set_clock_type(_handle, (uint)value);
        }

        /// <summary>The session GUID; all zero asks the session start to generate one.</summary>
        public Guid Guid
        {
            get
            {
                N.etw_properties_get_guid(out Guid guid, _handle);
                return guid;
            }
            set => N.etw_properties_set_guid(_handle, value);
        }

        /// <summary>Output: buffers allocated.</summary>
        public uint NumberOfBuffers => N.etw_properties_number_of_buffers(_handle);
        /// <summary>Output: free buffers.</summary>
        public uint FreeBuffers => N.etw_properties_free_buffers(_handle);
        /// <summary>Output: events dropped.</summary>
        public uint EventsLost => N.etw_properties_events_lost(_handle);
        /// <summary>Output: buffers written.</summary>
        public uint BuffersWritten => N.etw_properties_buffers_written(_handle);
        /// <summary>Output: buffers that could not be written to the log file.</summary>
        public uint LogBuffersLost => N.etw_properties_log_buffers_lost(_handle);
        /// <summary>Output: buffers that could not be delivered in real time.</summary>
        public uint RealTimeBuffersLost => N.etw_properties_real_time_buffers_lost(_handle);
        /// <summary>Output: the logger thread.</summary>
        public ulong LoggerThreadId => N.etw_properties_logger_thread_id(_handle);
        /// <summary>Output: Wnode.HistoricalContext, the session handle after a start.</summary>
        public ulong HistoricalContext => N.etw_properties_historical_context(_handle);

        /// <inheritdoc/>
        public override string ToString() =>
            $"Properties(\"{SessionName}\", LogFileName={LogFileName ?? "none"}, LogFileMode={LogFileMode}, BufferSize={BufferSize})";
    }

    /// <summary>The library itself.</summary>
    public static class OpenEtwLibrary
    {
        /// <summary>"MAJOR.MINOR.PATCH" of the loaded native library.</summary>
        public static string Version => N.etw_version_string();

        /// <summary>The C name of a status ("ETW_ERROR_INVALID_PARAMETER").</summary>
        public static string StatusName(Status status) => N.etw_status_name((uint)status);

        /// <summary>A short English description of a status.</summary>
        public static string StatusString(Status status) => N.etw_status_string((uint)status);
    }
}
