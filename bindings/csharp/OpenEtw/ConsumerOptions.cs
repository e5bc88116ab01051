using System;

namespace OpenEtw
{
    /// <summary>Called for every record of every kind. Return true to continue, false to stop processing.</summary>
    public delegate bool RecordCallback(TraceRecord record);

    /// <summary>Called for classic records (full and instance kinds), after the record callback. Return true to continue.</summary>
    public delegate bool ClassicEventCallback(ClassicEvent classicEvent);

    /// <summary>Called after each buffer's records. Return true to continue.</summary>
    public delegate bool BufferCallback(TraceBuffer buffer);

    /// <summary>Live consumers: the session lost events or buffers since the previous notification. Return true to continue.</summary>
    public delegate bool LossCallback(LossInfo loss);

    /// <summary>Live consumers: a buffer's bytes, header included, before its records; borrowed for the call. Return true to continue.</summary>
    public delegate bool RawBufferCallback(ReadOnlySpan<byte> buffer);

    /// <summary>What a loss callback receives.</summary>
    /// <param name="EventsLost">How much the session's EventsLost grew since the last notification.</param>
    /// <param name="BuffersLost">How much its RealTimeBuffersLost grew.</param>
    public readonly record struct LossInfo(uint EventsLost, uint BuffersLost);

    /// <summary>
    /// How a <see cref="Consumer"/> reads and whom it calls. Every callback is optional and
    /// runs only on the thread inside <see cref="Consumer.Process"/>; the views it receives
    /// (and their spans) are borrowed until it returns. A callback that throws stops
    /// processing, and <see cref="Consumer.Process"/> rethrows that exception.
    /// </summary>
    public sealed record ConsumerOptions
    {
        /// <summary>Record order of file consumers (no effect on live ones).</summary>
        public ConsumerOrder Order { get; init; } = ConsumerOrder.Time;

        /// <summary>Keep timestamps as raw session-clock values instead of FILETIME.</summary>
        public bool RawTimestamps { get; init; }

        /// <summary>After each buffer.</summary>
        public BufferCallback? OnBuffer { get; init; }

        /// <summary>Every record.</summary>
        public RecordCallback? OnRecord { get; init; }

        /// <summary>Classic events, after <see cref="OnRecord"/>.</summary>
        public ClassicEventCallback? OnEvent { get; init; }

        /// <summary>EVENT_HEADER records (manifest-based, TraceLogging), EVENT_RECORD-style, after <see cref="OnRecord"/>.</summary>
        public EventRecordCallback? OnEventRecord { get; init; }

        /// <summary>The manifests and provider binaries records decode with in the callbacks; null: <see cref="OpenEtw.Schemas.Default"/>.</summary>
        public Schemas? Schemas { get; init; }

        /// <summary>Live consumers only: losses as they happen.</summary>
        public LossCallback? OnLoss { get; init; }

        /// <summary>Live consumers only: each raw buffer before its records.</summary>
        public RawBufferCallback? OnRawBuffer { get; init; }
    }
}
