// The system logger's EnableFlags (EVENT_TRACE_FLAG_*, ETW_FLAG_* in
// <openetw/constants.h>): one row per documented flag with its names, the
// Linux source the logger takes its events from and the Windows class it
// writes; and the parsing of flag lists ("process,thread,image_load" or a
// number) into a mask and back. docs/KERNEL_LOGGER.md is this table's
// human form (tests/kernel checks that they agree). Constant data, no state.
#pragma once

#include "base/status.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace openetw::kernel {

struct KernelFlag {
    std::uint32_t value;
    const char *doc_name;      // EVENT_TRACE_FLAG_PROCESS
    const char *name;          // process: the name flag lists use
    const char *xperf_name;    // PROC_THREAD, or "" where xperf has no group for it alone
    const char *linux_source;  // where the events come from on Linux, or "none: ..." and why
    const char *windows_class; // the class (group) and event types written
};

// Every documented flag, in value order.
std::span<const KernelFlag> kernel_flags();

// The row of one flag value, or null.
const KernelFlag *find_kernel_flag(std::uint32_t value);

// Parses a flag list: names separated by ',' '+' or '|' (spaces around them
// allowed), each a flag's name ("image_load"), its documented name
// ("EVENT_TRACE_FLAG_IMAGE_LOAD") or an xperf group ("PROC_THREAD",
// "LOADER"), any case; or a number (decimal or 0x hex) for a mask as is.
// An empty list or an unknown name fails with ETW_ERROR_INVALID_PARAMETER
// and a sentence naming it.
Status parse_kernel_flags(std::string_view text, std::uint32_t *mask);

// The flag names of mask joined by ',' in value order; bits no flag
// documents are appended as one hex number ("process,0x8000000"); "0" for 0.
std::string format_kernel_flags(std::uint32_t mask);

} // namespace openetw::kernel
