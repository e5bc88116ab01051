#include "host/registry_filters.hpp"

#include "host/shared_bytes.hpp"

namespace openetw::host {

void publish_filters(FilterTable &t, std::uint32_t count, const std::vector<std::vector<std::uint8_t>> &filters)
{
    // The host's enable checked that they fit (Hosting::filter_room); what
    // does not is left out rather than written past the table.
    std::uint32_t used = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint32_t n = i < filters.size() ? std::uint32_t(filters[i].size()) : 0;
        if (n > kSlotFilterBytes - used)
            n = 0;
        if (n)
            store_bytes(t.bytes + used, filters[i].data(), n);
        std::atomic_ref<std::uint32_t>(t.sizes[i]).store(n, std::memory_order_release);
        used += n;
    }
}

bool read_filters(const FilterTable &t, std::uint32_t count, std::vector<std::vector<std::uint8_t>> *out)
{
    out->assign(count, {});
    std::uint32_t used = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t n = load_u32(t.sizes[i]);
        if (n > kSlotFilterBytes - used)
            return false;
        (*out)[i].resize(n);
        load_bytes((*out)[i].data(), t.bytes + used, n);
        used += n;
    }
    return true;
}

} // namespace openetw::host
