// JSON string escaping (RFC 8259, section 7), the one rule for the decoder's
// JSON values and the tools' JSON output. Header-only: the tools link the
// shared library, which exports the C ABI only. No state: any thread.
#pragma once

#include <string>
#include <string_view>

namespace openetw {

// Appends text to out as a JSON string, quotes included. '"' and '\' are
// escaped, and so is every byte below 0x20 (\n, \r, \t by name, the others as
// \u00xx), NUL included. Every other byte is copied as it is: text is taken to
// be UTF-8 and is not checked, and U+2028/U+2029 need no escape in JSON.
inline void append_json_string(std::string &out, std::string_view text)
{
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t plain = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(text, plain, i - plain);
        plain = i + 1;
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\r':
            out += "\\r";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            out += "\\u00";
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
        }
    }
    out.append(text, plain, text.size() - plain);
    out.push_back('"');
}

} // namespace openetw
