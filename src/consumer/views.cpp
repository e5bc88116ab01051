#include "consumer/views.hpp"

#include "format/timestamps.hpp"

namespace openetw::consumer {

namespace fmt = openetw::format;

static_assert(ETW_RECORD_KIND_SYSTEM == unsigned(fmt::RecordKind::System));
static_assert(ETW_RECORD_KIND_COMPACT == unsigned(fmt::RecordKind::Compact));
static_assert(ETW_RECORD_KIND_PERFINFO == unsigned(fmt::RecordKind::PerfInfo));
static_assert(ETW_RECORD_KIND_FULL == unsigned(fmt::RecordKind::Full));
static_assert(ETW_RECORD_KIND_INSTANCE == unsigned(fmt::RecordKind::Instance));
static_assert(ETW_RECORD_KIND_EVENT == unsigned(fmt::RecordKind::Event));
static_assert(ETW_RECORD_KIND_MESSAGE == unsigned(fmt::RecordKind::Message));
static_assert(ETW_RECORD_KIND_ERROR == unsigned(fmt::RecordKind::Error));
static_assert(ETW_RECORD_HAS_THREAD_ID == fmt::kHasThreadId && ETW_RECORD_HAS_TIMESTAMP == fmt::kHasTimestamp &&
              ETW_RECORD_HAS_GUID == fmt::kHasGuid && ETW_RECORD_HAS_HOOK_ID == fmt::kHasHookId &&
              ETW_RECORD_HAS_CLASS == fmt::kHasClass && ETW_RECORD_HAS_DESCRIPTOR == fmt::kHasDescriptor &&
              ETW_RECORD_HAS_CPU_TIME == fmt::kHasCpuTime && ETW_RECORD_HAS_ACTIVITY_ID == fmt::kHasActivityId &&
              ETW_RECORD_HAS_INSTANCE == fmt::kHasInstance && ETW_RECORD_HAS_MESSAGE == fmt::kHasMessage &&
              ETW_RECORD_HAS_SEQUENCE == fmt::kHasSequence && ETW_RECORD_HAS_COMPONENT_ID == fmt::kHasComponentId &&
              ETW_RECORD_HAS_EVENT_FLAGS == fmt::kHasEventFlags);

namespace {

std::int64_t convert(const ViewContext &context, std::int64_t raw)
{
    return context.raw_timestamps ? raw : fmt::to_filetime(*context.time, raw);
}

} // namespace

void fill_record(etw_record &out, std::vector<etw_extended_item> &extended, const Stream &stream,
                 const ViewContext &context)
{
    const fmt::Record &r = stream.record();
    const BufferState &b = stream.buffer();
    const std::uint8_t *bytes = b.image.bytes.data() + r.offset;

    // Every member is assigned (no zeroing first): this runs per record.
    out.struct_size = sizeof(etw_record);
    out.kind = static_cast<std::uint32_t>(r.kind);
    out.present = r.present;
    out.header_type = r.header_type;
    out.marker_flags = r.marker_flags;
    out.size = r.size;
    out.header_size = r.header_size;
    out.pointer_size = r.pointer_size;
    out.file_index = context.file_index;
    out.buffer_index = b.stored.location.index;
    out.buffer_offset = r.offset;
    out.processor = b.header.processor();
    out.thread_id = r.thread_id;
    out.process_id = r.process_id;
    if (r.present & fmt::kHasTimestamp) {
        out.timestamp_raw = r.timestamp;
        out.timestamp = context.raw_timestamps ? r.timestamp : stream.key().filetime;
    } else {
        out.timestamp_raw = 0;
        out.timestamp = 0;
    }
    out.guid = r.guid;
    out.activity_id = r.activity_id;
    out.parent_guid = r.parent_guid;
    out.keyword = r.keyword;
    out.kernel_time = r.kernel_time;
    out.user_time = r.user_time;
    out.hook_id = r.hook_id;
    out.version_word = r.version_word;
    out.event_id = r.event_id;
    out.task = r.task;
    out.version = r.version;
    out.event_flags = r.event_flags;
    out.event_property = r.event_property;
    out.message_number = r.message_number;
    out.message_flags = r.message_flags;
    out.opcode = r.opcode;
    out.level = r.level;
    out.channel = r.channel;
    out.reserved0 = 0;
    out.reserved1 = 0;
#if UINTPTR_MAX == 0xFFFFFFFFu
    out.reserved_pad32 = 0;
#endif
    out.message_sequence = r.message_sequence;
    out.component_id = r.component_id;
    out.instance_id = r.instance_id;
    out.parent_instance_id = r.parent_instance_id;
    out.payload_size = r.payload_size;
    out.bytes = bytes;
    out.payload = bytes + r.payload_offset;

    extended.clear();
    if (stream.items().empty()) {
        out.extended_count = 0;
        out.extended = nullptr;
        return;
    }
    for (const fmt::ExtendedItem &item : stream.items())
        extended.push_back(
            etw_extended_item{item.ext_type, item.linkage, item.item_size, item.data_size, bytes + item.data_offset});
    out.extended_count = static_cast<std::uint32_t>(extended.size());
    out.extended = extended.empty() ? nullptr : extended.data();
}

void fill_event_record(etw_event_record &out, const etw_record &record)
{
    out = etw_event_record{};
    out.struct_size = sizeof(etw_event_record);
    out.flags = record.event_flags;
    out.event_property = record.event_property;
    out.thread_id = record.thread_id;
    out.process_id = record.process_id;
    out.timestamp = record.timestamp;
    out.provider_id = record.guid;
    out.id = record.event_id;
    out.version = static_cast<std::uint8_t>(record.version);
    out.channel = record.channel;
    out.level = record.level;
    out.opcode = record.opcode;
    out.task = record.task;
    out.keyword = record.keyword;
    out.kernel_time = record.kernel_time;
    out.user_time = record.user_time;
    out.activity_id = record.activity_id;
    out.extended_data_count = static_cast<std::uint16_t>(record.extended_count);
    out.user_data_length = static_cast<std::uint16_t>(record.payload_size);
    out.extended_data = record.extended;
    out.user_data = record.payload;
    out.record = &record;
}

void fill_classic_event(etw_classic_event &out, const etw_record &record)
{
    // Every member is assigned (no zeroing first): this runs per event.
    out.struct_size = sizeof(etw_classic_event);
    out.payload_size = record.payload_size;
    etw_event_trace_header &h = out.header;
    h.Size = record.size;
    h.HeaderType = record.header_type;
    h.MarkerFlags = record.marker_flags;
    h.Class.Type = record.opcode;
    h.Class.Level = record.level;
    h.Class.Version = record.version;
    h.ThreadId = record.thread_id;
    h.ProcessId = record.process_id;
    h.TimeStamp = record.timestamp;
    h.Guid = record.guid;
    h.ClientContext = record.kernel_time;
    h.Flags = record.user_time;
    out.instance_id = record.instance_id;
    out.parent_instance_id = record.parent_instance_id;
    out.parent_guid = record.parent_guid;
    out.payload = record.payload;
    out.record = &record;
}

void fill_buffer_info(etw_buffer_info &out, const BufferState &b, const ViewContext &context)
{
    out = etw_buffer_info{};
    out.struct_size = sizeof(etw_buffer_info);
    out.file_index = context.file_index;
    out.buffer_index = b.stored.location.index;
    out.file_offset = b.stored.location.file_offset;
    out.stored_size = static_cast<std::uint32_t>(b.stored.bytes.size());
    out.data = b.stored.bytes.data();
    if (b.header_valid) {
        const fmt::BufferHeader &h = b.header;
        out.processor = h.processor();
        out.sequence_number = h.sequence_number;
        out.timestamp_raw = h.timestamp;
        out.timestamp = convert(context, h.timestamp);
        out.buffer_size = h.buffer_size;
        out.saved_offset = h.saved_offset;
        out.offset = h.offset;
        out.state = h.state;
        out.buffer_flag = h.flags;
        out.buffer_type = h.type;
        out.logger_id = h.logger_id;
    }
    out.filled_size = b.image.filled;
    out.image = b.image.bytes.empty() ? nullptr : b.image.bytes.data();
    out.image_size = static_cast<std::uint32_t>(b.image.bytes.size());
    out.record_count = b.record_count;
    out.corrupt_records = b.corrupt_records;
    if (b.problem)
        out.status_flags |= ETW_BUFFER_STATUS_CORRUPT;
    if (b.image.decompressed)
        out.status_flags |= ETW_BUFFER_STATUS_DECOMPRESSED;
    if (b.warning)
        out.status_flags |= ETW_BUFFER_STATUS_WARNING;
    out.status = b.problem ? b.problem.code : b.warning.code;
    out.message = b.message.c_str();
}

} // namespace openetw::consumer
