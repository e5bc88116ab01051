// The MESSAGETABLE resource (RT_MESSAGETABLE, winnt.h MESSAGE_RESOURCE_DATA):
// blocks of consecutive message ids, each message a length-prefixed entry
// of ANSI or UTF-16LE text. A provider binary keeps there the display names
// its WEVT_TEMPLATE refers to by message id.
#pragma once

#include "format/problem.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>

namespace openetw::decode {

using format::Problem;
using format::text_printf;

// message id -> text (UTF-8), without the trailing line break and "%0" mc adds.
using MessageTable = std::unordered_map<std::uint32_t, std::string>;

// Adds the messages of one MESSAGETABLE resource to out. False with problem
// set (ETW_ERROR_INVALID_DATA, "MESSAGETABLE: ...", problem.at the offset
// in the resource) when a block or entry lies outside the resource.
bool read_message_table(std::span<const std::uint8_t> resource, MessageTable &out, Problem &problem);

} // namespace openetw::decode
