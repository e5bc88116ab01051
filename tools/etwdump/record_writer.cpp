#include "record_writer.hpp"

#include "fields.hpp"

#include "base/json.hpp"

#include <charconv>
#include <cstring>

namespace etwdump {

namespace {

// The golden columns (etl-samples/README.md) plus payload_size, in JSON key order.
const char *const kColumns[] = {"file",
                                "buffer",
                                "offset",
                                "cpu",
                                "kind",
                                "header_type",
                                "size",
                                "thread_id",
                                "process_id",
                                "timestamp_raw",
                                "timestamp_filetime",
                                "guid",
                                "hook_id",
                                "event_id",
                                "opcode",
                                "level",
                                "version",
                                "message_number",
                                "payload_size",
                                "payload"};

constexpr char kDigits[] = "0123456789abcdef";
constexpr std::size_t kFlushAt = (1 << 16) - 1024;

bool has_ids(const etw_record &r)
{
    // Only the fixed header kinds: WPP messages carry them optionally and the golden lists leave them out.
    return r.kind != ETW_RECORD_KIND_MESSAGE && (r.present & ETW_RECORD_HAS_THREAD_ID);
}

char *put_hex(char *p, std::uint64_t v, int digits)
{
    for (int i = digits - 1; i >= 0; --i)
        *p++ = kDigits[(v >> (4 * i)) & 15];
    return p;
}

} // namespace

RecordWriter::RecordWriter(std::FILE *out, Format format, bool payload, bool with_file)
    : out_(out), format_(format), payload_(payload), with_file_(with_file)
{
    pending_.reserve(1 << 16);
}

RecordWriter::~RecordWriter() { flush(); }

void RecordWriter::flush()
{
    if (!pending_.empty())
        std::fwrite(pending_.data(), 1, pending_.size(), out_);
    pending_.clear();
    std::fflush(out_);
}

void RecordWriter::header()
{
    if (format_ != Format::Csv)
        return;
    std::string line;
    for (const char *c : kColumns) {
        if ((!with_file_ && std::string(c) == "file") || (!payload_ && std::string(c) == "payload"))
            continue;
        line += line.empty() ? "" : ",";
        line += c;
    }
    pending_ += line + "\n";
}

void RecordWriter::key(const char *name, std::size_t length)
{
    if (format_ == Format::Jsonl) {
        // One append per key: the names are short literals.
        char text[64];
        std::size_t n = first_ ? 2 : 3;
        std::memcpy(text, first_ ? "{\"" : ", \"", n);
        std::memcpy(text + n, name, length);
        n += length;
        std::memcpy(text + n, "\": ", 3);
        pending_.append(text, n + 3);
    } else if (!first_) {
        pending_ += ',';
    }
    first_ = false;
}

void RecordWriter::number(std::uint64_t value)
{
    char text[24];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    pending_.append(text, std::size_t(end - text));
}

void RecordWriter::signed_number(std::int64_t value)
{
    char text[24];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    pending_.append(text, std::size_t(end - text));
}

void RecordWriter::text_value(const char *text, std::size_t length)
{
    if (format_ == Format::Jsonl)
        pending_ += '"';
    pending_.append(text, length);
    if (format_ == Format::Jsonl)
        pending_ += '"';
}

void RecordWriter::guid(const etw_guid &g)
{
    // Canonical lower case, as text.cpp's guid_text.
    char s[36];
    char *p = put_hex(s, g.Data1, 8);
    *p++ = '-';
    p = put_hex(p, g.Data2, 4);
    *p++ = '-';
    p = put_hex(p, g.Data3, 4);
    *p++ = '-';
    p = put_hex(p, g.Data4[0], 2);
    p = put_hex(p, g.Data4[1], 2);
    *p++ = '-';
    for (int i = 2; i < 8; ++i)
        p = put_hex(p, g.Data4[i], 2);
    text_value(s, sizeof s);
}

void RecordWriter::hex(const uint8_t *bytes, uint32_t n)
{
    scratch_.resize(2 * std::size_t(n));
    for (uint32_t i = 0; i < n; ++i) {
        scratch_[2 * i] = kDigits[bytes[i] >> 4];
        scratch_[2 * i + 1] = kDigits[bytes[i] & 15];
    }
    text_value(scratch_.data(), scratch_.size());
}

const etw_extended_item *RecordWriter::item(const etw_record &r, uint16_t ext_type)
{
    for (uint32_t i = 0; i < r.extended_count; ++i)
        if (r.extended[i].ext_type == ext_type)
            return &r.extended[i];
    return nullptr;
}

// A 64-bit item (PROCESS_START_KEY, EVENT_KEY) as a hex string: past what
// JSON numbers keep exactly.
void RecordWriter::hex_field_u64(const char *name, std::size_t length, const etw_extended_item *x)
{
    if (!x || x->data_size != 8)
        return;
    uint64_t v;
    std::memcpy(&v, x->data, 8);
    char text[2 + 16] = {'0', 'x'};
    key(name, length);
    text_value(text, std::size_t(put_hex(text + 2, v, 16) - text));
}

void RecordWriter::stack_field(const etw_record &r)
{
    for (uint32_t i = 0; i < r.extended_count; ++i) {
        uint64_t frames[256];
        uint32_t count = 0;
        if (etw_extended_item_stack(&r.extended[i], nullptr, frames, 256, &count) != ETW_OK)
            continue;
        key("stack");
        pending_ += '[';
        for (uint32_t k = 0; k < count; ++k) {
            char address[2 + 16] = {'0', 'x'};
            std::string frame(address, std::size_t(put_hex(address + 2, frames[k], 16) - address));
            frame += ' ';
            frame += modules_ ? modules_->frame_text(r.process_id, frames[k]) : "?";
            if (k)
                pending_ += ',';
            openetw::append_json_string(pending_, frame.c_str());
        }
        pending_ += ']';
        return;
    }
}

void RecordWriter::write(const etw_record &r, const etw_decoded_event *decoded)
{
    first_ = true;
    if (modules_)
        modules_->add(r, decoded);
    const uint32_t k = r.kind;
    const bool fixed_ids = has_ids(r);
    const bool stamped = k != ETW_RECORD_KIND_MESSAGE && (r.present & ETW_RECORD_HAS_TIMESTAMP);
    const bool with_guid = k == ETW_RECORD_KIND_FULL || k == ETW_RECORD_KIND_INSTANCE || k == ETW_RECORD_KIND_EVENT;
    const bool with_class = (r.present & ETW_RECORD_HAS_CLASS) != 0;
    const char *kind = etw_record_kind_name(k);
    const std::size_t kind_length = std::strlen(kind);

    if (format_ == Format::Jsonl) {
        // Keys in alphabetical order, as the golden lists have them. An
        // EVENT_HEADER record's descriptor and activity ids beyond the
        // golden columns: activity_id, channel, event_flags, keyword (a hex
        // string), related_activity_id (when it has one), task; and the
        // enable properties' items when it has them: event_key and
        // process_start_key (hex strings), sid, stack, ts_id.
        const bool event = k == ETW_RECORD_KIND_EVENT;
        if (event) {
            key("activity_id");
            guid(r.activity_id);
        }
        field("buffer", r.buffer_index);
        if (event)
            field("channel", r.channel);
        field("cpu", r.processor);
        if (event) {
            field("event_flags", r.event_flags);
            field("event_id", r.event_id);
            hex_field_u64("event_key", 9, item(r, ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY));
        }
        if (decoded) {
            key("event_name");
            openetw::append_json_string(pending_, decoded->event_name);
            key("fields");
            append_fields_json(pending_, *decoded);
        }
        if (with_file_)
            field("file", r.file_index);
        if (with_guid) {
            key("guid");
            guid(r.guid);
        }
        field("header_type", r.header_type);
        if (r.present & ETW_RECORD_HAS_HOOK_ID)
            field("hook_id", r.hook_id);
        if (event) {
            // A string: keywords use the top bits (channels, reserved), past
            // what JSON numbers keep exactly.
            char hex[2 + 16];
            hex[0] = '0';
            hex[1] = 'x';
            text_field("keyword", hex, std::size_t(put_hex(hex + 2, r.keyword, 16) - hex));
        }
        text_field("kind", kind, kind_length);
        if (with_class)
            field("level", r.level);
        if (k == ETW_RECORD_KIND_MESSAGE)
            field("message_number", r.message_number);
        field("offset", r.buffer_offset);
        if (with_class)
            field("opcode", r.opcode);
        if (payload_) {
            key("payload");
            hex(r.payload, r.payload_size);
        }
        field("payload_size", r.payload_size);
        if (fixed_ids)
            field("process_id", r.process_id);
        if (event)
            hex_field_u64("process_start_key", 17, item(r, ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY));
        for (uint32_t i = 0; event && i < r.extended_count; ++i) {
            if (r.extended[i].ext_type == ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID &&
                r.extended[i].data_size == sizeof(etw_guid)) {
                etw_guid related;
                std::memcpy(&related, r.extended[i].data, sizeof related);
                key("related_activity_id");
                guid(related);
                break;
            }
        }
        if (const etw_extended_item *x = event ? item(r, ETW_EVENT_HEADER_EXT_TYPE_SID) : nullptr) {
            char sid[192];
            uint32_t length = 0;
            if (etw_extended_item_sid_string(x, sid, sizeof sid, &length) == ETW_OK)
                text_field("sid", sid, length);
        }
        field("size", r.size);
        if (event)
            stack_field(r);
        if (event)
            field("task", r.task);
        if (fixed_ids)
            field("thread_id", r.thread_id);
        if (stamped) {
            signed_field("timestamp_filetime", r.timestamp);
            signed_field("timestamp_raw", r.timestamp_raw);
        }
        if (const etw_extended_item *x = event ? item(r, ETW_EVENT_HEADER_EXT_TYPE_TS_ID) : nullptr) {
            if (x->data_size == 4) {
                uint32_t v;
                std::memcpy(&v, x->data, 4);
                field("ts_id", v);
            }
        }
        if (with_class)
            field("version", r.version);
        pending_.append("}\n", 2);
    } else {
        auto opt = [&](auto &name, bool present, uint64_t value) {
            if (present)
                field(name, value);
            else
                empty(name);
        };
        if (with_file_)
            field("file", r.file_index);
        field("buffer", r.buffer_index);
        field("offset", r.buffer_offset);
        field("cpu", r.processor);
        text_field("kind", kind, kind_length);
        field("header_type", r.header_type);
        field("size", r.size);
        opt("thread_id", fixed_ids, r.thread_id);
        opt("process_id", fixed_ids, r.process_id);
        if (stamped) {
            signed_field("timestamp_raw", r.timestamp_raw);
            signed_field("timestamp_filetime", r.timestamp);
        } else {
            empty("timestamp_raw");
            empty("timestamp_filetime");
        }
        if (with_guid) {
            key("guid");
            guid(r.guid);
        } else {
            empty("guid");
        }
        opt("hook_id", (r.present & ETW_RECORD_HAS_HOOK_ID) != 0, r.hook_id);
        opt("event_id", k == ETW_RECORD_KIND_EVENT, r.event_id);
        opt("opcode", with_class, r.opcode);
        opt("level", with_class, r.level);
        opt("version", with_class, r.version);
        opt("message_number", k == ETW_RECORD_KIND_MESSAGE, r.message_number);
        field("payload_size", r.payload_size);
        if (payload_) {
            key("payload");
            hex(r.payload, r.payload_size);
        }
        pending_ += '\n';
    }
    if (pending_.size() >= kFlushAt) {
        std::fwrite(pending_.data(), 1, pending_.size(), out_);
        pending_.clear();
    }
}

} // namespace etwdump
