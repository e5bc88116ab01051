// Decodes an event's payload by its schema into a flat tree of nodes, in
// payload order. Pure and bounded: every length and count is checked
// against the payload, the node count is capped, and a payload that does
// not match its schema yields a Problem (status + sentence), never a crash.
#pragma once

#include "decode/schema.hpp"
#include "format/problem.hpp"

#include <cstdint>
#include <span>
#include <vector>

namespace openetw::decode {

using format::Problem;
using format::text_printf;

enum class NodeKind : std::uint8_t { Value, Array, Struct };

inline constexpr std::uint32_t kNoParent = UINT32_MAX;

// One decoded property, array or struct. Children follow their parent
// (pre-order); an array's children are its elements, which carry the
// array's field. Value nodes cover the value's content bytes (without a
// count prefix or string terminator).
struct Node {
    std::uint32_t field = 0; // index in EventSchema::fields
    std::uint32_t parent = kNoParent;
    std::uint32_t child_count = 0;
    NodeKind kind = NodeKind::Value;
    std::uint32_t offset = 0; // in the payload
    std::uint32_t size = 0;
};

// Most nodes one event may produce (arrays of empty structs cost no bytes).
inline constexpr std::size_t kMaxNodes = 1u << 16;

// Fills nodes (cleared first). pointer_size (4 or 8) sizes POINTER, SIZET and
// WBEMSID. Returns false with problem set (ETW_ERROR_INVALID_DATA, `at` the
// payload offset) when the payload is too short for a field, a count or
// length is out of bounds, or the schema is inconsistent. Bytes after the
// last field are allowed (providers append data newer schemas describe);
// *consumed tells how many were used.
bool decode_payload(const EventSchema &schema, std::span<const std::uint8_t> payload, std::uint32_t pointer_size,
                    std::vector<Node> &nodes, Problem &problem, std::uint32_t *consumed = nullptr);

// The size of a value of a fixed-size in-type, 0 for variable-size ones.
std::uint32_t fixed_size(std::uint16_t in_type, std::uint32_t pointer_size);

// Reads a little-endian unsigned integer of 1, 2, 4 or 8 bytes.
std::uint64_t read_uint(const std::uint8_t *p, std::uint32_t size);

} // namespace openetw::decode
