#include "decode/wpp.hpp"

#include "decode/value_format.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace openetw::decode {

namespace {

// One printf conversion: [flags][width][.precision][length]conversion.
struct Spec {
    std::string flags;
    int width = -1;
    int precision = -1;
    char conversion = 's';
};

Spec parse_spec(std::string_view s)
{
    Spec spec;
    std::size_t i = 0;
    while (i < s.size() && std::strchr("-+ #0", s[i]) && spec.flags.size() < 5)
        spec.flags += s[i++];
    auto digits = [&](int &out) {
        if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
            return;
        out = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
            out = std::min(out * 10 + (s[i++] - '0'), 256); // bounded padding
    };
    digits(spec.width);
    if (i < s.size() && s[i] == '.') {
        ++i;
        spec.precision = 0;
        digits(spec.precision);
    }
    if (!s.empty())
        spec.conversion = s.back(); // length modifiers (h l ll I I64 w z ...) in between do not matter
    return spec;
}

bool numeric_conversion(char c) { return c && std::strchr("diuoxXcpeEfgGaA", c); }
bool float_conversion(char c) { return c && std::strchr("eEfgGaA", c); }

void pad(std::string_view text, const Spec &spec, std::string &out)
{
    if (spec.precision >= 0 && static_cast<std::size_t>(spec.precision) < text.size())
        text = text.substr(0, static_cast<std::size_t>(spec.precision));
    const std::size_t width = spec.width > 0 ? static_cast<std::size_t>(spec.width) : 0;
    const std::size_t fill = width > text.size() ? width - text.size() : 0;
    const bool left = spec.flags.find('-') != std::string::npos;
    if (!left)
        out.append(fill, ' ');
    out.append(text);
    if (left)
        out.append(fill, ' ');
}

// An integer (raw, of `size` bytes) or a double as printf would print it.
void format_number(std::uint64_t raw, std::uint32_t size, bool is_double, double d, const Spec &spec,
                   std::uint32_t pointer_size, std::string &out)
{
    char fmt[32], buf[600];
    const char c = spec.conversion;
    if (c == 'p') {
        // Windows' %p: the pointer's hex digits, upper case, zero-filled.
        std::snprintf(buf, sizeof buf, "%0*llX", static_cast<int>(pointer_size * 2),
                      static_cast<unsigned long long>(raw));
        out += buf;
        return;
    }
    if (c == 'c') {
        const char ch = static_cast<char>(raw & 0xFF);
        pad(std::string_view(&ch, ch ? 1 : 0), spec, out);
        return;
    }
    std::string f = "%" + spec.flags;
    if (spec.width >= 0)
        f += std::to_string(spec.width);
    if (spec.precision >= 0)
        f += "." + std::to_string(spec.precision);
    if (float_conversion(c)) {
        std::snprintf(fmt, sizeof fmt, "%s%c", f.c_str(), c);
        const double v = is_double ? d : static_cast<double>(raw);
        std::snprintf(buf, sizeof buf, fmt, v);
    } else {
        std::uint64_t v = is_double ? static_cast<std::uint64_t>(static_cast<std::int64_t>(d)) : raw;
        if ((c == 'd' || c == 'i') && size && size < 8 && !is_double) {
            // Sign-extend as C does with an int-sized argument.
            const std::uint64_t sign = 1ull << (size * 8 - 1);
            v = (v ^ sign) - sign;
        }
        std::snprintf(fmt, sizeof fmt, "%sll%c", f.c_str(), c);
        if (c == 'd' || c == 'i')
            std::snprintf(buf, sizeof buf, fmt, static_cast<long long>(v));
        else
            std::snprintf(buf, sizeof buf, fmt, static_cast<unsigned long long>(v));
    }
    out += buf;
}

bool integer_type(std::uint16_t t)
{
    switch (t) {
    case kInInt8:
    case kInUInt8:
    case kInInt16:
    case kInUInt16:
    case kInInt32:
    case kInUInt32:
    case kInInt64:
    case kInUInt64:
    case kInHexInt32:
    case kInHexInt64:
    case kInPointer:
    case kInFileTime:
        return true;
    default:
        return false;
    }
}

void argument(const TmfMessage &m, const DecodedEvent &e, std::size_t i, const Spec &spec, std::string &out)
{
    const Field &f = m.schema.fields[i];
    const Node &n = e.nodes[i];
    const std::uint8_t *p = e.payload.data() + n.offset;
    if (numeric_conversion(spec.conversion) && (integer_type(f.in_type) || f.in_type == kInDouble)) {
        const bool dbl = f.in_type == kInDouble && n.size == 8;
        double d = 0;
        if (dbl)
            std::memcpy(&d, p, 8);
        format_number(read_uint(p, std::min<std::uint32_t>(n.size, 8)), n.size, dbl, d, spec, e.pointer_size, out);
        return;
    }
    std::string text;
    const ValueMap *map = f.map < m.schema.maps.size() ? &m.schema.maps[f.map] : nullptr;
    format_value(f, map, p, n.size, e.pointer_size, text);
    pad(text, spec, out);
}

void prefix_variable(const TmfMessage &m, std::uint32_t n, const WppContext &c, std::uint32_t pointer_size,
                     const Spec &spec, std::string &out)
{
    std::uint32_t value = 0;
    switch (n) {
    case 1:
        pad(m.schema.provider_name, spec, out);
        return;
    case 2:
        pad(m.schema.event_name, spec, out);
        return;
    case 4: {
        std::string t;
        if (c.timestamp)
            append_filetime(c.timestamp, t);
        pad(t, spec, out);
        return;
    }
    case 3:
        value = c.thread_id;
        break;
    case 5:
        value = c.kernel_time;
        break;
    case 6:
        value = c.user_time;
        break;
    case 7:
        value = c.sequence;
        break;
    case 8:
        value = c.process_id;
        break;
    case 9:
        value = c.processor;
        break;
    default:
        return; // %0: the prefix itself
    }
    if (numeric_conversion(spec.conversion)) {
        format_number(value, 4, false, 0, spec, pointer_size, out);
    } else {
        pad(std::to_string(value), spec, out);
    }
}

} // namespace

void format_wpp_message(const TmfMessage &m, const DecodedEvent &e, const WppContext &context, std::string &out)
{
    const std::string &f = m.format;
    for (std::size_t i = 0; i < f.size(); ++i) {
        if (f[i] != '%' || i + 1 >= f.size()) {
            out += f[i];
            continue;
        }
        std::size_t j = i + 1;
        if (f[j] == '%') {
            out += '%';
            i = j;
            continue;
        }
        if (f[j] == '!') {
            // %!KEY!: a key of the #typev trailer.
            const std::size_t end = f.find('!', j + 1);
            if (end == std::string::npos) {
                out += f[i];
                continue;
            }
            const std::string key = f.substr(j + 1, end - j - 1);
            if (key == "COMPNAME") {
                out += m.schema.provider_name;
            } else if (auto it = m.keys.find(key); it != m.keys.end()) {
                out += it->second;
            } else {
                out.append(f, i, end + 1 - i); // unknown: kept as written
            }
            i = end;
            continue;
        }
        std::uint32_t n = 0;
        while (j < f.size() && j - i <= 4 && std::isdigit(static_cast<unsigned char>(f[j])))
            n = n * 10 + static_cast<std::uint32_t>(f[j++] - '0');
        if (j == i + 1) {
            out += f[i];
            continue;
        }
        Spec spec;
        if (j < f.size() && f[j] == '!') {
            const std::size_t end = f.find('!', j + 1);
            if (end != std::string::npos) {
                spec = parse_spec(std::string_view(f).substr(j + 1, end - j - 1));
                j = end + 1;
            }
        }
        i = j - 1;
        if (n < 10) {
            prefix_variable(m, n, context, e.pointer_size, spec, out);
            continue;
        }
        const auto at = std::find(m.numbers.begin(), m.numbers.end(), static_cast<std::uint16_t>(n));
        const std::size_t index = static_cast<std::size_t>(at - m.numbers.begin());
        if (at != m.numbers.end() && index < e.nodes.size())
            argument(m, e, index, spec, out);
    }
}

} // namespace openetw::decode
