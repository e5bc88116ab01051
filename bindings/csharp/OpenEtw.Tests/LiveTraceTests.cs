using System;
using System.Diagnostics; // System.Diagnostics.TraceLevel beside OpenEtw.EtwLevel: no clash
using System.Threading.Tasks;
using Xunit;

namespace OpenEtw.Tests
{
    public class LiveTraceTests
    {
        private static readonly Guid ProviderGuid = new Guid("1d6f1c6b-2a3b-4c5d-8e9f-a0b1c2d3e4f6");

        [Fact]
        public async Task LiveTraceYieldsEveryEventAndStopsTheSession()
        {
            string name = Scratch.SessionName("Live");
            using var provider = new Provider(ProviderGuid);
            await using var trace = new LiveTrace(name, new ProviderEnable(ProviderGuid, EtwLevel.Warning));
            for (int i = 0; i < 2000; i++)
                provider.Write(10, EtwLevel.Error, BitConverter.GetBytes(i));
            provider.Write(10, EtwLevel.Verbose, "filtered"u8);
            _ = Task.Run(() => trace.Stop());
            int next = 0;
            await foreach (Event e in trace.Events)
            {
                Assert.Equal(next++, BitConverter.ToInt32(e.Payload));
                Assert.Equal(EtwLevel.Error, e.Level);
            }
            Assert.Equal(2000, next);
            Assert.Equal(0u, trace.Stop().EventsLost);
            var error = Assert.Throws<OpenEtwException>(() => Session.Open(name));
            Assert.Equal(Status.WmiInstanceNotFound, error.Status);
            Assert.Equal(System.Diagnostics.TraceLevel.Info, TraceLevel.Info); // both names resolve in one file
        }

        [Fact]
        public void DisposeStopsAStartedSessionUnlessDetached()
        {
            using var scratch = new Scratch();
            string stops = Scratch.SessionName("Stops"), detached = Scratch.SessionName("Detached");
            using (var props = Helpers.FileProperties(stops, scratch.File("stops.etl")))
            using (Session.Start(props)) { }
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => Session.Open(stops)).Status);

            using (var props = Helpers.FileProperties(detached, scratch.File("detached.etl")))
            using (var session = Session.Start(props))
                session.Detach();
            using (var again = Session.Open(detached)) // still running: stop it by name
                again.Stop();
            Assert.Equal(Status.WmiInstanceNotFound, Assert.Throws<OpenEtwException>(() => Session.Open(detached)).Status);
        }
    }
}
