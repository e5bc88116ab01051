// The parsers of proc_info.hpp (and perf_events.hpp's processor list):
// /proc's and /sys's text formats, pure and alike on every OS.
#include "platform/perf_events.hpp"
#include "platform/proc_info.hpp"

#include <charconv>

namespace openetw::platform {

namespace {

// Splits off the next space-separated field of s.
std::string_view next_field(std::string_view &s)
{
    while (!s.empty() && s.front() == ' ')
        s.remove_prefix(1);
    const std::size_t end = s.find(' ');
    const std::string_view field = s.substr(0, end);
    s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    return field;
}

template <class T>
bool to_number(std::string_view s, T *out, int base = 10)
{
    if (s.empty())
        return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
    return ec == std::errc() && end == s.data() + s.size();
}

} // namespace

bool parse_proc_stat(std::string_view line, std::uint64_t ticks_per_second, ProcTask *out)
{
    // comm is whatever lies between the first '(' and the last ')'.
    const std::size_t open = line.find('(');
    const std::size_t close = line.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open || ticks_per_second == 0)
        return false;
    ProcTask t;
    std::string_view head = line.substr(0, open);
    if (!to_number(next_field(head), &t.tid))
        return false;
    t.comm = std::string(line.substr(open + 1, close - open - 1));
    std::string_view rest = line.substr(close + 1);
    // Fields from 3 (state) on; index 0 here is field 3.
    std::string_view f[20];
    for (std::string_view &v : f)
        v = next_field(rest);
    std::uint64_t utime = 0, stime = 0;
    if (f[0].size() != 1 || !to_number(f[1], &t.ppid) || !to_number(f[3], &t.session) || !to_number(f[11], &utime) ||
        !to_number(f[12], &stime) || !to_number(f[16], &t.nice) || !to_number(f[19], &t.start_time))
        return false;
    t.state = f[0][0];
    t.user_time = utime * 10'000'000 / ticks_per_second;
    t.kernel_time = stime * 10'000'000 / ticks_per_second;
    *out = std::move(t);
    return true;
}

bool parse_proc_maps_line(std::string_view line, ProcMapping *out)
{
    ProcMapping m;
    std::string_view rest = line;
    const std::string_view range = next_field(rest);
    const std::size_t dash = range.find('-');
    if (dash == std::string_view::npos || !to_number(range.substr(0, dash), &m.start, 16) ||
        !to_number(range.substr(dash + 1), &m.end, 16) || m.end < m.start)
        return false;
    m.perms = std::string(next_field(rest));
    if (m.perms.size() != 4 || !to_number(next_field(rest), &m.offset, 16))
        return false;
    m.device = std::string(next_field(rest));
    if (m.device.empty() || !to_number(next_field(rest), &m.inode))
        return false;
    // The path runs to the end of the line and may hold spaces.
    while (!rest.empty() && rest.front() == ' ')
        rest.remove_prefix(1);
    while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r'))
        rest.remove_suffix(1);
    m.path = std::string(rest);
    *out = std::move(m);
    return true;
}

std::string_view proc_status_value(std::string_view status, std::string_view key)
{
    std::size_t at = 0;
    while (at < status.size()) {
        std::size_t end = status.find('\n', at);
        if (end == std::string_view::npos)
            end = status.size();
        const std::string_view line = status.substr(at, end - at);
        if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':') {
            std::string_view v = line.substr(key.size() + 1);
            while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
                v.remove_prefix(1);
            return v;
        }
        at = end + 1;
    }
    return {};
}

std::uint64_t parse_cpu_mask(std::string_view hex)
{
    // 32-bit groups, most significant first: the last two hold processors 0..63.
    std::uint64_t mask = 0;
    int shift = 0;
    while (!hex.empty() && shift < 64) {
        const std::size_t comma = hex.rfind(',');
        const std::string_view group = comma == std::string_view::npos ? hex : hex.substr(comma + 1);
        std::uint32_t v = 0;
        if (!to_number(group, &v, 16))
            return mask;
        mask |= std::uint64_t(v) << shift;
        shift += 32;
        hex = comma == std::string_view::npos ? std::string_view() : hex.substr(0, comma);
    }
    return mask;
}

std::vector<std::uint32_t> parse_cpu_list(std::string_view text)
{
    while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
        text.remove_suffix(1);
    std::vector<std::uint32_t> cpus;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        const std::size_t dash = item.find('-');
        std::uint32_t first = 0, last = 0;
        if (!to_number(item.substr(0, dash), &first))
            return {};
        if (dash == std::string_view::npos)
            last = first;
        else if (!to_number(item.substr(dash + 1), &last))
            return {};
        // (a range past 4096 processors is not a processor list)
        if (last < first || last - first > 4096)
            return {};
        for (std::uint32_t c = first; c <= last; ++c)
            cpus.push_back(c);
        if (comma == std::string_view::npos)
            break;
        text.remove_prefix(comma + 1);
        if (text.empty())
            return {};
    }
    return cpus;
}

} // namespace openetw::platform
