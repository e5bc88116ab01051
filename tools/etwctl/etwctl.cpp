// etwctl: start, stop, query, list, flush, update and enable trace sessions.
// See etwctl.hpp and `etwctl help`.
#include "etwctl.hpp"

#include <openetw/openetw.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <chrono>
#include <vector>

namespace etwctl {

namespace {

std::mutex g_mutex;
std::vector<std::string> g_started;

const char kUsage[] =
    "usage: etwctl [--json] COMMAND ...\n"
    "  start NAME [--file PATH] [--mode MODES] [--real-time] [--buffering]\n"
    "             [--buffer-size KB] [--min-buffers N] [--max-buffers N] [--max-file-size N]\n"
    "             [--flush-timer S] [--enable-flags F] [--flush-threshold N] [--guid GUID]\n"
    "             [--clock qpc|system|cycle|N] [--lossless[=MS]] [--backlog N]\n"
    "  stop NAME          query NAME          list\n"
    "  flush NAME [--file PATH]   (a buffering session writes its buffers to PATH)\n"
    "  update NAME [--file PATH] [--flush-timer S] [--max-buffers N] [--enable-flags F]\n"
    "  enable NAME PROVIDER-GUID [--level L] [--flags F] [--all-flags F] [--disable]\n"
    "  grant NAME UID RIGHTS   RIGHTS: control,log,consume joined by , or all, none\n"
    "  script FILE|- [--keep-going]   run one command per line in this process\n"
    "  sleep MS                       (scripts) wait\n"
    "MODES: a list joined by , or | of sequential circular append newfile preallocate\n"
    "  real-time buffering private private-in-proc no-per-processor kbytes system-logger\n"
    "  nonstoppable secure delay-open add-header global-sequence local-sequence\n"
    "  independent, or numbers (0x...).\n"
    "Sessions are system-wide (docs/SYSTEM_SESSIONS.md): every command works on a session\n"
    "of another process. Sessions this program starts are stopped when it exits: run\n"
    "several commands in one process with `etwctl script`.\n";

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

int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = char(std::tolower(static_cast<unsigned char>(c)));
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
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

std::string json_string(const std::string &s)
{
    std::string o = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        case '\r': o += "\\r"; break;
        case '\t': o += "\\t"; break;
        default:
            if (c < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", c);
                o += b;
            } else {
                o += char(c);
            }
        }
    }
    return o + "\"";
}

// One output object: ordered key/value pairs, printed as "key: value" lines
// or as a JSON object.
struct Fields {
    std::vector<std::pair<std::string, std::string>> kv; // value already JSON-encoded
    void str(const char *k, const std::string &v) { kv.emplace_back(k, json_string(v)); }
    void num(const char *k, std::uint64_t v) { kv.emplace_back(k, std::to_string(v)); }
    void boolean(const char *k, bool v) { kv.emplace_back(k, v ? "true" : "false"); }
    std::string json() const
    {
        std::string o = "{";
        for (std::size_t i = 0; i < kv.size(); ++i)
            o += (i ? ", " : "") + json_string(kv[i].first) + ": " + kv[i].second;
        return o + "}";
    }
    void print_text(std::FILE *out, const char *indent = "") const
    {
        for (const auto &[k, v] : kv) {
            std::string val = v;
            if (val.size() >= 2 && val.front() == '"') { // undo the JSON quoting for people
                std::string plain;
                for (std::size_t i = 1; i + 1 < val.size(); ++i) {
                    if (val[i] == '\\' && i + 2 < val.size()) {
                        ++i;
                        plain += val[i] == 'n' ? '\n' : val[i] == 't' ? '\t' : val[i];
                    } else {
                        plain += val[i];
                    }
                }
                val = plain;
            }
            std::fprintf(out, "%s%-24s %s\n", indent, (k + ":").c_str(), val.c_str());
        }
    }
};

Fields describe(etw_properties *p, etw_session *session)
{
    Fields f;
    etw_event_trace_properties r{};
    etw_properties_get_record(&r, p);
    f.str("name", etw_properties_session_name(p));
    f.str("log_file", etw_properties_log_file_name(p));
    f.num("handle", r.Wnode.HistoricalContext);
    f.str("guid", guid_text(r.Wnode.Guid));
    f.str("mode", mode_text(r.LogFileMode));
    f.num("log_file_mode", r.LogFileMode);
    f.num("buffer_size_kb", r.BufferSize);
    f.num("minimum_buffers", r.MinimumBuffers);
    f.num("maximum_buffers", r.MaximumBuffers);
    f.num("maximum_file_size", r.MaximumFileSize);
    f.num("flush_timer", r.FlushTimer);
    f.num("enable_flags", r.EnableFlags);
    f.num("flush_threshold", std::uint32_t(r.AgeLimit));
    f.num("clock_type", r.Wnode.ClientContext);
    f.num("number_of_buffers", r.NumberOfBuffers);
    f.num("free_buffers", r.FreeBuffers);
    f.num("events_lost", r.EventsLost);
    f.num("buffers_written", r.BuffersWritten);
    f.num("log_buffers_lost", r.LogBuffersLost);
    f.num("real_time_buffers_lost", r.RealTimeBuffersLost);
    f.num("logger_thread_id", r.LoggerThreadId);
    if (session) {
        etw_session_host_info h{};
        h.struct_size = sizeof h;
        if (etw_session_get_host_info(&h, session) == ETW_OK) {
            f.num("host_pid", h.process_id);
            f.str("host_state", h.state == ETW_SESSION_HOST_ORPHANED ? "orphaned" : "running");
        }
        etw_session_options o{};
        o.struct_size = sizeof o;
        if (etw_session_get_options(&o, session) == ETW_OK) {
            f.boolean("lossless", (o.flags & ETW_SESSION_LOSSLESS) != 0);
            f.num("lossless_timeout_ms", o.lossless_timeout_ms);
            f.num("realtime_backlog_buffers", o.realtime_backlog_buffers);
        }
    }
    return f;
}

struct Ctx {
    std::FILE *out;
    std::FILE *err;
    bool json = false;
    std::string command;

    int fail(etw_status st, const std::string &what = {})
    {
        const char *msg = etw_last_error_message();
        std::string m = what.empty() ? std::string(msg && *msg ? msg : etw_status_string(st)) : what;
        if (json)
            std::fprintf(out, "{\"ok\": false, \"command\": %s, \"status\": %u, \"status_name\": %s, \"message\": %s}\n",
                         json_string(command).c_str(), unsigned(st), json_string(etw_status_name(st)).c_str(),
                         json_string(m).c_str());
        std::fprintf(err, "etwctl %s: %s (%u): %s\n", command.c_str(), etw_status_name(st), unsigned(st), m.c_str());
        return 1;
    }
    int usage(const std::string &msg)
    {
        std::fprintf(err, "etwctl %s: %s\n%s", command.c_str(), msg.c_str(), kUsage);
        if (json)
            std::fprintf(out, "{\"ok\": false, \"command\": %s, \"status\": %u, \"status_name\": \"ETW_ERROR_INVALID_PARAMETER\", "
                              "\"message\": %s}\n",
                         json_string(command).c_str(), unsigned(ETW_ERROR_INVALID_PARAMETER), json_string(msg).c_str());
        return 2;
    }
    void ok(const Fields &f, const char *title = nullptr)
    {
        if (json) {
            Fields wrapped;
            wrapped.boolean("ok", true);
            wrapped.str("command", command);
            wrapped.kv.emplace_back("session", f.json());
            std::fprintf(out, "%s\n", wrapped.json().c_str());
        } else {
            if (title)
                std::fprintf(out, "%s\n", title);
            f.print_text(out, "  ");
        }
    }
};

// Options as --key value or --key=value.
struct Args {
    std::vector<std::string> positional;
    std::vector<std::pair<std::string, std::string>> options; // value "" for flags
    std::string error;
    bool has(const std::string &k) const
    {
        for (const auto &o : options)
            if (o.first == k)
                return true;
        return false;
    }
};

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

struct Session {
    etw_session *s = nullptr;
    ~Session() { etw_session_close(s); }
};
struct Props {
    etw_properties *p = nullptr;
    ~Props() { etw_properties_destroy(p); }
};

int cmd_start(Ctx &c, const Args &a)
{
    if (a.positional.size() != 1)
        return c.usage("start takes one session name");
    Props props;
    if (etw_status st = etw_properties_create(&props.p, a.positional[0].c_str()); st != ETW_OK)
        return c.fail(st);
    etw_session_options opt{};
    opt.struct_size = sizeof opt;
    std::uint32_t mode = 0;
    for (const auto &[k, v] : a.options) {
        std::uint32_t n = 0;
        etw_status st = ETW_OK;
        auto number = [&](std::uint32_t *out) { return parse_u32(v, out); };
        if (k == "file") {
            st = etw_properties_set_log_file_name(props.p, v.c_str());
        } else if (k == "mode") {
            std::uint32_t m;
            if (!parse_modes(v, &m))
                return c.usage("--mode: unknown mode in \"" + v + "\"");
            mode |= m;
        } else if (k == "real-time" || k == "realtime") {
            mode |= ETW_REAL_TIME_MODE;
        } else if (k == "buffering") {
            mode |= ETW_BUFFERING_MODE;
        } else if (k == "lossless") {
            opt.flags |= ETW_SESSION_LOSSLESS;
            if (!v.empty() && !number(&opt.lossless_timeout_ms))
                return c.usage("--lossless=MS needs a number of milliseconds");
        } else if (k == "guid") {
            etw_guid g;
            if (!parse_guid(v, &g))
                return c.usage("--guid: \"" + v + "\" is not a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
            st = etw_properties_set_guid(props.p, &g);
        } else if (k == "clock") {
            if (v == "qpc")
                n = ETW_CLOCK_QPC;
            else if (v == "system")
                n = ETW_CLOCK_SYSTEM_TIME;
            else if (v == "cycle")
                n = ETW_CLOCK_CPU_CYCLE;
            else if (!number(&n))
                return c.usage("--clock: qpc, system, cycle or a number");
            st = etw_properties_set_clock_type(props.p, n);
        } else {
            if (!number(&n))
                return c.usage("--" + k + ": \"" + v + "\" is not a number");
            if (k == "buffer-size")
                st = etw_properties_set_buffer_size(props.p, n);
            else if (k == "min-buffers")
                st = etw_properties_set_minimum_buffers(props.p, n);
            else if (k == "max-buffers")
                st = etw_properties_set_maximum_buffers(props.p, n);
            else if (k == "max-file-size")
                st = etw_properties_set_maximum_file_size(props.p, n);
            else if (k == "flush-timer")
                st = etw_properties_set_flush_timer(props.p, n);
            else if (k == "enable-flags")
                st = etw_properties_set_enable_flags(props.p, n);
            else if (k == "flush-threshold")
                st = etw_properties_set_flush_threshold(props.p, std::int32_t(n));
            else if (k == "backlog")
                opt.realtime_backlog_buffers = n;
            else
                return c.usage("start: unknown option --" + k);
        }
        if (st != ETW_OK)
            return c.fail(st);
    }
    if (etw_status st = etw_properties_set_log_file_mode(props.p, mode); st != ETW_OK)
        return c.fail(st);
    Session s;
    if (etw_status st = etw_session_start_ex(&s.s, props.p, &opt); st != ETW_OK)
        return c.fail(st);
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_started.push_back(a.positional[0]);
    }
    c.ok(describe(props.p, s.s), ("started " + a.positional[0]).c_str());
    return 0;
}

int open_named(Ctx &c, const Args &a, Session &s, std::size_t positional)
{
    if (a.positional.size() != positional)
        return c.usage(c.command + " takes " + (positional == 1 ? "one session name" : "a session name and a GUID"));
    if (etw_status st = etw_session_open(&s.s, a.positional[0].c_str()); st != ETW_OK)
        return c.fail(st);
    return 0;
}

int cmd_simple(Ctx &c, const Args &a)
{
    Session s;
    if (int r = open_named(c, a, s, 1))
        return r;
    Props props;
    if (etw_status st = etw_properties_create(&props.p, a.positional[0].c_str()); st != ETW_OK)
        return c.fail(st);
    etw_status st = ETW_OK;
    if (c.command == "stop") {
        st = etw_session_stop(s.s, props.p);
        if (st == ETW_OK || st != ETW_ERROR_WMI_INSTANCE_NOT_FOUND) {
            std::lock_guard<std::mutex> lock(g_mutex);
            g_started.erase(std::remove(g_started.begin(), g_started.end(), a.positional[0]), g_started.end());
        }
    } else if (c.command == "query") {
        st = etw_session_query(s.s, props.p);
    } else if (c.command == "flush") {
        std::string file;
        for (const auto &[k, v] : a.options) {
            if (k != "file")
                return c.usage("flush: unknown option --" + k);
            file = v;
        }
        st = file.empty() ? etw_session_flush(s.s, props.p) : etw_session_flush_to_file(s.s, file.c_str(), props.p);
    } else if (c.command == "update") {
        if ((st = etw_session_query(s.s, props.p)) == ETW_OK) {
            for (const auto &[k, v] : a.options) {
                std::uint32_t n = 0;
                if (k == "file") {
                    st = etw_properties_set_log_file_name(props.p, v.c_str());
                } else {
                    if (!parse_u32(v, &n))
                        return c.usage("--" + k + ": \"" + v + "\" is not a number");
                    if (k == "flush-timer")
                        st = etw_properties_set_flush_timer(props.p, n);
                    else if (k == "max-buffers")
                        st = etw_properties_set_maximum_buffers(props.p, n);
                    else if (k == "enable-flags")
                        st = etw_properties_set_enable_flags(props.p, n);
                    else
                        return c.usage("update: unknown option --" + k);
                }
                if (st != ETW_OK)
                    return c.fail(st);
            }
            st = etw_session_update(s.s, props.p);
        }
    }
    if (st != ETW_OK)
        return c.fail(st);
    c.ok(describe(props.p, c.command == "stop" ? nullptr : s.s), (c.command + " " + a.positional[0]).c_str());
    return 0;
}

int cmd_list(Ctx &c, const Args &a)
{
    if (!a.positional.empty() || !a.options.empty())
        return c.usage("list takes no arguments");
    std::uint32_t count = 0;
    etw_status st = etw_session_list(&count, nullptr, 0);
    std::vector<etw_properties *> array;
    for (int attempt = 0; attempt < 4 && (st == ETW_OK || st == ETW_ERROR_MORE_DATA); ++attempt) {
        for (etw_properties *p : array)
            etw_properties_destroy(p);
        array.assign(count, nullptr);
        for (auto &p : array)
            if (etw_properties_create(&p, "list") != ETW_OK)
                return c.fail(etw_last_error_status());
        st = etw_session_list(&count, array.data(), std::uint32_t(array.size()));
        if (st == ETW_OK)
            break;
    }
    int result = 0;
    if (st != ETW_OK) {
        result = c.fail(st);
    } else if (c.json) {
        std::string o = "{\"ok\": true, \"command\": \"list\", \"count\": " + std::to_string(count) + ", \"sessions\": [";
        for (std::uint32_t i = 0; i < count; ++i) {
            Session s;
            etw_session_open(&s.s, etw_properties_session_name(array[i]));
            o += (i ? ", " : "") + describe(array[i], s.s).json();
        }
        std::fprintf(c.out, "%s]}\n", o.c_str());
    } else {
        std::fprintf(c.out, "%u session%s running\n", count, count == 1 ? "" : "s");
        for (std::uint32_t i = 0; i < count; ++i) {
            etw_event_trace_properties r{};
            etw_properties_get_record(&r, array[i]);
            // Sessions of every process: say which one hosts it, and whether it died.
            Session s;
            etw_session_host_info h{};
            h.struct_size = sizeof h;
            std::string host = "stopped";
            if (etw_session_open(&s.s, etw_properties_session_name(array[i])) == ETW_OK &&
                etw_session_get_host_info(&h, s.s) == ETW_OK)
                host = "host " + std::to_string(h.process_id) + (h.state == ETW_SESSION_HOST_ORPHANED ? " orphaned" : "");
            std::fprintf(c.out, "  %-32s %-22s events lost %u, buffers written %u, real-time buffers lost %u  %s  (%s)\n",
                         etw_properties_session_name(array[i]), mode_text(r.LogFileMode).c_str(), r.EventsLost,
                         r.BuffersWritten, r.RealTimeBuffersLost, etw_properties_log_file_name(array[i]), host.c_str());
        }
    }
    for (etw_properties *p : array)
        etw_properties_destroy(p);
    return result;
}

int cmd_enable(Ctx &c, const Args &a)
{
    Session s;
    if (int r = open_named(c, a, s, 2))
        return r;
    etw_guid g;
    if (!parse_guid(a.positional[1], &g))
        return c.usage("\"" + a.positional[1] + "\" is not a provider GUID");
    std::uint32_t level = 0;
    std::uint64_t any = 0, all = 0;
    std::uint32_t code = ETW_CONTROL_CODE_ENABLE_PROVIDER;
    for (const auto &[k, v] : a.options) {
        if (k == "level") {
            if (!parse_u32(v, &level) || level > 255)
                return c.usage("--level: 0..255");
        } else if (k == "flags" || k == "keywords") {
            if (!parse_u64(v, &any))
                return c.usage("--flags: a number");
        } else if (k == "all-flags") {
            if (!parse_u64(v, &all))
                return c.usage("--all-flags: a number");
        } else if (k == "disable") {
            code = ETW_CONTROL_CODE_DISABLE_PROVIDER;
        } else {
            return c.usage("enable: unknown option --" + k);
        }
    }
    if (etw_status st = etw_session_enable_provider(s.s, &g, code, std::uint8_t(level), any, all); st != ETW_OK)
        return c.fail(st);
    Fields f;
    f.str("name", a.positional[0]);
    f.str("provider", guid_text(g));
    f.boolean("enabled", code == ETW_CONTROL_CODE_ENABLE_PROVIDER);
    f.num("level", level);
    f.num("match_any_keyword", any);
    f.num("match_all_keyword", all);
    if (c.json) {
        std::fprintf(c.out, "{\"ok\": true, \"command\": \"enable\", \"provider\": %s}\n", f.json().c_str());
    } else {
        std::fprintf(c.out, "%s %s for %s\n", code == ETW_CONTROL_CODE_ENABLE_PROVIDER ? "enabled" : "disabled",
                     guid_text(g).c_str(), a.positional[0].c_str());
        f.print_text(c.out, "  ");
    }
    return 0;
}

int cmd_grant(Ctx &c, const Args &a)
{
    if (a.positional.size() != 3 || !a.options.empty())
        return c.usage("grant takes a session name, a user id and rights (control,log,consume, all or none)");
    std::uint32_t uid = 0;
    if (!parse_u32(a.positional[1], &uid))
        return c.usage("grant: \"" + a.positional[1] + "\" is not a user id");
    std::uint32_t rights = 0;
    std::string list = a.positional[2];
    for (std::size_t at = 0; at <= list.size();) {
        std::size_t end = list.find(',', at);
        if (end == std::string::npos)
            end = list.size();
        const std::string r = list.substr(at, end - at);
        if (r == "control")
            rights |= ETW_SESSION_RIGHT_CONTROL;
        else if (r == "log")
            rights |= ETW_SESSION_RIGHT_LOG;
        else if (r == "consume")
            rights |= ETW_SESSION_RIGHT_CONSUME;
        else if (r == "all")
            rights |= ETW_SESSION_RIGHT_ALL;
        else if (r != "none")
            return c.usage("grant: unknown right \"" + r + "\" (control, log, consume, all, none)");
        at = end + 1;
    }
    Session s;
    if (etw_status st = etw_session_open(&s.s, a.positional[0].c_str()); st != ETW_OK)
        return c.fail(st);
    if (etw_status st = etw_session_grant(s.s, uid, rights); st != ETW_OK)
        return c.fail(st);
    if (c.json)
        std::fprintf(c.out, "{\"ok\": true, \"command\": \"grant\", \"name\": %s, \"uid\": %u, \"rights\": %u}\n",
                     json_string(a.positional[0]).c_str(), uid, rights);
    else
        std::fprintf(c.out, "granted user %u rights 0x%X over %s\n", uid, rights, a.positional[0].c_str());
    return 0;
}

std::vector<std::string> words(const std::string &line, bool *ok)
{
    std::vector<std::string> w;
    std::string cur;
    bool quoted = false, have = false;
    for (char ch : line) {
        if (ch == '"') {
            quoted = !quoted;
            have = true;
        } else if (!quoted && (ch == ' ' || ch == '\t' || ch == '\r')) {
            if (have)
                w.push_back(cur);
            cur.clear();
            have = false;
        } else {
            cur += ch;
            have = true;
        }
    }
    if (have)
        w.push_back(cur);
    *ok = !quoted;
    return w;
}

} // namespace

std::vector<std::string> started_sessions()
{
    std::lock_guard<std::mutex> lock(g_mutex);
    return g_started;
}

int run_script(std::FILE *in, std::FILE *out, std::FILE *err, bool json, bool keep_going)
{
    char buf[8192];
    int result = 0;
    unsigned line_no = 0;
    while (std::fgets(buf, sizeof buf, in)) {
        ++line_no;
        std::string line(buf);
        while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
            line.pop_back();
        bool ok = true;
        std::vector<std::string> w = words(line, &ok);
        if (w.empty() || w[0][0] == '#')
            continue;
        if (!ok) {
            std::fprintf(err, "etwctl script: line %u: unbalanced quote\n", line_no);
            result = 1;
        } else {
            if (json)
                w.insert(w.begin(), "--json");
            else
                std::fprintf(out, "> %s\n", line.c_str());
            if (w.size() > 1 && (w[json ? 1 : 0] == "script"))
                return std::fprintf(err, "etwctl script: line %u: scripts do not nest\n", line_no), 2;
            const int r = run(w, out, err);
            if (r != 0) {
                std::fprintf(err, "etwctl script: line %u failed\n", line_no);
                result = r;
            }
        }
        if (result != 0 && !keep_going)
            return result;
    }
    return result;
}

int run(const std::vector<std::string> &args, std::FILE *out, std::FILE *err)
{
    Ctx c{out, err, false, {}};
    std::vector<std::string> a;
    for (const std::string &s : args) {
        if (s == "--json")
            c.json = true;
        else
            a.push_back(s);
    }
    if (a.empty() || a[0] == "help" || a[0] == "--help" || a[0] == "-h") {
        std::fprintf(a.empty() ? err : out, "%s", kUsage);
        return a.empty() ? 2 : 0;
    }
    c.command = a[0];
    if (c.command == "start") {
        Args p = split(a, 1, {"real-time", "realtime", "buffering", "lossless"});
        return p.error.empty() ? cmd_start(c, p) : c.usage(p.error);
    }
    if (c.command == "stop" || c.command == "query" || c.command == "flush" || c.command == "update") {
        Args p = split(a, 1, {});
        if (!p.error.empty())
            return c.usage(p.error);
        if ((c.command == "stop" || c.command == "query") && !p.options.empty())
            return c.usage(c.command + " takes no options");
        return cmd_simple(c, p);
    }
    if (c.command == "list") {
        Args p = split(a, 1, {});
        return cmd_list(c, p);
    }
    if (c.command == "enable") {
        Args p = split(a, 1, {"disable"});
        return p.error.empty() ? cmd_enable(c, p) : c.usage(p.error);
    }
    if (c.command == "grant") {
        Args p = split(a, 1, {});
        return p.error.empty() ? cmd_grant(c, p) : c.usage(p.error);
    }
    if (c.command == "sleep") {
        std::uint32_t ms = 0;
        if (a.size() != 2 || !parse_u32(a[1], &ms))
            return c.usage("sleep MS");
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        if (c.json)
            std::fprintf(out, "{\"ok\": true, \"command\": \"sleep\"}\n");
        return 0;
    }
    if (c.command == "script") {
        Args p = split(a, 1, {"keep-going"});
        if (p.positional.size() != 1)
            return c.usage("script takes one file name (or - for standard input)");
        std::FILE *in = p.positional[0] == "-" ? stdin : std::fopen(p.positional[0].c_str(), "r");
        if (!in)
            return c.fail(ETW_ERROR_FILE_NOT_FOUND, "cannot open \"" + p.positional[0] + "\": " + std::strerror(errno));
        const int r = run_script(in, out, err, c.json, p.has("keep-going"));
        if (in != stdin)
            std::fclose(in);
        return r;
    }
    return c.usage("unknown command \"" + c.command + "\"");
}

} // namespace etwctl
