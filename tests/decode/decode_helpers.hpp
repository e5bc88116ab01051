// Test helpers: decoded events flattened to (path, text) pairs, and a
// builder of TraceLogging metadata and payloads.
#pragma once

#include "decode/event_decoder.hpp"
#include "decode/tracelogging.hpp"
#include "decode/value_format.hpp"

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace dectest {

using namespace openetw::decode;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// "a.b" for struct members, "x[1]" for array elements.
inline void flatten_node(const EventSchema &s, const std::vector<Node> &nodes, std::span<const std::uint8_t> payload,
                         std::uint32_t ptr, std::size_t &i, const std::string &prefix, Pairs &out)
{
    const Node &n = nodes[i++];
    const Field &f = s.fields[n.field];
    if (n.kind == NodeKind::Value) {
        std::string text;
        format_value(f, f.map < s.maps.size() ? &s.maps[f.map] : nullptr, payload.data() + n.offset, n.size, ptr, text);
        out.emplace_back(prefix, text);
        return;
    }
    for (std::uint32_t k = 0; k < n.child_count; ++k) {
        const std::string name = n.kind == NodeKind::Array
                                     ? prefix + "[" + std::to_string(k) + "]"
                                     : (prefix.empty() ? "" : prefix + ".") + s.fields[nodes[i].field].name;
        flatten_node(s, nodes, payload, ptr, i, name, out);
    }
}

inline Pairs flatten(const EventSchema &s, const std::vector<Node> &nodes, std::span<const std::uint8_t> payload,
                     std::uint32_t ptr = 8)
{
    Pairs out;
    std::size_t i = 0;
    while (i < nodes.size()) {
        const std::string name = s.fields[nodes[i].field].name;
        flatten_node(s, nodes, payload, ptr, i, name, out);
    }
    return out;
}

// Little-endian byte builder.
struct Bytes {
    std::vector<std::uint8_t> b;
    Bytes &u8(std::uint8_t v)
    {
        b.push_back(v);
        return *this;
    }
    Bytes &u16(std::uint16_t v) { return u8(std::uint8_t(v)).u8(std::uint8_t(v >> 8)); }
    Bytes &u32(std::uint32_t v) { return u16(std::uint16_t(v)).u16(std::uint16_t(v >> 16)); }
    Bytes &u64(std::uint64_t v) { return u32(std::uint32_t(v)).u32(std::uint32_t(v >> 32)); }
    Bytes &str(const char *s)
    {
        b.insert(b.end(), s, s + std::strlen(s) + 1);
        return *this;
    }
    Bytes &raw(const char *s)
    {
        b.insert(b.end(), s, s + std::strlen(s));
        return *this;
    }
    Bytes &w(const char16_t *s, bool nul = true)
    {
        for (; *s; ++s)
            u16(*s);
        if (nul)
            u16(0);
        return *this;
    }
};

// TraceLogging event metadata: size, one extension byte 0, name, then fields.
inline std::vector<std::uint8_t> tl_metadata(const char *event, const Bytes &fields)
{
    Bytes m;
    m.u16(0).u8(0).str(event);
    m.b.insert(m.b.end(), fields.b.begin(), fields.b.end());
    m.b[0] = std::uint8_t(m.b.size());
    m.b[1] = std::uint8_t(m.b.size() >> 8);
    return m.b;
}

} // namespace dectest
