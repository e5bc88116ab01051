#include "fields.hpp"

#include "base/json.hpp"

namespace etwdump {

namespace {

// Emits property i (and its descendants); returns the index after them.
uint32_t json_node(std::string &out, const etw_decoded_event &e, uint32_t i)
{
    const etw_event_property &p = e.properties[i];
    if (p.kind == ETW_PROPERTY_KIND_VALUE) {
        if (p.flags & (ETW_PROPERTY_JSON_NUMBER | ETW_PROPERTY_JSON_BOOL))
            out += p.value;
        else
            openetw::append_json_string(out, p.value);
        return i + 1;
    }
    const bool array = p.kind == ETW_PROPERTY_KIND_ARRAY;
    out += array ? '[' : '{';
    uint32_t next = i + 1;
    for (uint32_t k = 0; k < p.child_count && next < e.property_count; ++k) {
        if (k)
            out += ',';
        if (!array) {
            openetw::append_json_string(out, e.properties[next].name);
            out += ':';
        }
        next = json_node(out, e, next);
    }
    out += array ? ']' : '}';
    return next;
}

uint32_t text_node(std::string &out, const etw_decoded_event &e, uint32_t i)
{
    const etw_event_property &p = e.properties[i];
    if (p.kind == ETW_PROPERTY_KIND_VALUE) {
        out += p.value;
        return i + 1;
    }
    const bool array = p.kind == ETW_PROPERTY_KIND_ARRAY;
    out += array ? '[' : '{';
    uint32_t next = i + 1;
    for (uint32_t k = 0; k < p.child_count && next < e.property_count; ++k) {
        if (k)
            out += ", ";
        if (!array) {
            out += e.properties[next].name;
            out += '=';
        }
        next = text_node(out, e, next);
    }
    out += array ? ']' : '}';
    return next;
}

} // namespace

void append_fields_json(std::string &out, const etw_decoded_event &e)
{
    out += '{';
    bool first = true;
    for (uint32_t i = 0; i < e.property_count;) {
        if (!first)
            out += ',';
        first = false;
        openetw::append_json_string(out, e.properties[i].name);
        out += ':';
        i = json_node(out, e, i);
    }
    out += '}';
}

void append_fields_text(std::string &out, const etw_decoded_event &e)
{
    bool first = true;
    for (uint32_t i = 0; i < e.property_count;) {
        if (!first)
            out += ", ";
        first = false;
        out += e.properties[i].name;
        out += '=';
        i = text_node(out, e, i);
    }
}

} // namespace etwdump
