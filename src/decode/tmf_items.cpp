// TMF argument types (the Item* names of tracewpp's defaultwpp.ini) as TDH
// in-types and out-types, and the value lists of ItemList*/ItemSet*.
#include "decode/tmf_items.hpp"

#include <cctype>
#include <cstdlib>

namespace openetw::decode {

namespace {

struct Simple {
    const char *name;
    std::uint16_t in;
    std::uint16_t out;
};

// Argument bytes as WPP marshals them: integers little-endian at their C
// size, ItemPtr at the trace's pointer size, strings NUL-terminated,
// ItemPString/ItemPWString a USHORT byte count then the characters
// (ANSI_STRING / UNICODE_STRING contents), ItemIPAddr and ItemPort in
// network order.
constexpr Simple kSimple[] = {
    {"ItemChar", kInInt8, kOutNull},
    {"ItemUChar", kInUInt8, kOutNull},
    {"ItemCharHidden", kInInt8, kOutNull},
    {"ItemShort", kInInt16, kOutNull},
    {"ItemUShort", kInUInt16, kOutNull},
    {"ItemLong", kInInt32, kOutNull},
    {"ItemULong", kInUInt32, kOutNull},
    {"ItemULongX", kInHexInt32, kOutNull},
    {"ItemLongLong", kInInt64, kOutNull},
    {"ItemULongLong", kInUInt64, kOutNull},
    {"ItemLongLongX", kInHexInt64, kOutNull},
    {"ItemLongLongXX", kInHexInt64, kOutNull},
    {"ItemULongLongX", kInHexInt64, kOutNull},
    {"ItemLongLongO", kInUInt64, kOutNull},
    {"ItemPtr", kInPointer, kOutNull},
    {"ItemDouble", kInDouble, kOutNull},
    {"ItemString", kInAnsiString, kOutNull},
    {"ItemWString", kInUnicodeString, kOutNull},
    {"ItemPString", kInManifestCountedAnsiString, kOutNull},
    {"ItemPWString", kInManifestCountedString, kOutNull},
    {"ItemGuid", kInGuid, kOutNull},
    {"ItemNTSTATUS", kInUInt32, kOutNtStatus},
    {"ItemWINERROR", kInUInt32, kOutWin32Error},
    {"ItemHRESULT", kInInt32, kOutHResult},
    {"ItemIPAddr", kInUInt32, kOutIpv4},
    {"ItemPort", kInUInt16, kOutPort},
    {"ItemTimestamp", kInFileTime, kOutNull},
    {"ItemSid", kInSid, kOutNull},
};

struct Listed {
    const char *name;
    std::uint16_t in;
    bool bitmap;
};

constexpr Listed kListed[] = {
    {"ItemListByte", kInUInt8, false}, {"ItemListShort", kInUInt16, false}, {"ItemListLong", kInUInt32, false},
    {"ItemSetByte", kInUInt8, true},   {"ItemSetShort", kInUInt16, true},   {"ItemSetLong", kInUInt32, true},
};

bool identifier(std::string_view s)
{
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
            return false;
    return true;
}

bool number(std::string_view s, std::uint64_t &out)
{
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    }
    if (s.empty() || s.size() > 16)
        return false;
    out = 0;
    for (char c : s) {
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && std::isxdigit(static_cast<unsigned char>(c)))
            d = std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
        else
            return false;
        out = out * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
    }
    return true;
}

// `a,b=0x5,c`: names numbered from 0 or from an explicit value; for sets,
// each name is the next bit (or the explicit mask).
bool parse_list(std::string_view list, bool bitmap, ValueMap &map, std::string &error)
{
    std::uint64_t next = 0;
    std::size_t bit = 0;
    while (true) {
        const std::size_t comma = list.find(',');
        std::string_view entry = trim_space(list.substr(0, comma));
        std::string_view name = entry;
        std::uint64_t value = bitmap ? (bit < 64 ? 1ull << bit : 0) : next;
        if (const std::size_t eq = entry.find('='); eq != std::string_view::npos) {
            name = trim_space(entry.substr(0, eq));
            if (!number(trim_space(entry.substr(eq + 1)), value)) {
                error = "the value of '" + std::string(name) + "' is not a number";
                return false;
            }
        }
        if (!identifier(name)) {
            error = "'" + std::string(entry) + "' is not a name";
            return false;
        }
        if (bitmap && value == 0) {
            error = "set item '" + std::string(name) + "' has no bit";
            return false;
        }
        map.entries.emplace_back(value, std::string(name));
        next = value + 1;
        ++bit;
        if (comma == std::string_view::npos)
            return true;
        list.remove_prefix(comma + 1);
    }
}

} // namespace

bool tmf_item(std::string_view text, Field &field, ValueMap &map, bool &has_map, std::string &error)
{
    has_map = false;
    text = trim_space(text);
    const std::size_t open = text.find('(');
    const std::string_view name = trim_space(text.substr(0, open));
    if (open == std::string_view::npos) {
        for (const Simple &s : kSimple)
            if (name == s.name) {
                field.in_type = s.in;
                field.out_type = s.out;
                return true;
            }
        error = "unknown item type '" + std::string(text) + "'";
        return false;
    }
    if (text.back() != ')') {
        error = "item type '" + std::string(text) + "' has no closing ')'";
        return false;
    }
    const std::string_view inner = text.substr(open + 1, text.size() - open - 2);
    if (name == "ItemEnum") {
        // A C enum the PDB's types define; the TMF names it only: shown as its number.
        if (!identifier(trim_space(inner))) {
            error = "ItemEnum needs a type name";
            return false;
        }
        field.in_type = kInInt32;
        return true;
    }
    for (const Listed &l : kListed)
        if (name == l.name) {
            field.in_type = l.in;
            map.bitmap = l.bitmap;
            map.entries.clear();
            if (!parse_list(inner, l.bitmap, map, error)) {
                error = std::string(name) + ": " + error;
                return false;
            }
            has_map = true;
            return true;
        }
    error = "unknown item type '" + std::string(text) + "'";
    return false;
}

std::string_view trim_space(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

} // namespace openetw::decode
