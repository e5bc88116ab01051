using System;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
    /// <summary>An etw_decoder*, used by one thread at a time (DecodedEvent keeps one per thread).</summary>
    internal sealed class DecoderHandle : SafeHandle
    {
        public DecoderHandle() : base(IntPtr.Zero, ownsHandle: true) { }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            DecodeDestroy.etw_decoder_destroy(handle);
            return true;
        }
    }

    internal static class DecodeDestroy
    {
        [DllImport(NativeLibraryResolver.Library, ExactSpelling = true)]
        internal static extern void etw_decoder_destroy(IntPtr decoder);
    }

    /// <summary>etw_decoded_event (decode.h).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct DecodedEventNative
    {
        public uint StructSize;
        public uint Source;
        public IntPtr EventName;
        public IntPtr ProviderName;
        public IntPtr TaskName;
        public IntPtr OpcodeName;
        public IntPtr LevelName;
        public IntPtr KeywordsName;
        public IntPtr Properties;
        public uint PropertyCount;
        public uint PayloadUsed;
    }

    /// <summary>etw_event_property (decode.h).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct EventPropertyNative
    {
        public IntPtr Name;
        public IntPtr Value;
        public IntPtr Data;
        public uint DataSize;
        public uint Parent;
        public uint ChildCount;
        public uint Kind;
        public ushort InType;
        public ushort OutType;
        public uint Flags;
    }
}
