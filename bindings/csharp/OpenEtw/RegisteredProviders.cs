using System;
using System.Collections.Generic;
using System.Text;
using OpenEtw.Interop;
using N = OpenEtw.Interop.NativeMethods;

namespace OpenEtw
{
    /// <summary>A process registering a provider (TRACE_PROVIDER_INSTANCE_INFO).</summary>
    /// <param name="ProcessId">The process.</param>
    /// <param name="Registrations">Its registrations of the GUID not yet disposed.</param>
    public readonly record struct ProviderProcess(uint ProcessId, uint Registrations);

    /// <summary>A session enabling a provider, as it did (TRACE_ENABLE_INFO).</summary>
    /// <param name="SessionHandle">The session handle (Wnode.HistoricalContext).</param>
    /// <param name="SessionName">The session's name.</param>
    /// <param name="Level">The level it takes; None: every level.</param>
    /// <param name="MatchAnyKeyword">Its MatchAnyKeyword.</param>
    /// <param name="MatchAllKeyword">Its MatchAllKeyword.</param>
    /// <param name="FilterCount">The event filters it attached (0: none).</param>
    /// <param name="Properties">The enable properties it asked for.</param>
    public sealed record ProviderEnablement(ulong SessionHandle, string SessionName, EtwLevel Level,
                                            ulong MatchAnyKeyword, ulong MatchAllKeyword, uint FilterCount,
                                            EnableProperties Properties);

    /// <summary>Who registers a provider GUID and which sessions enable it (<see cref="Provider.Query"/>).</summary>
    /// <param name="Guid">The provider GUID.</param>
    /// <param name="Processes">The live processes registering it, by process id.</param>
    /// <param name="Sessions">The sessions enabling it: the session host's and this process's own.</param>
    public sealed record RegisteredProvider(Guid Guid, IReadOnlyList<ProviderProcess> Processes,
                                            IReadOnlyList<ProviderEnablement> Sessions);

    public sealed partial class Provider
    {
        /// <summary>
        /// The provider GUIDs of the namespace (EnumerateTraceGuidsEx TraceGuidQueryList): every
        /// GUID a live process registers or a running session enables, each once. A snapshot.
        /// </summary>
        public static IReadOnlyList<Guid> ListRegistered()
        {
            Guid[] guids = Array.Empty<Guid>();
            while (true)
            {
                uint status = N.etw_provider_list(guids, (uint)guids.Length, out uint count);
                if (status == 0)
                    return count == guids.Length ? guids : guids[..(int)count];
                if (status != (uint)Status.MoreData)
                    throw OpenEtwException.FromStatus(status);
                guids = new Guid[count]; // providers came meanwhile: ask again with room for them
            }
        }

        /// <summary>
        /// Who registers <paramref name="guid"/> and which sessions enable it
        /// (EnumerateTraceGuidsEx TraceGuidQueryInfo). <see cref="OpenEtwException"/> with
        /// <see cref="Status.WmiGuidNotFound"/> when no live process registers it and no running
        /// session enables it.
        /// </summary>
        public static RegisteredProvider Query(Guid guid)
        {
            var processes = Array.Empty<ProviderProcessNative>();
            var sessions = Array.Empty<ProviderSessionNative>();
            while (true)
            {
                uint status = N.etw_provider_query(guid, processes, (uint)processes.Length, out uint processCount,
                                                   sessions, (uint)sessions.Length, out uint sessionCount);
                if (status == 0 && processCount <= processes.Length && sessionCount <= sessions.Length)
                    return new RegisteredProvider(guid, Processes(processes, processCount), Sessions(sessions, sessionCount));
                if (status != 0 && status != (uint)Status.MoreData)
                    throw OpenEtwException.FromStatus(status);
                processes = new ProviderProcessNative[processCount];
                sessions = new ProviderSessionNative[sessionCount];
            }
        }

        private static ProviderProcess[] Processes(ProviderProcessNative[] native, uint count)
        {
            var result = new ProviderProcess[count];
            for (int i = 0; i < result.Length; i++)
                result[i] = new ProviderProcess(native[i].ProcessId, native[i].Registrations);
            return result;
        }

        private static unsafe ProviderEnablement[] Sessions(ProviderSessionNative[] native, uint count)
        {
            var result = new ProviderEnablement[count];
            for (int i = 0; i < result.Length; i++)
            {
                ProviderSessionNative s = native[i];
                var name = new ReadOnlySpan<byte>(s.SessionName, 128);
                int end = name.IndexOf((byte)0);
                result[i] = new ProviderEnablement(s.SessionHandle, Encoding.UTF8.GetString(end < 0 ? name : name[..end]),
                                                   (EtwLevel)s.Level, s.MatchAnyKeyword, s.MatchAllKeyword, s.FilterCount,
                                                   (EnableProperties)s.EnableProperty);
            }
            return result;
        }
    }
}
