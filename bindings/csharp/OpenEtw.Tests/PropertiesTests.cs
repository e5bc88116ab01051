using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using Xunit;

namespace OpenEtw.Tests
{
    public class PropertiesTests
    {
        private static Properties Sequential()
        {
            var p = new Properties("Cs Sequential")
            {
                LogFileName = "/tmp/cs.etl",
                LogFileMode = LogFileMode.Sequential,
            };
            return p;
        }

        [Fact]
        public void DefaultsFollowTheHeader()
        {
            using var p = new Properties("Cs Defaults");
            Assert.Equal("Cs Defaults", p.SessionName);
            Assert.Null(p.LogFileName);
            Assert.Equal(64u, p.BufferSize);
            Assert.Equal(ClockType.Qpc, p.ClockType);
            Assert.Equal(LogFileMode.None, p.LogFileMode);
            Assert.Equal(Guid.Empty, p.Guid);
            Assert.Equal(0u, p.EventsLost);
            Assert.Equal(0ul, p.HistoricalContext);
        }

        [Fact]
        public void BlockRoundTrips()
        {
            using var p = Sequential();
            p.BufferSize = 8;
            byte[] block = p.ToBlock();
            Assert.Equal(120 + 2 * 14 + 2 * 12, block.Length);
            Assert.Equal(block.Length, p.BlockSize);
            using var back = Properties.FromBlock(block);
            Assert.Equal("Cs Sequential", back.SessionName);
            Assert.Equal("/tmp/cs.etl", back.LogFileName);
            Assert.Equal(8u, back.BufferSize);
            Assert.Equal(block, back.ToBlock());
        }

        [Fact]
        public void ExportToASpanThatIsTooSmallThrowsMoreData()
        {
            using var p = Sequential();
            var e = Assert.Throws<OpenEtwException>(() => p.ExportTo(new byte[p.BlockSize - 1]));
            Assert.Equal(Status.MoreData, e.Status);
            Span<byte> exact = new byte[p.BlockSize];
            Assert.Equal(exact.Length, p.ExportTo(exact));
            Assert.Equal(Status.MoreData, Assert.Throws<OpenEtwException>(() => p.ExportTo(Span<byte>.Empty)).Status);
        }

        [Fact]
        public void ExceptionsCarryStatusNameAndMessage()
        {
            using var p = new Properties("Cs Errors");
            var e = Assert.Throws<OpenEtwException>(() => p.BufferSize = 3);
            Assert.Equal(Status.InvalidParameter, e.Status);
            Assert.Equal(87u, (uint)e.Status);
            Assert.Equal("ETW_ERROR_INVALID_PARAMETER", e.StatusName);
            Assert.Contains("BufferSize 3", e.Message);
            Assert.Equal(64u, p.BufferSize); // a failing setter leaves the object unchanged
        }

        [Fact]
        public void BadBlocksAreRefusedWithTheirStatus()
        {
            byte[] block;
            using (var p = Sequential())
                block = p.ToBlock();
            var shortBlock = Assert.Throws<OpenEtwException>(() => Properties.FromBlock(block.AsSpan(0, block.Length - 1)));
            Assert.Equal(Status.BadLength, shortBlock.Status);
            Assert.Contains("Wnode.BufferSize", shortBlock.Message);
            Assert.Equal(Status.BadLength, Assert.Throws<OpenEtwException>(() => Properties.FromBlock(ReadOnlySpan<byte>.Empty)).Status);
            block[44] = 0; // Wnode.Flags loses TRACED_GUID (0x00020000)
            block[45] = 0;
            block[46] = 0;
            var flags = Assert.Throws<OpenEtwException>(() => Properties.FromBlock(block));
            Assert.Equal(Status.InvalidParameter, flags.Status);
            Assert.Contains("TRACED_GUID", flags.Message);
        }

        [Fact]
        public void NamesAreUtf8AndChecked()
        {
            using var p = new Properties("Sitzung Ü € 😀");
            Assert.Equal("Sitzung Ü € 😀", p.SessionName);
            Assert.Equal(Status.InvalidName, Assert.Throws<OpenEtwException>(() => p.SessionName = "").Status);
            Assert.Equal(Status.InvalidName, Assert.Throws<OpenEtwException>(() => p.SessionName = new string('x', 1025)).Status);
            Assert.Throws<ArgumentNullException>(() => p.SessionName = null!);
            Assert.Equal(Status.InvalidName, Assert.Throws<OpenEtwException>(() => new Properties("")).Status);
            p.LogFileName = "/tmp/Протокол.etl";
            Assert.Equal("/tmp/Протокол.etl", p.LogFileName);
            p.LogFileName = null;
            Assert.Null(p.LogFileName);
        }

        [Fact]
        public void GuidAndRecordUseTheWindowsLayout()
        {
            using var p = Sequential();
            var guid = new Guid("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab");
            p.Guid = guid;
            p.ClockType = ClockType.SystemTime;
            Assert.Equal(guid, p.Guid);
            EventTraceProperties record = p.GetRecord();
            Assert.Equal(guid, record.Wnode.Guid);
            Assert.Equal((uint)p.BlockSize, record.Wnode.BufferSize);
            Assert.Equal(2u, record.Wnode.ClientContext);
            Assert.Equal(120u, record.LoggerNameOffset);
            byte[] block = p.ToBlock();
            // Data1 little-endian at Wnode.Guid (offset 24), as Windows stores a GUID.
            Assert.Equal(new byte[] { 0x3e, 0x1a, 0x2c, 0x6f }, block[24..28]);
        }

        [Fact]
        public void ValidateReportsTheFirstRuleBroken()
        {
            using var p = new Properties("Cs Rules") { LogFileName = "/tmp/c.etl", LogFileMode = LogFileMode.Circular };
            var e = Assert.Throws<OpenEtwException>(p.Validate);
            Assert.Contains("MaximumFileSize", e.Message);
            p.MaximumFileSize = 1;
            p.Validate();
            using var kernel = new Properties("NT Kernel Logger")
            {
                LogFileMode = LogFileMode.RealTime,
                EnableFlags = KernelFlags.Process | KernelFlags.Thread,
            };
            kernel.Validate();
        }

        [Fact]
        public void ClonesAreIndependent()
        {
            using var p = Sequential();
            p.BufferSize = 8;
            using var q = p.Clone();
            q.BufferSize = 16;
            Assert.Equal(8u, p.BufferSize);
            Assert.Equal(p.SessionName, q.SessionName);
        }

        [Fact]
        public void DisposedObjectsThrowObjectDisposed()
        {
            var p = new Properties("Cs Disposed");
            p.Dispose();
            p.Dispose(); // twice is fine
            Assert.Throws<ObjectDisposedException>(() => p.BufferSize);
        }

        [Fact]
        public void MessagesArePerThread()
        {
            var messages = new System.Collections.Concurrent.ConcurrentBag<string>();
            Parallel.For(0, 8, i =>
            {
                using var p = new Properties($"Cs Thread {i}");
                for (int n = 0; n < 2000; ++n)
                {
                    p.BufferSize = 8;
                    try { p.BufferSize = (uint)(20000 + i); }
                    catch (OpenEtwException e) { messages.Add(e.Message); }
                }
            });
            Assert.Equal(8 * 2000, messages.Count);
            Assert.Equal(8, messages.Distinct().Count()); // each message names its own thread's value
        }

        [Fact]
        public void VersionAndStatusHelpers()
        {
            Assert.Matches(@"^\d+\.\d+\.\d+$", OpenEtwLibrary.Version);
            Assert.Equal("ETW_ERROR_MORE_DATA", OpenEtwLibrary.StatusName(Status.MoreData));
            Assert.NotEmpty(OpenEtwLibrary.StatusString(Status.InvalidParameter));
            Assert.True(Constants.TryGetValue("ETW_REAL_TIME_MODE", out ulong rt));
            Assert.Equal((ulong)LogFileMode.RealTime, rt);
            Assert.True(Constants.TryGetString("ETW_KERNEL_LOGGER_NAME", out string? kernel));
            Assert.Equal("NT Kernel Logger", kernel);
            Assert.False(Constants.TryGetValue("ETW_NO_SUCH_THING", out _));
        }
    }
}
