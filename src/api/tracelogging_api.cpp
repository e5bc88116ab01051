// extern "C" shims of tracelogging.h. etw_provider_write_tracelogging is a
// write path: no guard and no message unless it fails.
#include <openetw/tracelogging.h>

#include "api/guard.hpp"
#include "api/provider_handle.hpp"
#include "format/tracelogging_encode.hpp"

#include <string>

using openetw::Status;
using openetw::api::guarded;
using openetw::api::set_last;
using openetw::engine::Engine;

namespace {

constexpr etw_event_descriptor kDefaultDescriptor = {0, 0, ETW_TL_CHANNEL, 5, 0, 0, 0};

[[gnu::noinline, gnu::cold]] etw_status failed(const Status &st) noexcept { return set_last(st); }

} // namespace

extern "C" {

ETW_API etw_status etw_provider_write_tracelogging(etw_provider *provider, const char *event_name,
                                                   const etw_event_descriptor *descriptor, const etw_guid *activity_id,
                                                   const etw_guid *related_activity_id, uint32_t field_count,
                                                   const etw_tl_field *fields)
{
    if (provider == nullptr)
        return set_last(ETW_ERROR_INVALID_PARAMETER, "provider is NULL");
    // A disabled provider: one load and a branch, as etw_provider_write_event.
    if (__builtin_expect(provider->impl->summary.load(std::memory_order_relaxed) == 0, 1))
        return ETW_OK;
    try {
        openetw::format::TlEvent ev; // on the stack: no allocation
        if (Status st = openetw::format::encode_tl_event(event_name, fields, field_count, ev); !st)
            return failed(st);
        const etw_status st =
            Engine::write_tracelogging(provider->impl, descriptor ? descriptor : &kDefaultDescriptor, activity_id,
                                       related_activity_id, ev.metadata, ev.data_count, ev.data);
        if (st == ETW_ERROR_ARITHMETIC_OVERFLOW)
            return failed(Status(st, "the TraceLogging event '" + std::string(event_name) +
                                         "' is above 0xFFFF bytes with its header, metadata and payload"));
        return st;
    } catch (...) { // only a failure's message can throw (bad_alloc)
        return set_last(ETW_ERROR_OUTOFMEMORY, "out of memory");
    }
}

ETW_API etw_status etw_provider_set_traits(etw_provider *provider, const void *traits, uint32_t size)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(provider);
        ETW_REQUIRE_ARG(traits);
        const auto *bytes = static_cast<const std::uint8_t *>(traits);
        if (Status st = openetw::format::check_provider_traits(bytes, size); !st)
            return st;
        return Engine::set_traits(provider->impl, bytes, size);
    });
}

ETW_API etw_status etw_provider_set_name(etw_provider *provider, const char *name, const etw_guid *group)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(provider);
        ETW_REQUIRE_ARG(name);
        std::string blob;
        if (Status st = openetw::format::build_provider_traits(name, group, blob); !st)
            return st;
        return Engine::set_traits(provider->impl, reinterpret_cast<const std::uint8_t *>(blob.data()),
                                  std::uint32_t(blob.size()));
    });
}

ETW_API etw_status etw_provider_guid_from_name(etw_guid *out, const char *name)
{
    return guarded([&]() -> Status {
        ETW_REQUIRE_ARG(out);
        ETW_REQUIRE_ARG(name);
        return openetw::format::provider_guid_from_name(name, *out);
    });
}

} // extern "C"
