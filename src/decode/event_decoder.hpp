// Finds the schema of one record and decodes its payload: TraceLogging
// metadata carried by the record, then the kernel MOF classes, then the
// manifests loaded by the user. Keeps the schemas it built (TraceLogging
// metadata is parsed once per distinct provider and metadata); one
// EventDecoder serves one thread at a time.
#pragma once

#include "decode/payload.hpp"
#include "decode/schema.hpp"
#include "format/problem.hpp"

#include <openetw/consumer.h>

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace openetw::decode {

using format::Problem;
using format::text_printf;

enum class Source : std::uint8_t { None = 0, TraceLogging = 1, Kernel = 2, Manifest = 3, Wpp = 4 };

struct DecodedEvent {
    const EventSchema *schema = nullptr;
    Source source = Source::None;
    std::span<const std::uint8_t> payload;
    std::uint32_t pointer_size = 8;
    std::uint32_t consumed = 0; // payload bytes the fields used
    std::vector<Node> nodes;
};

// Looks up schemas by provider, event id and version (manifests), or by
// class GUID, opcode and version (kernel MOF classes).
class SchemaSource {
public:
    virtual ~SchemaSource() = default;
    virtual const EventSchema *find(const etw_record &record) const = 0;
    // What the schemas it finds are reported as.
    virtual Source kind() const { return Source::Manifest; }
};

class EventDecoder {
public:
    // Adds a source searched after TraceLogging metadata, in the order added.
    void add_source(std::shared_ptr<const SchemaSource> source) { sources_.push_back(std::move(source)); }

    // Decodes record into out. Returns false with problem set:
    // ETW_ERROR_NOT_FOUND when no schema describes the record (out.schema
    // null; problem.detail stays empty); ETW_ERROR_INVALID_DATA when its TraceLogging metadata is
    // malformed or the payload does not match the schema (out.schema set).
    bool decode(const etw_record &record, DecodedEvent &out, Problem &problem);

private:
    const EventSchema *tracelogging(const etw_record &record, Problem &problem);

    std::vector<std::shared_ptr<const SchemaSource>> sources_;
    std::unordered_map<std::string, std::unique_ptr<EventSchema>> tl_cache_;
    std::string key_;
};

// Most TraceLogging schemas kept; past it the cache starts over.
inline constexpr std::size_t kMaxCachedSchemas = 4096;

} // namespace openetw::decode
