using System;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;

namespace OpenEtw.Interop
{
    /// <summary>
    /// What a consumer's user_data (a GCHandle) points to: the delegates and the first
    /// exception a callback threw. It must not refer to the Consumer, so an undisposed
    /// consumer can still be finalized (which closes it and frees this handle).
    /// </summary>
    internal sealed class ConsumerState
    {
        internal ConsumerState(ConsumerOptions options) => Options = options;

        internal readonly ConsumerOptions Options;

        /// <summary>Set on the processing thread, taken by Process on the same thread.</summary>
        internal ExceptionDispatchInfo? Error;
    }

    /// <summary>
    /// The consumer callbacks: [UnmanagedCallersOnly] functions (no delegate to keep alive or
    /// pin) that find the state through user_data. A managed exception never crosses into
    /// native code: it is kept, and the non-zero return stops processing; Process rethrows it.
    /// </summary>
    internal static unsafe class ConsumerCallbacks
    {
        internal static IntPtr Buffer => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, BufferInfoNative*, int>)&OnBuffer;
        internal static IntPtr Record => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, RecordNative*, int>)&OnRecord;
        internal static IntPtr Event => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, ClassicEventNative*, int>)&OnEvent;
        internal static IntPtr EventRecord => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, EventRecordNative*, int>)&OnEventRecord;
        internal static IntPtr Loss => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, LossInfoNative*, int>)&OnLoss;
        internal static IntPtr RawBuffer => (IntPtr)(delegate* unmanaged[Cdecl]<IntPtr, byte*, uint, int>)&OnRawBuffer;

        private const int Continue = 0, Stop = 1;

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static int OnBuffer(IntPtr userData, BufferInfoNative* buffer)
        {
            ConsumerState state = UserData.Get<ConsumerState>(userData);
            try { return state.Options.OnBuffer!(new TraceBuffer(buffer)) ? Continue : Stop; }
            catch (Exception e) { return Fail(state, e); }
        }

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static int OnRecord(IntPtr userData, RecordNative* record)
        {
            ConsumerState state = UserData.Get<ConsumerState>(userData);
            Schemas? outer = Schemas.Enter(state.Options.Schemas); // what the record decodes with
            try { return state.Options.OnRecord!(new TraceRecord(record)) ? Continue : Stop; }
            catch (Exception e) { return Fail(state, e); }
            finally { Schemas.Leave(outer); }
        }

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static int OnEvent(IntPtr userData, ClassicEventNative* classicEvent)
        {
            ConsumerState state = UserData.Get<ConsumerState>(userData);
            Schemas? outer = Schemas.Enter(state.Options.Schemas);
            try { return state.Options.OnEvent!(new ClassicEvent(classicEvent)) ? Continue : Stop; }
            catch (Exception e) { return Fail(state, e); }
            finally { Schemas.Leave(outer); }
        }

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static int OnEventRecord(IntPtr userData, EventRecordNative* eventRecord)
        {
            ConsumerState state = UserData.Get<ConsumerState>(userData);
            Schemas? outer = Schemas.Enter(state.Options.Schemas);
            try { return state.Options.OnEventRecord!(new EventRecord(eventRecord)) ? Continue : Stop; }
            catch (Exception e) { return Fail(state, e); }
            finally { Schemas.Leave(outer); }
        }

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static int OnLoss(IntPtr userData, LossInfoNative* loss)
        {
            ConsumerState state = UserData.Get<ConsumerState>(userData);
            try { return state.Options.OnLoss!(new LossInfo(loss->EventsLost, loss->BuffersLost)) ? Continue : Stop; }
            catch (Exception e) { return Fail(state, e); }
        }

        [UnmanagedCallersOnly(CallConvs = new[] { typeof(CallConvCdecl) })]
        private static int OnRawBuffer(IntPtr userData, byte* data, uint size)
        {
            ConsumerState state = UserData.Get<ConsumerState>(userData);
            try { return state.Options.OnRawBuffer!(new ReadOnlySpan<byte>(data, checked((int)size))) ? Continue : Stop; }
            catch (Exception e) { return Fail(state, e); }
        }

        private static int Fail(ConsumerState state, Exception e)
        {
            state.Error ??= ExceptionDispatchInfo.Capture(e);
            return Stop;
        }
    }
}
