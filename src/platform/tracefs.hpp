// The kernel's tracing file system (tracefs): where the system logger
// finds a tracepoint's id (for perf_event_open) and the format text that
// lays out its samples (kernel/tracepoint_format.hpp parses it).
//
// Linux mounts tracefs at /sys/kernel/tracing, and older systems under
// debugfs at /sys/kernel/debug/tracing. When neither holds it, it is
// mounted at /sys/kernel/tracing if the caller may (root). Nothing here is
// on the event-writing path; nothing throws.
// posix/tracefs_posix.cpp reads it; windows/tracefs_windows.cpp answers
// ETW_ERROR_NOT_SUPPORTED (Windows has its own kernel logger).
#pragma once

#include "base/status.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace openetw::platform {

// The folder of a mounted tracefs ("/sys/kernel/tracing"), mounting it
// when absent and permitted. ETW_ERROR_NOT_SUPPORTED when the kernel has
// none, ETW_ERROR_ACCESS_DENIED when it is not mounted and may not be.
Status tracefs_root(std::string *root);

// events/<system>/<name>/id: the tracepoint's id (perf_event_attr.config).
// ETW_ERROR_NOT_SUPPORTED naming the tracepoint when this kernel has none
// by that name; ETW_ERROR_ACCESS_DENIED when its files may not be read.
Status tracepoint_id(std::string_view system, std::string_view name, std::uint64_t *id);

// events/<system>/<name>/format: the text that lays out its samples.
Status tracepoint_format_text(std::string_view system, std::string_view name, std::string *text);

} // namespace openetw::platform
