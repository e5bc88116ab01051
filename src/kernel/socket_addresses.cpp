#include "kernel/socket_addresses.hpp"

#include <cstring>

namespace openetw::kernel {

namespace {

std::uint64_t le(std::span<const std::uint8_t> b, std::size_t at, std::size_t n)
{
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i)
        v |= std::uint64_t(b[at + i]) << (8 * i);
    return v;
}

} // namespace

std::optional<Endpoint> parse_sockaddr(std::span<const std::uint8_t> b)
{
    // sa_family is host order (little-endian on the machines the logger
    // runs), sin_port / sin6_port network order; sin_addr at 4, sin6_addr at 8.
    if (b.size() < 2)
        return std::nullopt;
    const auto family = std::uint16_t(le(b, 0, 2));
    Endpoint e;
    if (family == kAfInet && b.size() >= 8) {
        std::memcpy(e.addr.data(), b.data() + 4, 4);
    } else if (family == kAfInet6 && b.size() >= 24) {
        e.ipv6 = true;
        std::memcpy(e.addr.data(), b.data() + 8, 16);
    } else {
        return std::nullopt;
    }
    e.port = std::uint16_t(b[2] << 8 | b[3]);
    return e;
}

bool is_v4_mapped(const Endpoint &e)
{
    static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    return e.ipv6 && std::memcmp(e.addr.data(), prefix, 12) == 0;
}

Endpoint unmapped(const Endpoint &e)
{
    Endpoint v4;
    std::memcpy(v4.addr.data(), e.addr.data() + 12, 4);
    v4.port = e.port;
    return v4;
}

bool is_wildcard(const Endpoint &e)
{
    for (std::size_t i = 0; i < (e.ipv6 ? 16u : 4u); ++i)
        if (e.addr[i] != 0)
            return false;
    return true;
}

// msghdr: msg_name (ptr), msg_namelen (int, padded to a pointer), msg_iov
// (ptr), msg_iovlen (size_t), msg_control (ptr), msg_controllen (size_t),
// msg_flags (int, padded).
std::size_t msghdr_size(std::uint32_t pointer_size) { return 7 * std::size_t(pointer_size); }

std::size_t mmsghdr_size(std::uint32_t pointer_size) { return msghdr_size(pointer_size) + pointer_size; }

std::optional<MsgName> parse_msg_name(std::span<const std::uint8_t> msghdr, std::uint32_t pointer_size)
{
    if (msghdr.size() < std::size_t(pointer_size) + 4)
        return std::nullopt;
    return MsgName{le(msghdr, 0, pointer_size), std::uint32_t(le(msghdr, pointer_size, 4))};
}

} // namespace openetw::kernel
