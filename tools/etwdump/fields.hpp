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
// text as a quoted JSON string.
void append_json_string(std::string &out, const char *text);

} // namespace etwdump
