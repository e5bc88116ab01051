using System;
using System.IO;
using Xunit;
using Xunit.Abstractions;

namespace OpenEtw.Tests
{
    /// <summary>
    /// Callbacks invoked tens of thousands of times, and providers and consumers created and
    /// freed 10,000 times, leave the process as they found it: no GCHandle, file descriptor
    /// or memory per call. Measured after a warm-up, so the runtime's one-time growth
    /// (JIT, pools, the engine's regions) is not counted.
    /// </summary>
    [Collection("Serial")]
    public class LeakTests
    {
        private readonly ITestOutputHelper _output;

        public LeakTests(ITestOutputHelper output) => _output = output;

        private readonly record struct Measure(long RssBytes, long GcHandles, int Descriptors)
        {
            public static Measure Take()
            {
                GC.Collect();
                GC.WaitForPendingFinalizers();
                GC.Collect();
                string[] statm = File.ReadAllText("/proc/self/statm").Split(' ');
                long rss = long.Parse(statm[1], System.Globalization.CultureInfo.InvariantCulture) * Environment.SystemPageSize;
                return new Measure(rss, Interop.UserData.LiveCount, Directory.GetFiles("/proc/self/fd").Length);
            }
        }

        // A per-call leak of 1 KB over the 30,000 callbacks or 10,000 cycles measured is
        // 10 MB or more; the runtime's own RSS moves by a few MB at most once warmed up.
        private const long RssBound = 6 << 20;

        private void AssertNoGrowth(string what, Measure before, Measure after)
        {
            _output.WriteLine($"{what}: RSS {before.RssBytes / 1024} -> {after.RssBytes / 1024} KB " +
                              $"({(after.RssBytes - before.RssBytes) / 1024:+#;-#;0} KB), GCHandles {before.GcHandles} -> {after.GcHandles}, " +
                              $"fds {before.Descriptors} -> {after.Descriptors}");
            Assert.Equal(before.GcHandles, after.GcHandles);
            Assert.InRange(after.Descriptors - before.Descriptors, -2, 2);
            Assert.True(after.RssBytes - before.RssBytes < RssBound,
                        $"{what}: RSS grew by {(after.RssBytes - before.RssBytes) / 1024} KB");
        }

        [Fact]
        public void RecordCallbacksAndConsumersDoNotLeak()
        {
            if (!OperatingSystem.IsLinux())
                return;
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            string path = scratch.File("leak.etl");
            using (var props = Helpers.FileProperties(Scratch.SessionName("Leak"), path))
            using (var provider = new Provider(guid))
            using (var session = Session.Start(props, Helpers.Lossless))
            {
                session.EnableProvider(guid);
                for (int i = 0; i < 10_000; i++)
                    provider.Write(1, EtwLevel.None, Helpers.Utf8("payload " + i));
                session.Stop();
            }
            long calls = 0, bytes = 0;
            void ReadOnce()
            {
                using var consumer = Consumer.Open(path, new ConsumerOptions
                {
                    OnRecord = r => { calls++; bytes += r.Payload.Length; return true; },
                    OnEvent = e => e.Payload.Length > 0,
                });
                Assert.True(consumer.Process());
            }
            // Warm-up: twice, so that the runtime's tiered JIT (which recompiles hot
            // methods in the background after their first calls) is done before measuring.
            ReadOnce();
            ReadOnce();
            Measure before = Measure.Take();
            calls = 0;
            for (int round = 0; round < 3; round++)
                ReadOnce();
            Assert.Equal(3 * 10_001, calls); // 10,000 events and the header record, per round
            Assert.True(bytes > 0);
            AssertNoGrowth("30,003 record callbacks, 3 consumers", before, Measure.Take());

            // 10,000 consumers opened with every callback and closed: one GCHandle each.
            for (int i = 0; i < 1000; i++) // warm-up
                Consumer.Open(path, new ConsumerOptions { OnRecord = r => true, OnBuffer = b => true }).Dispose();
            before = Measure.Take();
            for (int i = 0; i < 10_000; i++)
                Consumer.Open(path, new ConsumerOptions { OnRecord = r => true, OnBuffer = b => true }).Dispose();
            AssertNoGrowth("10,000 consumer open/close", before, Measure.Take());
        }

        [Fact]
        public void EnableCallbacksAndRegistrationsDoNotLeak()
        {
            if (!OperatingSystem.IsLinux())
                return;
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            using var props = Helpers.FileProperties(Scratch.SessionName("LeakEnable"), scratch.File("x.etl"));
            using var session = Session.Start(props);
            session.EnableProvider(guid, EtwLevel.Verbose);
            int notified = 0;
            void Cycle(int count)
            {
                for (int i = 0; i < count; i++)
                {
                    // The session enables the GUID: the callback runs inside each registration.
                    using var provider = new Provider(guid, info => { if (info.IsEnabled) notified++; });
                }
            }
            Cycle(1000); // warm-up
            Measure before = Measure.Take();
            notified = 0;
            Cycle(10_000);
            Assert.Equal(10_000, notified);
            AssertNoGrowth("10,000 register/unregister with enable callbacks", before, Measure.Take());
        }

        [Fact]
        public void EnablingWithFiltersDoesNotLeak()
        {
            if (!OperatingSystem.IsLinux())
                return;
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            using var props = Helpers.FileProperties(Scratch.SessionName("LeakFilters"), scratch.File("x.etl"));
            using var session = Session.Start(props);
            int refused = 0;
            void Cycle(int count)
            {
                for (int i = 0; i < count; i++)
                {
                    // Every filter type marshaled; every other call a bad set the library refuses.
                    var options = new EnableOptions
                    {
                        Properties = EnableProperties.StackTrace | EnableProperties.Sid,
                        Filters =
                        {
                            new EventIdFilter(true, 3, 5), new PidFilter(Environment.ProcessId),
                            new ExecutableNameFilter("dotnet", "no-such-program"), new EventNameFilter("Kept", "Other"),
                            new StackwalkFilter(3),
                        },
                    };
                    if (i % 2 == 1)
                        options.Filters.Add(new PidFilter(1));
                    try { session.EnableProvider(guid, EtwLevel.Verbose, 0, 0, options); }
                    catch (OpenEtwException e) when (e.Status == Status.InvalidParameter) { refused++; }
                }
            }
            Cycle(10_000); // warm-up: the runtime's and the engine's one-time growth
            Measure before = Measure.Take();
            refused = 0;
            Cycle(30_000);
            Assert.Equal(15_000, refused);
            AssertNoGrowth("30,000 enables with five filters (half refused)", before, Measure.Take());
        }
    }
}
