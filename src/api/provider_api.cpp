// extern "C" shims of provider.h. etw_provider_trace_event and
// etw_provider_is_enabled are the hot path: no guard, no last-error message.
#include <openetw/provider.h>

#include "api/guard.hpp"
#include "api/provider_handle.hpp"
#include "engine/activity_id.hpp"
#include "host/hosting.hpp"
#include "host/provider_listing.hpp"

#include "base/guid.hpp"
#include "base/utf.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

using openetw::Fail;
using openetw::Status;
using openetw::api::guarded;
using openetw::engine::EnableInfo;
using openetw::engine::Engine;

namespace {

void forward(const EnableInfo &info, void *context)
{
    auto *p = static_cast<etw_provider *>(context);
    etw_provider_enable_info out{};
    out.struct_size = sizeof out;
    out.is_enabled = info.is_enabled;
    out.level = info.level;
    out.match_any_keyword = info.match_any;
    out.match_all_keyword = info.match_all;
    out.session_handle = info.session_handle;
    out.filter_data = info.filter_data;
    p->callback(&out, p->user_data);
}

// A UTF-8 copy of name in out (size bytes, NUL included), cut before a
// character that does not fit whole.
void copy_name(const std::u16string &name, char *out, std::size_t size)
{
    const std::string u = openetw::utf16_to_utf8_lossy(name);
    std::size_t n = std::min(u.size(), size - 1);
    while (n > 0 && n < u.size() && (static_cast<unsigned char>(u[n]) & 0xC0) == 0x80)
        --n;
    std::memcpy(out, u.data(), n);
    out[n] = 0;
}

} // namespace

extern "C" {

ETW_API etw_status etw_provider_register(etw_provider **out, const etw_guid *guid,
                                         etw_provider_enable_callback callback, void *user_data,
                                         etw_user_data_free user_data_free)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        *out = nullptr;
        ETW_REQUIRE_ARG(guid);
        auto p = std::make_unique<etw_provider>();
        p->callback = callback;
        p->user_data = user_data;
        p->user_data_free = user_data_free;
        etw_provider *raw = p.get();
        // The handle is published before the callback can run.
        *out = p.release();
        Status st =
            openetw::host::process_engine().register_provider(*guid, callback ? forward : nullptr, raw, &raw->impl);
        if (!st) {
            *out = nullptr;
            delete raw;
        }
        return st;
    });
}

ETW_API void etw_provider_unregister(etw_provider *provider)
{
    if (!provider)
        return;
    if (provider->impl)
        openetw::host::process_engine().unregister_provider(provider->impl);
    if (provider->user_data_free)
        provider->user_data_free(provider->user_data);
    delete provider;
}

ETW_API int etw_provider_is_enabled(const etw_provider *provider, uint8_t level, uint64_t flags)
{
    return provider && Engine::is_enabled(provider->impl, level, flags) ? 1 : 0;
}

ETW_API const volatile uint32_t *etw_provider_enabled_word(const etw_provider *provider)
{
    if (provider == nullptr)
        return nullptr;
    // A lock-free std::atomic<uint32_t> is laid out as a uint32_t: a volatile
    // load of it is the relaxed load an inline check needs.
    static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free);
    return reinterpret_cast<const volatile uint32_t *>(&provider->impl->enabled);
}

ETW_API etw_status etw_provider_trace_event(etw_provider *provider, etw_event_trace_header *header)
{
    if (provider == nullptr || header == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    // A disabled provider: one load and a branch here, no call into the engine.
    if (__builtin_expect(provider->impl->summary.load(std::memory_order_relaxed) == 0, 1))
        return ETW_OK;
    return Engine::trace_event(provider->impl, header);
}

ETW_API etw_status etw_provider_write_event(etw_provider *provider, const etw_event_descriptor *descriptor,
                                            uint32_t flags, const etw_guid *activity_id,
                                            const etw_guid *related_activity_id, uint32_t data_count,
                                            const etw_event_data_descriptor *data)
{
    if (provider == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    // A disabled provider: one load and a branch, as etw_provider_trace_event.
    if (__builtin_expect(provider->impl->summary.load(std::memory_order_relaxed) == 0, 1))
        return ETW_OK;
    return Engine::write_event(provider->impl, descriptor, flags, activity_id, related_activity_id, data_count, data);
}

ETW_API etw_status etw_provider_write_event_ex(etw_provider *provider, const etw_event_descriptor *descriptor,
                                               uint64_t filter, uint32_t flags, const etw_guid *activity_id,
                                               const etw_guid *related_activity_id, uint32_t data_count,
                                               const etw_event_data_descriptor *data)
{
    if (provider == nullptr)
        return ETW_ERROR_INVALID_PARAMETER;
    if (__builtin_expect(provider->impl->summary.load(std::memory_order_relaxed) == 0, 1))
        return ETW_OK;
    return Engine::write_event_ex(provider->impl, descriptor, flags, activity_id, related_activity_id, data_count, data,
                                  filter);
}

ETW_API etw_status etw_activity_id_control(uint32_t control_code, etw_guid *activity_id)
{
    return openetw::engine::activity_id_control(control_code, activity_id);
}

ETW_API etw_status etw_provider_list(etw_guid *guids, uint32_t capacity, uint32_t *out_count)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out_count);
        *out_count = 0;
        if (!guids && capacity)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "guids is NULL but capacity is " + std::to_string(capacity));
        const auto all = openetw::host::list_providers();
        *out_count = std::uint32_t(all.size());
        for (std::size_t i = 0; i < all.size() && i < capacity; ++i)
            guids[i] = all[i].guid;
        if (all.size() > capacity)
            return Fail(ETW_ERROR_MORE_DATA,
                        std::to_string(all.size()) + " providers, room for " + std::to_string(capacity));
        return Status::ok();
    });
}

ETW_API etw_status etw_provider_query(const etw_guid *guid, etw_provider_process *processes, uint32_t process_capacity,
                                      uint32_t *out_process_count, etw_provider_session *sessions,
                                      uint32_t session_capacity, uint32_t *out_session_count)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(guid);
        ETW_REQUIRE_ARG(out_process_count);
        ETW_REQUIRE_ARG(out_session_count);
        *out_process_count = 0;
        *out_session_count = 0;
        if (!processes && process_capacity)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "processes is NULL but process_capacity is not 0");
        if (!sessions && session_capacity)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "sessions is NULL but session_capacity is not 0");
        openetw::host::ProviderListing l;
        if (openetw::host::query_provider(*guid, &l)) {
            *out_process_count = std::uint32_t(l.processes.size());
            *out_session_count = std::uint32_t(l.sessions.size());
            for (std::size_t i = 0; i < l.processes.size() && i < process_capacity; ++i)
                processes[i] = {l.processes[i].pid, l.processes[i].registrations};
            for (std::size_t i = 0; i < l.sessions.size() && i < session_capacity; ++i) {
                const openetw::host::ProviderSession &s = l.sessions[i];
                etw_provider_session &o = sessions[i];
                o = etw_provider_session{};
                o.session_handle = s.handle;
                o.match_any_keyword = s.match_any;
                o.match_all_keyword = s.match_all;
                o.level = s.level;
                o.filter_count = s.filter_count;
                o.enable_property = s.enable_property;
                copy_name(s.name, o.session_name, sizeof o.session_name);
            }
            if (l.processes.size() > process_capacity || l.sessions.size() > session_capacity)
                return Fail(ETW_ERROR_MORE_DATA, std::to_string(l.processes.size()) + " processes and " +
                                                     std::to_string(l.sessions.size()) + " sessions, room for " +
                                                     std::to_string(process_capacity) + " and " +
                                                     std::to_string(session_capacity));
            return Status::ok();
        }
        return Fail(ETW_ERROR_WMI_GUID_NOT_FOUND, "no live process registers the provider " +
                                                      openetw::guid_to_string(*guid) +
                                                      " and no running session enables it");
    });
}

} // extern "C"
