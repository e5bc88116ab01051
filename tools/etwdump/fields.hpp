// A decoded event's properties as JSON (for --format jsonl) and as text
// (for --format text): arrays become lists, structs nested objects.
#pragma once

#include <openetw/openetw.h>

#include <string>

namespace etwdump {

// {"name":value,...}: numbers and booleans bare, other values as strings.
void append_fields_json(std::string &out, const etw_decoded_event &event);
// name=value, name=[a, b], name={x=1, y=2}
void append_fields_text(std::string &out, const etw_decoded_event &event);

} // namespace etwdump
