using System;
using System.Collections.Generic;
using Xunit;

namespace OpenEtw.Tests
{
    public class ProviderTests
    {
        [Fact]
        public void EnableCallbacksReportLevelAndKeywords()
        {
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            var seen = new List<ProviderEnableInfo>();
            using var props = Helpers.FileProperties(Scratch.SessionName("Enable"), scratch.File("enable.etl"));
            using var provider = new Provider(guid, seen.Add);
            Assert.Empty(seen);
            Assert.False(provider.IsEnabled());
            Assert.False(provider.EnabledHint);
            using var session = Session.Start(props);
            session.EnableProvider(guid, EtwLevel.Information, 0xF0, 0x10);
            Assert.Equal(new ProviderEnableInfo(true, EtwLevel.Information, 0xF0, 0x10, session.TraceHandle), seen[^1]);
            Assert.Equal(seen[^1], provider.EnableInfo);
            Assert.True(provider.IsEnabled(EtwLevel.Information, 0x10));
            Assert.True(provider.EnabledHint);
            Assert.False(provider.IsEnabled(EtwLevel.Information, 0x01));
            Assert.False(provider.IsEnabled(EtwLevel.Verbose));
            session.DisableProvider(guid);
            Assert.False(seen[^1].IsEnabled);
            Assert.False(provider.IsEnabled());
            Assert.False(provider.EnabledHint);
            // Written to no session, and not an error.
            provider.Write(1, EtwLevel.Error, Helpers.Utf8("dropped quietly"));
            Assert.Equal(2, seen.Count);
        }

        [Fact]
        public void ARegistrationLearnsAtOnceThatASessionEnablesIt()
        {
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            using var props = Helpers.FileProperties(Scratch.SessionName("Early"), scratch.File("early.etl"));
            using var session = Session.Start(props);
            session.EnableProvider(guid, EtwLevel.Error, 0x3, 0x1);
            var seen = new List<ProviderEnableInfo>();
            using var provider = new Provider(guid, seen.Add);
            Assert.Equal(new ProviderEnableInfo(true, EtwLevel.Error, 0x3, 0x1, 0), Assert.Single(seen));
            session.Stop(); // stopping disables: the callback runs on this thread
            Assert.False(seen[^1].IsEnabled);
        }

        [Fact]
        public void BadEventsThrowTheirStatus()
        {
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            using var props = Helpers.FileProperties(Scratch.SessionName("BadWrite"), scratch.File("bad.etl"), bufferKb: 8);
            using var provider = new Provider(guid);
            using (var session = Session.Start(props))
            {
                session.EnableProvider(guid);
                var tooBig = Assert.Throws<OpenEtwException>(() => provider.Write(1, EtwLevel.None, new byte[8100]));
                Assert.Equal(Status.MoreData, tooBig.Status);
                Assert.Equal(Status.MoreData, provider.TryWrite(guid, 1, EtwLevel.None, 0, new byte[8100]));
                var over16Bits = Assert.Throws<OpenEtwException>(() => provider.Write(1, EtwLevel.None, new byte[Provider.MaxPayloadSize + 1]));
                Assert.Equal(Status.InvalidParameter, over16Bits.Status);
                provider.Write(2, EtwLevel.None, ReadOnlySpan<byte>.Empty);
                provider.Write(3, EtwLevel.None, Helpers.Utf8("fine"));
                session.Stop();
            }
            var records = Helpers.ReadAll(scratch.File("bad.etl"));
            Assert.Equal(new[] { ("", (byte)2), ("fine", (byte)3) }, records.ConvertAll(r => (r.Payload, r.Opcode)));
            provider.Dispose();
            Assert.Throws<ObjectDisposedException>(() => provider.Write(1, EtwLevel.None, default));
        }
    }
}
