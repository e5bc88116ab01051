#include "text_records.hpp"

#include "fields.hpp"
#include "text.hpp"

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

void TextRecordWriter::flush()
{
    std::fwrite(pending_.data(), 1, pending_.size(), out_);
    pending_.clear();
}

} // namespace etwdump
