#include "decode/value_format.hpp"

#include "base/json.hpp"
#include "decode/payload.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace openetw::decode {

namespace {

const char kHex[] = "0123456789ABCDEF";

void append_unsigned(std::uint64_t v, std::string &out)
{
    char buf[24];
    int i = 24;
    do {
        buf[--i] = char('0' + v % 10);
        v /= 10;
    } while (v);
    out.append(buf + i, 24 - i);
}

void append_signed(std::int64_t v, std::string &out)
{
    if (v < 0) {
        out.push_back('-');
        append_unsigned(~static_cast<std::uint64_t>(v) + 1, out);
    } else {
        append_unsigned(static_cast<std::uint64_t>(v), out);
    }
}

void append_hex(std::uint64_t v, std::string &out, int min_digits = 1)
{
    char buf[16];
    int i = 16;
    do {
        buf[--i] = kHex[v & 15];
        v >>= 4;
    } while (v || 16 - i < min_digits);
    out.append("0x");
    out.append(buf + i, 16 - i);
}

void append_utf8(std::uint32_t cp, std::string &out)
{
    if (cp < 0x80) {
        out.push_back(char(cp));
    } else if (cp < 0x800) {
        out.push_back(char(0xC0 | cp >> 6));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(char(0xE0 | cp >> 12));
        out.push_back(char(0x80 | (cp >> 6 & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(char(0xF0 | cp >> 18));
        out.push_back(char(0x80 | (cp >> 12 & 0x3F)));
        out.push_back(char(0x80 | (cp >> 6 & 0x3F)));
        out.push_back(char(0x80 | (cp & 0x3F)));
    }
}

bool valid_utf8(const std::uint8_t *p, std::uint32_t n)
{
    for (std::uint32_t i = 0; i < n;) {
        const std::uint8_t c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::uint32_t extra, cp;
        if (c >= 0xC2 && c <= 0xDF) {
            extra = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3;
            cp = c & 0x07;
        } else
            return false;
        if (n - i <= extra)
            return false;
        for (std::uint32_t k = 1; k <= extra; ++k) {
            if ((p[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + k] & 0x3F);
        }
        if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        i += extra + 1;
    }
    return true;
}

bool is_hex_out(std::uint16_t out)
{
    return out == kOutHexInt8 || out == kOutHexInt16 || out == kOutHexInt32 || out == kOutHexInt64 ||
           out == kOutCodePointer;
}

bool is_signed_in(std::uint16_t in) { return in == kInInt8 || in == kInInt16 || in == kInInt32 || in == kInInt64; }

bool is_int_in(std::uint16_t in)
{
    return (in >= kInInt8 && in <= kInUInt64) || in == kInHexInt32 || in == kInHexInt64 || in == kInPointer ||
           in == kInSizeT || in == kInBoolean;
}

void append_map(const ValueMap &map, std::uint64_t v, std::string &out)
{
    if (!map.bitmap) {
        for (const auto &[value, name] : map.entries) {
            if (value == v) {
                out += name;
                return;
            }
        }
        append_unsigned(v, out);
        return;
    }
    std::uint64_t rest = v;
    bool first = true;
    for (const auto &[value, name] : map.entries) {
        if (value != 0 && (v & value) == value) {
            if (!first)
                out.push_back('|');
            out += name;
            first = false;
            rest &= ~value;
        }
    }
    if (rest || first) {
        if (!first)
            out.push_back('|');
        append_hex(rest, out);
    }
}

void append_civil(std::int64_t days, std::string &out, char *buf, std::size_t size, unsigned h, unsigned m, unsigned s)
{
    // Days since 1970-01-01 to a Gregorian date (Howard Hinnant's algorithm).
    days += 719468;
    const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    const unsigned doe = static_cast<unsigned>(days - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    const unsigned d = doy - (153 * mp + 2) / 5 + 1;
    const unsigned mo = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (mo <= 2);
    std::snprintf(buf, size, "%04lld-%02u-%02uT%02u:%02u:%02u", static_cast<long long>(y), mo, d, h, m, s);
    out += buf;
}

void append_double(double v, std::string &out, int digits)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    out += buf;
}

void append_sid(const std::uint8_t *p, std::uint32_t n, std::string &out)
{
    if (n < 8) {
        out += "(invalid SID)";
        return;
    }
    out += "S-";
    append_unsigned(p[0], out);
    out.push_back('-');
    std::uint64_t authority = 0;
    for (int i = 2; i < 8; ++i)
        authority = authority << 8 | p[i];
    append_unsigned(authority, out);
    for (std::uint32_t i = 0; i < p[1] && 8 + 4 * i + 4 <= n; ++i) {
        out.push_back('-');
        append_unsigned(read_uint(p + 8 + 4 * i, 4), out);
    }
}

// An IPv6 address as RFC 5952 writes it: lower-case groups, the longest
// run of two or more zero groups (the first of equals) as "::", and an
// IPv4-mapped address as ::ffff:a.b.c.d.
void append_ipv6(const std::uint8_t *p, std::string &out)
{
    std::uint16_t g[8];
    for (int i = 0; i < 8; ++i)
        g[i] = std::uint16_t(p[2 * i] << 8 | p[2 * i + 1]);
    char buf[48];
    if (g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0 && g[4] == 0 && g[5] == 0xFFFF) {
        std::snprintf(buf, sizeof buf, "::ffff:%u.%u.%u.%u", p[12], p[13], p[14], p[15]);
        out += buf;
        return;
    }
    int best = -1, best_len = 1;
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && g[j] == 0)
            ++j;
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j == i ? i + 1 : j;
    }
    for (int i = 0; i < 8; ++i) {
        if (i == best) {
            out += "::";
            i += best_len - 1;
            continue;
        }
        if (i > 0 && i != best + best_len)
            out += ':';
        std::snprintf(buf, sizeof buf, "%x", unsigned(g[i]));
        out += buf;
    }
}

void append_hexbytes(const std::uint8_t *p, std::uint32_t n, std::string &out)
{
    out += "0x";
    for (std::uint32_t i = 0; i < n; ++i) {
        out.push_back(kHex[p[i] >> 4]);
        out.push_back(kHex[p[i] & 15]);
    }
}

} // namespace

void append_utf16le(const std::uint8_t *p, std::uint32_t bytes, std::string &out)
{
    const std::uint32_t units = bytes / 2;
    for (std::uint32_t i = 0; i < units; ++i) {
        std::uint32_t u = p[2 * i] | std::uint32_t(p[2 * i + 1]) << 8;
        if (u >= 0xD800 && u <= 0xDBFF && i + 1 < units) {
            const std::uint32_t lo = p[2 * i + 2] | std::uint32_t(p[2 * i + 3]) << 8;
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                append_utf8(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00), out);
                ++i;
                continue;
            }
        }
        if (u >= 0xD800 && u <= 0xDFFF)
            u = 0xFFFD;
        append_utf8(u, out);
    }
}

void append_8bit(const std::uint8_t *p, std::uint32_t bytes, std::string &out)
{
    if (valid_utf8(p, bytes)) {
        out.append(reinterpret_cast<const char *>(p), bytes);
        return;
    }
    for (std::uint32_t i = 0; i < bytes; ++i)
        append_utf8(p[i], out);
}

void append_guid_braced(const std::uint8_t *p, std::string &out)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "{%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X}",
                  static_cast<unsigned>(read_uint(p, 4)), static_cast<unsigned>(read_uint(p + 4, 2)),
                  static_cast<unsigned>(read_uint(p + 6, 2)), p[8], p[9], p[10], p[11], p[12], p[13], p[14], p[15]);
    out += buf;
}

void append_filetime(std::uint64_t filetime, std::string &out)
{
    // 100 ns ticks since 1601-01-01; 1601..1970 is 134774 days.
    const std::uint64_t secs = filetime / 10000000u;
    const unsigned frac = static_cast<unsigned>(filetime % 10000000u);
    const std::int64_t days = static_cast<std::int64_t>(secs / 86400) - 134774;
    const unsigned rem = static_cast<unsigned>(secs % 86400);
    char buf[64];
    append_civil(days, out, buf, sizeof buf, rem / 3600, rem / 60 % 60, rem % 60);
    std::snprintf(buf, sizeof buf, ".%07uZ", frac);
    out += buf;
}

void format_value(const Field &f, const ValueMap *map, const std::uint8_t *p, std::uint32_t n,
                  std::uint32_t pointer_size, std::string &out)
{
    const std::uint16_t in = f.in_type, o = f.out_type;
    if (o == kOutString && (in == kInInt8 || in == kInUInt8)) { // characters (arrays of them are strings)
        append_8bit(p, n, out);
        return;
    }
    if (o == kOutString && (in == kInInt16 || in == kInUInt16)) {
        append_utf16le(p, n, out);
        return;
    }
    if (is_int_in(in) && n >= 1 && n <= 8) {
        const std::uint64_t u = read_uint(p, n);
        if (map) {
            append_map(*map, u, out);
            return;
        }
        if (in == kInBoolean || o == kOutBoolean) {
            out += u ? "true" : "false";
            return;
        }
        if (o == kOutWin32Error || o == kOutNtStatus || o == kOutHResult || o == kOutErrorCode) {
            append_hex(u, out, 8);
            return;
        }
        if (o == kOutIpv4 && n == 4) {
            char buf[20];
            std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", p[0], p[1], p[2], p[3]);
            out += buf;
            return;
        }
        if (o == kOutPort && n == 2) {
            append_unsigned(std::uint32_t(p[0]) << 8 | p[1], out);
            return;
        }
        if (o == kOutDateTime && n == 8) {
            append_filetime(u, out);
            return;
        }
        if (in == kInHexInt32 || in == kInHexInt64 || in == kInPointer || is_hex_out(o)) {
            append_hex(u, out);
            return;
        }
        const bool unsigned_out =
            o == kOutUnsignedByte || o == kOutUnsignedShort || o == kOutUnsignedInt || o == kOutUnsignedLong;
        const bool signed_out = o == kOutByte || o == kOutShort || o == kOutInt || o == kOutLong;
        if ((is_signed_in(in) && !unsigned_out) || signed_out) {
            const unsigned shift = 64 - 8 * n;
            append_signed(static_cast<std::int64_t>(u << shift) >> shift, out);
            return;
        }
        append_unsigned(u, out);
        return;
    }
    if (o == kOutIpv6 && n == 16) {
        append_ipv6(p, out);
        return;
    }
    // A string of fixed length (a MOF char16 array with Max) is NUL-padded:
    // shown up to its first NUL, as TDH shows it.
    if (f.length_kind == LengthKind::Fixed && (in == kInUnicodeString || in == kInAnsiString)) {
        const std::uint32_t unit = in == kInUnicodeString ? 2 : 1;
        for (std::uint32_t k = 0; k + unit <= n; k += unit)
            if (p[k] == 0 && (unit == 1 || p[k + 1] == 0)) {
                n = k;
                break;
            }
    }
    switch (in) {
    case kInUnicodeString:
    case kInManifestCountedString:
    case kInCountedString:
    case kInReversedCountedString:
    case kInNonNulTerminatedString:
    case kInUnicodeChar:
        append_utf16le(p, n, out);
        return;
    case kInAnsiString:
    case kInManifestCountedAnsiString:
    case kInCountedAnsiString:
    case kInReversedCountedAnsiString:
    case kInNonNulTerminatedAnsiString:
    case kInAnsiChar:
        append_8bit(p, n, out);
        return;
    case kInFloat:
        if (n == 4) {
            float v;
            std::memcpy(&v, p, 4);
            append_double(v, out, 9);
        }
        return;
    case kInDouble:
        if (n == 8) {
            double v;
            std::memcpy(&v, p, 8);
            append_double(v, out, 17);
        }
        return;
    case kInGuid:
        if (n == 16)
            append_guid_braced(p, out);
        return;
    case kInFileTime:
        if (n == 8)
            append_filetime(read_uint(p, 8), out);
        return;
    case kInSystemTime:
        if (n == 16) {
            char buf[48];
            std::snprintf(buf, sizeof buf, "%04u-%02u-%02uT%02u:%02u:%02u.%03u", unsigned(read_uint(p, 2)),
                          unsigned(read_uint(p + 2, 2)), unsigned(read_uint(p + 6, 2)), unsigned(read_uint(p + 8, 2)),
                          unsigned(read_uint(p + 10, 2)), unsigned(read_uint(p + 12, 2)),
                          unsigned(read_uint(p + 14, 2)));
            out += buf;
        }
        return;
    case kInSid:
        append_sid(p, n, out);
        return;
    case kInWbemSid: {
        const std::uint32_t lead = 2 * (pointer_size == 4 ? 4 : 8);
        if (n > lead)
            append_sid(p + lead, n - lead, out);
        return;
    }
    default:
        append_hexbytes(p, n, out);
        return;
    }
}

JsonKind json_kind(const Field &f, const ValueMap *map, const std::uint8_t *p, std::uint32_t n)
{
    const std::uint16_t in = f.in_type, o = f.out_type;
    if (map || o == kOutString)
        return JsonKind::String;
    if (is_int_in(in) && n >= 1 && n <= 8) {
        if (in == kInBoolean || o == kOutBoolean)
            return JsonKind::Bool;
        if (in == kInHexInt32 || in == kInHexInt64 || in == kInPointer || is_hex_out(o) || o == kOutWin32Error ||
            o == kOutNtStatus || o == kOutHResult || o == kOutErrorCode || (o == kOutIpv4 && n == 4) ||
            (o == kOutString && n <= 2) || (o == kOutDateTime && n == 8))
            return JsonKind::String;
        return JsonKind::Number;
    }
    if (in == kInFloat && n == 4) {
        float v;
        std::memcpy(&v, p, 4);
        return std::isfinite(v) ? JsonKind::Number : JsonKind::String;
    }
    if (in == kInDouble && n == 8) {
        double v;
        std::memcpy(&v, p, 8);
        return std::isfinite(v) ? JsonKind::Number : JsonKind::String;
    }
    return JsonKind::String;
}

void format_json(const Field &f, const ValueMap *map, const std::uint8_t *p, std::uint32_t n,
                 std::uint32_t pointer_size, std::string &out, std::string &scratch)
{
    if (json_kind(f, map, p, n) != JsonKind::String) {
        format_value(f, map, p, n, pointer_size, out);
        return;
    }
    scratch.clear();
    format_value(f, map, p, n, pointer_size, scratch);
    append_json_string(out, scratch);
}

} // namespace openetw::decode
