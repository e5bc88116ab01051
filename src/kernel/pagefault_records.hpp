// Page fault records: PageFault/TransitionFault .. AccessViolation
// (PageFault_TypeGroup1, MEMORY_PAGE_FAULTS) from x86's
// exceptions:page_fault_user and page_fault_kernel, the event type chosen
// from the fault's error code (docs/KERNEL_LOGGER.md has the table).
//
// Written with a SYSTEM_TRACE_HEADER naming the faulting thread and its
// process (the class's payload does not name them), HookIds 0x020A..0x020F,
// event version 2.
//
// PageFault/HardFault (PageFault_HardFault, MEMORY_HARD_FAULTS): a fault
// resolved by reading its page from a file, written at the fault's end by
// hard_faults.hpp (which pairs the Linux events that make it).
#pragma once

#include "kernel/kernel_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <optional>
#include <span>

namespace openetw::kernel {

inline constexpr std::uint16_t kPageFaultVersion = 2;

// The PageFault_TypeGroup1 event types.
enum class PageFaultType : std::uint8_t {
    TransitionFault = 10,
    DemandZeroFault = 11,
    CopyOnWrite = 12,
    GuardPageFault = 13,
    HardPageFault = 14,
    AccessViolation = 15,
};

struct PageFaultFields {
    std::uint64_t virtual_address = 0; // pointer-sized: the address touched
    std::uint64_t program_counter = 0; // pointer-sized: the instruction that touched it
};
Bytes page_fault_payload(const PageFaultFields &f, std::uint32_t pointer_size);
// SYSTEM header: header's thread_id and process_id are the faulting task's.
Bytes page_fault_record(PageFaultType type, HeaderFields header, const PageFaultFields &f, std::uint32_t pointer_size);

// PageFault_HardFault, event type 32: InitialTime (WmiTime, 8 bytes),
// ReadOffset (uint64), VirtualAddress, FileObject (pointers), TThreadId,
// ByteCount (uint32): 40 bytes in a 64-bit layout, 32 in a 32-bit one.
inline constexpr std::uint8_t kTypeHardFault = 32;
struct HardFaultFields {
    std::int64_t initial_time = 0;     // session clock: when the fault began
    std::uint64_t read_offset = 0;     // the file offset of the page the fault wanted
    std::uint64_t virtual_address = 0; // pointer-sized: the address touched
    std::uint64_t file_object = 0;     // pointer-sized: the file's key (FileIo_Name's FileObject)
    std::uint32_t thread_id = 0;       // the faulting thread
    std::uint32_t byte_count = 0;      // the bytes read into the page cache to satisfy it
};
Bytes hard_fault_payload(const HardFaultFields &f, std::uint32_t pointer_size);
// PERFINFO header (no thread in the header: TThreadId names it, as
// DiskIo's IssuingThreadId does), stamped at the fault's end.
Bytes hard_fault_record(std::int64_t timestamp, const HardFaultFields &f, std::uint32_t pointer_size);

// ---- Linux to Windows ----
// The event type of an x86 page fault error code (bit 0 present, 1 write,
// 3 reserved bit, 4 instruction fetch, 5 protection key): a page not
// present is a first touch (DemandZeroFault); a write to a present page
// is a write-protect fault (CopyOnWrite); any other fault on a present
// page, a fetch from a present page and a reserved-bit or key fault are
// refusals (AccessViolation).
PageFaultType page_fault_type(std::uint64_t error_code);

// The fields and type of a page_fault_user/_kernel sample (address, ip,
// error_code); empty when the sample lacks one.
struct PageFaultSample {
    PageFaultType type = PageFaultType::DemandZeroFault;
    PageFaultFields fields;
};
std::optional<PageFaultSample> page_fault_from_sample(const TracepointFormat &format,
                                                      std::span<const std::uint8_t> sample);

// The record of a page_fault_user/_kernel sample, stamped on the session's
// clock, its header naming the sample's thread and process; empty when the
// sample lacks a field.
Bytes page_fault_record_from_sample(const TracepointFormat &format, const TracepointSample &sample,
                                    const PerfClock &clock, std::uint32_t pointer_size);

} // namespace openetw::kernel
