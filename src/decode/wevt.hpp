// The compiled instrumentation manifest a provider binary carries in its
// WEVT_TEMPLATE resource ("CRIM": providers, each a "WEVT" element with
// lists CHAN, EVNT, KEYW, LEVL, MAPS (VMAP/BMAP), OPCO, TASK, TTBL of TEMP
// templates, PRVA), as libyal's "Windows Event manifest binary format"
// describes it. Its events become the same schemas a .man gives
// (ManifestSchemas: provider GUID + event id + version, and the classic
// rule); display names come from the binary's MESSAGETABLE by message id,
// else from the names the binary stores.
#pragma once

#include "decode/manifest.hpp"
#include "decode/message_table.hpp"

namespace openetw::decode {

using SchemaEntries = std::unordered_map<std::string, ManifestSchemas::Entry>;

// Reads one WEVT_TEMPLATE resource into out. False with problem set
// (ETW_ERROR_INVALID_DATA, "WEVT_TEMPLATE offset 0x...: ...") when a
// signature, size, count or offset is wrong, a template refers to fields
// or maps it does not have, or an event is defined twice.
bool read_wevt_template(std::span<const std::uint8_t> crim, const MessageTable &messages, SchemaEntries &out,
                        Problem &problem);

// Reads every WEVT_TEMPLATE resource of the PE image `file`, with its
// MESSAGETABLE resources. False with problem set: ETW_ERROR_INVALID_DATA
// (a damaged image or template), ETW_ERROR_NOT_FOUND (no WEVT_TEMPLATE
// resource: the binary registers no manifest-based provider).
bool read_provider_binary(std::span<const std::uint8_t> file, SchemaEntries &out, Problem &problem);

} // namespace openetw::decode
