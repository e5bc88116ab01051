using System.Runtime.CompilerServices;
using OpenEtw.Interop;
using Xunit;

namespace OpenEtw.Tests
{
    /// <summary>The C structs of session.h, provider.h and consumer.h as the 64-bit C compiler lays them out.</summary>
    public class NativeStructLayoutTests
    {
        [Fact]
        public void SizesMatchTheCHeaders()
        {
            if (!System.Environment.Is64BitProcess)
                return;
            Assert.Equal(32, Unsafe.SizeOf<SessionOptionsNative>()); // profile_interval added in 1.1, filters in 1.2
            Assert.Equal(24, Unsafe.SizeOf<ClassicEventIdNative>());
            Assert.Equal(16, Unsafe.SizeOf<EventDescriptorNative>());
            Assert.Equal(16, Unsafe.SizeOf<EventDataDescriptorNative>());
            Assert.Equal(16, Unsafe.SizeOf<SessionHostInfoNative>());
            Assert.Equal(8, Unsafe.SizeOf<ProviderProcessNative>());
            Assert.Equal(168, Unsafe.SizeOf<ProviderSessionNative>());
            Assert.Equal(40, Unsafe.SizeOf<ProviderEnableInfoNative>());
            Assert.Equal(16, Unsafe.SizeOf<EventFilterDescriptorNative>());
            Assert.Equal(56, Unsafe.SizeOf<EnableParametersNative>());
            Assert.Equal(16, Unsafe.SizeOf<ExtendedItemNative>());
            Assert.Equal(200, Unsafe.SizeOf<RecordNative>());
            Assert.Equal(96, Unsafe.SizeOf<ClassicEventNative>());
            Assert.Equal(128, Unsafe.SizeOf<BufferInfoNative>());
            Assert.Equal(56, Unsafe.SizeOf<ConsumerOptionsNative>()); // event_record added in 0.2
            Assert.Equal(112, Unsafe.SizeOf<EventRecordNative>());
            Assert.Equal(344, Unsafe.SizeOf<LogfileInfoNative>());
            Assert.Equal(64, Unsafe.SizeOf<ConsumerStatsNative>());
            Assert.Equal(16, Unsafe.SizeOf<LossInfoNative>());
            Assert.Equal(64, Unsafe.SizeOf<MofEventNative>());
        }

        [Fact]
        public void OffsetsMatchTheCHeaders()
        {
            if (!System.Environment.Is64BitProcess)
                return;
            var r = new RecordNative();
            Assert.Equal(48, Off(ref r, ref r.Timestamp));
            Assert.Equal(112, Off(ref r, ref r.Keyword));
            Assert.Equal(146, Off(ref r, ref r.Opcode));
            Assert.Equal(168, Off(ref r, ref r.PayloadSize));
            Assert.Equal(184, Off(ref r, ref r.Payload));
            var e = new ClassicEventNative();
            Assert.Equal(8, Off(ref e, ref e.Header));
            Assert.Equal(80, Off(ref e, ref e.Payload));
            var b = new BufferInfoNative();
            Assert.Equal(92, Off(ref b, ref b.Status));
            Assert.Equal(120, Off(ref b, ref b.Message));
            var l = new LogfileInfoNative();
            Assert.Equal(288, Off(ref l, ref l.ReferenceTimestamp));
            Assert.Equal(336, Off(ref l, ref l.Path));
            var s = new ConsumerStatsNative();
            Assert.Equal(56, Off(ref s, ref s.FirstProblem));
            var o = new ConsumerOptionsNative();
            Assert.Equal(48, Off(ref o, ref o.EventRecord));
            var so = new SessionOptionsNative();
            Assert.Equal(20, Off(ref so, ref so.FilterCount));
            Assert.Equal(24, Off(ref so, ref so.Filters));
            var ep = new EnableParametersNative();
            Assert.Equal(24, Off(ref ep, ref ep.Level));
            Assert.Equal(28, Off(ref ep, ref ep.FilterCount));
            Assert.Equal(32, Off(ref ep, ref ep.SourceId));
            Assert.Equal(48, Off(ref ep, ref ep.Filters));
            var v = new EventRecordNative();
            Assert.Equal(46, Off(ref v, ref v.Task));
            Assert.Equal(48, Off(ref v, ref v.Keyword));
            Assert.Equal(64, Off(ref v, ref v.ActivityId));
            Assert.Equal(88, Off(ref v, ref v.ExtendedData));
            Assert.Equal(104, Off(ref v, ref v.Record));
        }

        private static int Off<TStruct, TField>(ref TStruct s, ref TField field) =>
            (int)Unsafe.ByteOffset(ref Unsafe.As<TStruct, byte>(ref s), ref Unsafe.As<TField, byte>(ref field));
    }
}
