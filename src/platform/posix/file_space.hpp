// Reserving the blocks of a file that is mapped shared (session regions,
// the registry) before any of its pages is touched: on a full file system
// (tmpfs, where any user can fill /dev/shm) a page that cannot be backed
// kills whoever touches it with SIGBUS, where a reservation fails with a
// status. POSIX only: region_posix.cpp and host_posix.cpp use it. Not on
// the event-writing path (a buffer is reserved once, as the pool grows).
#pragma once

#include <openetw/status.h>

#include <cstdint>

namespace openetw::platform {

// Reserves [offset, offset + len) of fd, growing the file if it ends
// before. A file system that cannot reserve without writing (no
// fallocate) sets *unreservable and reserves nothing: the caller writes
// zeros where nobody maps the file yet (write_file_zeros), or relies on
// its creator having done so. ETW_ERROR_DISK_FULL when there is no room
// (or the file would exceed a size limit), ETW_ERROR_NOT_ENOUGH_MEMORY when
// the kernel has no memory for it, ETW_ERROR_WRITE_FAULT for any other refusal.
etw_status reserve_file_space(int fd, std::uint64_t offset, std::uint64_t len, bool *unreservable) noexcept;
// Writes zeros over [offset, offset + len) with write(), never through a
// mapping (a page that cannot be backed is a status here). Statuses as above.
etw_status write_file_zeros(int fd, std::uint64_t offset, std::uint64_t len) noexcept;

} // namespace openetw::platform
