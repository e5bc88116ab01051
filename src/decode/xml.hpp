// A small, strict, bounded XML reader for instrumentation manifests: the
// elements and attributes of one document, with the line of each element.
// Accepts UTF-8 (with or without BOM) and UTF-16 with a BOM; the XML
// declaration, comments, processing instructions and CDATA; the five
// predefined entities and character references. Refuses DOCTYPE (no DTD,
// so no entity expansion), unbalanced or mismatched tags, duplicate
// attributes, more than kMaxXmlDepth levels or kMaxXmlElements elements.
// Text content is skipped: manifests keep everything in attributes.
#pragma once

#include "format/problem.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace openetw::decode {

using format::Problem;
using format::text_printf;

inline constexpr std::size_t kMaxXmlDepth = 64;
inline constexpr std::size_t kMaxXmlElements = 1u << 20;
inline constexpr std::size_t kMaxXmlBytes = 64u << 20;

struct XmlAttribute {
    std::string name;  // as written (with its prefix)
    std::string value; // entities replaced
};

struct XmlElement {
    std::string name; // local name: the prefix is dropped
    std::uint32_t line = 0;
    std::vector<XmlAttribute> attributes;
    std::vector<XmlElement> children;

    // The value of the attribute whose local name is `local`, or null.
    const std::string *attribute(std::string_view local) const;
};

// The part of a qualified name after its prefix ("win:UInt32" -> "UInt32").
std::string_view local_name(std::string_view qname);

// Parses document into root. Returns false with problem set
// (ETW_ERROR_INVALID_DATA, `at` the 1-based line, detail a sentence that
// starts with "line N:") for anything not well formed or over the limits;
// ETW_ERROR_NO_UNICODE_TRANSLATION for bad UTF-16.
bool parse_xml(std::span<const std::uint8_t> document, XmlElement &root, Problem &problem);

} // namespace openetw::decode
