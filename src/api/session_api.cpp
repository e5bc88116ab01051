// extern "C" shims of session.h.
#include <openetw/session.h>

#include "api/guard.hpp"
#include "api/session_handle.hpp"
#include "api/properties_handle.hpp"
#include "base/utf.hpp"
#include "engine/event_filter.hpp"
#include "host/hosting.hpp"
#include "host/session_ref.hpp"
#include "kernel/stack_event_names.hpp"
#include "kernel/system_logger.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>

using openetw::Fail;
using openetw::Status;
using openetw::api::guarded;
using openetw::api::props_of;
using openetw::engine::Engine;
using openetw::engine::SessionOptions;

static_assert(ETW_DEFAULT_PROFILE_INTERVAL == openetw::kernel::kDefaultProfileInterval &&
              ETW_MIN_PROFILE_INTERVAL == openetw::kernel::kMinProfileInterval &&
              ETW_MAX_PROFILE_INTERVAL == openetw::kernel::kMaxProfileInterval);

namespace {

// Whether a caller's struct of struct_size bytes holds the u32 member at offset.
bool covers(std::uint32_t struct_size, std::size_t offset) { return struct_size >= offset + 4; }

} // namespace

extern "C" {

ETW_API etw_status etw_session_start(etw_session **out, etw_properties *props)
{
    return etw_session_start_ex(out, props, nullptr);
}

ETW_API etw_status etw_session_start_ex(etw_session **out, etw_properties *props, const etw_session_options *options)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = nullptr;
        ETW_REQUIRE_ARG(props);
        SessionOptions o;
        if (options) {
            if (options->struct_size < ETW_SESSION_OPTIONS_V1_SIZE)
                return Fail(
                    ETW_ERROR_INVALID_PARAMETER,
                    "options->struct_size is " + std::to_string(options->struct_size) +
                        "; set it to sizeof(etw_session_options) = " + std::to_string(sizeof(etw_session_options)));
            if (options->flags & ~(ETW_SESSION_LOSSLESS | ETW_SESSION_REPLACE_ORPHAN | ETW_SESSION_TAKE_OVER_ORPHAN |
                                   ETW_SESSION_IN_PROCESS))
                return Fail(ETW_ERROR_INVALID_PARAMETER, "options->flags has unknown bits");
            if ((options->flags & ETW_SESSION_REPLACE_ORPHAN) && (options->flags & ETW_SESSION_TAKE_OVER_ORPHAN))
                return Fail(
                    ETW_ERROR_INVALID_PARAMETER,
                    "options->flags: ETW_SESSION_REPLACE_ORPHAN and ETW_SESSION_TAKE_OVER_ORPHAN exclude each other");
            o.lossless = (options->flags & ETW_SESSION_LOSSLESS) != 0;
            o.replace_orphan = (options->flags & ETW_SESSION_REPLACE_ORPHAN) != 0;
            o.take_over = (options->flags & ETW_SESSION_TAKE_OVER_ORPHAN) != 0;
            o.in_process = (options->flags & ETW_SESSION_IN_PROCESS) != 0;
            o.lossless_timeout_ms = options->lossless_timeout_ms;
            o.realtime_backlog = options->realtime_backlog_buffers;
            if (covers(options->struct_size, offsetof(etw_session_options, profile_interval)))
                o.profile_interval = options->profile_interval;
            if (options->struct_size >= offsetof(etw_session_options, filters) + sizeof options->filters)
                if (Status st = openetw::engine::pack_filters(options->filters, options->filter_count,
                                                              openetw::engine::FilterScope::Session, &o.filters);
                    !st)
                    return st;
        }
        auto handle = std::make_unique<etw_session>();
        if (Status st = openetw::host::start_session(*props_of(props), o, &handle->ref); !st)
            return st;
        *out = handle.release();
        return Status::ok();
    });
}

ETW_API etw_status etw_session_get_options(etw_session_options *out, const etw_session *session)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(session);
        if (out->struct_size < ETW_SESSION_OPTIONS_V1_SIZE)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "out->struct_size is too small; set it to sizeof(etw_session_options)");
        SessionOptions o;
        if (Status st = session->ref->options(&o); !st)
            return st;
        const std::uint32_t room = out->struct_size;
        out->struct_size = ETW_SESSION_OPTIONS_V1_SIZE;
        out->flags = o.lossless ? ETW_SESSION_LOSSLESS : 0u;
        out->lossless_timeout_ms = o.lossless_timeout_ms;
        out->realtime_backlog_buffers = o.realtime_backlog;
        if (covers(room, offsetof(etw_session_options, profile_interval))) {
            out->profile_interval = o.profile_interval;
            out->struct_size = std::uint32_t(offsetof(etw_session_options, profile_interval) + 4);
        }
        return Status::ok();
    });
}

ETW_API etw_status etw_session_set_stack_tracing(etw_session *session, const etw_classic_event_id *events,
                                                 uint32_t count)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        if (count > ETW_MAX_STACK_TRACING_EVENTS)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "count is " + std::to_string(count) + "; at most " +
                                                         std::to_string(ETW_MAX_STACK_TRACING_EVENTS) +
                                                         " events carry stacks");
        if (count != 0 && !events)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "events is NULL with a count of " + std::to_string(count));
        return session->ref->set_stack_tracing(std::vector<etw_classic_event_id>(events, events + count));
    });
}

ETW_API etw_status etw_stack_events_parse(etw_classic_event_id *events, uint32_t capacity, uint32_t *out_count,
                                          const char *text)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(text);
        ETW_REQUIRE_ARG(out_count);
        if (capacity != 0 && !events)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "events is NULL with a capacity of " + std::to_string(capacity));
        std::vector<etw_classic_event_id> parsed;
        if (Status st = openetw::kernel::parse_stack_events(text, &parsed); !st)
            return st;
        *out_count = std::uint32_t(parsed.size());
        std::copy_n(parsed.begin(), std::min<std::size_t>(parsed.size(), capacity), events);
        if (parsed.size() > capacity)
            return Fail(ETW_ERROR_MORE_DATA, "the list names " + std::to_string(parsed.size()) +
                                                 " events; events has room for " + std::to_string(capacity));
        return Status::ok();
    });
}

ETW_API etw_status etw_session_set_profile_interval(etw_session *session, uint32_t interval_100ns)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        if (Status st = openetw::kernel::check_profile_interval(interval_100ns); !st)
            return st;
        return session->ref->set_profile_interval(interval_100ns);
    });
}

ETW_API etw_status etw_session_flush_to_file(etw_session *session, const char *path, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(path);
        if (!*path)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "path is empty");
        return session->ref->flush_to(path, props_of(props));
    });
}

ETW_API etw_status etw_session_open(etw_session **out, const char *session_name)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = nullptr;
        ETW_REQUIRE_ARG(session_name);
        auto name = openetw::utf8_to_utf16(session_name);
        if (!name)
            return Fail(ETW_ERROR_NO_UNICODE_TRANSLATION, "session_name is not valid UTF-8");
        auto handle = std::make_unique<etw_session>();
        if (Status st = openetw::host::open_session(*name, &handle->ref); !st)
            return st;
        *out = handle.release();
        return Status::ok();
    });
}

ETW_API void etw_session_close(etw_session *session) { delete session; }

ETW_API uint64_t etw_session_handle(const etw_session *session)
{
    if (!session)
        return 0;
    return session->ref->handle();
}

ETW_API etw_status etw_session_get_host_info(etw_session_host_info *out, etw_session *session)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(session);
        if (out->struct_size < sizeof(etw_session_host_info))
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "out->struct_size is too small; set it to sizeof(etw_session_host_info)");
        out->struct_size = sizeof(etw_session_host_info);
        openetw::host::HostInfo info;
        if (Status st = session->ref->host_info(&info); !st)
            return st;
        out->process_id = info.process_id;
        out->state = info.orphaned ? ETW_SESSION_HOST_ORPHANED : ETW_SESSION_HOST_RUNNING;
        out->is_local = info.is_local ? 1 : 0;
        return Status::ok();
    });
}

ETW_API etw_status etw_session_stop(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        return session->ref->stop(props_of(props));
    });
}

ETW_API etw_status etw_session_query(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(props);
        return session->ref->query(*props_of(props));
    });
}

ETW_API etw_status etw_session_update(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(props);
        return session->ref->update(*props_of(props));
    });
}

ETW_API etw_status etw_session_flush(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        return session->ref->flush(props_of(props));
    });
}

ETW_API etw_status etw_session_list(uint32_t *out_count, etw_properties *const *array, uint32_t array_count)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out_count);
        *out_count = 0;
        if (array_count > 0 && array == nullptr)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "array is NULL but array_count is not 0");
        for (uint32_t i = 0; i < array_count; ++i)
            if (array[i] == nullptr)
                return Fail(ETW_ERROR_INVALID_PARAMETER, "array[" + std::to_string(i) + "] is NULL");
        auto sessions = openetw::host::running_sessions();
        const std::size_t total = sessions.size();
        *out_count = uint32_t(total);
        for (uint32_t i = 0; i < array_count && i < total; ++i) {
            props_of(array[i])->clear_outputs();
            sessions[i]->describe(*props_of(array[i]));
        }
        if (total > array_count)
            return Fail(ETW_ERROR_MORE_DATA, std::to_string(total) + " sessions are running but array_count is " +
                                                 std::to_string(array_count));
        return Status::ok();
    });
}

ETW_API etw_status etw_session_enable_provider(etw_session *session, const etw_guid *provider_guid,
                                               uint32_t control_code, uint8_t level, uint64_t match_any_keyword,
                                               uint64_t match_all_keyword)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(provider_guid);
        if (control_code == ETW_CONTROL_CODE_CAPTURE_STATE)
            return session->ref->capture_state(*provider_guid, level, match_any_keyword, match_all_keyword);
        if (control_code != ETW_CONTROL_CODE_ENABLE_PROVIDER && control_code != ETW_CONTROL_CODE_DISABLE_PROVIDER)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "control_code must be ETW_CONTROL_CODE_ENABLE_PROVIDER, "
                                                     "_DISABLE_PROVIDER or _CAPTURE_STATE");
        return session->ref->enable(*provider_guid, control_code == ETW_CONTROL_CODE_ENABLE_PROVIDER, level,
                                    match_any_keyword, match_all_keyword);
    });
}

ETW_API etw_status etw_session_enable_provider_ex(etw_session *session, const etw_guid *provider_guid,
                                                  uint32_t control_code, const etw_enable_parameters *params)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(provider_guid);
        if (control_code != ETW_CONTROL_CODE_ENABLE_PROVIDER && control_code != ETW_CONTROL_CODE_DISABLE_PROVIDER)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "control_code must be ETW_CONTROL_CODE_ENABLE_PROVIDER or _DISABLE_PROVIDER");
        const bool on = control_code == ETW_CONTROL_CODE_ENABLE_PROVIDER;
        if (params == nullptr || !on)
            return session->ref->enable(*provider_guid, on, 0, 0, 0);
        if (params->struct_size < sizeof(etw_enable_parameters))
            return Fail(ETW_ERROR_INVALID_PARAMETER, "params->struct_size is " + std::to_string(params->struct_size) +
                                                         "; set it to sizeof(etw_enable_parameters) = " +
                                                         std::to_string(sizeof(etw_enable_parameters)));
        if (params->enable_property & ~ETW_EVENT_ENABLE_PROPERTY_ALL)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "params->enable_property has bits no EVENT_ENABLE_PROPERTY_* names");
        std::vector<std::uint8_t> filters;
        if (Status st = openetw::engine::pack_filters(params->filters, params->filter_count,
                                                      openetw::engine::FilterScope::Provider, &filters);
            !st)
            return st;
        return session->ref->enable(*provider_guid, true, params->level, params->match_any_keyword,
                                    params->match_all_keyword, params->enable_property, filters);
    });
}

ETW_API etw_status etw_session_grant(etw_session *session, uint32_t user_id, uint32_t rights)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        if (rights & ~ETW_SESSION_RIGHT_ALL)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "rights has unknown bits (ETW_SESSION_RIGHT_* only)");
        return session->ref->grant(user_id, rights);
    });
}

ETW_API etw_status etw_session_set_max_sessions(uint32_t max_sessions)
{
    return guarded([&]() -> Status { return openetw::host::process_engine().set_max_sessions(max_sessions); });
}

ETW_API uint32_t etw_session_max_sessions(void) { return openetw::host::process_engine().max_sessions(); }

} // extern "C"
