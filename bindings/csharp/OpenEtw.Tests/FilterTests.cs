using System;
using System.Collections.Generic;
using System.Linq;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>Filters at the source, enable properties and the provider listing (issue #31).</summary>
    public class FilterTests
    {
        /// <summary>What one EVENT_HEADER event read back carries.</summary>
        private sealed record Seen(ushort Id, string Name, uint ProcessId, bool Stack, string? Sid, bool ProcessStartKey, bool EventKey);

        // Starts a file session, enables guid with options, runs write, stops and reads the events back.
        private static List<Seen> Run(Guid guid, EnableOptions options, Action<Provider> write, SessionOptions? sessionOptions = null,
                                      string? providerName = null)
        {
            using var scratch = new Scratch();
            string path = scratch.File("filters.etl");
            using (var props = Helpers.FileProperties(Scratch.SessionName("Filters"), path))
            using (var provider = providerName is null ? new Provider(guid) : new Provider(providerName))
            using (var session = Session.Start(props, sessionOptions ?? Helpers.Lossless))
            {
                session.EnableProvider(guid, EtwLevel.Verbose, 0, 0, options);
                write(provider);
                session.Stop();
            }
            var seen = new List<Seen>();
            using var consumer = Consumer.Open(new[] { path }, new ConsumerOptions
            {
                OnEventRecord = e =>
                {
                    bool stack = false, psk = false, key = false;
                    string? sid = null;
                    for (int i = 0; i < e.ExtendedDataCount; i++)
                    {
                        ExtendedItem item = e.GetExtendedItem(i);
                        switch (item.ExtType)
                        {
                            case ExtendedItems.StackTrace64:
                            case ExtendedItems.StackTrace32:
                                stack = item.GetStack(out _).Length > 0;
                                break;
                            case ExtendedItems.Sid:
                                sid = item.GetSidString();
                                break;
                            case ExtendedItems.ProcessStartKey:
                                psk = BitConverter.ToUInt64(item.Data) != 0;
                                break;
                            case ExtendedItems.EventKey:
                                key = BitConverter.ToUInt64(item.Data) != 0;
                                break;
                        }
                    }
                    seen.Add(new Seen(e.Id, e.EventName, e.ProcessId, stack, sid, psk, key));
                    return true;
                },
            });
            Assert.True(consumer.Process());
            return seen;
        }

        private static void WriteIds(Provider provider, params ushort[] ids)
        {
            foreach (ushort id in ids)
                for (int i = 0; i < 10; i++)
                    provider.WriteEvent(new EventDescriptor(id, EtwLevel.Information), Helpers.Utf8("x"));
        }

        private static Dictionary<ushort, int> CountById(List<Seen> seen) =>
            seen.GroupBy(s => s.Id).ToDictionary(g => g.Key, g => g.Count());

        [Fact]
        public void EventIdFilterAdmitsOrExcludesItsIds()
        {
            var guid = Guid.NewGuid();
            var kept = Run(guid, new EnableOptions { Filters = { new EventIdFilter(include: true, 3) } },
                           p => WriteIds(p, 1, 3, 7));
            Assert.Equal(new Dictionary<ushort, int> { [3] = 10 }, CountById(kept));
            var others = Run(guid, new EnableOptions { Filters = { new EventIdFilter(include: false, 3, 5) } },
                             p => WriteIds(p, 1, 3, 7));
            Assert.Equal(new Dictionary<ushort, int> { [1] = 10, [7] = 10 }, CountById(others));
            // No filter: everything (the filters above are what removed events).
            Assert.Equal(30, Run(guid, new EnableOptions(), p => WriteIds(p, 1, 3, 7)).Count);
        }

        [Fact]
        public void TraceEventSpellingsBecomeFilters()
        {
            var guid = Guid.NewGuid();
            var seen = Run(guid, new EnableOptions
            {
                EventIdsToEnable = new[] { 3, 4 },
                ProcessIdFilter = new[] { Environment.ProcessId },
                ProcessNameFilter = new[] { System.IO.Path.GetFileNameWithoutExtension(Environment.ProcessPath!) },
                EventIdStacksToEnable = new[] { 3 },
                StacksEnabled = true,
            }, p => WriteIds(p, 1, 3, 4));
            Assert.Equal(new Dictionary<ushort, int> { [3] = 10, [4] = 10 }, CountById(seen));
            Assert.All(seen, s => Assert.Equal(s.Id == 3, s.Stack));
            Assert.Equal(new Dictionary<ushort, int> { [1] = 10 },
                         CountById(Run(guid, new EnableOptions { EventIdsToDisable = new[] { 3, 4 } }, p => WriteIds(p, 1, 3, 4))));
            Assert.Empty(Run(guid, new EnableOptions { ProcessIdFilter = new[] { 1 } }, p => WriteIds(p, 1)));
            // A list and a filter of its type are two filters of one type.
            using var props = new Properties(Scratch.SessionName("TwoIdFilters")) { LogFileMode = LogFileMode.RealTime };
            using var session = Session.Start(props);
            var e = Assert.Throws<OpenEtwException>(() => session.EnableProvider(guid, EtwLevel.Verbose, 0, 0,
                new EnableOptions { EventIdsToEnable = new[] { 1 }, Filters = { new EventIdFilter(false, 2) } }));
            Assert.Contains("given twice", e.Message);
        }

        [Fact]
        public void PidAndExecutableNameFiltersPickProcesses()
        {
            var guid = Guid.NewGuid();
            var mine = Run(guid, new EnableOptions { Filters = { new PidFilter(Environment.ProcessId) } }, p => WriteIds(p, 1));
            Assert.Equal(10, mine.Count);
            Assert.All(mine, s => Assert.Equal((uint)Environment.ProcessId, s.ProcessId));
            Assert.Empty(Run(guid, new EnableOptions { Filters = { new PidFilter(1) } }, p => WriteIds(p, 1)));
            string exe = System.IO.Path.GetFileNameWithoutExtension(Environment.ProcessPath!);
            Assert.Equal(10, Run(guid, new EnableOptions { Filters = { new ExecutableNameFilter("no-such-program", exe) } },
                                 p => WriteIds(p, 1)).Count);
            Assert.Empty(Run(guid, new EnableOptions { Filters = { new ExecutableNameFilter("no-such-program") } },
                             p => WriteIds(p, 1)));
        }

        [Fact]
        public void SessionFiltersApplyToEveryProvider()
        {
            var guid = Guid.NewGuid();
            var other = new SessionOptions { Lossless = true, LosslessTimeoutMs = 10_000, Filters = new EventFilter[] { new PidFilter(1) } };
            Assert.Empty(Run(guid, new EnableOptions(), p => WriteIds(p, 1), other));
            var self = other with { Filters = new EventFilter[] { new PidFilter(Environment.ProcessId) } };
            Assert.Equal(10, Run(guid, new EnableOptions(), p => WriteIds(p, 1), self).Count);
            // A session takes PID and EXECUTABLE_NAME filters only.
            using var props = new Properties(Scratch.SessionName("SessionFilter")) { LogFileMode = LogFileMode.RealTime };
            var e = Assert.Throws<OpenEtwException>(() => Session.Start(props, new SessionOptions
            {
                Filters = new EventFilter[] { new EventIdFilter(true, 3) },
            }));
            Assert.Equal(Status.NotSupported, e.Status);
            Assert.Contains("PID and EXECUTABLE_NAME only", e.Message);
        }

        [Fact]
        public void EventNameFilterAdmitsTraceLoggingNames()
        {
            const string name = "OpenEtw.Tests.EventNames";
            var guid = Provider.GuidFromName(name);
            var seen = Run(guid, new EnableOptions { Filters = { new EventNameFilter("Kept") } }, p =>
            {
                for (int i = 0; i < 4; i++)
                {
                    p.Write("Kept", new { N = i });
                    p.Write("Dropped", new { N = i });
                }
            }, providerName: name);
            Assert.Equal(4, seen.Count);
            Assert.All(seen, s => Assert.Equal("Kept", s.Name));
            var inverse = Run(guid, new EnableOptions { Filters = { new EventNameFilter(false, "Kept") } },
                              p => { p.Write("Kept", new { N = 1 }); p.Write("Dropped", new { N = 2 }); }, providerName: name);
            Assert.Equal(new[] { "Dropped" }, inverse.Select(s => s.Name));
        }

        [Fact]
        public void PropertiesAddStackSidAndKeys()
        {
            var guid = Guid.NewGuid();
            var seen = Run(guid, new EnableOptions
            {
                Properties = EnableProperties.StackTrace | EnableProperties.Sid | EnableProperties.ProcessStartKey | EnableProperties.EventKey,
            }, p => WriteIds(p, 1));
            Assert.Equal(10, seen.Count);
            string sid = $"S-1-22-1-{Posix.getuid()}";
            Assert.All(seen, s => Assert.Equal(new Seen(1, s.Name, (uint)Environment.ProcessId, true, sid, true, true), s));
            // Without properties, no item.
            Assert.All(Run(guid, new EnableOptions(), p => WriteIds(p, 1)),
                       s => Assert.Equal(new Seen(1, s.Name, (uint)Environment.ProcessId, false, null, false, false), s));
        }

        [Fact]
        public void StackwalkFilterPicksWhichIdsCarryStacks()
        {
            var guid = Guid.NewGuid();
            // STACK_TRACE alone: an event the filter leaves without a stack has no item at all.
            var seen = Run(guid, new EnableOptions
            {
                Properties = EnableProperties.StackTrace,
                Filters = { new StackwalkFilter(3) },
            }, p => WriteIds(p, 3, 4));
            Assert.Equal(20, seen.Count);
            Assert.All(seen, s => Assert.Equal(s.Id == 3, s.Stack));
            // With another property, the others keep their items.
            var inverse = Run(guid, new EnableOptions
            {
                Properties = EnableProperties.StackTrace | EnableProperties.Sid,
                Filters = { new StackwalkFilter(false, 3) },
            }, p => WriteIds(p, 3, 4));
            Assert.Equal(20, inverse.Count);
            Assert.All(inverse, s => Assert.Equal(s.Id == 4, s.Stack));
            Assert.All(inverse, s => Assert.NotNull(s.Sid));
        }

        [Fact]
        public void BadFiltersThrowTheLibrarysStatusAndMessage()
        {
            var guid = Guid.NewGuid();
            using var props = new Properties(Scratch.SessionName("BadFilters")) { LogFileMode = LogFileMode.RealTime };
            using var session = Session.Start(props);
            OpenEtwException Bad(params EventFilter[] filters)
            {
                var options = new EnableOptions();
                foreach (EventFilter f in filters)
                    options.Filters.Add(f);
                return Assert.Throws<OpenEtwException>(() => session.EnableProvider(guid, EtwLevel.Verbose, 0, 0, options));
            }
            var empty = Bad(new EventIdFilter(true));
            Assert.Equal(Status.InvalidParameter, empty.Status);
            Assert.Contains("EVENT_FILTER_TYPE_EVENT_ID", empty.Message);
            var nine = Bad(new PidFilter(1, 2, 3, 4, 5, 6, 7, 8, 9));
            Assert.Equal(Status.InvalidParameter, nine.Status);
            Assert.Contains("9 ids", nine.Message);
            var twice = Bad(new PidFilter(1), new EventIdFilter(true, 1), new EventIdFilter(false, 2));
            Assert.Equal(Status.InvalidParameter, twice.Status);
            Assert.Contains("twice", twice.Message);
            Assert.Contains("filter 2", twice.Message);
            var unknown = Bad(new RawEventFilter(0x80000040u, new byte[4]));
            Assert.Equal(Status.InvalidParameter, unknown.Status);
            var package = Bad(new RawEventFilter(Interop.NativeMethods.ETW_EVENT_FILTER_TYPE_PACKAGE_ID, new byte[4]));
            Assert.Equal(Status.NotSupported, package.Status);
            var nothing = Bad(new RawEventFilter(Interop.NativeMethods.ETW_EVENT_FILTER_TYPE_PID, ReadOnlySpan<byte>.Empty));
            Assert.Equal(Status.InvalidParameter, nothing.Status);
            // The good ones still work on the same session afterwards.
            session.EnableProvider(guid, EtwLevel.Verbose, 0, 0, new EnableOptions { Filters = { new EventIdFilter(true, 3, 5) } });
        }

        [Fact]
        public void PayloadsAreWindowsLayouts()
        {
            Assert.Equal(new byte[] { 1, 0, 2, 0, 3, 0, 5, 0 }, new EventIdFilter(true, 3, 5).ToPayload());
            Assert.Equal(new byte[] { 0, 0, 1, 0, 0x10, 0x27 }, new StackwalkFilter(false, 10000).ToPayload());
            Assert.Equal(new byte[] { 7, 0, 0, 0, 0, 1, 0, 0 }, new PidFilter(7, 256).ToPayload());
            Assert.Equal(new byte[] { (byte)'a', 0, (byte)';', 0, (byte)'b', 0, 0, 0 }, new ExecutableNameFilter("a", "b").ToPayload());
            byte[] names = new EventNameFilter(true, "K", "L") { Level = EtwLevel.Warning, MatchAnyKeyword = 0x10 }.ToPayload();
            Assert.Equal(24, names.Length);
            Assert.Equal(0x10UL, BitConverter.ToUInt64(names, 0));
            Assert.Equal(new byte[] { 3, 1, 2, 0, (byte)'K', 0, (byte)'L', 0 }, names[16..]);
        }

        [Fact]
        public void ListingShowsProcessesAndEnablingSessions()
        {
            var guid = Guid.NewGuid();
            Assert.Equal(Status.WmiGuidNotFound, Assert.Throws<OpenEtwException>(() => Provider.Query(guid)).Status);
            Assert.DoesNotContain(guid, Provider.ListRegistered());
            string name = Scratch.SessionName("Listing");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            using var provider = new Provider(guid);
            using var second = new Provider(guid);
            using var session = Session.Start(props);
            session.EnableProvider(guid, EtwLevel.Warning, 0x30, 0x10, new EnableOptions
            {
                Properties = EnableProperties.Sid | EnableProperties.StackTrace,
                Filters = { new EventIdFilter(true, 3), new PidFilter(Environment.ProcessId) },
            });
            Assert.Contains(guid, Provider.ListRegistered());
            RegisteredProvider info = Provider.Query(guid);
            Assert.Equal(guid, info.Guid);
            Assert.Equal(new[] { new ProviderProcess((uint)Environment.ProcessId, 2) }, info.Processes);
            ProviderEnablement enablement = Assert.Single(info.Sessions);
            Assert.Equal(new ProviderEnablement(session.TraceHandle, name, EtwLevel.Warning, 0x30, 0x10, 2,
                                                EnableProperties.Sid | EnableProperties.StackTrace), enablement);
            session.Stop();
            second.Dispose();
            Assert.Equal(new[] { new ProviderProcess((uint)Environment.ProcessId, 1) }, Provider.Query(guid).Processes);
            Assert.Empty(Provider.Query(guid).Sessions);
        }
    }
}
