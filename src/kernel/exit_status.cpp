#include "kernel/exit_status.hpp"

namespace openetw::kernel {

std::int32_t exit_status_from_exit_group(std::int64_t error_code) { return std::int32_t(error_code & 0xFF); }

std::int32_t exit_status_from_wait_status(std::int32_t wait_status)
{
    // The wait status layout (WIFEXITED, WTERMSIG...), by hand: src/kernel includes no OS header.
    const std::int32_t signal = wait_status & 0x7F;
    if (signal == 0)
        return (wait_status >> 8) & 0xFF;
    if (signal == 0x7F) // stopped, not ended: STILL_ACTIVE, as Windows gives a running process
        return 259;
    return 128 + signal;
}

} // namespace openetw::kernel
