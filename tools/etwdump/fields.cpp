#include "fields.hpp"

#include "base/json.hpp"

#include <cstring>

namespace etwdump {

namespace {

// The two notations share the walk: JSON quotes names and string values,
// text writes them as they are.
struct Notation {
    const char *comma;
    char colon;
    bool json;
};
constexpr Notation kJson{",", ':', true};
constexpr Notation kText{", ", '=', false};

void put(std::string &out, const char *text, bool quoted)
{
    if (quoted)
        openetw::append_json_string(out, text);
    else
        out += text;
}

// Emits property i (and its descendants); returns the index after them.
uint32_t node(std::string &out, const etw_decoded_event &e, uint32_t i, const Notation &n)
{
    const etw_event_property &p = e.properties[i];
    if (p.kind == ETW_PROPERTY_KIND_VALUE) {
        put(out, p.value, n.json && !(p.flags & (ETW_PROPERTY_JSON_NUMBER | ETW_PROPERTY_JSON_BOOL)));
        return i + 1;
    }
    const bool array = p.kind == ETW_PROPERTY_KIND_ARRAY;
    out += array ? '[' : '{';
    uint32_t next = i + 1;
    for (uint32_t k = 0; k < p.child_count && next < e.property_count; ++k) {
        if (k)
            out += n.comma;
        if (!array) {
            put(out, e.properties[next].name, n.json);
            out += n.colon;
        }
        next = node(out, e, next, n);
    }
    out += array ? ']' : '}';
    return next;
}

// The top-level properties, each with its name.
void members(std::string &out, const etw_decoded_event &e, const Notation &n)
{
    bool first = true;
    for (uint32_t i = 0; i < e.property_count;) {
        if (!first)
            out += n.comma;
        first = false;
        put(out, e.properties[i].name, n.json);
        out += n.colon;
        i = node(out, e, i, n);
    }
}

} // namespace

void append_fields_json(std::string &out, const etw_decoded_event &e)
{
    out += '{';
    members(out, e, kJson);
    out += '}';
}

void append_fields_text(std::string &out, const etw_decoded_event &e) { members(out, e, kText); }

const etw_event_property *top_property(const etw_decoded_event &e, const char *name)
{
    for (uint32_t i = 0; i < e.property_count; ++i)
        if (e.properties[i].parent == ETW_PROPERTY_NO_PARENT && std::strcmp(e.properties[i].name, name) == 0)
            return &e.properties[i];
    return nullptr;
}

bool top_number(const etw_decoded_event &e, const char *name, std::uint64_t *out)
{
    const etw_event_property *p = top_property(e, name);
    if (!p || p->kind != ETW_PROPERTY_KIND_VALUE || p->data_size == 0 || p->data_size > 8)
        return false;
    std::uint64_t v = 0;
    for (uint32_t i = 0; i < p->data_size; ++i)
        v |= std::uint64_t(p->data[i]) << (8 * i);
    *out = v;
    return true;
}

} // namespace etwdump
