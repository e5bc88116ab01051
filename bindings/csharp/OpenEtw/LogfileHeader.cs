using System.Runtime.InteropServices;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>The TRACE_LOGFILE_HEADER facts of one opened file (or of a live session), copied.</summary>
    public sealed class LogfileHeader
    {
        internal LogfileHeader(in LogfileInfoNative n)
        {
            FileIndex = n.FileIndex;
            Header = n.Header;
            ReferenceTimestamp = n.ReferenceTimestamp;
            FileSize = n.FileSize;
            HeaderType = n.HeaderType;
            ThreadId = n.ThreadId;
            ProcessId = n.ProcessId;
            CompressionFormat = n.CompressionFormat;
            LoggerName = Marshal.PtrToStringUTF8(n.LoggerName) ?? "";
            LogFileName = Marshal.PtrToStringUTF8(n.LogFileName) ?? "";
            Path = Marshal.PtrToStringUTF8(n.Path) ?? "";
        }

        /// <summary>Which file of the consumer.</summary>
        public uint FileIndex { get; }
        /// <summary>Every field as stored (a 32-bit session's header widened); BufferSize is in bytes.</summary>
        public TraceLogfileHeader64 Header { get; }
        /// <summary>The raw SystemTime of the header record.</summary>
        public long ReferenceTimestamp { get; }
        /// <summary>The file's size in bytes.</summary>
        public ulong FileSize { get; }
        /// <summary>1 = 32-bit, 2 = 64-bit session.</summary>
        public uint HeaderType { get; }
        /// <summary>Of the header record.</summary>
        public uint ThreadId { get; }
        /// <summary>Of the header record.</summary>
        public uint ProcessId { get; }
        /// <summary>COMPRESSION_FORMAT_* of compressed buffers.</summary>
        public uint CompressionFormat { get; }
        /// <summary>The session name.</summary>
        public string LoggerName { get; }
        /// <summary>The log file name as stored in the file.</summary>
        public string LogFileName { get; }
        /// <summary>The path given to open (the session name for a live consumer).</summary>
        public string Path { get; }
    }

    /// <summary>Counters of the last (or running) <see cref="Consumer.Process"/>.</summary>
    public readonly record struct ConsumerStatistics(
        uint FileCount, ulong Buffers, ulong CorruptBuffers, ulong Records, ulong CorruptRecords,
        ulong BytesRead, ulong EventsLost, Status FirstProblem)
    {
        internal ConsumerStatistics(in ConsumerStatsNative n)
            : this(n.FileCount, n.Buffers, n.CorruptBuffers, n.Records, n.CorruptRecords, n.BytesRead,
                   n.EventsLost, (Status)n.FirstProblem) { }
    }
}
