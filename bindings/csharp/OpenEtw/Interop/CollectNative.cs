using System;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
    /// <summary>An etw_collect_report*: releasing it destroys the report and its strings.</summary>
    internal sealed class CollectReportHandle : SafeHandle
    {
        public CollectReportHandle() : base(IntPtr.Zero, ownsHandle: true) { }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            etw_collect_report_destroy(handle);
            return true;
        }

        // Called with the raw pointer: a handle being released can no longer be marshalled.
        [DllImport(NativeLibraryResolver.Library, ExactSpelling = true)]
        private static extern void etw_collect_report_destroy(IntPtr report);
    }

    /// <summary>etw_collected_file (collect.h); the strings belong to the report.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct CollectedFileNative
    {
        public uint StructSize;
        public uint Outcome;
        public long StartTime;
        public ulong DataBuffers;
        public uint Complete;
        public uint MissingCount;
        public IntPtr Path;
        public IntPtr Machine;
        public IntPtr Session;
        public IntPtr StartUtc;
        public IntPtr Missing;
        public IntPtr Error;
    }
}
