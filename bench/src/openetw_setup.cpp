// The session every workload of openetw-bench starts: the mode, clock and
// buffers the arguments ask for, with the provider enabled, and checked to
// be enabled, so that a figure never measures writes nobody records.
#include "openetw_bench.hpp"

#include <unistd.h>

#include <cctype>

namespace bench::ours {

std::string status_text(etw_status st)
{
    std::string s = etw_status_name(st);
    const char *m = etw_last_error_message();
    if (m && *m)
        s += std::string(": ") + m;
    return s;
}

bool Setup::start(const Args &a, const std::string &mode_, std::uint32_t buffers_per_cpu_default,
                  bool register_provider)
{
    mode = mode_;
    if (register_provider)
        if (etw_status st = etw_provider_register(&provider, &kProvider, nullptr, nullptr, nullptr); st != ETW_OK)
            return fail(st, "etw_provider_register");
    if (mode == "disabled")
        return true;
    const std::string name = "oebench-" + std::to_string(getpid()) + "-" + a.str("tag", "0");
    etw_properties_create(&props, name.c_str());
    const std::uint32_t cpus = cpu_count();
    const std::uint32_t per_cpu = std::uint32_t(a.num("buffers-per-cpu", buffers_per_cpu_default));
    etw_properties_set_buffer_size(props, std::uint32_t(a.num("buffer-kb", 64)));
    etw_properties_set_minimum_buffers(props, per_cpu * cpus);
    etw_properties_set_maximum_buffers(props, per_cpu * cpus);
    etw_properties_set_clock_type(props, std::uint32_t(a.num("clock", 1)));
    file = a.str("file", a.str("dir", "/tmp") + "/oebench-" + std::to_string(getpid()) + ".etl");
    std::uint32_t lfm = 0;
    if (mode == "file") {
        lfm = ETW_FILE_MODE_SEQUENTIAL;
        etw_properties_set_log_file_name(props, file.c_str());
    } else if (mode == "realtime") {
        lfm = ETW_REAL_TIME_MODE;
        file.clear();
    } else if (mode == "buffering") {
        lfm = ETW_BUFFERING_MODE;
        file.clear();
    } else {
        why = "unknown --mode=" + mode;
        return false;
    }
    etw_properties_set_log_file_mode(props, lfm);
    // --export-server=nats://HOST:PORT: the session also publishes every
    // buffer to a stream of its own (one per run: the figures of a run
    // never count another's messages).
    if (const std::string server = a.str("export-server"); !server.empty()) {
#if defined(OEB_HAVE_EXPORT)
        std::string stream = "OEB_" + a.str("tag", "0");
        for (char &c : stream)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
                c = '_';
        export_url = server + "/" + stream;
        if (etw_status st = etw_properties_set_export(props, export_url.c_str(), nullptr); st != ETW_OK) {
            not_built = st == ETW_ERROR_NOT_SUPPORTED;
            return fail(st, "etw_properties_set_export");
        }
#else
        not_built = true;
        why = "the export (etw_properties_set_export) is not in this build";
        return false;
#endif
    }
    if (mode == "realtime" && !RtConsumer::available()) {
        not_built = true;
        why = "real-time consumer API not in this build";
        return false;
    }
    etw_status started;
    if (a.num("lossless", 0)) {
#if defined(OEB_HAVE_SESSION_OPTIONS)
        // Writers wait for a free buffer instead of dropping.
        etw_session_options o{};
        o.struct_size = sizeof o;
        o.flags = ETW_SESSION_LOSSLESS;
        o.lossless_timeout_ms = 10000;
        started = etw_session_start_ex(&session, props, &o);
#else
        not_built = true;
        why = "lossless sessions (etw_session_start_ex) are not in this build";
        return false;
#endif
    } else {
        started = etw_session_start(&session, props);
    }
    if (etw_status st = started; st != ETW_OK) {
        if (st == ETW_ERROR_NOT_SUPPORTED)
            not_built = true;
        return fail(st, "etw_session_start(" + mode + ")");
    }
    if (etw_status st =
            etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0);
        st != ETW_OK)
        return fail(st, "etw_session_enable_provider");
    // --filter=event-id-out / event-id-in: an EVENT_ID filter that turns
    // away / admits the workloads' EVENT_HEADER event (id kEventId).
    if (const std::string filter = a.str("filter"); !filter.empty()) {
#if defined(ETW_EVENT_FILTER_TYPE_EVENT_ID)
        if (filter != "event-id-out" && filter != "event-id-in") {
            why = "unknown --filter=" + filter;
            return false;
        }
        // EVENT_FILTER_EVENT_ID: FilterIn and Reserved (one little-endian word), Count 1, the id.
        const std::uint16_t bytes[3] = {std::uint16_t(filter == "event-id-in" ? 1 : 0), 1, kEventId};
        etw_event_filter_descriptor d = {std::uint64_t(reinterpret_cast<std::uintptr_t>(bytes)), sizeof bytes,
                                         ETW_EVENT_FILTER_TYPE_EVENT_ID};
        etw_enable_parameters p{};
        p.struct_size = sizeof p;
        p.level = ETW_LEVEL_VERBOSE;
        p.filter_count = 1;
        p.filters = &d;
        if (etw_status st = etw_session_enable_provider_ex(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, &p);
            st != ETW_OK)
            return fail(st, "etw_session_enable_provider_ex");
#else
        not_built = true;
        why = "filters (etw_session_enable_provider_ex) are not in this build";
        return false;
#endif
    }
    // Writes to a provider no session enables cost a load and a branch:
    // a figure measured so would be meaningless (seen: a session host of
    // another build that the library could not share buffers with).
    if (provider && *etw_provider_enabled_word(provider) == 0) {
        why = "the provider is not enabled after etw_session_enable_provider returned ETW_OK";
        return false;
    }
    if (mode == "realtime") {
        std::string e;
        if (!rt.start(name, &e)) {
            why = "real-time consumer: " + e;
            return false;
        }
    }
    return true;
}

bool Setup::fail(etw_status st, const std::string &what)
{
    status = st;
    why = what + ": " + status_text(st);
    return false;
}

etw_status Setup::teardown(std::uint32_t *events_lost)
{
    etw_status st = ETW_OK;
    if (session) {
        st = etw_session_stop(session, props);
        rt.stop();
        if (events_lost)
            *events_lost = etw_properties_events_lost(props);
        buffers_written = etw_properties_buffers_written(props);
        export_buffers_lost = etw_properties_real_time_buffers_lost(props);
        etw_session_close(session);
        session = nullptr;
    }
    if (provider) {
        etw_provider_unregister(provider);
        provider = nullptr;
    }
    if (props) {
        etw_properties_destroy(props);
        props = nullptr;
    }
    return st;
}

int setup_failure(const Args &a, const Setup &s)
{
    return emit_fail(kImpl, a, s.not_built ? "not_built" : "error", s.why);
}

} // namespace bench::ours
