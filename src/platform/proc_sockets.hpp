// What the system says about a process's UDP sockets and the socket
// addresses it passed to the kernel (Linux: pidfd_getfd, getsockname,
// getpeername and process_vm_readv): the system logger's UdpIp records
// take their addresses and ports from them (kernel/udp_datagrams.hpp).
// Read after the fact (the next drain), so a socket closed or a process
// ended meanwhile gives ETW_ERROR_NOT_FOUND. Nothing throws.
// posix/proc_sockets_posix.cpp reads them; windows/ answers NOT_SUPPORTED.
#pragma once

#include <openetw/status.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openetw::platform {

// The two ends of a socket as the kernel gives them (struct sockaddr
// bytes): local from getsockname, peer from getpeername (empty when the
// socket is not connected).
struct SocketEnds {
    std::vector<std::uint8_t> local;
    std::vector<std::uint8_t> peer;
};
// The ends of pid's descriptor fd, read through a duplicate of it
// (pidfd_getfd, Linux 5.6: no file of this process's own is opened).
// ETW_ERROR_NOT_FOUND when fd is no UDP socket (or is gone).
etw_status proc_udp_socket_ends(std::uint32_t pid, int fd, SocketEnds *out) noexcept;
// size bytes of pid's memory at address.
etw_status proc_user_bytes(std::uint32_t pid, std::uint64_t address, std::size_t size,
                           std::vector<std::uint8_t> *out) noexcept;

} // namespace openetw::platform
