using System;
using OpenEtw.Interop;

namespace OpenEtw
{
    /// <summary>
    /// A failing OpenETW call: the status (a Win32 error code), its symbolic name and the
    /// library's message naming the argument or field at fault.
    /// </summary>
    public class OpenEtwException : Exception
    {
        /// <summary>Creates an exception for a status and message.</summary>
        public OpenEtwException(Status status, string message)
            : base(string.IsNullOrEmpty(message) ? NativeMethods.etw_status_string((uint)status) : message)
        {
            Status = status;
            StatusName = NativeMethods.etw_status_name((uint)status);
        }

        /// <summary>The status, e.g. <see cref="Status.InvalidParameter"/> (87).</summary>
        public Status Status { get; }

        /// <summary>The C name of the status, e.g. "ETW_ERROR_INVALID_PARAMETER".</summary>
        public string StatusName { get; }

        /// <inheritdoc/>
        public override string ToString() => $"{GetType().FullName}: {Message} [{StatusName} ({(uint)Status})]";

        // Called by the generated code right after the failing call, before any other
        // library call on this thread, so the thread-local message is still the call's own.
        internal static OpenEtwException FromStatus(uint status) =>
            new OpenEtwException((Status)status, NativeMethods.etw_last_error_message());
    }
}
