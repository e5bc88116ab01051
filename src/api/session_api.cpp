// extern "C" shims of session.h.
#include <openetw/session.h>

#include "api/guard.hpp"
#include "api/session_handle.hpp"
#include "api/properties_handle.hpp"
#include "base/utf.hpp"
#include "core/engine.hpp"
#include "core/host_channel.hpp"
#include "platform/platform.hpp"

#include <memory>


using openetw::Fail;
using openetw::Status;
using openetw::api::guarded;
using openetw::api::props_of;
using openetw::core::Engine;

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
        openetw::core::SessionOptions o;
        if (options) {
            if (options->struct_size < sizeof(etw_session_options))
                return Fail(ETW_ERROR_INVALID_PARAMETER, "options->struct_size is " + std::to_string(options->struct_size) +
                                                             "; set it to sizeof(etw_session_options) = " +
                                                             std::to_string(sizeof(etw_session_options)));
            if (options->flags & ~(ETW_SESSION_LOSSLESS | ETW_SESSION_REPLACE_ORPHAN | ETW_SESSION_TAKE_OVER_ORPHAN))
                return Fail(ETW_ERROR_INVALID_PARAMETER, "options->flags has unknown bits");
            if ((options->flags & ETW_SESSION_REPLACE_ORPHAN) && (options->flags & ETW_SESSION_TAKE_OVER_ORPHAN))
                return Fail(ETW_ERROR_INVALID_PARAMETER,
                            "options->flags: ETW_SESSION_REPLACE_ORPHAN and ETW_SESSION_TAKE_OVER_ORPHAN exclude each other");
            o.lossless = (options->flags & ETW_SESSION_LOSSLESS) != 0;
            o.replace_orphan = (options->flags & ETW_SESSION_REPLACE_ORPHAN) != 0;
            o.take_over = (options->flags & ETW_SESSION_TAKE_OVER_ORPHAN) != 0;
            o.lossless_timeout_ms = options->lossless_timeout_ms;
            o.realtime_backlog = options->realtime_backlog_buffers;
        }
        auto handle = std::make_unique<etw_session>();
        if (Status st = openetw::core::start_session(*props_of(props), o, &handle->session, &handle->remote); !st)
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
        if (out->struct_size < sizeof(etw_session_options))
            return Fail(ETW_ERROR_INVALID_PARAMETER, "out->struct_size is too small; set it to sizeof(etw_session_options)");
        openetw::core::SessionOptions o;
        if (session->remote) {
            if (Status st = session->remote->options(&o); !st)
                return st;
        } else {
            o = session->session->options();
            o.lossless = session->session->is_lossless();
            o.realtime_backlog = session->session->realtime_backlog_limit();
        }
        out->struct_size = sizeof(etw_session_options);
        out->flags = o.lossless ? ETW_SESSION_LOSSLESS : 0u;
        out->lossless_timeout_ms = o.lossless_timeout_ms;
        out->realtime_backlog_buffers = o.realtime_backlog;
        return Status::ok();
    });
}

ETW_API etw_status etw_session_flush_to_file(etw_session *session, const char *path, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(path);
        if (!*path)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "path is empty");
        if (session->remote)
            return session->remote->flush_to(path, props_of(props));
        if (!session->session->is_buffering())
            return Fail(ETW_ERROR_INVALID_PARAMETER, "etw_session_flush_to_file needs a buffering session (ETW_BUFFERING_MODE)");
        return Engine::instance().flush(session->session, props_of(props), path);
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
        if (!Engine::instance().open(*name, &handle->session)) {
            openetw::core::RegistryEntry e;
            if (!Engine::instance().find_foreign(*name, &e))
                return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "no running session is named \"" + std::string(session_name) + "\"");
            handle->remote = std::make_unique<openetw::core::RemoteSession>(*openetw::core::SystemRegistry::get(), e);
        }
        *out = handle.release();
        return Status::ok();
    });
}

ETW_API void etw_session_close(etw_session *session) { delete session; }

ETW_API uint64_t etw_session_handle(const etw_session *session)
{
    if (!session)
        return 0;
    return session->session ? session->session->handle() : session->remote->handle();
}

ETW_API etw_status etw_session_get_host_info(etw_session_host_info *out, etw_session *session)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(session);
        if (out->struct_size < sizeof(etw_session_host_info))
            return Fail(ETW_ERROR_INVALID_PARAMETER, "out->struct_size is too small; set it to sizeof(etw_session_host_info)");
        out->struct_size = sizeof(etw_session_host_info);
        if (session->session) {
            if (session->session->state.load() != openetw::core::Session::Running)
                return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
            out->process_id = openetw::platform::process_id();
            out->state = ETW_SESSION_HOST_RUNNING;
            out->is_local = 1;
            return Status::ok();
        }
        bool orphaned = false;
        if (!session->remote->refresh(&orphaned))
            return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is not running");
        out->process_id = session->remote->host_pid();
        out->state = orphaned ? ETW_SESSION_HOST_ORPHANED : ETW_SESSION_HOST_RUNNING;
        out->is_local = 0;
        return Status::ok();
    });
}

ETW_API etw_status etw_session_stop(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        if (session->remote) {
            Status st = session->remote->stop(props_of(props));
            Engine::instance().sync_providers(); // this process's providers let go before the call returns
            return st;
        }
        return Engine::instance().stop(session->session, props_of(props));
    });
}

ETW_API etw_status etw_session_query(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(props);
        if (session->remote)
            return session->remote->query(*props_of(props));
        return Engine::instance().query(session->session, *props_of(props));
    });
}

ETW_API etw_status etw_session_update(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        ETW_REQUIRE_ARG(props);
        if (session->remote)
            return session->remote->update(*props_of(props));
        return Engine::instance().update(session->session, *props_of(props));
    });
}

ETW_API etw_status etw_session_flush(etw_session *session, etw_properties *props)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        if (session->remote)
            return session->remote->flush(props_of(props));
        return Engine::instance().flush(session->session, props_of(props));
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
        auto sessions = Engine::instance().running();
        auto foreign = Engine::instance().foreign_sessions(); // other processes' (live or orphaned)
        const std::size_t total = sessions.size() + foreign.size();
        *out_count = uint32_t(total);
        for (uint32_t i = 0; i < array_count && i < total; ++i) {
            props_of(array[i])->clear_outputs();
            if (i < sessions.size()) {
                sessions[i]->fill(*props_of(array[i]));
            } else {
                auto &reg = *openetw::core::SystemRegistry::get();
                const auto &e = foreign[i - sessions.size()];
                openetw::core::RemoteSession r(reg, e);
                // Without the control right: what its host last published (the
                // registry is everyone's); one that stops meanwhile keeps its name only.
                if (!r.query(*props_of(array[i])) && !reg.published(e, *props_of(array[i])))
                    props_of(array[i])->assign_session_name(e.name);
            }
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
        if (control_code != ETW_CONTROL_CODE_ENABLE_PROVIDER && control_code != ETW_CONTROL_CODE_DISABLE_PROVIDER)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "control_code must be ETW_CONTROL_CODE_ENABLE_PROVIDER or _DISABLE_PROVIDER");
        if (session->remote) {
            openetw::core::EnableRecord rec{};
            rec.guid = *provider_guid;
            rec.level = level;
            rec.match_any = match_any_keyword;
            rec.match_all = match_all_keyword;
            Status st = session->remote->enable(rec, control_code == ETW_CONTROL_CODE_ENABLE_PROVIDER);
            if (st)
                Engine::instance().sync_providers(); // this process's providers hear of it before the call returns
            return st;
        }
        return Engine::instance().enable_provider(session->session, *provider_guid,
                                                  control_code == ETW_CONTROL_CODE_ENABLE_PROVIDER, level,
                                                  match_any_keyword, match_all_keyword);
    });
}

ETW_API etw_status etw_session_grant(etw_session *session, uint32_t user_id, uint32_t rights)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(session);
        if (rights & ~ETW_SESSION_RIGHT_ALL)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "rights has unknown bits (ETW_SESSION_RIGHT_* only)");
        if (session->remote)
            return session->remote->grant(user_id, rights);
        return Engine::instance().grant(session->session, user_id, rights);
    });
}

ETW_API etw_status etw_session_set_max_sessions(uint32_t max_sessions)
{
    return guarded([&]() -> Status { return Engine::instance().set_max_sessions(max_sessions); });
}

ETW_API uint32_t etw_session_max_sessions(void) { return Engine::instance().max_sessions(); }

} // extern "C"
