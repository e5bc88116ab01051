using System;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
#pragma warning disable CS1591, CS0649 // a mirror of the C struct documented in tracelogging.h
    // etw_tl_field: 24 bytes on 64-bit (LayoutTests-style check in TraceLoggingTests).
    [StructLayout(LayoutKind.Sequential)]
    internal struct TlFieldNative
    {
        public IntPtr Name;
        public IntPtr Data;
        public uint Size;
        public byte InType;
        public byte OutType;
        public ushort Reserved;
    }
#pragma warning restore CS1591, CS0649
}
