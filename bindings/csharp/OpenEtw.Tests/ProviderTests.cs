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
        public void CaptureStateReachesTheCallbackAndLeavesTheEnablement()
        {
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            var seen = new List<ProviderEnableInfo>();
            using var props = Helpers.FileProperties(Scratch.SessionName("Capture"), scratch.File("capture.etl"));
            using var provider = new Provider(guid, seen.Add);
            using var session = Session.Start(props);
            session.EnableProvider(guid, EtwLevel.Warning, 0x5);
            session.CaptureState(guid, EtwLevel.Verbose, 0xF0);
            Assert.Equal(new ProviderEnableInfo(true, EtwLevel.Verbose, 0xF0, 0, session.TraceHandle, true), seen[^1]);
            Assert.False(provider.EnableInfo.CaptureState); // the enablement as it was
            Assert.Equal(EtwLevel.Warning, provider.EnableInfo.Level);
            Assert.False(provider.IsEnabled(EtwLevel.Verbose));
            Assert.ThrowsAny<OpenEtwException>(() => session.CaptureState(Guid.NewGuid()));
            Assert.Equal(2, seen.Count);
        }

        [Fact]
        public void WriteEventKeepsItsDescriptorAndActivityIds()
        {
            using var scratch = new Scratch();
            var guid = Guid.NewGuid();
            var path = scratch.File("evhdr.etl");
            var activity = Guid.NewGuid();
            var related = Guid.NewGuid();
            var mine = Guid.Empty;
            using (var props = Helpers.FileProperties(Scratch.SessionName("EventHeader"), path))
            using (var provider = new Provider(guid))
            using (var session = Session.Start(props))
            {
                session.EnableProvider(guid, EtwLevel.Information, 0x10, 0);
                provider.WriteEvent(new EventDescriptor(4711, EtwLevel.Information, 0x8000000000000010, 2, 0x10, 1, 9),
                                    Helpers.Utf8("shipped"), activity, related);
                // Not taken: a keyword without a MatchAny bit, a level above the session's.
                provider.WriteEvent(new EventDescriptor(1, EtwLevel.Information, 0x20), default);
                provider.WriteEvent(new EventDescriptor(2, EtwLevel.Verbose, 0x10), default);
                // Keyword 0 passes; the thread's activity id when none is given.
                var writer = new System.Threading.Thread(() =>
                {
                    mine = ActivityId.Create();
                    ActivityId.Set(mine);
                    provider.TryWriteEvent(new EventDescriptor(3, EtwLevel.Information), Helpers.Utf8("xyz"));
                });
                writer.Start();
                writer.Join();
                Assert.Equal(Status.ArithmeticOverflow,
                             provider.TryWriteEvent(new EventDescriptor(5), new byte[0x10000]));
                session.Stop();
            }
            var seen = new List<(ushort, byte, byte, EtwLevel, byte, ushort, ulong, Guid, Guid, string, string)>();
            using (var consumer = Consumer.Open(new[] { path }, new ConsumerOptions
            {
                OnEventRecord = e =>
                {
                    var rel = e.ExtendedDataCount == 1 && e.GetExtendedItem(0).ExtType == 1
                        ? new Guid(e.GetExtendedItem(0).Data).ToString() : "";
                    seen.Add((e.Id, e.Version, e.Channel, e.Level, e.Opcode, e.Task, e.Keyword, e.ProviderId,
                              e.ActivityId, rel, System.Text.Encoding.UTF8.GetString(e.UserData)));
                    return true;
                },
            }))
            {
                Assert.True(consumer.Process());
            }
            Assert.Equal(2, seen.Count);
            seen.Sort((x, y) => y.Item1.CompareTo(x.Item1)); // two threads' buffers: by id, not by file order
            Assert.Equal(((ushort)4711, (byte)2, (byte)0x10, EtwLevel.Information, (byte)1, (ushort)9, 0x8000000000000010UL,
                          guid, activity, related.ToString(), "shipped"), seen[0]);
            Assert.Equal(((ushort)3, (byte)0, (byte)0, EtwLevel.Information, (byte)0, (ushort)0, 0UL, guid, mine, "", "xyz"),
                         seen[1]);
        }

        [Fact]
        public void ActivityIdFollowsEventActivityIdControl()
        {
            // On a thread of its own: it starts with Guid.Empty.
            Guid a = Guid.NewGuid(), b = Guid.NewGuid();
            var got = new List<Guid>();
            var thread = new System.Threading.Thread(() =>
            {
                got.Add(ActivityId.Get());
                ActivityId.Set(a);
                got.Add(ActivityId.Get());
                got.Add(ActivityId.GetSet(b));
                got.Add(ActivityId.CreateSet());
                got.Add(ActivityId.Get());
                got.Add(ActivityId.Create());
                got.Add(ActivityId.Create());
                got.Add(ActivityId.Get());
            });
            thread.Start();
            thread.Join();
            Assert.Equal(8, got.Count);
            Assert.Equal(Guid.Empty, got[0]);
            Assert.Equal(a, got[1]);
            Assert.Equal(a, got[2]); // GET_SET returns the old id
            Assert.Equal(b, got[3]); // CREATE_SET returns the old id ...
            Assert.NotEqual(b, got[4]); // ... and sets a new one
            Assert.NotEqual(Guid.Empty, got[4]);
            Assert.NotEqual(got[5], got[6]); // CREATE makes a new id each time ...
            Assert.Equal(got[4], got[7]); // ... and leaves the thread's
            var seenByOther = Guid.NewGuid();
            var other = new System.Threading.Thread(() => seenByOther = ActivityId.Get());
            other.Start();
            other.Join();
            Assert.Equal(Guid.Empty, seenByOther); // each thread has its own
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
