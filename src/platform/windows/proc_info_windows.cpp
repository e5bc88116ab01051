// Windows part of proc_info.hpp: the system logger's Linux rundown does not
// run there (Windows has its own kernel logger), so nothing is read.
#include "platform/proc_info.hpp"

namespace openetw::platform {

etw_status proc_list_processes(std::vector<std::uint32_t> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_list_threads(std::uint32_t, std::vector<std::uint32_t> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_read_process(std::uint32_t, ProcProcess *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_read_thread(std::uint32_t, std::uint32_t, ProcTask *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status proc_read_mappings(std::uint32_t, std::vector<ProcMapping> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }
etw_status sys_block_disks(std::vector<SysBlockDisk> *) noexcept { return ETW_ERROR_NOT_SUPPORTED; }

} // namespace openetw::platform
