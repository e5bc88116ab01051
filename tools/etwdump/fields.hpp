// A decoded event's properties as JSON (for --format jsonl) and as text
// (for --format text): arrays become lists, structs nested objects.
#pragma once

#include <openetw/openetw.h>

#include <cstdint>
#include <string>

namespace etwdump {

// {"name":value,...}: numbers and booleans bare, other values as strings.
void append_fields_json(std::string &out, const etw_decoded_event &event);
// name=value, name=[a, b], name={x=1, y=2}
void append_fields_text(std::string &out, const etw_decoded_event &event);

// The top-level property of that name (null: none).
const etw_event_property *top_property(const etw_decoded_event &e, const char *name);
// An integer property's value from its bytes (little-endian, up to 8);
// false when there is none.
bool top_number(const etw_decoded_event &e, const char *name, std::uint64_t *out);

} // namespace etwdump
