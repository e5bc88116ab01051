// The schema model every decoding source fills (TraceLogging metadata,
// kernel MOF classes, manifests): an event's names and its fields in the
// order of the payload, with TDH's in-types and out-types (tdh.h values),
// so one payload decoder and one value formatter serve them all.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::decode {

// TDH_INTYPE_* (tdh.h). 0..25 are also TraceLogging's TlgIn values.
enum InType : std::uint16_t {
    kInNull = 0,
    kInUnicodeString = 1, // NUL-terminated UTF-16LE (or `length` characters)
    kInAnsiString = 2,    // NUL-terminated 8-bit (or `length` characters)
    kInInt8 = 3,
    kInUInt8 = 4,
    kInInt16 = 5,
    kInUInt16 = 6,
    kInInt32 = 7,
    kInUInt32 = 8,
    kInInt64 = 9,
    kInUInt64 = 10,
    kInFloat = 11,
    kInDouble = 12,
    kInBoolean = 13, // 4 bytes
    kInBinary = 14,  // `length` bytes (TraceLogging: a UINT16 byte count first)
    kInGuid = 15,
    kInPointer = 16, // the event's pointer size
    kInFileTime = 17,
    kInSystemTime = 18,
    kInSid = 19, // 8 + 4 * SubAuthorityCount bytes
    kInHexInt32 = 20,
    kInHexInt64 = 21,
    kInManifestCountedString = 22,     // UINT16 byte count, UTF-16LE
    kInManifestCountedAnsiString = 23, // UINT16 byte count, 8-bit
    kInStruct = 24,                    // TraceLogging's _TlgInSTRUCT: no data of its own
    kInManifestCountedBinary = 25,     // UINT16 byte count, bytes
    kInCountedString = 300,
    kInCountedAnsiString = 301,
    kInReversedCountedString = 302, // big-endian UINT16 byte count
    kInReversedCountedAnsiString = 303,
    kInNonNulTerminatedString = 304, // the rest of the payload
    kInNonNulTerminatedAnsiString = 305,
    kInUnicodeChar = 306,
    kInAnsiChar = 307,
    kInSizeT = 308,
    kInHexDump = 309, // UINT32 byte count, bytes
    kInWbemSid = 310, // TOKEN_USER (2 pointers) then a SID
};

// TDH_OUTTYPE_* (tdh.h).
enum OutType : std::uint16_t {
    kOutNull = 0,
    kOutString = 1,
    kOutDateTime = 2,
    kOutByte = 3,
    kOutUnsignedByte = 4,
    kOutShort = 5,
    kOutUnsignedShort = 6,
    kOutInt = 7,
    kOutUnsignedInt = 8,
    kOutLong = 9,
    kOutUnsignedLong = 10,
    kOutFloat = 11,
    kOutDouble = 12,
    kOutBoolean = 13,
    kOutGuid = 14,
    kOutHexBinary = 15,
    kOutHexInt8 = 16,
    kOutHexInt16 = 17,
    kOutHexInt32 = 18,
    kOutHexInt64 = 19,
    kOutPid = 20,
    kOutTid = 21,
    kOutPort = 22,
    kOutIpv4 = 23,
    kOutIpv6 = 24,
    kOutSocketAddress = 25,
    kOutCimDateTime = 26,
    kOutEtwTime = 27,
    kOutXml = 28,
    kOutErrorCode = 29,
    kOutWin32Error = 30,
    kOutNtStatus = 31,
    kOutHResult = 32,
    kOutCultureInsensitiveDateTime = 33,
    kOutJson = 34,
    kOutUtf8 = 35,
    kOutPkcs7 = 36,
    kOutCodePointer = 37,
    kOutDateTimeUtc = 38,
};

// How many values a field holds.
enum class CountKind : std::uint8_t {
    One,      // a scalar
    Fixed,    // `count` values
    Field,    // as many as the value of field `count` (a field decoded earlier)
    Prefix16, // a UINT16 count in the data before the values (TraceLogging's Vcount)
    Rest,     // as many fixed-size values as the rest of the payload holds
              // (a kernel class's trailing array: StackWalk's Stack1..StackN)
};

// How long one value of a variable-size type is, when the type does not say.
enum class LengthKind : std::uint8_t {
    Natural,  // the type decides (fixed size, NUL terminator, count prefix)
    Fixed,    // `length` (characters for strings, bytes otherwise)
    Field,    // the value of field `length`
    Prefix16, // a UINT16 byte count in the data (TraceLogging's Binary)
};

struct Field {
    std::string name;
    std::uint16_t in_type = kInNull;
    std::uint16_t out_type = kOutNull;
    CountKind count_kind = CountKind::One;
    LengthKind length_kind = LengthKind::Natural;
    std::uint16_t count = 0;  // Fixed: the count; Field: the field index
    std::uint16_t length = 0; // Fixed: the length; Field: the field index
    // Fields are stored in pre-order: a struct's members follow it, and
    // `end` is one past its last descendant (for other fields, index + 1).
    std::uint32_t end = 0;
    std::uint32_t map = UINT32_MAX; // index in EventSchema::maps, or none
};

// A value map (manifest <valueMap>/<bitMap>): value -> name.
struct ValueMap {
    bool bitmap = false;
    std::vector<std::pair<std::uint64_t, std::string>> entries;
};

struct EventSchema {
    std::string event_name;
    std::string provider_name;
    std::string task_name;
    std::string opcode_name;
    std::string level_name;
    std::string keywords_name;
    std::vector<Field> fields; // pre-order; top level: 0, fields[0].end, ...
    std::vector<ValueMap> maps;
};

} // namespace openetw::decode
