#include "fields.hpp"

#include <cstdio>
#include <cstring>

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
            append_json_string(out, p.value);
        return i + 1;
    }
    const bool array = p.kind == ETW_PROPERTY_KIND_ARRAY;
    out += array ? '[' : '{';
    uint32_t next = i + 1;
    for (uint32_t k = 0; k < p.child_count && next < e.property_count; ++k) {
        if (k)
            out += ',';
        if (!array) {
            append_json_string(out, e.properties[next].name);
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

void append_json_string(std::string &out, const char *text)
{
    out += '"';
    const char *plain = text;
    for (const char *c = text; *c; ++c) {
        const unsigned char u = static_cast<unsigned char>(*c);
        if (u >= 0x20 && u != '"' && u != '\\')
            continue;
        out.append(plain, std::size_t(c - plain));
        plain = c + 1;
        switch (u) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default: {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        }
        }
    }
    out += plain;
    out += '"';
}

void append_fields_json(std::string &out, const etw_decoded_event &e)
{
    out += '{';
    bool first = true;
    for (uint32_t i = 0; i < e.property_count;) {
        if (!first)
            out += ',';
        first = false;
        append_json_string(out, e.properties[i].name);
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
