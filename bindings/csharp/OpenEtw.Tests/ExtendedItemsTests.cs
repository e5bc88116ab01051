using System;
using System.Buffers.Binary;
using Xunit;

namespace OpenEtw.Tests
{
    public class ExtendedItemsTests
    {
        [Fact]
        public void StacksGiveMatchIdAndAddresses()
        {
            var data = new byte[32];
            BinaryPrimitives.WriteUInt64LittleEndian(data, 5);
            for (int i = 0; i < 3; ++i)
                BinaryPrimitives.WriteUInt64LittleEndian(data.AsSpan(8 + 8 * i), 0x10UL + (ulong)i);
            Assert.Equal(new ulong[] { 0x10, 0x11, 0x12 }, ExtendedItems.ReadStack(ExtendedItems.StackTrace64, data, out ulong match));
            Assert.Equal(5UL, match);
            // The same bytes as 32-bit addresses are six of them.
            Assert.Equal(new ulong[] { 0x10, 0, 0x11, 0, 0x12, 0 }, ExtendedItems.ReadStack(ExtendedItems.StackTrace32, data, out _));
            Assert.Contains("12 bytes", Assert.Throws<ArgumentException>(() => ExtendedItems.ReadStack(ExtendedItems.StackTrace64, data.AsSpan(0, 12), out _)).Message);
            Assert.Contains("not a stack", Assert.Throws<ArgumentException>(() => ExtendedItems.ReadStack(ExtendedItems.Sid, data, out _)).Message);
        }

        [Fact]
        public void SidsReadAsText()
        {
            var unix = new byte[] { 1, 2, 0, 0, 0, 0, 0, 22, 1, 0, 0, 0, 0xE8, 0x03, 0, 0 };
            Assert.Equal("S-1-22-1-1000", ExtendedItems.SidString(ExtendedItems.Sid, unix));
            Assert.Contains("no SID", Assert.Throws<ArgumentException>(() => ExtendedItems.SidString(ExtendedItems.Sid, unix.AsSpan(0, 12))).Message);
            Assert.Contains("not a SID", Assert.Throws<ArgumentException>(() => ExtendedItems.SidString(ExtendedItems.TsId, unix)).Message);
        }
    }
}
