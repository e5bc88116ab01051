using System;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// A classic event (EVENT_TRACE_HEADER or EVENT_INSTANCE_GUID_HEADER record) as
    /// ProcessTrace's EventCallback sees it: a view valid only during the callback, like
    /// <see cref="TraceRecord"/>.
    /// </summary>
    public readonly unsafe ref partial struct ClassicEvent
    {
        private readonly ClassicEventNative* _e;

        internal ClassicEvent(ClassicEventNative* e) => _e = e;

        /// <summary>The header in the Windows layout; TimeStamp as <see cref="TraceRecord.Timestamp"/>, ClientContext/Flags hold KernelTime/UserTime.</summary>
        public ref readonly EventTraceHeader Header => ref _e->Header;

        /// <summary>The class GUID.</summary>
        public Guid Guid => _e->Header.Guid;
        /// <summary>Class.Type.</summary>
        public byte Type => _e->Header.Class.Type;
        /// <summary>Class.Level.</summary>
        public EtwLevel Level => (EtwLevel)_e->Header.Class.Level;
        /// <summary>Class.Version.</summary>
        public ushort Version => _e->Header.Class.Version;
        /// <summary>Instance records; else 0.</summary>
        public uint InstanceId => _e->InstanceId;
        /// <summary>Instance records; else 0.</summary>
        public uint ParentInstanceId => _e->ParentInstanceId;
        /// <summary>Instance records; else empty.</summary>
        public Guid ParentGuid => _e->ParentGuid;

        /// <summary>The MOF data; borrowed for the callback.</summary>
        public ReadOnlySpan<byte> Payload => new ReadOnlySpan<byte>((void*)_e->Payload, checked((int)_e->PayloadSize));

        /// <summary>Every decoded fact of the same record.</summary>
        public TraceRecord Record => new TraceRecord((RecordNative*)_e->Record);
    }
}
