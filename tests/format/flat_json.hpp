// A tiny reader for the flat JSON objects of the golden files: string and
// integer values only, which is all they hold.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

namespace etltest {

using JsonValue = std::variant<std::int64_t, std::string>;
using JsonObject = std::map<std::string, JsonValue>;

// nullopt when text is not one flat object of strings and integers.
inline std::optional<JsonObject> parse_flat_json(const std::string &text)
{
    JsonObject obj;
    std::size_t i = 0;
    auto ws = [&] {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
            ++i;
    };
    auto str = [&]() -> std::optional<std::string> {
        if (i >= text.size() || text[i] != '"')
            return std::nullopt;
        std::string s;
        for (++i; i < text.size() && text[i] != '"'; ++i) {
            if (text[i] == '\\') {
                if (++i >= text.size())
                    return std::nullopt;
                const char c = text[i];
                s += c == 'n' ? '\n' : c == 't' ? '\t' : c; // \\ \" \/ as themselves
            } else {
                s += text[i];
            }
        }
        if (i >= text.size())
            return std::nullopt;
        ++i;
        return s;
    };
    ws();
    if (i >= text.size() || text[i++] != '{')
        return std::nullopt;
    ws();
    if (i < text.size() && text[i] == '}')
        return obj;
    for (;;) {
        ws();
        auto key = str();
        if (!key)
            return std::nullopt;
        ws();
        if (i >= text.size() || text[i++] != ':')
            return std::nullopt;
        ws();
        if (i < text.size() && text[i] == '"') {
            auto v = str();
            if (!v)
                return std::nullopt;
            obj[*key] = *v;
        } else {
            const std::size_t start = i;
            if (i < text.size() && text[i] == '-')
                ++i;
            while (i < text.size() && text[i] >= '0' && text[i] <= '9')
                ++i;
            if (i == start)
                return std::nullopt;
            obj[*key] = static_cast<std::int64_t>(std::stoll(text.substr(start, i - start)));
        }
        ws();
        if (i < text.size() && text[i] == ',') {
            ++i;
            continue;
        }
        if (i < text.size() && text[i] == '}')
            return obj;
        return std::nullopt;
    }
}

} // namespace etltest
