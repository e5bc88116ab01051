// Socket addresses as a Linux process hands them to the kernel, read from
// its memory as bytes: struct sockaddr_in / sockaddr_in6 (Linux's layout,
// the same on every architecture), and the name fields of struct msghdr
// and struct mmsghdr (whose layout follows the pointer size). Pure: the
// UdpIp records' addresses (udp_datagrams.hpp) are parsed here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace openetw::kernel {

inline constexpr std::uint16_t kAfInet = 2, kAfInet6 = 10;
// The most a sockaddr of either family takes (sockaddr_in6).
inline constexpr std::size_t kMaxSockaddr = 28;

// An address and port, in network byte order as Windows writes them
// (the first 4 bytes of addr for IPv4); port in host order.
struct Endpoint {
    bool ipv6 = false;
    std::array<std::uint8_t, 16> addr{};
    std::uint16_t port = 0;
};

// An AF_INET or AF_INET6 sockaddr; empty for another family or too few bytes.
std::optional<Endpoint> parse_sockaddr(std::span<const std::uint8_t> bytes);
// ::ffff:a.b.c.d (a dual-stack socket's IPv4 peer) as the IPv4 address.
bool is_v4_mapped(const Endpoint &e);
Endpoint unmapped(const Endpoint &e);
// Whether every address byte is zero (INADDR_ANY, in6addr_any).
bool is_wildcard(const Endpoint &e);

// struct msghdr's msg_name and msg_namelen (the first two fields), laid
// out for pointer_size (4 or 8).
struct MsgName {
    std::uint64_t name = 0;
    std::uint32_t namelen = 0;
};
std::size_t msghdr_size(std::uint32_t pointer_size);
// struct mmsghdr: a msghdr then msg_len, padded to the pointer's alignment.
std::size_t mmsghdr_size(std::uint32_t pointer_size);
std::optional<MsgName> parse_msg_name(std::span<const std::uint8_t> msghdr, std::uint32_t pointer_size);

} // namespace openetw::kernel
