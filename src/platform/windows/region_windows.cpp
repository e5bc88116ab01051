// Windows part of region.hpp. region_map_private commits the whole region
// up front (MEM_RESERVE | MEM_COMMIT): pages are still zero-filled and
// backed on first touch, but Windows charges the region against the commit
// limit; region_commit is a no-op. Shared regions are not implemented
// (docs/SYSTEM_SESSIONS.md, "Windows"): ETW_ERROR_NOT_SUPPORTED.
#include "platform/windows/win32.hpp"

#include "platform/region.hpp"

namespace openetw::platform {

etw_status region_map_private(Region *out, std::size_t size) noexcept
{
    void *p = VirtualAlloc(nullptr, size, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    if (p == nullptr)
        return ETW_ERROR_OUTOFMEMORY;
    out->base = p;
    out->size = size;
    return ETW_OK;
}

etw_status region_commit(const Region &, std::size_t, std::size_t) noexcept { return ETW_OK; }

void memory_prefault(void *, std::size_t) noexcept {} // pages are backed on touch

void region_unmap(Region *region) noexcept
{
    if (region->base)
        VirtualFree(region->base, 0, MEM_RELEASE);
    region->base = nullptr;
    region->size = 0;
}

etw_status shared_region_create(Region *, const std::string &, std::size_t, std::size_t) noexcept
{
    return ETW_ERROR_NOT_SUPPORTED;
}
etw_status shared_region_open(Region *, const std::string &) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status shared_region_adopt(Region *, std::intptr_t) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
void close_fd(std::intptr_t) noexcept {}

} // namespace openetw::platform
