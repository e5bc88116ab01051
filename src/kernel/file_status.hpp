// The NTSTATUS a FileIo/OperationEnd carries for a Linux file system
// call's result: the statuses Windows' file systems complete these
// requests with where the errno has a file meaning (docs/KERNEL_LOGGER.md,
// "File I/O", has the table), else the general mapping of
// syscall_records.hpp (nt_status_from_linux_return).
#pragma once

#include <cstdint>

namespace openetw::kernel {

std::uint32_t file_nt_status(std::int64_t ret);

} // namespace openetw::kernel
