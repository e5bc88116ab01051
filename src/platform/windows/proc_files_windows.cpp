// Windows part of proc_files.hpp: the Linux system logger does not run
// there (Windows has its own kernel logger).
#include "platform/proc_files.hpp"

namespace openetw::platform {

etw_status proc_fd_file(std::uint32_t, int, ProcFdFile *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_dir_path(std::uint32_t, int, std::string *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_user_string(std::uint32_t, std::uint64_t, std::size_t, std::string *) noexcept
{
    return ETW_ERROR_NOT_SUPPORTED;
}
bool proc_exists(std::uint32_t) noexcept { return false; }
OpenFlagBits open_flag_bits() noexcept { return {0100, 0200, 01000, 010000, 040000, 0200000}; }

} // namespace openetw::platform
