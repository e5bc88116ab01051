// The names a manifest uses for types and standard items (winmeta.xml, the
// InputType and OutputType lists of the event manifest schema).
#include "decode/manifest.hpp"

#include <string_view>

namespace openetw::decode {

namespace {

template <class T>
struct Named {
    std::string_view name;
    T value;
};

template <class T, std::size_t N>
bool lookup(const Named<T> (&table)[N], std::string_view name, T &out)
{
    for (const Named<T> &n : table)
        if (n.name == name) {
            out = n.value;
            return true;
        }
    return false;
}

const Named<std::uint16_t> kInTypes[] = {
    {"Null", kInNull},
    {"UnicodeString", kInUnicodeString},
    {"AnsiString", kInAnsiString},
    {"Int8", kInInt8},
    {"UInt8", kInUInt8},
    {"Int16", kInInt16},
    {"UInt16", kInUInt16},
    {"Int32", kInInt32},
    {"UInt32", kInUInt32},
    {"Int64", kInInt64},
    {"UInt64", kInUInt64},
    {"Float", kInFloat},
    {"Double", kInDouble},
    {"Boolean", kInBoolean},
    {"Binary", kInBinary},
    {"GUID", kInGuid},
    {"Pointer", kInPointer},
    {"FILETIME", kInFileTime},
    {"SYSTEMTIME", kInSystemTime},
    {"SID", kInSid},
    {"HexInt32", kInHexInt32},
    {"HexInt64", kInHexInt64},
    {"CountedUnicodeString", kInManifestCountedString},
    {"CountedString", kInManifestCountedString},
    {"CountedAnsiString", kInManifestCountedAnsiString},
    {"CountedBinary", kInManifestCountedBinary},
};

const Named<std::uint16_t> kOutTypes[] = {
    {"string", kOutString},
    {"dateTime", kOutDateTime},
    {"byte", kOutByte},
    {"unsignedByte", kOutUnsignedByte},
    {"short", kOutShort},
    {"unsignedShort", kOutUnsignedShort},
    {"int", kOutInt},
    {"unsignedInt", kOutUnsignedInt},
    {"long", kOutLong},
    {"unsignedLong", kOutUnsignedLong},
    {"float", kOutFloat},
    {"double", kOutDouble},
    {"boolean", kOutBoolean},
    {"GUID", kOutGuid},
    {"hexBinary", kOutHexBinary},
    {"HexInt8", kOutHexInt8},
    {"HexInt16", kOutHexInt16},
    {"HexInt32", kOutHexInt32},
    {"HexInt64", kOutHexInt64},
    {"PID", kOutPid},
    {"TID", kOutTid},
    {"Port", kOutPort},
    {"IPv4", kOutIpv4},
    {"IPv6", kOutIpv6},
    {"SocketAddress", kOutSocketAddress},
    {"CIMDateTime", kOutCimDateTime},
    {"ETWTIME", kOutEtwTime},
    {"Xml", kOutXml},
    {"ErrorCode", kOutErrorCode},
    {"Win32Error", kOutWin32Error},
    {"NTSTATUS", kOutNtStatus},
    {"HResult", kOutHResult},
    {"DateTimeCultureInsensitive", kOutCultureInsensitiveDateTime},
    {"Json", kOutJson},
    {"Utf8", kOutUtf8},
    {"Pkcs7", kOutPkcs7},
    {"CodePointer", kOutCodePointer},
    {"DateTimeUtc", kOutDateTimeUtc},
};

// Standard items: name, value, the message Windows shows for it.
struct Standard {
    std::string_view name;
    std::uint64_t value;
    std::string_view display;
};

const Standard kLevels[] = {
    {"win:LogAlways", 0, "Log Always"}, {"win:Critical", 1, "Critical"},         {"win:Error", 2, "Error"},
    {"win:Warning", 3, "Warning"},      {"win:Informational", 4, "Information"}, {"win:Verbose", 5, "Verbose"},
};

const Standard kOpcodes[] = {
    {"win:Info", 0, "Info"},        {"win:Start", 1, "Start"},       {"win:Stop", 2, "Stop"},
    {"win:DC_Start", 3, "DCStart"}, {"win:DC_Stop", 4, "DCStop"},    {"win:Extension", 5, "Extension"},
    {"win:Reply", 6, "Reply"},      {"win:Resume", 7, "Resume"},     {"win:Suspend", 8, "Suspend"},
    {"win:Send", 9, "Send"},        {"win:Receive", 240, "Receive"},
};

const Standard kTasks[] = {{"win:None", 0, "None"}};

const Standard kKeywords[] = {
    {"win:ResponseTime", 0x01000000000000ull, "Response Time"},
    {"win:WDIContext", 0x02000000000000ull, "WDI Context"},
    {"win:WDIDiag", 0x04000000000000ull, "WDI Diag"},
    {"win:SQM", 0x08000000000000ull, "SQM"},
    {"win:AuditFailure", 0x10000000000000ull, "Audit Failure"},
    {"win:CorrelationHint", 0x10000000000000ull, "Correlation Hint"},
    {"win:AuditSuccess", 0x20000000000000ull, "Audit Success"},
    {"win:EventlogClassic", 0x80000000000000ull, "Classic"},
};

template <std::size_t N>
const Standard *standard(const Standard (&table)[N], std::string_view name)
{
    for (const Standard &s : table)
        if (s.name == name)
            return &s;
    return nullptr;
}

} // namespace

bool manifest_in_type(std::string_view name, std::uint16_t &out) { return lookup(kInTypes, name, out); }

bool manifest_out_type(std::string_view name, std::uint16_t &out) { return lookup(kOutTypes, name, out); }

bool standard_level(std::string_view name, std::uint8_t &value, std::string &display)
{
    const Standard *s = standard(kLevels, name);
    if (s) {
        value = static_cast<std::uint8_t>(s->value);
        display = s->display;
    }
    return s != nullptr;
}

bool standard_opcode(std::string_view name, std::uint8_t &value, std::string &display)
{
    const Standard *s = standard(kOpcodes, name);
    if (s) {
        value = static_cast<std::uint8_t>(s->value);
        display = s->display;
    }
    return s != nullptr;
}

bool standard_task(std::string_view name, std::uint16_t &value, std::string &display)
{
    const Standard *s = standard(kTasks, name);
    if (s) {
        value = static_cast<std::uint16_t>(s->value);
        display = s->display;
    }
    return s != nullptr;
}

bool standard_keyword(std::string_view name, std::uint64_t &mask, std::string &display)
{
    const Standard *s = standard(kKeywords, name);
    if (s) {
        mask = s->value;
        display = s->display;
    }
    return s != nullptr;
}

} // namespace openetw::decode
