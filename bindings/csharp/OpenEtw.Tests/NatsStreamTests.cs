using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net;
using System.Net.Sockets;
using System.Threading;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>
    /// A real nats-server asking for a password (JetStream on temporary storage), stopped when
    /// disposed. A missing nats-server fails the test: scripts/bindings-tests.sh installs it.
    /// </summary>
    internal sealed class NatsServer : IDisposable
    {
        private readonly Process _process;

        public NatsServer(string folder)
        {
            var listener = new TcpListener(IPAddress.Loopback, 0);
            listener.Start();
            int port = ((IPEndPoint)listener.LocalEndpoint).Port;
            listener.Stop();
            string log = Path.Combine(folder, "nats.log");
            string server = new[] { "/usr/sbin/nats-server", "/usr/bin/nats-server", "/usr/local/bin/nats-server" }
                .FirstOrDefault(File.Exists) ?? throw new InvalidOperationException(
                    "nats-server is not installed (scripts/deps.sh bindings installs it)");
            _process = Process.Start(new ProcessStartInfo(server, new[] {
                "-js", "-sd", Path.Combine(folder, "js"), "-a", "127.0.0.1", "-p", port.ToString(),
                "--user", "openetw", "--pass", "cs-secret", "-l", log }))!;
            for (int i = 0; i < 400; i++)
            {
                if (File.Exists(log) && File.ReadAllText(log).Contains("Server is ready"))
                {
                    Url = $"nats://127.0.0.1:{port}";
                    CredentialsFile = Path.Combine(folder, "nats.conf");
                    File.WriteAllText(CredentialsFile, "user = openetw\npassword = cs-secret\n");
                    return;
                }
                Thread.Sleep(25);
            }
            Dispose();
            throw new InvalidOperationException("nats-server did not get ready: " + File.ReadAllText(log));
        }

        public string Url { get; } = "";
        public string CredentialsFile { get; } = "";

        public void Dispose()
        {
            try { _process.Kill(); _process.WaitForExit(); } catch (InvalidOperationException) { }
            _process.Dispose();
        }
    }

    public class NatsStreamTests
    {
        private static readonly Guid ProviderGuid = new("3a9d2c5e-51f0-4f7e-9b61-2d4c8e0f1a31");

        private static void Export(NatsStream stream, string path, string name, int count)
        {
            using var props = stream.Export(Helpers.FileProperties(name, path));
            using var provider = new Provider(ProviderGuid);
            using var session = Session.Start(props, new SessionOptions { InProcess = true });
            session.EnableProvider(ProviderGuid, EtwLevel.Verbose);
            for (int i = 0; i < count; i++)
                provider.Write(type: 10, EtwLevel.Information, BitConverter.GetBytes(i));
            Assert.Equal(0u, session.Stop().RealTimeBuffersLost);
        }

        [Fact]
        public void TheCollectedFileStructMatchesTheCHeader()
        {
            if (!Environment.Is64BitProcess)
                return;
            Assert.Equal(80, System.Runtime.CompilerServices.Unsafe.SizeOf<Interop.CollectedFileNative>());
            var f = new Interop.CollectedFileNative();
            Assert.Equal(8, Off(ref f, ref f.StartTime));
            Assert.Equal(32, Off(ref f, ref f.Path));
            Assert.Equal(56, Off(ref f, ref f.StartUtc));
            Assert.Equal(72, Off(ref f, ref f.Error));
        }

        private static int Off<TStruct, TField>(ref TStruct s, ref TField field) =>
            (int)System.Runtime.CompilerServices.Unsafe.ByteOffset(
                ref System.Runtime.CompilerServices.Unsafe.As<TStruct, byte>(ref s),
                ref System.Runtime.CompilerServices.Unsafe.As<TField, byte>(ref field));

        [Fact]
        public void AnExportedSessionReadsBackAndCollectsAsItsFile()
        {
            using var scratch = new Scratch();
            using var server = new NatsServer(scratch.Folder);
            var stream = new NatsStream(server.Url + "/CSEXPORT", server.CredentialsFile);
            string name = Scratch.SessionName("Stream");
            string local = scratch.File("local.etl");
            Export(stream, local, name, 2000);

            var seen = new List<(uint File, int Value)>();
            StreamSource? source;
            using (var consumer = stream.Open(new ConsumerOptions {
                Order = ConsumerOrder.File,
                OnEvent = e => { seen.Add((e.Record.FileIndex, BitConverter.ToInt32(e.Payload))); return true; } }))
            {
                Assert.True(consumer.Process());
                Assert.Equal(1, consumer.FileCount);
                source = consumer.GetStreamSource(0);
            }
            Assert.NotNull(source);
            Assert.Equal(name, source!.Session);
            Assert.Equal(Dns.GetHostName(), source.Machine);
            Assert.All(seen, s => Assert.Equal(0u, s.File));
            Assert.Equal(Enumerable.Range(0, 2000), seen.Select(s => s.Value));
            using (var since = stream.Open(since: new DateTime(2000, 1, 1, 0, 0, 0, DateTimeKind.Utc)))
                Assert.Equal(1, since.FileCount);
            var later = Assert.Throws<OpenEtwException>(() => stream.Open(since: new DateTime(2100, 1, 1, 0, 0, 0, DateTimeKind.Utc)));
            Assert.Equal(Status.HandleEof, later.Status); // nothing that recent

            string output = Directory.CreateDirectory(scratch.File("collected")).FullName;
            CollectReport report = stream.Collect(output);
            Assert.Equal(0ul, report.Skipped);
            CollectedFile f = Assert.Single(report.Files);
            Assert.Equal((CollectOutcome.Written, true, 0, ""), (f.Outcome, f.Complete, f.Missing.Count, f.Error));
            Assert.Equal((source.Machine, name, source.StartTime), (f.Machine, f.Session, f.StartTime));
            Assert.True(f.DataBuffers > 0);
            Assert.EndsWith($".{f.StartUtc}.etl", f.Path);
            Assert.Equal(File.ReadAllBytes(local), File.ReadAllBytes(f.Path));
            Assert.Equal(CollectOutcome.Unchanged, stream.Collect(output, session: name.ToUpperInvariant()).Files[0].Outcome);

            // Other contents are kept unless overwrite; a machine that never exported matches nothing.
            File.WriteAllText(f.Path, "mine");
            var kept = Assert.Throws<CollectException>(() => stream.Collect(output));
            Assert.Equal(Status.AlreadyExists, kept.Status);
            Assert.Equal(CollectOutcome.Kept, kept.Report.Files[0].Outcome);
            Assert.Equal("mine", File.ReadAllText(f.Path));
            Assert.Equal(CollectOutcome.Replaced, stream.Collect(output, overwrite: true).Files[0].Outcome);
            var none = Assert.Throws<CollectException>(() => stream.Collect(output, machine: "no-such-machine"));
            Assert.Equal(Status.NoMoreItems, none.Status);
            Assert.Empty(none.Report.Files); // the server filters by subject: nothing to skip

            // A wrong password: the start and the collect fail with the server's refusal.
            string wrong = scratch.File("wrong.conf");
            File.WriteAllText(wrong, "user = openetw\npassword = nope\n");
            var bad = new NatsStream(stream.Url, wrong);
            Assert.Equal(Status.AccessDenied, Assert.Throws<CollectException>(() => bad.Collect(output)).Status);
            Assert.Equal(Status.AccessDenied, Assert.Throws<OpenEtwException>(() => bad.Open()).Status);
            var refused = Assert.Throws<OpenEtwException>(() => Export(bad, scratch.File("w.etl"), Scratch.SessionName("Wrong"), 0));
            Assert.Equal(Status.AccessDenied, refused.Status);
        }

        [Fact]
        public void AFollowedStreamGivesWhatItHoldsThenWhatComesUntilCancelled()
        {
            using var scratch = new Scratch();
            using var server = new NatsServer(scratch.Folder);
            var stream = new NatsStream(server.Url + "/CSFOLLOW", server.CredentialsFile);
            string name = Scratch.SessionName("Follow");
            using var props = stream.Export(Helpers.FileProperties(name, scratch.File("local.etl")));
            using var provider = new Provider(ProviderGuid);
            using var session = Session.Start(props, new SessionOptions { InProcess = true });
            session.EnableProvider(ProviderGuid, EtwLevel.Verbose);
            void Write(int first, int count)
            {
                for (int i = first; i < first + count; i++)
                    provider.Write(type: 10, EtwLevel.Information, BitConverter.GetBytes(i));
                session.Flush(); // published now, not when the buffer fills
            }
            int Count(List<(StreamSource? Source, int Value)> list) { lock (list) return list.Count; }
            bool WaitFor(Func<bool> done)
            {
                var clock = Stopwatch.StartNew();
                while (!done() && clock.ElapsedMilliseconds < 4000)
                    Thread.Sleep(20);
                return done();
            }

            Write(0, 300);
            var seen = new List<(StreamSource? Source, int Value)>();
            Consumer? consumer = null;
            // File order: delivered as they arrive, no 3 s window to wait out. The source
            // of a new file index is looked up here, on the processing thread.
            consumer = stream.Open(new ConsumerOptions {
                Order = ConsumerOrder.File,
                OnEvent = e => {
                    var item = (consumer!.GetStreamSource((int)e.Record.FileIndex), BitConverter.ToInt32(e.Payload));
                    lock (seen) seen.Add(item);
                    return true;
                } }, follow: true);
            string? outcome = null;
            using (consumer)
            {
                var following = new Thread(() => {
                    try { outcome = consumer!.Process() ? "finished" : "cancelled"; }
                    catch (Exception error) { outcome = error.ToString(); }
                });
                following.Start();
                try
                {
                    Assert.True(WaitFor(() => Count(seen) >= 300), $"{Count(seen)} of the 300 stored events");
                    Write(300, 200);
                    Assert.True(WaitFor(() => Count(seen) >= 500), $"{Count(seen)} of the 500 events");
                    Thread.Sleep(300); // an event delivered twice would come now
                }
                finally
                {
                    consumer.Cancel();
                    Assert.True(following.Join(4000), "Cancel ends the follow");
                }
                Assert.Equal("cancelled", outcome);
                Assert.True(consumer.FileCount >= 1);
            }
            Assert.Equal(Enumerable.Range(0, 500), seen.Select(s => s.Value)); // each once, in order
            StreamSource? source = Assert.Single(seen.Select(s => s.Source).Distinct());
            Assert.NotNull(source);
            Assert.Equal((Dns.GetHostName(), name), (source!.Machine, source.Session));

            var missing = new NatsStream(server.Url + "/CSNOSUCH", server.CredentialsFile);
            Assert.Equal(Status.FileNotFound, Assert.Throws<OpenEtwException>(() => missing.Open(follow: true)).Status);
        }
    }
}
