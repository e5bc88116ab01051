// Windows part of proc_sockets.hpp: the Linux system logger does not run
// there (Windows has its own kernel logger).
#include "platform/proc_sockets.hpp"

namespace openetw::platform {

etw_status proc_udp_socket_ends(std::uint32_t, int, SocketEnds *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_user_bytes(std::uint32_t, std::uint64_t, std::size_t, std::vector<std::uint8_t> *) noexcept
{
    return ETW_ERROR_NOT_SUPPORTED;
}

} // namespace openetw::platform
