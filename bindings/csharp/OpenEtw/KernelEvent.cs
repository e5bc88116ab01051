using System;
using System.Collections.Generic;

namespace OpenEtw
{
    /// <summary>
    /// A kernel event as a <see cref="KernelTrace"/> delivers it: the record's header facts and
    /// its decoded fields, copied (it outlives the callback, unlike <see cref="TraceRecord"/>).
    /// </summary>
    public sealed class KernelEvent
    {
        internal KernelEvent(TraceRecord record)
        {
            // System-logger headers carry the event type in the HookId's low byte.
            Opcode = record.Kind is RecordKind.System or RecordKind.Compact or RecordKind.PerfInfo
                ? (byte)(record.HookId & 0xFF) : record.Opcode;
            ProcessId = record.ProcessId;
            ThreadId = record.ThreadId;
            Processor = record.Processor;
            Timestamp = record.Timestamp;
            try
            {
                Decoded = record.Decode();
            }
            catch (OpenEtwException e)
            {
                DecodeError = e; // a payload its class does not describe: the event still arrives
            }
        }

        /// <summary>The event's name, "Class/Event" ("Process/Start"); "" when it does not decode.</summary>
        public string EventName => Decoded?.EventName ?? "";

        /// <summary>The kernel class ("Process"); "" when the event does not decode.</summary>
        public string ClassName => Decoded?.TaskName ?? "";

        /// <summary>The event type's name ("Start"); "" when the event does not decode.</summary>
        public string OpcodeName => Decoded?.OpcodeName ?? "";

        /// <summary>The event type (Class.Type: 1 Start, 2 End, 3 DCStart, 4 DCEnd, ...).</summary>
        public byte Opcode { get; }

        /// <summary>The process the header names.</summary>
        public uint ProcessId { get; }

        /// <summary>The thread the header names.</summary>
        public uint ThreadId { get; }

        /// <summary>The processor whose buffer held the event.</summary>
        public uint Processor { get; }

        /// <summary>FILETIME: 100 ns since 1601-01-01 UTC.</summary>
        public long Timestamp { get; }

        /// <summary>The timestamp as a UTC <see cref="DateTime"/>.</summary>
        public DateTime TimeStamp => DateTime.FromFileTimeUtc(Timestamp);

        /// <summary>The decoded event, or null when no kernel class describes it (or <see cref="DecodeError"/>).</summary>
        public DecodedEvent? Decoded { get; }

        /// <summary>Why a payload did not decode (InvalidData naming the field), or null.</summary>
        public OpenEtwException? DecodeError { get; }

        /// <summary>Top-level field name to value (empty when the event does not decode).</summary>
        public IReadOnlyDictionary<string, object> Fields => Decoded?.Fields ?? EmptyFields.Instance;

        /// <summary>The value of field <paramref name="name"/>, or null when absent (as TraceEvent).</summary>
        public object? PayloadByName(string name) => Decoded?.PayloadByName(name);

        /// <summary>The value of field <paramref name="name"/>; KeyNotFoundException names the event when absent.</summary>
        public object this[string name] => Decoded is DecodedEvent d ? d[name]
            : throw new KeyNotFoundException($"this kernel event has no field '{name}' (it does not decode)");

        /// <inheritdoc/>
        public override string ToString() => $"{EventName} pid {ProcessId} tid {ThreadId} at {TimeStamp:O}";
    }
}
