// The filter blobs (engine/event_filter.hpp) of a registry slot's enables,
// published by the host beside its enable records (system_registry.cpp).
#pragma once

#include "host/system_registry.hpp"

#include <cstdint>
#include <vector>

namespace openetw::host {

// sizes[i] bytes for enables[i], one after another in bytes.
struct FilterTable {
    std::uint32_t sizes[kSlotEnables];
    std::uint8_t bytes[kSlotFilterBytes];
};

// Host: writes the first count blobs (a blob that no longer fits is left out, empty).
void publish_filters(FilterTable &t, std::uint32_t count, const std::vector<std::vector<std::uint8_t>> &filters);
// Reader: copies them out; false when the sizes are damaged (read again).
bool read_filters(const FilterTable &t, std::uint32_t count, std::vector<std::vector<std::uint8_t>> *out);

} // namespace openetw::host
