#include "record_writer.hpp"

#include "text.hpp"

namespace etwdump {

namespace {

// The golden columns (etl-samples/README.md) plus payload_size, in JSON key order.
const char *const kColumns[] = {"file", "buffer", "offset", "cpu", "kind", "header_type", "size", "thread_id",
                                "process_id", "timestamp_raw", "timestamp_filetime", "guid", "hook_id", "event_id",
                                "opcode", "level", "version", "message_number", "payload_size", "payload"};

std::string hex_text(const uint8_t *bytes, uint32_t n)
{
    static const char digits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * size_t(n));
    for (uint32_t i = 0; i < n; ++i) {
        hex += digits[bytes[i] >> 4];
        hex += digits[bytes[i] & 15];
    }
    return hex;
}

bool has_ids(const etw_record &r)
{
    // Only the fixed header kinds: WPP messages carry them optionally and the golden lists leave them out.
    return r.kind != ETW_RECORD_KIND_MESSAGE && (r.present & ETW_RECORD_HAS_THREAD_ID);
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

void RecordWriter::field(const char *name, uint64_t value)
{
    field(name, std::to_string(value), false);
}

void RecordWriter::field(const char *name, const std::string &text, bool quoted)
{
    if (format_ == Format::Jsonl) {
        line_ += first_ ? "{\"" : ", \"";
        line_ += name;
        line_ += "\": ";
        if (quoted)
            line_ += "\"" + text + "\"";
        else
            line_ += text;
    } else {
        line_ += first_ ? "" : ",";
        line_ += text; // GUIDs, kinds and hex never need CSV quoting
    }
    first_ = false;
}

void RecordWriter::empty(const char *name)
{
    if (format_ == Format::Csv)
        field(name, std::string(), false);
}

void RecordWriter::write(const etw_record &r)
{
    line_.clear();
    first_ = true;
    const uint32_t k = r.kind;
    const bool fixed_ids = has_ids(r);
    const bool stamped = k != ETW_RECORD_KIND_MESSAGE && (r.present & ETW_RECORD_HAS_TIMESTAMP);
    const bool guid = k == ETW_RECORD_KIND_FULL || k == ETW_RECORD_KIND_INSTANCE || k == ETW_RECORD_KIND_EVENT;

    // Keys in alphabetical order, as the golden lists have them.
    auto opt = [&](const char *name, bool present, uint64_t value) {
        if (present)
            field(name, value);
        else
            empty(name);
    };
    if (format_ == Format::Jsonl) {
        field("buffer", r.buffer_index);
        field("cpu", r.processor);
        if (k == ETW_RECORD_KIND_EVENT)
            field("event_id", r.event_id);
        if (with_file_)
            field("file", r.file_index);
        if (guid)
            field("guid", guid_text(r.guid), true);
        field("header_type", r.header_type);
        if (r.present & ETW_RECORD_HAS_HOOK_ID)
            field("hook_id", r.hook_id);
        field("kind", etw_record_kind_name(k), true);
        if (r.present & ETW_RECORD_HAS_CLASS)
            field("level", r.level);
        if (k == ETW_RECORD_KIND_MESSAGE)
            field("message_number", r.message_number);
        field("offset", r.buffer_offset);
        if (r.present & ETW_RECORD_HAS_CLASS)
            field("opcode", r.opcode);
        if (payload_)
            field("payload", hex_text(r.payload, r.payload_size), true);
        field("payload_size", r.payload_size);
        if (fixed_ids)
            field("process_id", r.process_id);
        field("size", r.size);
        if (fixed_ids)
            field("thread_id", r.thread_id);
        if (stamped) {
            field("timestamp_filetime", std::to_string(r.timestamp), false);
            field("timestamp_raw", std::to_string(r.timestamp_raw), false);
        }
        if (r.present & ETW_RECORD_HAS_CLASS)
            field("version", r.version);
        line_ += "}\n";
    } else {
        if (with_file_)
            field("file", r.file_index);
        field("buffer", r.buffer_index);
        field("offset", r.buffer_offset);
        field("cpu", r.processor);
        field("kind", etw_record_kind_name(k), false);
        field("header_type", r.header_type);
        field("size", r.size);
        opt("thread_id", fixed_ids, r.thread_id);
        opt("process_id", fixed_ids, r.process_id);
        if (stamped) {
            field("timestamp_raw", std::to_string(r.timestamp_raw), false);
            field("timestamp_filetime", std::to_string(r.timestamp), false);
        } else {
            empty("timestamp_raw");
            empty("timestamp_filetime");
        }
        if (guid)
            field("guid", guid_text(r.guid), false);
        else
            empty("guid");
        opt("hook_id", (r.present & ETW_RECORD_HAS_HOOK_ID) != 0, r.hook_id);
        opt("event_id", k == ETW_RECORD_KIND_EVENT, r.event_id);
        opt("opcode", (r.present & ETW_RECORD_HAS_CLASS) != 0, r.opcode);
        opt("level", (r.present & ETW_RECORD_HAS_CLASS) != 0, r.level);
        opt("version", (r.present & ETW_RECORD_HAS_CLASS) != 0, r.version);
        opt("message_number", k == ETW_RECORD_KIND_MESSAGE, r.message_number);
        field("payload_size", r.payload_size);
        if (payload_)
            field("payload", hex_text(r.payload, r.payload_size), false);
        line_ += "\n";
    }
    pending_ += line_;
    if (pending_.size() >= (1 << 16) - 1024) {
        std::fwrite(pending_.data(), 1, pending_.size(), out_);
        pending_.clear();
    }
}

} // namespace etwdump
