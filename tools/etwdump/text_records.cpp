#include "text_records.hpp"

#include "fields.hpp"
#include "text.hpp"

#include <cstring>

namespace etwdump {

void TextRecordWriter::write(const etw_record &r, const etw_decoded_event *decoded)
{
    char buf[160];
    modules_->add(r, decoded);
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
    if (r.kind == ETW_RECORD_KIND_EVENT)
        stack_lines(r);
    if (pending_.size() >= (1u << 16))
        flush();
}

// The frames of a stack item, innermost first, each named in the writer's
// process (its module map: its images as the trace logged them).
void TextRecordWriter::stack_lines(const etw_record &r)
{
    for (uint32_t i = 0; i < r.extended_count; ++i) {
        uint64_t frames[256];
        uint32_t count = 0;
        if (etw_extended_item_stack(&r.extended[i], nullptr, frames, 256, &count) != ETW_OK)
            continue;
        char buf[64];
        for (uint32_t k = 0; k < count; ++k) {
            std::snprintf(buf, sizeof buf, "  stack[%u] 0x%llx ", k, static_cast<unsigned long long>(frames[k]));
            pending_ += buf;
            pending_ += modules_->frame_text(r.process_id, frames[k]);
            pending_ += '\n';
        }
    }
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
        } else if (x.ext_type == ETW_EVENT_HEADER_EXT_TYPE_SID) {
            char sid[192];
            uint32_t length = 0;
            if (etw_extended_item_sid_string(&x, sid, sizeof sid, &length) == ETW_OK) {
                pending_ += " sid=";
                pending_ += sid;
            }
        } else if (x.ext_type == ETW_EVENT_HEADER_EXT_TYPE_TS_ID && x.data_size == 4) {
            uint32_t v;
            std::memcpy(&v, x.data, 4);
            std::snprintf(buf, sizeof buf, " ts_id=%u", v);
            pending_ += buf;
        } else if ((x.ext_type == ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY ||
                    x.ext_type == ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY) &&
                   x.data_size == 8) {
            uint64_t v;
            std::memcpy(&v, x.data, 8);
            std::snprintf(buf, sizeof buf, " %s=0x%llx",
                          x.ext_type == ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY ? "event_key" : "process_start_key",
                          static_cast<unsigned long long>(v));
            pending_ += buf;
        }
    }
}

void TextRecordWriter::flush()
{
    std::fwrite(pending_.data(), 1, pending_.size(), out_);
    pending_.clear();
}

} // namespace etwdump
