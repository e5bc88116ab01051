using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.ExceptionServices;

namespace OpenEtw.Interop
{
    /// <summary>
    /// Exceptions thrown by provider enable callbacks. The library runs those callbacks on
    /// the thread whose call caused them (enable, disable, stop, a private session's start,
    /// register), never on a hidden thread, so a thread-local list carries each exception
    /// from the callback, where it must not cross into native code, to the managed call
    /// that caused it, which rethrows it once the library has returned.
    /// </summary>
    internal static class EnableCallbackErrors
    {
        [ThreadStatic] private static List<ExceptionDispatchInfo>? t_pending;
        [ThreadStatic] private static int t_depth;

        /// <summary>
        /// Keeps a callback's exception for the call in progress. Outside any call of this
        /// binding (another language's code in the process caused the callback) nobody could
        /// receive it, and it is dropped rather than surfacing later in an unrelated call.
        /// </summary>
        internal static void Record(Exception exception)
        {
            if (t_depth > 0)
                (t_pending ??= new List<ExceptionDispatchInfo>()).Add(ExceptionDispatchInfo.Capture(exception));
        }

        /// <summary>
        /// Runs a library call that may run enable callbacks; rethrows what they threw (the
        /// original exception with its stack, or an AggregateException when several threw),
        /// before the call's own failure. A nested call (from inside a callback) keeps the
        /// outer call's list apart.
        /// </summary>
        internal static T Run<T>(Func<T> call)
        {
            List<ExceptionDispatchInfo>? outer = t_pending, mine;
            t_pending = null;
            t_depth++;
            ExceptionDispatchInfo? failure = null;
            T result = default!;
            try
            {
                result = call();
            }
            catch (OpenEtwException e)
            {
                failure = ExceptionDispatchInfo.Capture(e);
            }
            finally
            {
                mine = t_pending;
                t_pending = outer;
                t_depth--;
            }
            if (mine is { Count: 1 })
                mine[0].Throw();
            if (mine is { Count: > 1 })
                throw new AggregateException("Several provider enable callbacks threw.", mine.Select(e => e.SourceException));
            failure?.Throw();
            return result;
        }

        internal static void Run(Action call) => Run(() => { call(); return true; });
    }
}
