using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Xunit;

namespace OpenEtw.Tests
{
    public class SessionTests
    {
        private static readonly Guid ProviderGuid = new("3a9d2c5e-51f0-4f7e-9b61-2d4c8e0f1a01");

        [Fact]
        public void TheProfileIntervalOfARunningSystemLoggerChanges()
        {
            using var scratch = new Scratch();
            using var props = Helpers.FileProperties(Scratch.SessionName("Interval"), scratch.File("interval.etl"));
            props.LogFileMode = LogFileMode.Sequential | LogFileMode.SystemLogger;
            props.EnableFlags = KernelFlags.Profile;
            Session session;
            try
            {
                session = Session.Start(props);
            }
            catch (OpenEtwException e) when (e.Status == Status.AccessDenied)
            {
                return; // not root: no kernel events to sample
            }
            using (session)
            {
                Assert.Equal(10000u, session.Options.ProfileInterval);
                session.SetProfileInterval(50000);
                Assert.Equal(50000u, session.Options.ProfileInterval);
                var refused = Assert.ThrowsAny<OpenEtwException>(() => session.SetProfileInterval(1220));
                Assert.Equal(Status.InvalidParameter, refused.Status);
                Assert.Equal(50000u, session.Options.ProfileInterval);
            }
            using var plainProps = Helpers.FileProperties(Scratch.SessionName("NoInterval"), scratch.File("plain.etl"));
            using var plain = Session.Start(plainProps);
            Assert.Equal(Status.NotSupported,
                         Assert.ThrowsAny<OpenEtwException>(() => plain.SetProfileInterval(10000)).Status);
        }

        [Fact]
        public void FileSessionWritesWhatTheConsumerReadsBack()
        {
            using var scratch = new Scratch();
            string name = Scratch.SessionName("File"), path = scratch.File("file.etl");
            using var props = Helpers.FileProperties(name, path);
            using var provider = new Provider(ProviderGuid);
            using (var session = Session.Start(props))
            {
                Assert.Equal(session.TraceHandle, props.HistoricalContext);
                session.EnableProvider(ProviderGuid, EtwLevel.Information);
                for (int i = 0; i < 500; i++)
                    provider.Write(ProviderGuid, 11, EtwLevel.Information, 3, Helpers.Utf8("event " + i));
                provider.Write(12, EtwLevel.Verbose, Helpers.Utf8("filtered by level"));
                Assert.Equal(0u, session.Query().EventsLost);
                using (var opened = Session.Open(name.ToUpperInvariant()))
                    Assert.Equal(session.TraceHandle, opened.TraceHandle);
                Assert.Contains(Session.List(), p => p.SessionName == name);
                SessionStatistics stats = session.Stop(props);
                Assert.Equal(0u, stats.EventsLost);
                Assert.True(stats.BuffersWritten >= 1);
            }
            List<Copied> records = Helpers.ReadAll(path);
            Assert.Equal(500, records.Count);
            Assert.Equal(Enumerable.Range(0, 500).Select(i => "event " + i), records.Select(r => r.Payload));
            Assert.All(records, r => Assert.Equal((ProviderGuid, (byte)11, EtwLevel.Information, (ushort)3, (uint)Environment.ProcessId),
                                                  (r.Guid, r.Opcode, r.Level, r.Version, r.ProcessId)));
            Assert.Equal(500, Helpers.ReadAll(path, ConsumerOrder.File).Count);

            using var consumer = Consumer.Open(new[] { path, path }, new ConsumerOptions { RawTimestamps = true });
            Assert.Equal(2, consumer.FileCount);
            LogfileHeader header = consumer.GetLogfileHeader(1);
            Assert.Equal(name, header.LoggerName);
            Assert.Equal(path, header.LogFileName);
            Assert.Equal(16u * 1024, header.Header.BufferSize);
            Assert.True(consumer.Process());
            Assert.Equal(2u * 501, consumer.Statistics.Records); // each file's events and its header record
        }

        [Fact]
        public async Task RealTimeSessionFeedsALiveConsumerOnAnotherThread()
        {
            string name = Scratch.SessionName("Live");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime, FlushTimer = 1, BufferSize = 8 };
            using var provider = new Provider(ProviderGuid);
            using var session = Session.Start(props, Helpers.Lossless);
            session.EnableProvider(ProviderGuid);
            int events = 0, buffers = 0;
            using var consumer = Consumer.OpenSession(name, new ConsumerOptions
            {
                OnEvent = e => { events++; return true; },
                OnBuffer = b => { buffers++; return true; },
                OnRawBuffer = bytes => bytes.Length == 8 * 1024,
            });
            Assert.Equal(name, consumer.GetLogfileHeader().LoggerName);
            var processing = consumer.ProcessAsync();
            for (int i = 0; i < 3000; i++)
                provider.Write(7, EtwLevel.Warning, Helpers.Utf8("live"));
            SessionStatistics stats = session.Stop();
            Assert.True(await processing.WaitAsync(TimeSpan.FromSeconds(30)));
            Assert.Equal(0u, stats.EventsLost);
            Assert.Equal(3000, events);
            // Not in time order: live buffers arrive as flushed, per CPU.
            Assert.True(buffers > 0);
        }

        [Fact]
        public async Task CancelStopsABlockedLiveConsumerFromAnotherThread()
        {
            string name = Scratch.SessionName("Cancel");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            using var session = Session.Start(props);
            using var consumer = Consumer.OpenSession(name);
            using var cts = new CancellationTokenSource();
            var processing = consumer.ProcessAsync(cts.Token);
            await Task.Delay(100);
            cts.Cancel();
            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => processing.WaitAsync(TimeSpan.FromSeconds(10)));
            Assert.False(consumer.Process()); // cancelling is permanent
        }

        [Fact]
        public void BufferingSessionWritesOnDemand()
        {
            using var scratch = new Scratch();
            string name = Scratch.SessionName("Buffering");
            using var props = new Properties(name) { LogFileMode = LogFileMode.Buffering, BufferSize = 8, MinimumBuffers = 8 };
            using var provider = new Provider(ProviderGuid);
            using var session = Session.Start(props);
            session.EnableProvider(ProviderGuid);
            for (int i = 0; i < 100; i++)
                provider.Write(1, EtwLevel.None, Helpers.Utf8("kept"));
            session.FlushToFile(scratch.File("snapshot.etl"));
            Assert.Equal(100, Helpers.ReadAll(scratch.File("snapshot.etl")).Count(r => r.Payload == "kept"));
            var error = Assert.Throws<OpenEtwException>(() => session.Flush()); // no log file name to flush to
            Assert.Equal(Status.InvalidParameter, error.Status);
        }

        [Fact]
        public void UpdateAndOptionsRoundTrip()
        {
            string name = Scratch.SessionName("Options");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime, MaximumBuffers = 32 };
            using var session = Session.Start(props, new SessionOptions { Lossless = true, LosslessTimeoutMs = 250 });
            SessionOptions options = session.Options;
            Assert.True(options.Lossless);
            Assert.Equal(250u, options.LosslessTimeoutMs);
            Assert.True(options.RealtimeBacklogBuffers > 0);
            using var changes = new Properties(name);
            session.Query(changes);
            changes.FlushTimer = 5;
            session.Update(changes);
            using var now = new Properties("scratch");
            session.Query(now);
            Assert.Equal(5u, now.FlushTimer);
            Assert.Equal(name, now.SessionName);
        }

        [Fact]
        public void OptionFlagsReachTheNativeStruct()
        {
            Assert.Equal(NativeFlags.Lossless | NativeFlags.ReplaceOrphan,
                         new SessionOptions { Lossless = true, ReplaceOrphan = true }.ToNative().Flags);
            Assert.Equal(NativeFlags.ReplaceOrphan, new SessionOptions { ReplaceOrphan = true }.ToNative().Flags);
            Assert.Equal(NativeFlags.TakeOverOrphan, new SessionOptions { TakeOverOrphan = true }.ToNative().Flags);
            Assert.Equal(NativeFlags.Lossless | NativeFlags.TakeOverOrphan,
                         new SessionOptions { Lossless = true, TakeOverOrphan = true }.ToNative().Flags);
            Assert.Equal(NativeFlags.InProcess, new SessionOptions { InProcess = true }.ToNative().Flags);
        }

        private static class NativeFlags
        {
            public const uint Lossless = 0x1, ReplaceOrphan = 0x2, TakeOverOrphan = 0x4, InProcess = 0x8; // ETW_SESSION_* of session.h
        }

        [Fact]
        public void SessionRightsAreTheHeaderBits()
        {
            Assert.Equal(new uint[] { 0, 1, 2, 4, 7 },
                         new[] { SessionRights.None, SessionRights.Control, SessionRights.Log, SessionRights.Consume,
                                 SessionRights.All }.Select(r => (uint)r));
            Assert.Equal(SessionRights.All, SessionRights.Control | SessionRights.Log | SessionRights.Consume);
        }

        [Fact]
        public void GrantRejectsUnknownRightsBits()
        {
            using var props = new Properties(Scratch.SessionName("Grant")) { LogFileMode = LogFileMode.RealTime };
            using var session = Session.Start(props);
            foreach (uint bits in new[] { 0x8u, 0x17u, 0xFFFFFFFFu })
                Assert.Equal(Status.InvalidParameter,
                             Assert.Throws<OpenEtwException>(() => session.Grant(Posix.getuid(), (SessionRights)bits)).Status);
        }

        [Fact]
        public void GrantAndTakeOverNeedSystemWideSessions()
        {
            // scripts/bindings-tests.sh keeps sessions in the test process (OPENETW_REGISTRY=none);
            // a run by hand without it has system-wide sessions, where this does not hold.
            if (Environment.GetEnvironmentVariable("OPENETW_REGISTRY") != "none")
                return;
            string name = Scratch.SessionName("Local");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            using (var session = Session.Start(props))
            {
                var error = Assert.Throws<OpenEtwException>(() => session.Grant(Posix.getuid(), SessionRights.Log | SessionRights.Consume));
                Assert.Equal(Status.NotSupported, error.Status);
                Assert.Equal(Status.NotSupported, Assert.Throws<OpenEtwException>(() => session.Grant(12345, SessionRights.None)).Status);
            }
            using var other = new Properties(name + " taken") { LogFileMode = LogFileMode.RealTime };
            Assert.Equal(Status.NotSupported, Assert.Throws<OpenEtwException>(
                () => Session.Start(other, new SessionOptions { TakeOverOrphan = true })).Status);
        }

        [Fact]
        public void TakeOverAndReplaceOrphanExcludeEachOther()
        {
            string name = Scratch.SessionName("Both");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            var error = Assert.Throws<OpenEtwException>(
                () => Session.Start(props, new SessionOptions { ReplaceOrphan = true, TakeOverOrphan = true }));
            Assert.Equal(Status.InvalidParameter, error.Status);
            Assert.Contains("exclude each other", error.Message);
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => Session.Open(name)).Status);
        }

        [Fact]
        public async Task GrantAndTakeOverWithSystemWideSessionsInAChildProcess()
        {
            // This process keeps its sessions to itself: a child with a registry of its own
            // (removed afterwards with its session regions) runs SystemWideChild.
            string registry = $"/dev/shm/openetw-bind-{Environment.ProcessId}.registry";
            void Remove()
            {
                foreach (string f in System.IO.Directory.GetFiles("/dev/shm", System.IO.Path.GetFileName(registry) + "*"))
                    System.IO.File.Delete(f);
            }
            Remove();
            try
            {
                var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
                {
                    RedirectStandardOutput = true,
                    RedirectStandardError = true,
                };
                foreach (string arg in new[] { "exec", typeof(SessionTests).Assembly.Location, Program.SystemWideChild,
                                               Scratch.SessionName("Child") })
                    start.ArgumentList.Add(arg);
                start.Environment["OPENETW_REGISTRY"] = registry;
                using Process child = Process.Start(start)!;
                using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(60));
                Task<string> output = child.StandardOutput.ReadToEndAsync(timeout.Token);
                Task<string> errors = child.StandardError.ReadToEndAsync(timeout.Token);
                try
                {
                    await child.WaitForExitAsync(timeout.Token);
                }
                catch (OperationCanceledException)
                {
                    child.Kill();
                    throw;
                }
                string stdout = await output;
                Assert.True(child.ExitCode == 0, $"exit code {child.ExitCode}: {stdout}{await errors}");
                Assert.Equal(new[] { "grant: ETW_ERROR_INVALID_PARAMETER", "take over: ETW_ERROR_WMI_INSTANCE_NOT_FOUND",
                                     "both: ETW_ERROR_INVALID_PARAMETER" },
                             stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries));
                Assert.True(System.IO.File.Exists(registry), "the child did not use its registry");
            }
            finally
            {
                Remove();
            }
        }

        /// <summary>Runs in the child of <see cref="GrantAndTakeOverWithSystemWideSessionsInAChildProcess"/>.</summary>
        internal static int SystemWideChild(string name)
        {
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            using (var session = Session.Start(props))
            {
                foreach (uint user in new[] { Posix.getuid(), 12345u })
                {
                    session.Grant(user, SessionRights.Log | SessionRights.Consume);
                    session.Grant(user, SessionRights.None);
                }
                session.Grant(12345, SessionRights.All);
                using (var opened = Session.Open(name))
                    opened.Grant(12345, SessionRights.Control);
                Console.WriteLine("grant: " + Assert.Throws<OpenEtwException>(() => session.Grant(12345, (SessionRights)0x8)).StatusName);
            }
            using var none = new Properties(name + " none") { LogFileMode = LogFileMode.RealTime };
            Console.WriteLine("take over: " + Assert.Throws<OpenEtwException>(
                () => Session.Start(none, new SessionOptions { TakeOverOrphan = true })).StatusName);
            using var both = new Properties(name + " both") { LogFileMode = LogFileMode.RealTime };
            Console.WriteLine("both: " + Assert.Throws<OpenEtwException>(
                () => Session.Start(both, new SessionOptions { TakeOverOrphan = true, ReplaceOrphan = true })).StatusName);
            return 0;
        }

        [Fact]
        public void HostInfoNamesThisProcessUntilStopped()
        {
            string name = Scratch.SessionName("Host");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            using var session = Session.Start(props);
            SessionHostInfo host = session.HostInfo;
            Assert.Equal((uint)Environment.ProcessId, host.ProcessId);
            Assert.Equal(SessionHostState.Running, host.State);
            Assert.True(host.IsLocal);
            session.Stop();
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => session.HostInfo).Status);
        }

        [Fact]
        public void BadInputThrowsWithStatusAndMessage()
        {
            using var scratch = new Scratch();
            string name = Scratch.SessionName("Bad");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime };
            using (var session = Session.Start(props))
            {
                using var twin = new Properties(name.ToLowerInvariant()) { LogFileMode = LogFileMode.RealTime };
                Assert.Equal(Status.AlreadyExists, Assert.Throws<OpenEtwException>(() => Session.Start(twin)).Status);
                session.Stop();
                var again = Assert.Throws<OpenEtwException>(() => session.Stop());
                Assert.Equal(Status.WmiInstanceNotFound, again.Status);
                Assert.Equal("ETW_ERROR_WMI_INSTANCE_NOT_FOUND", again.StatusName);
            }
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => Session.Open(name)).Status);
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => Consumer.OpenSession(name)).Status);
            using var missing = Helpers.FileProperties(Scratch.SessionName("Folder"), scratch.File("no/such/x.etl"));
            Assert.Equal(Status.PathNotFound, Assert.Throws<OpenEtwException>(() => Session.Start(missing)).Status);
            var notFound = Assert.Throws<OpenEtwException>(() => Consumer.Open(scratch.File("missing.etl")));
            Assert.Equal(Status.FileNotFound, notFound.Status);
            Assert.Contains("missing.etl", notFound.Message);
            System.IO.File.WriteAllText(scratch.File("junk.etl"), string.Concat(Enumerable.Repeat("not a trace. ", 1000)));
            var junk = Assert.Throws<OpenEtwException>(() => Consumer.Open(scratch.File("junk.etl")));
            Assert.True(junk.Status is Status.InvalidData or Status.BadLength, junk.ToString());
            Assert.Throws<ArgumentNullException>(() => Consumer.Open(new[] { (string)null! }));
        }
    }
}
