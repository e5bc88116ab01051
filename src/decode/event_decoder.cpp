#include "decode/event_decoder.hpp"

#include "decode/tracelogging.hpp"

#include <cstring>

namespace openetw::decode {

const EventSchema *EventDecoder::tracelogging(const etw_record &record, Problem &problem)
{
    const etw_extended_item *meta = nullptr, *traits = nullptr;
    for (std::uint32_t i = 0; i < record.extended_count; ++i) {
        const etw_extended_item &item = record.extended[i];
        if (item.ext_type == kExtTypeEventSchemaTl)
            meta = &item;
        else if (item.ext_type == kExtTypeProvTraits)
            traits = &item;
    }
    if (!meta)
        return nullptr;
    // Key: provider GUID, traits size, traits, metadata.
    key_.assign(reinterpret_cast<const char *>(&record.guid), sizeof record.guid);
    const std::uint16_t traits_size = traits ? traits->data_size : 0;
    key_.append(reinterpret_cast<const char *>(&traits_size), sizeof traits_size);
    if (traits)
        key_.append(reinterpret_cast<const char *>(traits->data), traits->data_size);
    key_.append(reinterpret_cast<const char *>(meta->data), meta->data_size);
    if (auto it = tl_cache_.find(key_); it != tl_cache_.end())
        return it->second.get();
    auto schema = std::make_unique<EventSchema>();
    if (!parse_tracelogging_event({meta->data, meta->data_size}, *schema, problem))
        return nullptr;
    if (traits && !parse_provider_traits({traits->data, traits->data_size}, schema->provider_name))
        schema->provider_name.clear();
    if (tl_cache_.size() >= kMaxCachedSchemas)
        tl_cache_.clear();
    return tl_cache_.emplace(key_, std::move(schema)).first->second.get();
}

bool EventDecoder::decode(const etw_record &record, DecodedEvent &out, Problem &problem)
{
    problem.clear();
    out.schema = nullptr;
    out.source = Source::None;
    out.nodes.clear();
    out.payload = {record.payload, record.payload ? record.payload_size : 0u};
    out.pointer_size = record.pointer_size == 4 ? 4 : 8;
    out.consumed = 0;
    const EventSchema *schema = nullptr;
    Source source = Source::None;
    if (record.kind == ETW_RECORD_KIND_EVENT && record.extended_count) {
        schema = tracelogging(record, problem);
        if (problem)
            return false;
        source = Source::TraceLogging;
    }
    for (std::size_t i = 0; !schema && i < sources_.size(); ++i) {
        schema = sources_[i]->find(record);
        source = sources_[i]->kind();
    }
    if (!schema) {
        // The common case for unknown events: no message is built (no allocation).
        problem.code = ETW_ERROR_NOT_FOUND;
        return false;
    }
    out.schema = schema;
    out.source = source;
    return decode_payload(*schema, out.payload, out.pointer_size, out.nodes, problem, &out.consumed);
}

} // namespace openetw::decode
