// Instrumentation manifests (the .man XML of manifest-based providers,
// eventman.xsd): each provider's events become schemas found by provider
// GUID, event id and version. Templates (data and struct, with count and
// length as a number or the name of an earlier integer field), value and
// bit maps, levels, tasks with their opcodes, opcodes, keywords, the
// standard win: levels/opcodes/tasks/keywords (winmeta.xml), and
// $(string.Id) messages from the localization string table (en-US when
// the manifest has several cultures, else the first).
// Classic records (EVENT_TRACE_HEADER, as OpenETW's EventWrite and
// Windows' classic providers write them: no event id) are found by
// provider GUID as class GUID, Class.Type as opcode and Class.Version,
// when exactly one event of the provider has that opcode and version.
#pragma once

#include "decode/event_decoder.hpp"

#include <memory>
#include <span>
#include <string>
#include <unordered_map>

namespace openetw::decode {

class ManifestSchemas : public SchemaSource {
public:
    const EventSchema *find(const etw_record &record) const override;

    // Reads a manifest and adds its events. All or nothing: on failure
    // (problem set: ETW_ERROR_INVALID_DATA with "line N: ..." for XML or
    // schema errors, ETW_ERROR_NO_UNICODE_TRANSLATION for bad encodings)
    // nothing is added. An event already known (same provider, id and
    // version) is replaced.
    bool load(std::span<const std::uint8_t> document, Problem &problem);

    std::size_t size() const { return events_.size(); }

    struct Entry {
        std::unique_ptr<EventSchema> schema;
        std::uint8_t opcode = 0;
    };

    // Adds events read elsewhere (a binary's WEVT_TEMPLATE): known ones are replaced.
    void add(std::unordered_map<std::string, Entry> loaded);

private:
    std::unordered_map<std::string, Entry> events_;
    // (provider, opcode, version) -> the one event with them, or null when several have them.
    std::unordered_map<std::string, const EventSchema *> classic_;
};

// The key of an event: provider GUID bytes, id, version.
std::string manifest_key(const etw_guid &provider, std::uint16_t id, std::uint8_t version);

// Manifest type names (local part, after "win:" or "xs:") -> TDH values; false when unknown.
bool manifest_in_type(std::string_view name, std::uint16_t &out);
bool manifest_out_type(std::string_view name, std::uint16_t &out);

// The standard winmeta.xml items: value and display name; false when unknown.
bool standard_level(std::string_view name, std::uint8_t &value, std::string &display);
bool standard_opcode(std::string_view name, std::uint8_t &value, std::string &display);
bool standard_task(std::string_view name, std::uint16_t &value, std::string &display);
bool standard_keyword(std::string_view name, std::uint64_t &mask, std::string &display);

} // namespace openetw::decode
