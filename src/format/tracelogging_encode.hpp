// TraceLogging encoding, the writer's side of decode/tracelogging.cpp: an
// event's metadata (EVENT_SCHEMA_TL) and payload pieces from an etw_tl_field
// array, provider traits (PROV_TRAITS) blobs, and the name-derived provider
// GUID. Pure over bytes; encode_event allocates nothing unless it fails.
#pragma once

#include "base/status.hpp"

#include <openetw/tracelogging.h>

#include <cstdint>

namespace openetw::format {

// What one event needs: the metadata bytes, and the payload as data
// descriptors (each field's bytes, with the UINT16 counts and string NULs
// its in-type asks for) pointing into the caller's fields and into this.
struct TlEvent {
    std::uint8_t metadata[ETW_TL_MAX_METADATA_SIZE];
    std::uint16_t metadata_size = 0;
    std::uint32_t data_count = 0;
    std::uint16_t counts[ETW_TL_MAX_FIELDS];
    etw_event_data_descriptor data[2 * ETW_TL_MAX_FIELDS];
};

// Builds out from event_name and the fields (statuses: tracelogging.h,
// etw_provider_write_tracelogging).
Status encode_tl_event(const char *event_name, const etw_tl_field *fields, std::uint32_t count, TlEvent &out);

// Checks a PROV_TRAITS blob (etw_provider_set_traits' rules).
Status check_provider_traits(const std::uint8_t *traits, std::uint32_t size);

// Checks a TraceLogging event metadata blob's frame: its UINT16 size equals
// size, at least 4 bytes. (Used by the write path: no message.)
bool tl_metadata_frame_ok(const std::uint8_t *metadata, std::uint32_t size) noexcept;
// The same for a traits blob given by a PROVIDER_METADATA descriptor: at least 3 bytes.
bool tl_traits_frame_ok(const std::uint8_t *traits, std::uint32_t size) noexcept;

// The traits TraceLoggingRegister sets: name, and a group trait when group
// is not null. Appends to out.
Status build_provider_traits(const char *name, const etw_guid *group, std::string &out);

// The provider GUID TraceLogging and EventSource derive from a name.
Status provider_guid_from_name(const char *name, etw_guid &out);

} // namespace openetw::format
