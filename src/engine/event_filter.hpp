// Filters at the source (docs/FILTERS.md): the EVENT_FILTER_DESCRIPTORs of
// an enablement, checked and packed into one blob (what crosses processes),
// and the parsed, immutable EventFilter the write path asks.
//
// Threads: an EventFilter never changes once parsed; any number of writers
// read it at once. Parsing trusts nothing in the blob (another process may
// have written it).
#pragma once

#include "base/status.hpp"

#include <openetw/filter.h>
#include <openetw/provider.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace openetw::engine {

// Where a filter came from: the enable call, or the session's own filters
// (EVENT_TRACE_PROPERTIES_V2.FilterDesc), which admit PID and
// EXECUTABLE_NAME only. Each scope takes a type once.
enum class FilterScope : std::uint32_t { Provider = 0, Session = 1 };

// Checks count descriptors (the caller's memory) as EnableTraceEx2 does and
// appends each to *blob: u32 type, u32 size, u32 scope, the bytes, padding
// to 4. The statuses and messages are those etw_session_enable_provider_ex
// documents; nothing is appended on failure.
Status pack_filters(const etw_event_filter_descriptor *filters, std::uint32_t count, FilterScope scope,
                    std::vector<std::uint8_t> *blob);

class EventFilter {
public:
    // Parses a blob pack_filters made (out: null for an empty blob).
    static Status parse(const std::vector<std::uint8_t> &blob, std::shared_ptr<const EventFilter> *out);

    // Whether the process (its id, its executable's file name) is one the
    // PID and EXECUTABLE_NAME filters admit: decided once per snapshot, not
    // per event.
    bool admits_process(std::uint32_t pid, const std::string &executable) const;
    // Whether events need asking admits() (EVENT_ID, EVENT_NAME or PAYLOAD filters).
    bool per_event() const { return per_event_; }
    // HOT. Whether an EVENT_HEADER event passes the EVENT_ID, EVENT_NAME and
    // PAYLOAD filters. data: the event's payload descriptors; schema: a
    // TraceLogging event's metadata (its 16-bit size first, as the
    // EVENT_METADATA descriptor gives it: the event's name and fields), null
    // for other events. No allocation, no lock.
    bool admits(const etw_event_descriptor &d, std::uint32_t data_count, const etw_event_data_descriptor *data,
                const std::uint8_t *schema) const noexcept;
    // Whether an event of this id carries a stack (STACKWALK; true without one).
    bool stack_for(std::uint16_t event_id) const noexcept;
    // The SCHEMATIZED filter as the enable callback gets it (FilterData):
    // Ptr points into this object; null when there is none.
    const etw_event_filter_descriptor *schematized() const { return schematized_.Type != 0 ? &schematized_ : nullptr; }
    const std::vector<std::uint8_t> &blob() const { return blob_; }
    // How many filters it holds (the enable call's and the session's).
    std::uint32_t count() const { return count_; }

    struct Predicate {
        std::uint16_t op;
        std::string field;
        std::string text;     // the value as given (strings), ASCII letters folded to lower case
        std::int64_t lo = 0;  // numeric value (BETWEEN: the low end; MODULO: the divisor)
        std::int64_t hi = 0;  // BETWEEN: the high end
        bool numeric = false; // the value parsed as an integer
    };
    // One etw_payload_filter of a PAYLOAD filter (several when aggregated):
    // its predicates are predicates_[first, first + count).
    struct PayloadGroup {
        bool scoped = false; // tied to one event: id and version
        std::uint16_t id = 0;
        std::uint8_t version = 0;
        bool all_filters = false; // EventMatchALLFlags: must hold with the event's other flagged filters
        bool match_all = true;    // its predicates AND (else OR: EventMatchANY)
        std::uint32_t first = 0, count = 0;
    };

private:
    struct IdSet {
        bool present = false;
        bool filter_in = true;
        std::vector<std::uint64_t> bits; // one bit per id (8 KB): the test is one load
        void add(std::uint16_t id);
        bool contains(std::uint16_t id) const noexcept { return (bits[id >> 6] >> (id & 63)) & 1; }
    };
    bool names_admit(const etw_event_descriptor &d, const std::uint8_t *meta, std::uint32_t meta_size) const noexcept;
    bool payload_admits(const etw_event_descriptor &d, const std::uint8_t *meta, std::uint32_t meta_size,
                        std::uint32_t data_count, const etw_event_data_descriptor *data) const noexcept;

    std::vector<std::uint8_t> blob_;
    std::uint32_t count_ = 0;
    bool per_event_ = false;
    std::vector<std::uint32_t> pids_[2];      // by scope; empty: no PID filter
    std::vector<std::string> executables_[2]; // lower-case ASCII folded UTF-8
    IdSet event_ids_;
    IdSet stack_ids_;
    bool has_names_ = false;
    bool names_in_ = true;
    std::uint8_t names_level_ = 0;
    std::uint64_t names_any_ = 0, names_all_ = 0;
    std::vector<std::string> names_;
    std::vector<Predicate> predicates_;
    std::vector<PayloadGroup> payloads_;
    std::vector<std::uint8_t> schematized_bytes_;
    etw_event_filter_descriptor schematized_{};
};

} // namespace openetw::engine
