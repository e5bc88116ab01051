using System;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
    /// <summary>An etw_properties*. The marshaller keeps it alive during every call.</summary>
    internal sealed class PropertiesHandle : SafeHandle
    {
        public PropertiesHandle() : base(IntPtr.Zero, ownsHandle: true) { }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            Destroy.etw_properties_destroy(handle);
            return true;
        }
    }

    /// <summary>
    /// Destroy functions, called straight into libopenetw with the raw pointer: a handle
    /// that is being released can no longer be marshalled as a SafeHandle.
    /// </summary>
    internal static class Destroy
    {
        [DllImport(NativeLibraryResolver.Library, ExactSpelling = true)]
        internal static extern void etw_properties_destroy(IntPtr props);
    }
}
