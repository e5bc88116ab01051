using System;
using System.Buffers.Binary;
using System.Text;

namespace OpenEtw
{
    /// <summary>
    /// Reads the data of the extended items the enable properties add (EVENT_ENABLE_PROPERTY_*):
    /// a stack (EVENT_EXTENDED_ITEM_STACK_TRACE64/32) and a SID, as the C API's
    /// etw_extended_item_stack and etw_extended_item_sid_string do. Thread-safe; reads only the
    /// bytes given.
    /// </summary>
    public static class ExtendedItems
    {
        /// <summary>EVENT_HEADER_EXT_TYPE_SID: a binary SID.</summary>
        public const ushort Sid = 0x0002;
        /// <summary>EVENT_HEADER_EXT_TYPE_TS_ID: the session id (32 bits).</summary>
        public const ushort TsId = 0x0003;
        /// <summary>EVENT_HEADER_EXT_TYPE_STACK_TRACE32: MatchId, then 32-bit addresses.</summary>
        public const ushort StackTrace32 = 0x0005;
        /// <summary>EVENT_HEADER_EXT_TYPE_STACK_TRACE64: MatchId, then 64-bit addresses.</summary>
        public const ushort StackTrace64 = 0x0006;
        /// <summary>EVENT_HEADER_EXT_TYPE_EVENT_KEY: the event's key (64 bits).</summary>
        public const ushort EventKey = 0x000A;
        /// <summary>EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY: the process's start key (64 bits).</summary>
        public const ushort ProcessStartKey = 0x000D;

        /// <summary>
        /// The addresses of a stack item, innermost first (32-bit ones widened), and its MatchId.
        /// <see cref="ArgumentException"/> for an item of another type or data that is no stack's.
        /// </summary>
        public static ulong[] ReadStack(ushort extType, ReadOnlySpan<byte> data, out ulong matchId)
        {
            if (extType != StackTrace32 && extType != StackTrace64)
                throw new ArgumentException($"the item is of type {extType}, not a stack (STACK_TRACE32 5 or STACK_TRACE64 6)", nameof(extType));
            int width = extType == StackTrace64 ? 8 : 4;
            if (data.Length < 8 || (data.Length - 8) % width != 0)
                throw new ArgumentException($"the stack item's {data.Length} bytes are not a MatchId and whole {width}-byte addresses", nameof(data));
            matchId = BinaryPrimitives.ReadUInt64LittleEndian(data);
            var addresses = new ulong[(data.Length - 8) / width];
            for (int i = 0; i < addresses.Length; ++i)
            {
                var at = data.Slice(8 + i * width, width);
                addresses[i] = width == 8 ? BinaryPrimitives.ReadUInt64LittleEndian(at) : BinaryPrimitives.ReadUInt32LittleEndian(at);
            }
            return addresses;
        }

        /// <summary>
        /// A SID item's SID as text, "S-1-22-1-1000" for a Unix user (ConvertSidToStringSid's form).
        /// <see cref="ArgumentException"/> for an item of another type or bytes that are no SID.
        /// </summary>
        public static string SidString(ushort extType, ReadOnlySpan<byte> data)
        {
            if (extType != Sid)
                throw new ArgumentException($"the item is of type {extType}, not a SID (2)", nameof(extType));
            if (data.Length < 8 || data[0] != 1 || data[1] > 15 || data.Length != 8 + 4 * data[1])
                throw new ArgumentException($"the {data.Length} bytes are no SID (revision 1, at most 15 subauthorities, 8 bytes and 4 per subauthority)", nameof(data));
            ulong authority = 0;
            for (int i = 2; i < 8; ++i)
                authority = authority << 8 | data[i];
            var text = new StringBuilder(authority < (1UL << 32) ? $"S-1-{authority}" : $"S-1-0x{authority:X12}");
            for (int i = 0; i < data[1]; ++i)
                text.Append('-').Append(BinaryPrimitives.ReadUInt32LittleEndian(data.Slice(8 + 4 * i, 4)));
            return text.ToString();
        }
    }
}
