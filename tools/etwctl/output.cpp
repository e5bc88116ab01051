// etwctl's output. See output.hpp.
#include "output.hpp"

#include "options.hpp"
#include "usage.hpp"

#include "base/json.hpp"

namespace etwctl::detail {

std::string json_string(const std::string &s)
{
    std::string o;
    openetw::append_json_string(o, s);
    return o;
}

std::string Fields::json() const
{
    std::string o = "{";
    for (std::size_t i = 0; i < kv.size(); ++i)
        o += (i ? ", " : "") + json_string(kv[i].first) + ": " + kv[i].second;
    return o + "}";
}

void Fields::print_text(std::FILE *out, const char *indent) const
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
    {
        char names[512];
        if (etw_enable_flags_format(names, sizeof names, nullptr, r.EnableFlags) == ETW_OK)
            f.str("enable_flags_names", names);
    }
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

int Ctx::fail(etw_status st, const std::string &what)
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

int Ctx::usage(const std::string &msg)
{
    std::fprintf(err, "etwctl %s: %s\n%s", command.c_str(), msg.c_str(), kUsage);
    if (json)
        std::fprintf(
            out,
            "{\"ok\": false, \"command\": %s, \"status\": %u, \"status_name\": \"ETW_ERROR_INVALID_PARAMETER\", "
            "\"message\": %s}\n",
            json_string(command).c_str(), unsigned(ETW_ERROR_INVALID_PARAMETER), json_string(msg).c_str());
    return 2;
}

void Ctx::ok(const Fields &f, const char *title)
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

} // namespace etwctl::detail
