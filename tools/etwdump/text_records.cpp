#include "text_records.hpp"

#include "fields.hpp"
#include "text.hpp"

#include <cstring>

namespace etwdump {

void TextRecordWriter::write(const etw_record &r, const etw_decoded_event *decoded)
{
    char buf[160];
    if (r.present & ETW_RECORD_HAS_TIMESTAMP)
        pending_ += filetime_text(r.timestamp);
    else
        pending_ += "-";
    std::snprintf(buf, sizeof buf, " %s cpu=%u pid=%u tid=%u", etw_record_kind_name(r.kind), r.processor, r.process_id,
                  r.thread_id);
    pending_ += buf;
    if (r.present & ETW_RECORD_HAS_GUID) {
        pending_ += ' ';
        pending_ += guid_text(r.guid);
    }
    if (r.kind == ETW_RECORD_KIND_EVENT) {
        std::snprintf(buf, sizeof buf, " id=%u", r.event_id);
        pending_ += buf;
    }
    if (r.present & ETW_RECORD_HAS_CLASS) {
        std::snprintf(buf, sizeof buf, " opcode=%u level=%u version=%u", r.opcode, r.level, r.version);
        pending_ += buf;
    }
    if (r.kind == ETW_RECORD_KIND_EVENT)
        event_header_text(r);
    if (decoded) {
        pending_ += ' ';
        if (*decoded->provider_name) {
            pending_ += decoded->provider_name;
            pending_ += '/';
        }
        pending_ += decoded->event_name;
        if (decoded->property_count) {
            pending_ += ": ";
            append_fields_text(pending_, *decoded);
        }
    } else {
        std::snprintf(buf, sizeof buf, " payload_size=%u", r.payload_size);
        pending_ += buf;
    }
    pending_ += '\n';
    if (pending_.size() >= (1u << 16))
        flush();
}

// The rest of an EVENT_HEADER record's descriptor and its activity ids,
// each only when set (most events have no channel, task or related id).
void TextRecordWriter::event_header_text(const etw_record &r)
{
    char buf[64];
    if (r.task) {
        std::snprintf(buf, sizeof buf, " task=%u", r.task);
        pending_ += buf;
    }
    if (r.channel) {
        std::snprintf(buf, sizeof buf, " channel=%u", r.channel);
        pending_ += buf;
    }
    if (r.keyword) {
        std::snprintf(buf, sizeof buf, " keyword=0x%llx", static_cast<unsigned long long>(r.keyword));
        pending_ += buf;
    }
    static const etw_guid zero{};
    if (std::memcmp(&r.activity_id, &zero, sizeof zero) != 0) {
        pending_ += " activity=";
        pending_ += guid_text(r.activity_id);
    }
    for (uint32_t i = 0; i < r.extended_count; ++i) {
        const etw_extended_item &x = r.extended[i];
        if (x.ext_type == ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID && x.data_size == sizeof(etw_guid)) {
            etw_guid related;
            std::memcpy(&related, x.data, sizeof related);
            pending_ += " related_activity=";
            pending_ += guid_text(related);
        }
    }
}

void TextRecordWriter::flush()
{
    std::fwrite(pending_.data(), 1, pending_.size(), out_);
    pending_.clear();
}

} // namespace etwdump
