// The pure parsers of platform/machine_config.hpp: Linux's text formats,
// read on any OS (and tested on their own).
#include "platform/machine_config.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace openetw::platform {

namespace {

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

// The next space-separated word of s, consumed.
std::string_view word(std::string_view &s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    const std::size_t end = s.find(' ');
    const std::string_view w = s.substr(0, end);
    s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    return w;
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(std::string_view s)
{
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && s.size() - i >= 4) {
            const std::string_view o = s.substr(i + 1, 3);
            int v = 0;
            const auto r = std::from_chars(o.data(), o.data() + 3, v, 8);
            if (r.ec == std::errc() && r.ptr == o.data() + 3) {
                out.push_back(char(v));
                i += 3;
                continue;
            }
        }
        out.push_back(s[i]);
    }
    return out;
}

bool number(std::string_view s, std::uint64_t *out, int base = 10)
{
    if (s.empty())
        return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), *out, base);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

} // namespace

bool parse_mountinfo_line(std::string_view line, MountedFilesystem *out)
{
    line = trim(line);
    word(line); // mount id
    word(line); // parent id
    const std::string_view dev = word(line);
    word(line); // root within the filesystem
    const std::string_view mount_point = word(line);
    // Optional fields up to the "-" separator, then the type.
    std::string_view w;
    do
        w = word(line);
    while (!w.empty() && w != "-");
    const std::string_view type = word(line);
    const std::size_t colon = dev.find(':');
    std::uint64_t major = 0, minor = 0;
    if (w != "-" || type.empty() || mount_point.empty() || colon == std::string_view::npos ||
        !number(dev.substr(0, colon), &major) || !number(dev.substr(colon + 1), &minor))
        return false;
    out->major = std::uint32_t(major);
    out->minor = std::uint32_t(minor);
    out->mount_point = unescape(mount_point);
    out->type = std::string(type);
    return true;
}

std::vector<std::string> parse_resolv_conf(std::string_view text)
{
    std::vector<std::string> out;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = trim(text.substr(0, end));
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        std::string copy(line);
        for (char &c : copy) // tabs separate words as spaces do
            if (c == '\t')
                c = ' ';
        std::string_view rest = copy;
        if (word(rest) != "nameserver")
            continue;
        const std::string_view address = word(rest);
        if (!address.empty())
            out.emplace_back(address);
    }
    return out;
}

std::uint32_t parse_cpuinfo_mhz(std::string_view text)
{
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos || trim(line.substr(0, colon)) != "cpu MHz")
            continue;
        const std::string value(trim(line.substr(colon + 1)));
        char *stop = nullptr;
        const double mhz = std::strtod(value.c_str(), &stop);
        if (stop == value.c_str() || mhz < 0 || mhz > 1e6)
            return 0;
        return std::uint32_t(std::lround(mhz));
    }
    return 0;
}

std::vector<std::uint8_t> parse_hw_address(std::string_view text)
{
    text = trim(text);
    std::vector<std::uint8_t> out;
    while (!text.empty()) {
        const std::size_t colon = text.find(':');
        std::uint64_t v = 0;
        const std::string_view part = text.substr(0, colon);
        if (part.size() != 2 || !number(part, &v, 16))
            return {};
        out.push_back(std::uint8_t(v));
        if (colon == std::string_view::npos)
            break;
        text.remove_prefix(colon + 1);
        if (text.empty())
            return {};
    }
    return out;
}

} // namespace openetw::platform
