using System;
using System.Linq;
using System.Threading.Tasks;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>A managed exception in any callback stops processing and reaches the caller intact.</summary>
    [Collection("Serial")] // reads the global GCHandle count
    public class CallbackExceptionTests
    {
        private sealed class CallbackFailed : Exception
        {
            public CallbackFailed(string where) : base(where) { }
        }

        private static void Throw(string where) => throw new CallbackFailed(where);

        private static string WriteFile(Scratch scratch, int events)
        {
            var guid = Guid.NewGuid();
            string path = scratch.File("events.etl");
            using var props = Helpers.FileProperties(Scratch.SessionName("Exceptions"), path);
            using var provider = new Provider(guid);
            using var session = Session.Start(props, Helpers.Lossless);
            session.EnableProvider(guid);
            for (int i = 0; i < events; i++)
                provider.Write(1, EtwLevel.None, Helpers.Utf8("e"));
            session.Stop();
            return path;
        }

        public static TheoryData<string> Kinds => new() { "record", "event", "buffer" };

        [Theory]
        [MemberData(nameof(Kinds))]
        public void AFileConsumerCallbackThatThrowsStopsProcessingAndProcessRethrows(string kind)
        {
            using var scratch = new Scratch();
            string path = WriteFile(scratch, 2000);
            long handles = Interop.UserData.LiveCount;
            int calls = 0;
            var options = kind switch
            {
                "record" => new ConsumerOptions { OnRecord = r => { calls++; Throw(kind); return true; } },
                "event" => new ConsumerOptions { OnEvent = e => { calls++; Throw(kind); return true; } },
                _ => new ConsumerOptions { OnBuffer = b => { calls++; Throw(kind); return true; } },
            };
            using (var consumer = Consumer.Open(path, options))
            {
                var error = Assert.Throws<CallbackFailed>(() => consumer.Process());
                Assert.Equal(kind, error.Message);
                Assert.Contains(nameof(Throw), error.StackTrace); // the callback's own frames are kept
                Assert.Equal(1, calls);
                Assert.True(consumer.Statistics.Records <= (kind == "buffer" ? 2000ul : 2ul));
                // The next run starts again, and the exception is not reported twice.
                Assert.Throws<CallbackFailed>(() => consumer.Process());
                Assert.Equal(2, calls);
            }
            Assert.Equal(handles, Interop.UserData.LiveCount); // user_data freed exactly once, at close
        }

        [Fact]
        public async Task ALiveConsumerCallbackThatThrowsStopsIt()
        {
            var guid = Guid.NewGuid();
            string name = Scratch.SessionName("LiveThrow");
            using var props = new Properties(name) { LogFileMode = LogFileMode.RealTime, BufferSize = 8 };
            using var provider = new Provider(guid);
            using var session = Session.Start(props);
            session.EnableProvider(guid);
            foreach (string kind in new[] { "raw", "record" })
            {
                int calls = 0;
                var options = kind == "raw"
                    ? new ConsumerOptions { OnRawBuffer = b => { calls++; Throw(kind); return true; } }
                    : new ConsumerOptions { OnRecord = r => { calls++; Throw(kind); return true; } };
                using var consumer = Consumer.OpenSession(name, options);
                provider.Write(1, EtwLevel.None, Helpers.Utf8("x"));
                session.Flush();
                var processing = consumer.ProcessAsync();
                var error = await Assert.ThrowsAsync<CallbackFailed>(() => processing.WaitAsync(TimeSpan.FromSeconds(30)));
                Assert.Equal(kind, error.Message);
                Assert.Equal(1, calls);
            }
        }

        [Fact]
        public void AnEnableCallbackExceptionIsRethrownByTheCallThatCausedIt()
        {
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            long handles = Interop.UserData.LiveCount;
            using var props = Helpers.FileProperties(Scratch.SessionName("EnableThrow"), scratch.File("x.etl"));
            using var session = Session.Start(props);
            int calls = 0;
            using (var provider = new Provider(guid, info => { calls++; if (info.IsEnabled) Throw("enable"); else Throw("disable"); }))
            {
                var enable = Assert.Throws<CallbackFailed>(() => session.EnableProvider(guid, EtwLevel.Error));
                Assert.Equal("enable", enable.Message);
                Assert.Contains(nameof(Throw), enable.StackTrace);
                Assert.True(provider.IsEnabled()); // the change itself happened
                Assert.Equal("disable", Assert.Throws<CallbackFailed>(() => session.DisableProvider(guid)).Message);
                // Each call reports its own callbacks' exceptions, never an earlier call's.
                Assert.Equal("enable", Assert.Throws<CallbackFailed>(() => session.EnableProvider(guid)).Message);
            }
            // A registration whose callback throws is undone: the constructor throws and frees it.
            Assert.Equal(3, calls);
            session.EnableProvider(guid); // no provider now: no callback
            Assert.Equal("enable", Assert.Throws<CallbackFailed>(() => new Provider(guid, _ => Throw("enable"))).Message);
            Assert.Equal(handles, Interop.UserData.LiveCount);
            // Stop disables the providers: their exceptions come out of Stop.
            using var last = new Provider(guid, info => { if (!info.IsEnabled) Throw("stop"); });
            Assert.Equal("stop", Assert.Throws<CallbackFailed>(() => session.Stop()).Message);
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => session.Stop()).Status);
        }
    }
}
