// Record framing and header decoding inside one buffer image
// (ETL_FORMAT.md sections 3 and 10): marker dispatch, the Size rules of
// every header kind, header extension items, EVENT_HEADER extended data
// items and the optional fields of WPP messages. Pure functions over bytes.
#pragma once

#include "format/problem.hpp"

#include <openetw/records.h>

#include <cstdint>
#include <span>
#include <vector>

namespace openetw::format {

enum class RecordKind : std::uint8_t {
    System = 1,   // SYSTEM_TRACE_HEADER
    Compact = 2,  // compact SYSTEM_TRACE_HEADER
    PerfInfo = 3, // PERFINFO_TRACE_HEADER
    Full = 4,     // EVENT_TRACE_HEADER
    Instance = 5, // EVENT_INSTANCE_GUID_HEADER
    Event = 6,    // EVENT_HEADER
    Message = 7,  // MESSAGE_TRACE_HEADER (WPP)
    Error = 8,    // TRACE_HEADER_TYPE_ERROR: layout unknown, delivered raw
};

// "system", "compact", ... as in the golden record lists.
const char *record_kind_name(RecordKind kind);

// Which optional members of Record hold data (same values as ETW_RECORD_HAS_*).
enum RecordHas : std::uint32_t {
    kHasThreadId = 0x0001, // thread_id and process_id
    kHasTimestamp = 0x0002,
    kHasGuid = 0x0004,
    kHasHookId = 0x0008,     // hook_id and version_word
    kHasClass = 0x0010,      // opcode, level, version
    kHasDescriptor = 0x0020, // event_id, channel, task, keyword
    kHasCpuTime = 0x0040,    // kernel_time, user_time
    kHasActivityId = 0x0080,
    kHasInstance = 0x0100, // instance_id, parent_instance_id, parent_guid
    kHasMessage = 0x0200,  // message_number, message_flags
    kHasSequence = 0x0400,
    kHasComponentId = 0x0800,
    kHasEventFlags = 0x1000, // event_flags, event_property
};

// One EVENT_HEADER extended data item; data_offset counts from the record start.
struct ExtendedItem {
    std::uint16_t ext_type = 0;
    std::uint16_t linkage = 0;
    std::uint16_t item_size = 0;
    std::uint16_t data_size = 0;
    std::uint32_t data_offset = 0;
};

struct Record {
    RecordKind kind = RecordKind::System;
    std::uint8_t header_type = 0;     // HeaderType byte (0x0F for messages)
    std::uint8_t marker_flags = 0;    // 0xC0, or 0x90 for messages
    std::uint16_t size = 0;           // the Size field: header, extended data and payload
    std::uint32_t offset = 0;         // of the record in the buffer image
    std::uint32_t header_size = 0;    // fixed header plus header extensions / message fields
    std::uint32_t payload_offset = 0; // from the record start (after extended data)
    std::uint32_t payload_size = 0;
    std::uint32_t pointer_size = 0; // 4 or 8 from the 32/64 header type; 0 if not said
    std::uint32_t present = 0;      // RecordHas bits

    std::uint16_t version_word = 0; // SYSTEM/COMPACT/PERFINFO Version (with extension bits)
    std::uint16_t hook_id = 0;
    std::uint32_t thread_id = 0;
    std::uint32_t process_id = 0;
    std::int64_t timestamp = 0;    // raw session clock
    std::uint32_t kernel_time = 0; // with user_time: ProcessorTime in private sessions
    std::uint32_t user_time = 0;
    etw_guid guid{}; // class GUID, ProviderId or message GUID

    std::uint8_t opcode = 0; // Class.Type or descriptor Opcode
    std::uint8_t level = 0;
    std::uint16_t version = 0; // Class.Version or descriptor Version
    std::uint16_t event_id = 0;
    std::uint8_t channel = 0;
    std::uint16_t task = 0;
    std::uint64_t keyword = 0;
    std::uint16_t event_flags = 0;
    std::uint16_t event_property = 0;
    etw_guid activity_id{};

    std::uint32_t instance_id = 0;
    std::uint32_t parent_instance_id = 0;
    etw_guid parent_guid{};

    std::uint16_t message_number = 0;
    std::uint16_t message_flags = 0;
    std::uint32_t message_sequence = 0;
    std::uint32_t component_id = 0;
};

// Walks the records of one buffer image from offset 0x48 up to `filled`.
class RecordReader {
public:
    enum class Step {
        Record,      // rec holds the next record
        End,         // no more records (end marker or filled end)
        SkipCorrupt, // framing intact but the record's contents are damaged: skipped
        StopCorrupt, // framing broken: the rest of the buffer cannot be read
    };

    RecordReader() = default;
    RecordReader(std::span<const std::uint8_t> image, std::uint32_t filled, std::uint32_t start = 0x48);

    // items receives the extended data items of EVENT_HEADER records (cleared each call).
    Step next(Record &rec, std::vector<ExtendedItem> &items, Problem &problem);

    std::uint32_t position() const { return pos_; }

private:
    std::span<const std::uint8_t> image_;
    std::uint32_t filled_ = 0;
    std::uint32_t pos_ = 0;
    bool done_ = true;
};

// Where the chain of well-formed records starting at start ends: the
// aligned end of the last record whose marker and Size frame it (the checks
// RecordReader makes before decoding) within limit, or start if none does.
// It stops at an end marker, an unknown marker or a Size that cannot be.
// last_start, if given, receives where the last framed record starts.
std::uint32_t framed_end(std::span<const std::uint8_t> image, std::uint32_t start, std::uint32_t limit,
                         std::uint32_t *last_start = nullptr);

// Reads a GUID stored in the Windows layout.
etw_guid read_guid(const std::uint8_t *p);

} // namespace openetw::format
