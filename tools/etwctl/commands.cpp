// etwctl's session commands: start, stop, query, flush, update, list, enable,
// grant and sleep. See commands.hpp.
#include "commands.hpp"

#include "etwctl.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace etwctl::detail {

namespace {

// The sessions started here that live in this process (not in a session
// host), which the program stops at exit.
std::mutex g_mutex;
// Handles of the sessions started here that run in this process: stopped
// at exit through these handles, never by name (the name may by then be
// another process's session).
std::vector<etw_session *> g_started;

struct Session {
    etw_session *s = nullptr;
    ~Session() { etw_session_close(s); }
};
struct Props {
    etw_properties *p = nullptr;
    ~Props() { etw_properties_destroy(p); }
};

int open_named(Ctx &c, const Args &a, Session &s, std::size_t positional)
{
    if (a.positional.size() != positional)
        return c.usage(c.command + " takes " + (positional == 1 ? "one session name" : "a session name and a GUID"));
    if (etw_status st = etw_session_open(&s.s, a.positional[0].c_str()); st != ETW_OK)
        return c.fail(st);
    return 0;
}

// --stackwalk's list (xperf's names or 0xmmnn) into *events.
int parse_stackwalk(Ctx &c, const std::string &text, std::vector<etw_classic_event_id> *events)
{
    std::uint32_t count = 0;
    etw_status st = etw_stack_events_parse(nullptr, 0, &count, text.c_str());
    if (st == ETW_ERROR_MORE_DATA) {
        events->resize(count);
        st = etw_stack_events_parse(events->data(), count, &count, text.c_str());
    }
    if (st != ETW_OK)
        return c.usage(std::string("--stackwalk: ") + etw_last_error_message());
    events->resize(count);
    return 0;
}

} // namespace

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
    std::vector<etw_classic_event_id> stacks;
    bool want_stacks = false;
    std::string export_url, export_credentials;
    for (const auto &[k, v] : a.options) {
        std::uint32_t n = 0;
        etw_status st = ETW_OK;
        const std::string &value = v; // clang 14 cannot capture a structured binding
        auto number = [&value](std::uint32_t *out) { return parse_u32(value, out); };
        if (k == "file") {
            st = etw_properties_set_log_file_name(props.p, v.c_str());
        } else if (k == "export") {
            export_url = v;
        } else if (k == "export-credentials") {
            export_credentials = v;
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
        } else if (k == "in-process") {
            if (!v.empty())
                return c.usage("--in-process takes no value");
            opt.flags |= ETW_SESSION_IN_PROCESS;
        } else if (k == "guid") {
            etw_guid g;
            if (!parse_guid(v, &g))
                return c.usage("--guid: \"" + v + "\" is not a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)");
            st = etw_properties_set_guid(props.p, &g);
        } else if (k == "enable-flags") {
            if (etw_enable_flags_parse(&n, v.c_str()) != ETW_OK)
                return c.usage(std::string("--enable-flags: ") + etw_last_error_message());
            st = etw_properties_set_enable_flags(props.p, n);
        } else if (k == "stackwalk") {
            if (int r = parse_stackwalk(c, v, &stacks))
                return r;
            want_stacks = true;
        } else if (k == "profile-interval") {
            if (!number(&opt.profile_interval))
                return c.usage("--profile-interval: \"" + v + "\" is not a number (100 ns units, 1221 to 10000000)");
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
    if (!export_credentials.empty() && export_url.empty())
        return c.usage("--export-credentials needs --export");
    if (!export_url.empty())
        if (etw_status st = etw_properties_set_export(props.p, export_url.c_str(), export_credentials.c_str());
            st != ETW_OK)
            return c.fail(st, std::string("--export: ") + etw_last_error_message());
    Session s;
    if (etw_status st = etw_session_start_ex(&s.s, props.p, &opt); st != ETW_OK)
        return c.fail(st);
    // As xperf: the stacks are chosen once the session runs; a refusal
    // stops it rather than leave it running without them.
    if (want_stacks)
        if (etw_status st = etw_session_set_stack_tracing(s.s, stacks.data(), std::uint32_t(stacks.size()));
            st != ETW_OK) {
            const std::string why = etw_last_error_message();
            etw_session_stop(s.s, props.p);
            return c.fail(st, "--stackwalk: " + why + " (the session was stopped)");
        }
    etw_session_host_info host;
    std::memset(&host, 0, sizeof host);
    host.struct_size = sizeof host;
    c.ok(describe(props.p, s.s), ("started " + a.positional[0]).c_str());
    if (etw_session_get_host_info(&host, s.s) == ETW_OK && host.is_local) {
        // Asked for (--in-process, OPENETW_HOST=inprocess, OPENETW_REGISTRY=none),
        // or no hosts on this system: the session lives in this process, so it is stopped (its file
        // finished) before etwctl ends.
        std::lock_guard<std::mutex> lock(g_mutex);
        g_started.push_back(s.s);
        s.s = nullptr;
    }
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
        std::vector<etw_classic_event_id> stacks;
        bool want_stacks = false;
        std::uint32_t interval = 0;
        bool want_interval = false;
        if ((st = etw_session_query(s.s, props.p)) == ETW_OK) {
            for (const auto &[k, v] : a.options) {
                std::uint32_t n = 0;
                if (k == "file") {
                    st = etw_properties_set_log_file_name(props.p, v.c_str());
                } else if (k == "enable-flags") {
                    if (etw_enable_flags_parse(&n, v.c_str()) != ETW_OK)
                        return c.usage(std::string("--enable-flags: ") + etw_last_error_message());
                    st = etw_properties_set_enable_flags(props.p, n);
                } else if (k == "stackwalk") {
                    if (int r = parse_stackwalk(c, v, &stacks))
                        return r;
                    want_stacks = true;
                } else if (k == "profile-interval") {
                    if (!parse_u32(v, &interval))
                        return c.usage("--profile-interval: \"" + v +
                                       "\" is not a number (100 ns units, 1221 to 10000000)");
                    want_interval = true;
                } else {
                    if (!parse_u32(v, &n))
                        return c.usage("--" + k + ": \"" + v + "\" is not a number");
                    if (k == "flush-timer")
                        st = etw_properties_set_flush_timer(props.p, n);
                    else if (k == "max-buffers")
                        st = etw_properties_set_maximum_buffers(props.p, n);
                    else
                        return c.usage("update: unknown option --" + k);
                }
                if (st != ETW_OK)
                    return c.fail(st);
            }
            st = etw_session_update(s.s, props.p);
            // After the flags: an event's stacks need its flag on.
            if (st == ETW_OK && want_interval)
                st = etw_session_set_profile_interval(s.s, interval);
            if (st == ETW_OK && want_stacks)
                st = etw_session_set_stack_tracing(s.s, stacks.data(), std::uint32_t(stacks.size()));
            if (st == ETW_OK && (want_interval || want_stacks))
                st = etw_session_query(s.s, props.p);
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
        std::string o =
            "{\"ok\": true, \"command\": \"list\", \"count\": " + std::to_string(count) + ", \"sessions\": [";
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
                host =
                    "host " + std::to_string(h.process_id) + (h.state == ETW_SESSION_HOST_ORPHANED ? " orphaned" : "");
            std::fprintf(c.out,
                         "  %-32s %-22s events lost %u, buffers written %u, real-time buffers lost %u  %s  (%s)\n",
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
    LevelKeywords lk;
    std::uint32_t code = ETW_CONTROL_CODE_ENABLE_PROVIDER;
    for (const auto &[k, v] : a.options) {
        if (std::string bad; lk.take(k, v, &bad)) {
            if (!bad.empty())
                return c.usage(bad);
        } else if (k == "disable") {
            code = ETW_CONTROL_CODE_DISABLE_PROVIDER;
        } else {
            return c.usage("enable: unknown option --" + k);
        }
    }
    if (etw_status st = etw_session_enable_provider(s.s, &g, code, std::uint8_t(lk.level), lk.any, lk.all);
        st != ETW_OK)
        return c.fail(st);
    Fields f;
    f.str("name", a.positional[0]);
    f.str("provider", guid_text(g));
    f.boolean("enabled", code == ETW_CONTROL_CODE_ENABLE_PROVIDER);
    f.num("level", lk.level);
    f.num("match_any_keyword", lk.any);
    f.num("match_all_keyword", lk.all);
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

int cmd_sleep(Ctx &c, const std::vector<std::string> &a)
{
    std::uint32_t ms = 0;
    if (a.size() != 2 || !parse_u32(a[1], &ms))
        return c.usage("sleep MS");
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    if (c.json)
        std::fprintf(c.out, "{\"ok\": true, \"command\": \"sleep\"}\n");
    return 0;
}

} // namespace etwctl::detail

namespace etwctl {

std::size_t stop_started_sessions()
{
    std::vector<etw_session *> started;
    {
        std::lock_guard<std::mutex> lock(detail::g_mutex);
        started.swap(detail::g_started);
    }
    std::size_t stopped = 0;
    for (etw_session *s : started) {
        stopped += etw_session_stop(s, nullptr) == ETW_OK ? 1 : 0; // one stopped meanwhile: not found
        etw_session_close(s);
    }
    return stopped;
}

} // namespace etwctl
