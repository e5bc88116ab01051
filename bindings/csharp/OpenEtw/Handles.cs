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

    /// <summary>An etw_session*: closing it releases the handle; the session keeps running.</summary>
    internal sealed class SessionHandle : SafeHandle
    {
        public SessionHandle() : base(IntPtr.Zero, ownsHandle: true) { }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            Destroy.etw_session_close(handle);
            return true;
        }
    }

    /// <summary>
    /// An etw_provider*: releasing it unregisters the provider, which frees the callback's
    /// GCHandle through user_data_free. The SafeHandle's reference count guarantees that no
    /// other call on the provider is in flight, as etw_provider_unregister requires.
    /// </summary>
    internal sealed class ProviderHandle : SafeHandle
    {
        public ProviderHandle() : base(IntPtr.Zero, ownsHandle: true) { }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            Destroy.etw_provider_unregister(handle);
            return true;
        }
    }

    /// <summary>
    /// An etw_consumer*: releasing it closes the consumer (user_data_free frees the
    /// callbacks' GCHandle). Release waits for any etw_consumer_process in flight, since
    /// that call holds a reference; Consumer.Dispose cancels it first.
    /// </summary>
    internal sealed class ConsumerHandle : SafeHandle
    {
        public ConsumerHandle() : base(IntPtr.Zero, ownsHandle: true) { }

        public override bool IsInvalid => handle == IntPtr.Zero;

        protected override bool ReleaseHandle()
        {
            // Not from inside a callback (the handle is still referenced then), so ETW_OK.
            return Destroy.etw_consumer_close(handle) == 0;
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

        [DllImport(NativeLibraryResolver.Library, ExactSpelling = true)]
        internal static extern void etw_session_close(IntPtr session);

        [DllImport(NativeLibraryResolver.Library, ExactSpelling = true)]
        internal static extern void etw_provider_unregister(IntPtr provider);

        [DllImport(NativeLibraryResolver.Library, ExactSpelling = true)]
        internal static extern uint etw_consumer_close(IntPtr consumer);
    }
}
