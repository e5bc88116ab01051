#include "export/export_url.hpp"

#include <cstdio>

namespace openetw::exporter {

namespace {

bool stream_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

bool digits(std::string_view s)
{
    if (s.empty())
        return false;
    for (char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + std::int64_t(doe) - 719468;
}

// YYYY-MM-DDTHH:MM:SSZ (UTC only: a reader names one instant for every machine).
bool parse_utc(std::string_view s, std::int64_t *unix_ns)
{
    unsigned y, mo, d, h, mi, sec;
    char tail = 0;
    const std::string text(s);
    if (s.size() != 20 ||
        std::sscanf(text.c_str(), "%4u-%2u-%2uT%2u:%2u:%2u%c", &y, &mo, &d, &h, &mi, &sec, &tail) != 7 || tail != 'Z' ||
        mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970)
        return false;
    const std::int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    *unix_ns = secs * 1000000000;
    return true;
}

// One HOST[:PORT] of the URL's server list.
Status parse_server(std::string_view authority, const std::string &shown, std::string *host_out,
                    std::uint16_t *port_out)
{
    ExportUrl u;
    std::string_view port;
    if (!authority.empty() && authority.front() == '[') {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "the host of \"" + shown + "\" opens a '[' it does not close");
        u.host = std::string(authority.substr(0, close + 1));
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':')
                return Fail(ETW_ERROR_INVALID_PARAMETER, "\"" + shown + "\": ']' must be followed by ':PORT'");
            port = after.substr(1);
            if (port.empty())
                return Fail(ETW_ERROR_INVALID_PARAMETER, "\"" + shown + "\": the port after ':' is empty");
        }
    } else {
        const std::size_t colon = authority.find(':');
        u.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) {
            port = authority.substr(colon + 1);
            if (port.empty())
                return Fail(ETW_ERROR_INVALID_PARAMETER, "\"" + shown + "\": the port after ':' is empty");
        }
    }
    if (u.host.empty() || u.host == "[]")
        return Fail(ETW_ERROR_INVALID_PARAMETER, "\"" + shown + "\" names no host: write nats://HOST:PORT/STREAM");
    if (!port.empty()) {
        if (!digits(port) || port.size() > 5 || std::stoul(std::string(port)) == 0 ||
            std::stoul(std::string(port)) > 65535)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "the port \"" + std::string(port) + "\" of \"" + shown + "\" is not a number in 1..65535");
        u.port = std::uint16_t(std::stoul(std::string(port)));
    }
    *host_out = u.host;
    *port_out = u.port;
    return Status::ok();
}

} // namespace

std::string ExportUrl::server() const
{
    std::string s = "nats://" + host + ":" + std::to_string(port);
    for (const std::string &more : more_servers)
        s += ",nats://" + more;
    return s;
}

std::string ExportUrl::text() const
{
    std::string s = "nats://" + host + ":" + std::to_string(port);
    for (const std::string &more : more_servers)
        s += "," + more;
    return s + "/" + stream;
}

bool is_nats_url(std::string_view text) { return text.rfind("nats://", 0) == 0; }

Status parse_export_url(std::string_view text, ExportUrl *out)
{
    const std::string shown(text);
    if (!is_nats_url(text))
        return Fail(ETW_ERROR_INVALID_PARAMETER, "\"" + shown + "\" is not a NATS URL: write nats://HOST:PORT/STREAM");
    std::string_view rest = text.substr(7);
    const std::size_t slash = rest.find('/');
    const std::string_view authority = rest.substr(0, slash);
    if (authority.find('@') != std::string_view::npos)
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "the URL \"" + shown.substr(0, 7) +
                        "...\" carries credentials, which would show in process lists: name a credentials file "
                        "instead (etw_properties_set_export, OPENETW_NATS_CREDENTIALS)");
    ExportUrl u;
    for (std::size_t from = 0;;) {
        const std::size_t comma = authority.find(',', from);
        std::string host;
        std::uint16_t port = kDefaultNatsPort;
        if (Status st = parse_server(authority.substr(from, comma == std::string_view::npos ? comma : comma - from),
                                     shown, &host, &port);
            !st)
            return st;
        if (from == 0) {
            u.host = host;
            u.port = port;
        } else {
            u.more_servers.push_back(host + ":" + std::to_string(port));
        }
        if (comma == std::string_view::npos)
            break;
        from = comma + 1;
    }
    if (slash == std::string_view::npos)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "\"" + shown + "\" names no stream: write nats://HOST:PORT/STREAM");
    std::string_view path = rest.substr(slash + 1);
    std::string_view query;
    if (const std::size_t q = path.find('?'); q != std::string_view::npos) {
        query = path.substr(q + 1);
        path = path.substr(0, q);
    }
    if (path.empty())
        return Fail(ETW_ERROR_INVALID_NAME, "\"" + shown + "\" names no stream: write nats://HOST:PORT/STREAM");
    if (path.size() > kMaxStreamName)
        return Fail(ETW_ERROR_INVALID_NAME, "the stream name of \"" + shown + "\" is longer than " +
                                                std::to_string(kMaxStreamName) + " characters");
    for (char c : path)
        if (!stream_char(c))
            return Fail(ETW_ERROR_INVALID_NAME, "the stream name \"" + std::string(path) +
                                                    "\" may hold only letters, digits, '-' and '_' (it prefixes "
                                                    "every subject of the stream)");
    u.stream = std::string(path);
    // Queries: since=TIME and follow=1, joined by '&', each at most once.
    bool since_seen = false, follow_seen = false;
    for (bool more = !query.empty(); more;) {
        const std::size_t amp = query.find('&');
        const std::string_view item = query.substr(0, amp);
        more = amp != std::string_view::npos;
        query = more ? query.substr(amp + 1) : std::string_view();
        if (item.rfind("since=", 0) == 0 && !since_seen) {
            since_seen = true;
            if (!parse_utc(item.substr(6), &u.since_unix_ns))
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            "\"" + shown + "\": since= must be a UTC time such as " + "2026-11-29T04:00:00Z");
        } else if ((item == "follow=1" || item == "follow=0") && !follow_seen) {
            follow_seen = true;
            u.follow = item == "follow=1";
        } else {
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "\"" + shown +
                            "\": the query may hold since=YYYY-MM-DDTHH:MM:SSZ and follow=1, each once, "
                            "joined by '&' (not \"" +
                            std::string(item) + "\")");
        }
    }
    *out = u;
    return Status::ok();
}

} // namespace openetw::exporter
