// System call records: PerfInfo/SysClEnter and SysClExit (SYSTEMCALL),
// from raw_syscalls:sys_enter and sys_exit, and the mapping of a Linux
// return value onto the NTSTATUS SysClExit carries (docs/KERNEL_LOGGER.md
// has the table).
//
// Windows logs both with a PERFINFO_TRACE_HEADER (no thread or process id:
// a reader attributes them to the thread CSwitch shows running on that
// processor), HookIds 0x0F33 and 0x0F34, event version 2.
#pragma once

#include "kernel/kernel_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <optional>
#include <span>

namespace openetw::kernel {

inline constexpr std::uint8_t kTypeSysCallEnter = 51;
inline constexpr std::uint8_t kTypeSysCallExit = 52;
inline constexpr std::uint16_t kSysCallVersion = 2;

// SysCallEnter: SysCallAddress (pointer-sized). Linux has no address here:
// the caller gives the system call's number (docs/KERNEL_LOGGER.md).
Bytes syscall_enter_payload(std::uint64_t syscall_address, std::uint32_t pointer_size);
Bytes syscall_enter_record(std::int64_t timestamp, std::uint64_t syscall_address, std::uint32_t pointer_size);

// SysCallExit: SysCallNtStatus (u32), the same 4 bytes in both layouts.
Bytes syscall_exit_payload(std::uint32_t nt_status);
Bytes syscall_exit_record(std::int64_t timestamp, std::uint32_t nt_status, std::uint32_t pointer_size);

// ---- Linux to Windows ----
// The NTSTATUS of a Linux system call's return value: STATUS_SUCCESS for
// 0 and every value that is not an error (a count, a descriptor, an
// address); -errno (-4095..-1, the kernel's error range) as the NT status
// of the same meaning where there is one, else 0xE0000000 | errno
// (severity error, the customer bit, the errno kept).
std::uint32_t nt_status_from_linux_return(std::int64_t ret);

// The system call number of a sys_enter sample (its id); empty when the
// sample lacks it.
std::optional<std::int64_t> syscall_number(const TracepointFormat &format, std::span<const std::uint8_t> sample);
// The return value of a sys_exit sample (its ret); empty when the sample lacks it.
std::optional<std::int64_t> syscall_return(const TracepointFormat &format, std::span<const std::uint8_t> sample);

// The records of a sys_enter / sys_exit sample, stamped on the session's
// clock; empty when the sample lacks its field.
Bytes syscall_enter_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                                std::uint32_t pointer_size);
Bytes syscall_exit_from_sample(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                               std::uint32_t pointer_size);

} // namespace openetw::kernel
