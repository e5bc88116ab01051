// Byte copies to and from the published parts of the registry's slots
// (system_registry.cpp, registry_filters.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace openetw::host {

// Byte copies to and from the published parts of a slot. Readers copy while
// a host may rewrite them (a sequence word tells torn copies apart and they
// are retried), so every access is atomic: acquire loads and release stores
// keep the sequence checks ordered around them without fences.
inline void load_bytes(void *dst, const void *src, std::size_t n)
{
    auto *d = static_cast<unsigned char *>(dst);
    auto *s = const_cast<unsigned char *>(static_cast<const unsigned char *>(src));
    for (std::size_t i = 0; i < n; ++i)
        d[i] = std::atomic_ref<unsigned char>(s[i]).load(std::memory_order_acquire);
}

inline void store_bytes(void *dst, const void *src, std::size_t n)
{
    auto *d = static_cast<unsigned char *>(dst);
    auto *s = static_cast<const unsigned char *>(src);
    for (std::size_t i = 0; i < n; ++i)
        std::atomic_ref<unsigned char>(d[i]).store(s[i], std::memory_order_release);
}

inline std::uint32_t load_u32(const std::uint32_t &v)
{
    return std::atomic_ref<std::uint32_t>(const_cast<std::uint32_t &>(v)).load(std::memory_order_acquire);
}

} // namespace openetw::host
