// etwctl's command-line words. See options.hpp.
#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace etwctl::detail {

namespace {

struct ModeName {
    const char *name;
    std::uint32_t bit;
};
const ModeName kModes[] = {
    {"sequential", ETW_FILE_MODE_SEQUENTIAL},
    {"circular", ETW_FILE_MODE_CIRCULAR},
    {"append", ETW_FILE_MODE_APPEND},
    {"newfile", ETW_FILE_MODE_NEWFILE},
    {"preallocate", ETW_FILE_MODE_PREALLOCATE},
    {"nonstoppable", ETW_NONSTOPPABLE_MODE},
    {"secure", ETW_SECURE_MODE},
    {"real-time", ETW_REAL_TIME_MODE},
    {"delay-open", ETW_DELAY_OPEN_FILE_MODE},
    {"buffering", ETW_BUFFERING_MODE},
    {"private", ETW_PRIVATE_LOGGER_MODE},
    {"add-header", ETW_ADD_HEADER_MODE},
    {"kbytes", ETW_USE_KBYTES_FOR_SIZE},
    {"global-sequence", ETW_USE_GLOBAL_SEQUENCE},
    {"local-sequence", ETW_USE_LOCAL_SEQUENCE},
    {"private-in-proc", ETW_PRIVATE_IN_PROC},
    {"system-logger", ETW_SYSTEM_LOGGER_MODE},
    {"independent", ETW_INDEPENDENT_SESSION_MODE},
    {"no-per-processor", ETW_NO_PER_PROCESSOR_BUFFERING},
};

int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = char(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

} // namespace

std::string mode_text(std::uint32_t mode)
{
    std::string s;
    for (const ModeName &m : kModes)
        if (mode & m.bit) {
            if (!s.empty())
                s += "|";
            s += m.name;
            mode &= ~m.bit;
        }
    if (mode) {
        char b[16];
        std::snprintf(b, sizeof b, "0x%X", mode);
        if (!s.empty())
            s += "|";
        s += b;
    }
    return s.empty() ? "file" : s;
}

bool parse_u32(const std::string &s, std::uint32_t *out)
{
    if (s.empty() || s[0] == '-')
        return false;
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (errno || *end || v > 0xFFFFFFFFull)
        return false;
    *out = std::uint32_t(v);
    return true;
}

bool parse_u64(const std::string &s, std::uint64_t *out)
{
    if (s.empty() || s[0] == '-')
        return false;
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool parse_modes(const std::string &s, std::uint32_t *out)
{
    std::uint32_t mode = 0;
    std::size_t pos = 0;
    while (pos <= s.size()) {
        std::size_t end = s.find_first_of(",|", pos);
        if (end == std::string::npos)
            end = s.size();
        std::string word = s.substr(pos, end - pos);
        std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        std::replace(word.begin(), word.end(), '_', '-');
        if (word.empty() || word == "file" || word == "none") {
        } else if (std::uint32_t v; parse_u32(word, &v)) {
            mode |= v;
        } else {
            bool found = false;
            for (const ModeName &m : kModes)
                if (word == m.name || (word == "realtime" && m.bit == ETW_REAL_TIME_MODE)) {
                    mode |= m.bit;
                    found = true;
                }
            if (!found)
                return false;
        }
        pos = end + 1;
    }
    *out = mode;
    return true;
}

bool parse_guid(std::string s, etw_guid *g)
{
    if (s.size() == 38 && s.front() == '{' && s.back() == '}')
        s = s.substr(1, 36);
    if (s.size() != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-')
        return false;
    std::string hex;
    for (char c : s)
        if (c != '-') {
            if (hexval(c) < 0)
                return false;
            hex += c;
        }
    auto byte = [&](int i) { return std::uint8_t(hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1])); };
    g->Data1 = std::uint32_t(byte(0)) << 24 | std::uint32_t(byte(1)) << 16 | std::uint32_t(byte(2)) << 8 | byte(3);
    g->Data2 = std::uint16_t(byte(4) << 8 | byte(5));
    g->Data3 = std::uint16_t(byte(6) << 8 | byte(7));
    for (int i = 0; i < 8; ++i)
        g->Data4[i] = byte(8 + i);
    return true;
}

std::string guid_text(const etw_guid &g)
{
    char b[40];
    std::snprintf(b, sizeof b, "%08X-%04X-%04X-%02X%02X-%02X%02X%02X%02X%02X%02X", unsigned(g.Data1), unsigned(g.Data2),
                  unsigned(g.Data3), g.Data4[0], g.Data4[1], g.Data4[2], g.Data4[3], g.Data4[4], g.Data4[5], g.Data4[6],
                  g.Data4[7]);
    return b;
}

bool Args::has(const std::string &k) const
{
    for (const auto &o : options)
        if (o.first == k)
            return true;
    return false;
}

Args split(const std::vector<std::string> &a, std::size_t from, const std::vector<std::string> &flags)
{
    Args r;
    for (std::size_t i = from; i < a.size(); ++i) {
        const std::string &s = a[i];
        if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
            std::string key = s.substr(2), value;
            const std::size_t eq = key.find('=');
            const bool is_flag = std::find(flags.begin(), flags.end(), key.substr(0, eq)) != flags.end();
            if (eq != std::string::npos) {
                value = key.substr(eq + 1);
                key = key.substr(0, eq);
            } else if (!is_flag) {
                if (i + 1 >= a.size()) {
                    r.error = "--" + key + " needs a value";
                    return r;
                }
                value = a[++i];
            }
            r.options.emplace_back(key, value);
        } else {
            r.positional.push_back(s);
        }
    }
    return r;
}

std::vector<std::string> strip_global(const std::vector<std::string> &args, bool *json)
{
    std::vector<std::string> a;
    for (const std::string &s : args) {
        if (s == "--json")
            *json = true;
        else
            a.push_back(s);
    }
    return a;
}

bool LevelKeywords::take(const std::string &key, const std::string &value, std::string *error)
{
    error->clear();
    if (key == "level") {
        if (!parse_u32(value, &level) || level > 255)
            *error = "--level: 0..255";
    } else if (key == "flags" || key == "keywords") {
        if (!parse_u64(value, &any))
            *error = "--flags: a number";
    } else if (key == "all-flags") {
        if (!parse_u64(value, &all))
            *error = "--all-flags: a number";
    } else {
        return false;
    }
    return true;
}

} // namespace etwctl::detail
