// Windows part of machine_config.hpp: Windows' own kernel logger writes
// SystemConfig there, so the Linux description is not read.
#include "platform/machine_config.hpp"

namespace openetw::platform {

etw_status machine_summary(MachineSummary *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status sys_block_disk_detail(const std::string &, BlockDiskDetail *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status mounted_filesystems(std::vector<MountedFilesystem> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status filesystem_space(const std::string &, FilesystemSpace *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status network_interfaces(std::vector<NetworkInterface> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status dns_servers(std::vector<std::string> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }

} // namespace openetw::platform
