using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;

namespace OpenEtw.Interop
{
    /// <summary>
    /// The user_data of every callback: a GCHandle to the managed state (delegates and the
    /// captured exception). The library owns it after a successful register or open and
    /// frees it exactly once through <see cref="FreeFunction"/> (its user_data_free), so
    /// the delegates live exactly as long as the native object.
    /// </summary>
    internal static unsafe class UserData
    {
        private static long s_live;

        /// <summary>GCHandles allocated here and not yet freed: the leak tests read it.</summary>
        internal static long LiveCount => Interlocked.Read(ref s_live);

        internal static IntPtr Alloc(object state)
        {
            IntPtr pointer = GCHandle.ToIntPtr(GCHandle.Alloc(state));
            Interlocked.Increment(ref s_live);
            return pointer;
        }

        internal static T Get<T>(IntPtr userData) where T : class =>
            Unsafe.As<T>(GCHandle.FromIntPtr(userData).Target!);

        /// <summary>Frees a handle the library did not take (a failed register).</summary>
        internal static void Free(IntPtr userData)
        {
            GCHandle.FromIntPtr(userData).Free();
            Interlocked.Decrement(ref s_live);
        }

        internal static IntPtr FreeFunction => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, void>)&OnFree;

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static void OnFree(IntPtr userData) => Free(userData);
    }
}
