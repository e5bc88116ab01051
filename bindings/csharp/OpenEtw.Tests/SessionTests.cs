using System;
using System.Collections.Generic;
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
        public void FileSessionWritesWhatTheConsumerReadsBack()
        {
            using var scratch = new Scratch();
            string name = Scratch.SessionName("File"), path = scratch.File("file.etl");
            using var props = Helpers.FileProperties(name, path);
            using var provider = new Provider(ProviderGuid);
            using (var session = Session.Start(props))
            {
                Assert.Equal(session.TraceHandle, props.HistoricalContext);
                session.EnableProvider(ProviderGuid, TraceLevel.Information);
                for (int i = 0; i < 500; i++)
                    provider.Write(ProviderGuid, 11, TraceLevel.Information, 3, Helpers.Utf8("event " + i));
                provider.Write(12, TraceLevel.Verbose, Helpers.Utf8("filtered by level"));
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
            Assert.All(records, r => Assert.Equal((ProviderGuid, (byte)11, TraceLevel.Information, (ushort)3, (uint)Environment.ProcessId),
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
                provider.Write(7, TraceLevel.Warning, Helpers.Utf8("live"));
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
                provider.Write(1, TraceLevel.None, Helpers.Utf8("kept"));
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
        }

        private static class NativeFlags
        {
            public const uint Lossless = 0x1, ReplaceOrphan = 0x2; // ETW_SESSION_* of session.h
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
