// extern "C" shims of provider.h. etw_provider_trace_event and
// etw_provider_is_enabled are the hot path: no guard, no last-error message.
#include <openetw/provider.h>

#include "api/guard.hpp"
#include "engine/activity_id.hpp"
#include "host/hosting.hpp"

#include <memory>

struct etw_provider {
    openetw::engine::Provider *impl = nullptr;
    etw_provider_enable_callback callback = nullptr;
    void *user_data = nullptr;
    etw_user_data_free user_data_free = nullptr;
};

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

ETW_API etw_status etw_activity_id_control(uint32_t control_code, etw_guid *activity_id)
{
    return openetw::engine::activity_id_control(control_code, activity_id);
}

} // extern "C"
