using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
    /// <summary>What a provider's user_data (a GCHandle) points to. It must not refer to
    /// the Provider, or a provider never disposed could never be finalized.</summary>
    internal sealed class ProviderState
    {
        internal ProviderState(Action<ProviderEnableInfo>? callback) => Callback = callback;

        internal readonly Action<ProviderEnableInfo>? Callback;

        /// <summary>The last notification (replaced whole, so readers never see a torn value).</summary>
        internal volatile object? Last;
    }

    /// <summary>The enable callback: an [UnmanagedCallersOnly] function, so no delegate to pin.</summary>
    internal static unsafe class ProviderCallbacks
    {
        internal static IntPtr Enable => (IntPtr)(delegate* unmanaged[Cdecl]<ProviderEnableInfoNative*, IntPtr, void>)&OnEnable;

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static void OnEnable(ProviderEnableInfoNative* info, IntPtr userData)
        {
            try
            {
                var state = UserData.Get<ProviderState>(userData);
                var value = new ProviderEnableInfo(info->IsEnabled != 0, (EtwLevel)info->Level,
                                                   info->MatchAnyKeyword, info->MatchAllKeyword, info->SessionHandle,
                                                   info->IsEnabled == 2);
                if (!value.CaptureState)
                    state.Last = value; // a capture request leaves the enablement as it was
                state.Callback?.Invoke(value);
            }
            catch (Exception e)
            {
                // Never into native code: the managed call that caused this rethrows it.
                EnableCallbackErrors.Record(e);
            }
        }
    }
}
