// The calling thread's user stack, for the events that carry it
// (EVENT_ENABLE_PROPERTY_STACK_TRACE): return addresses, innermost first.
//
// Rules: called on the event-writing path, so it neither allocates nor
// takes a lock of its own. POSIX walks with libgcc's unwinder
// (_Unwind_Backtrace over .eh_frame, which every x86-64 and AArch64 object
// keeps, frame pointers or not); it finds a frame's unwind table through
// glibc's _dl_find_object (glibc 2.35+ with GCC 12+ libgcc: no lock, no
// allocation), older pairs through dl_iterate_phdr, which takes the
// loader's lock for the lookup. Windows: RtlCaptureStackBackTrace.
// posix/stack_capture_posix.cpp and windows/stack_capture_windows.cpp.
#pragma once

#include <cstdint>

namespace openetw::platform {

// Writes up to capacity return addresses of the calling thread's stack to
// frames, innermost first, leaving out capture_stack itself and the skip
// frames of its callers below it; deeper frames past capacity are left out
// (Windows cuts a stack at its bottom too). Returns how many it wrote.
std::uint32_t capture_stack(std::uint64_t *frames, std::uint32_t capacity, std::uint32_t skip) noexcept;

// Runs one capture, so that the unwinder's one-time set-up (lazy binding,
// the first lookup) happens here, off the writers' path. Any thread, any time.
void prepare_stack_capture() noexcept;

} // namespace openetw::platform
