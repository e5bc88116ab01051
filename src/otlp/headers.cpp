#include "otlp/headers.hpp"

#include <algorithm>
#include <cctype>

namespace openetw::otlp {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

// RFC 9110's token characters: what a field name may hold.
bool token_char(unsigned char c)
{
    return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(char(c)) != std::string_view::npos;
}

int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool percent_decode(std::string_view in, std::string *out)
{
    out->clear();
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] != '%') {
            out->push_back(in[i]);
            continue;
        }
        if (i + 2 >= in.size())
            return false;
        const int hi = hex_digit(in[i + 1]), lo = hex_digit(in[i + 2]);
        if (hi < 0 || lo < 0)
            return false;
        out->push_back(char(hi * 16 + lo));
        i += 2;
    }
    return true;
}

// Checks a decoded header; "" when it may be sent, else what is wrong.
std::string header_fault(const std::string &name, const std::string &value)
{
    if (name.empty())
        return "has no name";
    for (unsigned char c : name)
        if (!token_char(c))
            return "has a name that is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)";
    for (unsigned char c : value)
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return "has a control character in its value";
    // Ours: the body's type and length are the exporter's to say.
    std::string lower(name);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower == "content-type" || lower == "content-length")
        return "names a header the exporter sets itself";
    return "";
}

bool same_name(const std::string &a, const std::string &b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](unsigned char x, unsigned char y) {
               return std::tolower(x) == std::tolower(y);
           });
}

} // namespace

bool parse_header_list(std::string_view text, const std::string &source, Headers *out, std::string &error)
{
    if (trim(text).empty())
        return true;
    std::size_t entry = 0;
    for (bool more = true; more;) {
        ++entry;
        const std::size_t comma = text.find(',');
        const std::string_view item = trim(text.substr(0, comma));
        more = comma != std::string_view::npos;
        text = more ? text.substr(comma + 1) : std::string_view();
        const std::string where = source + ": entry " + std::to_string(entry);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos) {
            error = where + " is not key=value";
            return false;
        }
        std::string name, value;
        if (!percent_decode(trim(item.substr(0, eq)), &name)) {
            error = where + " has a '%' in its key that is not %XX (two hex digits)";
            return false;
        }
        if (!percent_decode(trim(item.substr(eq + 1)), &value)) {
            error = where + " (" + name + ") has a '%' in its value that is not %XX (two hex digits)";
            return false;
        }
        if (const std::string fault = header_fault(name, value); !fault.empty()) {
            error = where + (name.empty() ? "" : " (" + name + ")") + " " + fault;
            return false;
        }
        out->emplace_back(std::move(name), std::move(value));
    }
    return true;
}

bool parse_header_file(std::string_view text, const std::string &source, Headers *out, std::string &error)
{
    std::size_t line_number = 0;
    while (!text.empty()) {
        ++line_number;
        const std::size_t nl = text.find('\n');
        const std::string_view line = trim(text.substr(0, nl));
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (line.empty() || line.front() == '#')
            continue;
        const std::string where = source + ":" + std::to_string(line_number);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            error = where + " is not \"Name: value\"";
            return false;
        }
        std::string name(trim(line.substr(0, colon))), value(trim(line.substr(colon + 1)));
        if (const std::string fault = header_fault(name, value); !fault.empty()) {
            error = where + (name.empty() ? "" : " (" + name + ")") + " " + fault;
            return false;
        }
        out->emplace_back(std::move(name), std::move(value));
    }
    return true;
}

bool resolve_headers(const std::function<const char *(const char *)> &get_env, const std::string &file_name,
                     std::string_view file_text, Headers *out, std::string &error)
{
    out->clear();
    // The signal's own variable is the setting when set (the specification's
    // precedence), even when empty: then the general one does not apply.
    const char *logs = get_env(kLogsHeadersVariable);
    const char *general = get_env(kHeadersVariable);
    if (logs != nullptr) {
        if (!parse_header_list(logs, kLogsHeadersVariable, out, error))
            return false;
    } else if (general != nullptr && !parse_header_list(general, kHeadersVariable, out, error)) {
        return false;
    }
    if (file_name.empty())
        return true;
    Headers from_file;
    if (!parse_header_file(file_text, file_name, &from_file, error))
        return false;
    for (auto &h : from_file) {
        out->erase(std::remove_if(out->begin(), out->end(), [&](const auto &e) { return same_name(e.first, h.first); }),
                   out->end());
    }
    for (auto &h : from_file)
        out->push_back(std::move(h));
    return true;
}

} // namespace openetw::otlp
