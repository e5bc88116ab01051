// The providers of the namespace (EnumerateTraceGuidsEx; etw_provider_list
// and etw_provider_query): every GUID some live process registers or some
// running session enables, with the processes registering it
// (provider_table.hpp) and the sessions enabling it, their level and
// keywords (the system registry's enable tables, and this process's own
// process-local sessions). A snapshot: it may be out of date when read.
// Any thread; no lock held across calls.
#pragma once

#include "host/engine_names.hpp"

#include <openetw/records.h>

#include <cstdint>
#include <string>
#include <vector>

namespace openetw::host {

struct ProviderProcess {
    std::uint32_t pid = 0;
    std::uint32_t registrations = 0;
};

struct ProviderSession {
    std::u16string name;
    std::uint64_t handle = 0;
    std::uint8_t level = 0;
    std::uint64_t match_any = 0;
    std::uint64_t match_all = 0;
    std::uint32_t filter_count = 0;    // filters the enablement holds (docs/FILTERS.md)
    std::uint32_t enable_property = 0; // EVENT_ENABLE_PROPERTY_*
};

struct ProviderListing {
    etw_guid guid{};
    std::vector<ProviderProcess> processes; // empty: enabled by sessions, registered nowhere (yet)
    std::vector<ProviderSession> sessions;
};

// Every provider GUID, in GUID byte order.
std::vector<ProviderListing> list_providers();
// The listing of one GUID; false when no live process registers it and no
// running session enables it.
bool query_provider(const etw_guid &guid, ProviderListing *out);

} // namespace openetw::host
