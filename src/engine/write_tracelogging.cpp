// TraceLogging's EVENT_HEADER writes (docs/TRACELOGGING.md): data descriptors
// of Type EVENT_METADATA / PROVIDER_METADATA and a provider's traits become
// the record's EVENT_SCHEMA_TL and PROV_TRAITS items. The write path's slow
// side: etw_provider_write_event comes here only for typed descriptors or a
// provider with traits; no lock, no allocation, as the rest of the path.
#include "engine/activity_id.hpp"
#include "engine/engine.hpp"
#include "format/etl_layout.hpp"
#include "format/etl_writer.hpp"
#include "format/tracelogging_encode.hpp"

#include <openetw/constants.h>

#include <cstdint>

namespace openetw::engine {

namespace {

// The record size of an EVENT_HEADER event with these items and payload;
// above ETW_MAX_EVENT_SIZE when too large.
std::uint64_t event_size(const etw_guid *related, const std::uint8_t *traits, const std::uint8_t *schema,
                         std::uint64_t payload) noexcept
{
    std::uint64_t total = etl::kEventHeaderSize + (related ? etl::kRelatedActivityItemSize : 0) + payload;
    if (traits)
        total += etl::extended_item_size(etl::rd16(traits));
    if (schema)
        total += etl::extended_item_size(etl::rd16(schema));
    return total;
}

} // namespace

// The event with TraceLogging's items (none when tl holds neither) and
// payload descriptors of `bytes` bytes in all.
etw_status Engine::write_with_items(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                    const etw_guid *activity, const etw_guid *related, const TlItems &tl,
                                    std::uint32_t data_count, const etw_event_data_descriptor *data,
                                    std::uint64_t bytes, std::uint64_t exclude) noexcept
{
    const std::uint64_t total = event_size(related, tl.traits, tl.schema, bytes);
    if (total > ETW_MAX_EVENT_SIZE)
        return ETW_ERROR_ARITHMETIC_OVERFLOW;
    EventHeaderInput e;
    e.descriptor = descriptor;
    e.provider = &p->guid;
    e.activity = activity ? activity : &t_activity_id;
    e.related = related;
    e.tl = (tl.traits || tl.schema) ? &tl : nullptr;
    e.flags = std::uint16_t(flags | ((related || e.tl) ? etl::kEventHeaderFlagExtendedInfo : 0));
    e.data_count = data_count;
    e.data = data;
    e.exclude = exclude;
    return write_event_prepared(p, e, std::uint32_t(total));
}

etw_status Engine::write_event_typed(Provider *p, const etw_event_descriptor *descriptor, std::uint32_t flags,
                                     const etw_guid *activity, const etw_guid *related, std::uint32_t data_count,
                                     const etw_event_data_descriptor *data, std::uint64_t exclude) noexcept
{
    // The payload descriptors, without the metadata ones (at most as many).
    etw_event_data_descriptor payload[ETW_MAX_EVENT_DATA_DESCRIPTORS];
    std::uint32_t n = 0;
    std::uint64_t bytes = 0;
    const std::uint8_t *schema = nullptr, *given_traits = nullptr;
    for (std::uint32_t i = 0; i < data_count; ++i) {
        const etw_event_data_descriptor &d = data[i];
        const auto *bytes_of = reinterpret_cast<const std::uint8_t *>(static_cast<std::uintptr_t>(d.Ptr));
        switch (d.Reserved) {
        case ETW_EVENT_DATA_DESCRIPTOR_TYPE_NONE:
            payload[n++] = d;
            bytes += d.Size;
            break;
        case ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA:
            if (schema || !bytes_of || !format::tl_metadata_frame_ok(bytes_of, d.Size))
                return ETW_ERROR_INVALID_PARAMETER;
            schema = bytes_of;
            break;
        case ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA:
            if (given_traits || !bytes_of || !format::tl_traits_frame_ok(bytes_of, d.Size))
                return ETW_ERROR_INVALID_PARAMETER;
            given_traits = bytes_of;
            break;
        default: // TIMESTAMP_OVERRIDE, unknown types, other Reserved bytes
            return ETW_ERROR_INVALID_PARAMETER;
        }
    }
    // Traits set on the provider win over a descriptor's (as Windows).
    TlItems tl;
    tl.traits = p->traits.load(std::memory_order_acquire);
    if (!tl.traits)
        tl.traits = given_traits;
    tl.schema = schema;
    return write_with_items(p, descriptor, flags, activity, related, tl, n, payload, bytes, exclude);
}

etw_status Engine::write_tracelogging(Provider *p, const etw_event_descriptor *descriptor, const etw_guid *activity,
                                      const etw_guid *related, const std::uint8_t *schema, std::uint32_t data_count,
                                      const etw_event_data_descriptor *data) noexcept
{
    std::uint64_t bytes = 0;
    for (std::uint32_t i = 0; i < data_count; ++i)
        bytes += data[i].Size;
    TlItems tl;
    tl.traits = p->traits.load(std::memory_order_acquire);
    tl.schema = schema;
    return write_with_items(p, descriptor, 0, activity, related, tl, data_count, data, bytes);
}

} // namespace openetw::engine
