#include "base/utf.hpp"

namespace openetw {

namespace {

bool is_high(char16_t c) { return c >= 0xD800 && c <= 0xDBFF; }
bool is_low(char16_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

void append_utf8(std::string &out, char32_t cp)
{
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

// Decodes one UTF-16 code point at i; returns 0xFFFFFFFF for an unpaired surrogate.
char32_t next_utf16(std::u16string_view s, std::size_t &i)
{
    char16_t c = s[i++];
    if (is_high(c)) {
        if (i < s.size() && is_low(s[i])) {
            char16_t d = s[i++];
            return 0x10000 + ((static_cast<char32_t>(c) - 0xD800) << 10) + (d - 0xDC00);
        }
        return 0xFFFFFFFFu;
    }
    if (is_low(c))
        return 0xFFFFFFFFu;
    return c;
}

} // namespace

std::optional<std::u16string> utf8_to_utf16(std::string_view utf8)
{
    std::u16string out;
    out.reserve(utf8.size());
    std::size_t i = 0;
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(utf8[k]); };
    while (i < utf8.size()) {
        unsigned char b = byte(i);
        char32_t cp;
        std::size_t len;
        char32_t min;
        if (b < 0x80) {
            cp = b;
            len = 1;
            min = 0;
        } else if ((b & 0xE0) == 0xC0) {
            cp = b & 0x1F;
            len = 2;
            min = 0x80;
        } else if ((b & 0xF0) == 0xE0) {
            cp = b & 0x0F;
            len = 3;
            min = 0x800;
        } else if ((b & 0xF8) == 0xF0) {
            cp = b & 0x07;
            len = 4;
            min = 0x10000;
        } else
            return std::nullopt;
        if (i + len > utf8.size())
            return std::nullopt;
        for (std::size_t k = 1; k < len; ++k) {
            unsigned char c = byte(i + k);
            if ((c & 0xC0) != 0x80)
                return std::nullopt;
            cp = (cp << 6) | (c & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return std::nullopt;
        if (cp >= 0x10000) {
            cp -= 0x10000;
            out.push_back(static_cast<char16_t>(0xD800 + (cp >> 10)));
            out.push_back(static_cast<char16_t>(0xDC00 + (cp & 0x3FF)));
        } else {
            out.push_back(static_cast<char16_t>(cp));
        }
        i += len;
    }
    return out;
}

std::optional<std::string> utf16_to_utf8(std::u16string_view utf16)
{
    std::string out;
    out.reserve(utf16.size());
    std::size_t i = 0;
    while (i < utf16.size()) {
        char32_t cp = next_utf16(utf16, i);
        if (cp == 0xFFFFFFFFu)
            return std::nullopt;
        append_utf8(out, cp);
    }
    return out;
}

std::string utf16_to_utf8_lossy(std::u16string_view utf16)
{
    std::string out;
    std::size_t i = 0;
    while (i < utf16.size()) {
        char32_t cp = next_utf16(utf16, i);
        append_utf8(out, cp == 0xFFFFFFFFu ? 0xFFFD : cp);
    }
    return out;
}

std::size_t find_unpaired_surrogate(std::u16string_view utf16)
{
    std::size_t i = 0;
    while (i < utf16.size()) {
        std::size_t at = i;
        if (next_utf16(utf16, i) == 0xFFFFFFFFu)
            return at;
    }
    return std::u16string_view::npos;
}

std::u16string read_utf16le(const std::uint8_t *bytes, std::size_t units)
{
    std::u16string s(units, u'\0');
    for (std::size_t k = 0; k < units; ++k)
        s[k] = static_cast<char16_t>(bytes[2 * k] | (bytes[2 * k + 1] << 8));
    return s;
}

void write_utf16le(std::uint8_t *out, std::u16string_view s)
{
    for (std::size_t k = 0; k < s.size(); ++k) {
        out[2 * k] = static_cast<std::uint8_t>(s[k] & 0xFF);
        out[2 * k + 1] = static_cast<std::uint8_t>(s[k] >> 8);
    }
}

std::u16string utf8_to_utf16_lossy(std::string_view s)
{
    if (auto whole = utf8_to_utf16(s))
        return std::move(*whole);
    std::u16string out;
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (len != 0 && i + len <= s.size()) {
            if (auto one = utf8_to_utf16(s.substr(i, len))) {
                out += *one;
                i += len;
                continue;
            }
        }
        out += u'\uFFFD';
        ++i;
    }
    return out;
}

} // namespace openetw
