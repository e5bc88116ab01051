// Process/End's ExitStatus from what Linux says about an exit. Windows
// gives the value ExitProcess/TerminateProcess received (an NTSTATUS for
// crashes); Linux has an 8-bit exit code, or the signal that killed it.
#pragma once

#include <cstdint>

namespace openetw::kernel {

// From exit_group(2)'s argument (syscalls:sys_enter_exit_group's
// error_code): the code a parent sees, its low 8 bits.
std::int32_t exit_status_from_exit_group(std::int64_t error_code);

// From a wait status (waitpid's, or a task's exit_code): the exit code
// when the process exited; 128 + N when signal N killed it, as shells
// report it ($?), whether or not it dumped core; 259 (STILL_ACTIVE) for
// a stopped, not ended, status.
std::int32_t exit_status_from_wait_status(std::int32_t wait_status);

} // namespace openetw::kernel
