#include "format/record_reader.hpp"

#include "format/etl_layout.hpp"

#include <algorithm>

namespace openetw::format {

using namespace openetw::etl;

const char *record_kind_name(RecordKind kind)
{
    switch (kind) {
    case RecordKind::System:
        return "system";
    case RecordKind::Compact:
        return "compact";
    case RecordKind::PerfInfo:
        return "perfinfo";
    case RecordKind::Full:
        return "full";
    case RecordKind::Instance:
        return "instance";
    case RecordKind::Event:
        return "event";
    case RecordKind::Message:
        return "message";
    case RecordKind::Error:
        return "error";
    }
    return "unknown";
}

etw_guid read_guid(const std::uint8_t *p)
{
    etw_guid g;
    g.Data1 = rd32(p);
    g.Data2 = rd16(p + 4);
    g.Data3 = rd16(p + 6);
    for (int i = 0; i < 8; ++i)
        g.Data4[i] = p[8 + i];
    return g;
}

RecordReader::RecordReader(std::span<const std::uint8_t> image, std::uint32_t filled, std::uint32_t start)
    : image_(image), filled_(filled > image.size() ? static_cast<std::uint32_t>(image.size()) : filled), pos_(start),
      done_(false)
{}

namespace {

struct KindInfo {
    RecordKind kind;
    std::uint32_t fixed;   // fixed header size
    bool size_at_4;        // SYSTEM/COMPACT/PERFINFO keep Size at +4
    std::uint32_t pointer; // pointer size the header type says
};

bool classify(std::uint32_t marker, std::uint8_t &type, KindInfo &info)
{
    const std::uint8_t flags = static_cast<std::uint8_t>(marker >> 24);
    if (flags == kMarkerMessage) {
        type = kMessage; // the type byte itself is 0 in Windows files
        info = {RecordKind::Message, kMessageHeaderSize, false, 0};
        return true;
    }
    if (flags != kMarkerFixedHeader)
        return false;
    type = static_cast<std::uint8_t>(marker >> 16);
    switch (type) {
    case kSystem32:
        info = {RecordKind::System, kSystemHeaderSize, true, 4};
        return true;
    case kSystem64:
        info = {RecordKind::System, kSystemHeaderSize, true, 8};
        return true;
    case kCompact32:
        info = {RecordKind::Compact, kCompactHeaderSize, true, 4};
        return true;
    case kCompact64:
        info = {RecordKind::Compact, kCompactHeaderSize, true, 8};
        return true;
    case kPerfInfo32:
        info = {RecordKind::PerfInfo, kPerfInfoHeaderSize, true, 4};
        return true;
    case kPerfInfo64:
        info = {RecordKind::PerfInfo, kPerfInfoHeaderSize, true, 8};
        return true;
    case kFullHeader32:
        info = {RecordKind::Full, kFullHeaderSize, false, 4};
        return true;
    case kFullHeader64:
        info = {RecordKind::Full, kFullHeaderSize, false, 8};
        return true;
    case kInstance32:
        info = {RecordKind::Instance, kInstanceHeaderSize, false, 4};
        return true;
    case kInstance64:
        info = {RecordKind::Instance, kInstanceHeaderSize, false, 8};
        return true;
    case kEventHeader32:
        info = {RecordKind::Event, kEventHeaderSize, false, 4};
        return true;
    case kEventHeader64:
        info = {RecordKind::Event, kEventHeaderSize, false, 8};
        return true;
    case kMessage:
        info = {RecordKind::Message, kMessageHeaderSize, false, 0};
        return true;
    // Layout not established (ETL_FORMAT.md section 13): framed by its Size at +0, delivered raw.
    case kError:
        info = {RecordKind::Error, 4, false, 0};
        return true;
    default:
        return false;
    }
}

// PEBS and PMC extension items follow SYSTEM, COMPACT and PERFINFO headers.
std::uint32_t extension_bytes(std::uint16_t version_word)
{
    std::uint32_t n = 0;
    if (version_word & kPebsIndexFlag)
        n += 8;
    n += 8u * ((version_word & kPmcCountersMask) >> 8);
    return n;
}

void decode_system_like(const std::uint8_t *p, Record &r)
{
    r.version_word = rd16(p);
    r.hook_id = rd16(p + 6);
    r.present |= kHasHookId | kHasTimestamp;
    if (r.kind == RecordKind::PerfInfo) {
        r.timestamp = static_cast<std::int64_t>(rd64(p + 8));
        return;
    }
    r.thread_id = rd32(p + 8);
    r.process_id = rd32(p + 12);
    r.timestamp = static_cast<std::int64_t>(rd64(p + 16));
    r.present |= kHasThreadId;
    if (r.kind == RecordKind::System) {
        r.kernel_time = rd32(p + 24);
        r.user_time = rd32(p + 28);
        r.present |= kHasCpuTime;
    }
}

void decode_full(const std::uint8_t *p, Record &r)
{
    r.opcode = p[4];
    r.level = p[5];
    r.version = rd16(p + 6);
    r.thread_id = rd32(p + 8);
    r.process_id = rd32(p + 12);
    r.timestamp = static_cast<std::int64_t>(rd64(p + 16));
    r.guid = read_guid(p + 24);
    r.kernel_time = rd32(p + 40);
    r.user_time = rd32(p + 44);
    r.present |= kHasClass | kHasThreadId | kHasTimestamp | kHasGuid | kHasCpuTime;
    if (r.kind == RecordKind::Instance) {
        r.instance_id = rd32(p + 48);
        r.parent_instance_id = rd32(p + 52);
        r.parent_guid = read_guid(p + 56);
        r.present |= kHasInstance;
    }
}

void decode_event(const std::uint8_t *p, Record &r)
{
    r.event_flags = rd16(p + 4);
    r.event_property = rd16(p + 6);
    r.thread_id = rd32(p + 8);
    r.process_id = rd32(p + 12);
    r.timestamp = static_cast<std::int64_t>(rd64(p + 16));
    r.guid = read_guid(p + 24);
    r.event_id = rd16(p + 40);
    r.version = p[42];
    r.channel = p[43];
    r.level = p[44];
    r.opcode = p[45];
    r.task = rd16(p + 46);
    r.keyword = rd64(p + 48);
    r.kernel_time = rd32(p + 56);
    r.user_time = rd32(p + 60);
    r.activity_id = read_guid(p + 64);
    r.present |= kHasEventFlags | kHasThreadId | kHasTimestamp | kHasGuid | kHasClass | kHasDescriptor | kHasCpuTime |
                 kHasActivityId;
}

// Extended data items sit between the EVENT_HEADER and the user data.
bool decode_extended_items(const std::uint8_t *p, Record &r, std::vector<ExtendedItem> &items, Problem &problem)
{
    std::uint32_t q = kEventHeaderSize;
    if (r.event_flags & kEventHeaderFlagExtendedInfo) {
        for (;;) {
            if (r.size - q < kExtendedItemHeaderSize) {
                problem.set(ETW_ERROR_BAD_LENGTH, r.offset + q,
                            text_printf("extended data item %zu at record byte 0x%X crosses the record Size 0x%X",
                                        items.size(), q, unsigned(r.size)));
                return false;
            }
            ExtendedItem item;
            item.item_size = rd16(p + q);
            item.ext_type = rd16(p + q + 2);
            item.linkage = rd16(p + q + 4);
            item.data_size = rd16(p + q + 6);
            item.data_offset = q + static_cast<std::uint32_t>(kExtendedItemHeaderSize);
            if (item.item_size < kExtendedItemHeaderSize || item.item_size > r.size - q ||
                item.data_size > item.item_size - kExtendedItemHeaderSize) {
                problem.set(ETW_ERROR_BAD_LENGTH, r.offset + q,
                            text_printf("extended data item %zu at record byte 0x%X has size 0x%X and data size "
                                        "0x%X in a record of Size 0x%X",
                                        items.size(), q, unsigned(item.item_size), unsigned(item.data_size),
                                        unsigned(r.size)));
                return false;
            }
            items.push_back(item);
            q += item.item_size;
            if ((item.linkage & 1u) == 0)
                break;
        }
    }
    r.payload_offset = q;
    return true;
}

// MESSAGE_TRACE_HEADER: optional fields in flag order, then the arguments.
bool decode_message(const std::uint8_t *p, Record &r, Problem &problem)
{
    r.message_number = rd16(p + 4);
    r.message_flags = rd16(p + 6);
    r.present |= kHasMessage;
    const std::uint16_t f = r.message_flags;
    std::uint32_t need = kMessageHeaderSize;
    if (f & kMessageSequence)
        need += 4;
    if (f & kMessageGuid)
        need += 16;
    else if (f & kMessageComponentId)
        need += 4;
    if (f & (kMessageTimestamp | kMessagePerformanceTimestamp))
        need += 8;
    if (f & kMessageSystemInfo)
        need += 8;
    if (need > r.size) {
        problem.set(ETW_ERROR_BAD_LENGTH, r.offset,
                    text_printf("message Size 0x%X is smaller than the 0x%X bytes its option flags 0x%04X announce",
                                unsigned(r.size), need, unsigned(f)));
        return false;
    }
    std::uint32_t q = kMessageHeaderSize;
    if (f & kMessageSequence) {
        r.message_sequence = rd32(p + q);
        r.present |= kHasSequence;
        q += 4;
    }
    if (f & kMessageGuid) {
        r.guid = read_guid(p + q);
        r.present |= kHasGuid;
        q += 16;
    } else if (f & kMessageComponentId) {
        r.component_id = rd32(p + q);
        r.present |= kHasComponentId;
        q += 4;
    }
    if (f & (kMessageTimestamp | kMessagePerformanceTimestamp)) {
        r.timestamp = static_cast<std::int64_t>(rd64(p + q));
        r.present |= kHasTimestamp;
        q += 8;
    }
    if (f & kMessageSystemInfo) {
        r.thread_id = rd32(p + q);
        r.process_id = rd32(p + q + 4);
        r.present |= kHasThreadId;
        q += 8;
    }
    if (f & kMessagePointer64)
        r.pointer_size = 8;
    else if (f & kMessagePointer32)
        r.pointer_size = 4;
    r.header_size = q;
    r.payload_offset = q;
    return true;
}

// A record's framing: its kind and where it ends.
struct Frame {
    std::uint8_t type = 0;
    KindInfo info{};
    std::uint32_t size = 0;   // the Size field
    std::uint32_t header = 0; // fixed header plus header extensions
};

// Frames the record at pos (at least 4 bytes before filled): its marker and
// Size, checked against its header kind and filled. On failure sets
// *problem, if given (a scan for the end of the records needs no sentence).
bool frame(const std::uint8_t *p, std::uint32_t pos, std::uint32_t filled, Frame &f, Problem *problem)
{
    const std::uint32_t marker = rd32(p);
    if (marker == kEndOfBufferMarker) {
        // The end marker belongs at the filled end (Offset) or past it; one
        // before it hides the rest of the filled bytes, which is damage.
        if (problem)
            problem->set(ETW_ERROR_INVALID_DATA, pos,
                         text_printf("an end-of-buffer marker 0xFFFFFFFF stands before the filled end 0x%X: the 0x%X "
                                     "bytes after it are not read",
                                     filled, filled - pos));
        return false;
    }
    if (!classify(marker, f.type, f.info)) {
        const bool known_flags = (marker >> 24) == kMarkerFixedHeader;
        if (problem)
            problem->set(ETW_ERROR_INVALID_DATA, pos,
                         known_flags
                             ? text_printf("unknown header type 0x%02X in marker 0x%08X", unsigned(f.type), marker)
                             : text_printf("unknown record marker 0x%08X", marker));
        return false;
    }
    if (f.info.size_at_4) {
        if (filled - pos < 8) {
            if (problem)
                problem->set(ETW_ERROR_BAD_LENGTH, pos,
                             text_printf("the record header is cut off by the filled end 0x%X", filled));
            return false;
        }
        f.size = rd16(p + 4);
    } else {
        f.size = rd16(p);
    }
    f.header = f.info.fixed;
    if (f.info.size_at_4)
        f.header += extension_bytes(rd16(p));
    if (f.size < f.header) {
        if (problem)
            problem->set(ETW_ERROR_BAD_LENGTH, pos,
                         text_printf("record Size 0x%X is smaller than its 0x%X-byte %s header", f.size, f.header,
                                     record_kind_name(f.info.kind)));
        return false;
    }
    if (f.size > filled - pos) {
        if (problem)
            problem->set(ETW_ERROR_BAD_LENGTH, pos,
                         text_printf("record Size 0x%X crosses the filled end 0x%X of the buffer", f.size, filled));
        return false;
    }
    return true;
}

} // namespace

std::uint32_t framed_end(std::span<const std::uint8_t> image, std::uint32_t start, std::uint32_t limit,
                         std::uint32_t *last_start)
{
    if (limit > image.size())
        limit = static_cast<std::uint32_t>(image.size());
    std::uint32_t pos = start;
    if (last_start)
        *last_start = start;
    Frame f;
    while (limit >= 4 && pos <= limit - 4 && frame(image.data() + pos, pos, limit, f, nullptr)) {
        if (last_start)
            *last_start = pos;
        pos = static_cast<std::uint32_t>(std::min<std::uint64_t>(pos + align8(f.size), limit));
    }
    return pos;
}

RecordReader::Step RecordReader::next(Record &rec, std::vector<ExtendedItem> &items, Problem &problem)
{
    items.clear();
    if (done_ || filled_ < 4 || pos_ > filled_ - 4) {
        done_ = true;
        return Step::End;
    }
    const std::uint8_t *p = image_.data() + pos_;
    Frame f;
    if (!frame(p, pos_, filled_, f, &problem)) {
        done_ = true;
        return Step::StopCorrupt;
    }
    const std::uint32_t marker = rd32(p);
    const std::uint32_t size = f.size;
    const std::uint32_t header = f.header;
    const KindInfo &info = f.info;
    const std::uint8_t type = f.type;

    rec = Record{};
    rec.kind = info.kind;
    rec.header_type = type;
    rec.marker_flags = static_cast<std::uint8_t>(marker >> 24);
    rec.size = static_cast<std::uint16_t>(size);
    rec.offset = pos_;
    rec.header_size = header;
    rec.payload_offset = header;
    rec.pointer_size = info.pointer;

    const std::uint32_t here = pos_;
    pos_ = static_cast<std::uint32_t>(pos_ + align8(size));

    bool ok = true;
    switch (info.kind) {
    case RecordKind::System:
    case RecordKind::Compact:
    case RecordKind::PerfInfo:
        decode_system_like(p, rec);
        break;
    case RecordKind::Full:
    case RecordKind::Instance:
        decode_full(p, rec);
        break;
    case RecordKind::Event:
        decode_event(p, rec);
        ok = decode_extended_items(p, rec, items, problem);
        break;
    case RecordKind::Message:
        ok = decode_message(p, rec, problem);
        break;
    case RecordKind::Error:
        break;
    }
    if (!ok) {
        items.clear();
        if (problem.at == 0)
            problem.at = here;
        return Step::SkipCorrupt;
    }
    rec.payload_size = size - rec.payload_offset;
    return Step::Record;
}

} // namespace openetw::format
