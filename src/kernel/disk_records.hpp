// Disk I/O records: DiskIo/Read, Write (from block:block_rq_complete),
// ReadInit, WriteInit, FlushInit (block:block_rq_insert/issue, for
// DISK_IO_INIT) and FlushBuffers, with the request's facts mapped onto
// Windows' (IrpFlags from rwbs, DiskNumber from the device number).
//
// Windows logs them with a PERFINFO_TRACE_HEADER (completions run where
// no issuing thread is current, so the payload names it: IssuingThreadId),
// group 0x01, event version 3 (the classes with IssuingThreadId).
#pragma once

#include "kernel/kernel_records.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openetw::kernel {

inline constexpr std::uint16_t kDiskIoVersion = 3;

enum class DiskOp : std::uint8_t {
    Read = 10,
    Write = 11,
    ReadInit = 12,
    WriteInit = 13,
    FlushBuffers = 14,
    FlushInit = 15,
};

// IRP flags the records carry (wdm.h).
inline constexpr std::uint32_t kIrpNoCache = 0x1;
inline constexpr std::uint32_t kIrpSynchronousApi = 0x4;
inline constexpr std::uint32_t kIrpReadOperation = 0x100;
inline constexpr std::uint32_t kIrpWriteOperation = 0x200;

// ---- DiskIo_TypeGroup1 (Read, Write) ----
struct DiskIoFields {
    std::uint32_t disk_number = 0;
    std::uint32_t irp_flags = 0;
    std::uint32_t transfer_size = 0;
    std::uint32_t reserved = 0;
    std::int64_t byte_offset = 0;
    std::uint64_t file_object = 0;            // pointer-sized
    std::uint64_t irp = 0;                    // pointer-sized: identifies the request
    std::uint64_t high_res_response_time = 0; // clock ticks from issue to completion
    std::uint32_t issuing_thread_id = 0;
};
Bytes disk_io_payload(const DiskIoFields &d, std::uint32_t pointer_size);
// op: Read or Write (else empty).
Bytes disk_io_record(DiskOp op, std::int64_t timestamp, const DiskIoFields &d, std::uint32_t pointer_size);

// ---- DiskIo_TypeGroup2 (ReadInit, WriteInit, FlushInit) ----
struct DiskIoInitFields {
    std::uint64_t irp = 0; // pointer-sized
    std::uint32_t issuing_thread_id = 0;
};
Bytes disk_io_init_payload(const DiskIoInitFields &d, std::uint32_t pointer_size);
// op: ReadInit, WriteInit or FlushInit (else empty).
Bytes disk_io_init_record(DiskOp op, std::int64_t timestamp, const DiskIoInitFields &d, std::uint32_t pointer_size);

// ---- DiskIo_TypeGroup3 (FlushBuffers) ----
struct DiskFlushFields {
    std::uint32_t disk_number = 0;
    std::uint32_t irp_flags = 0;
    std::uint64_t high_res_response_time = 0;
    std::uint64_t irp = 0; // pointer-sized
    std::uint32_t issuing_thread_id = 0;
};
Bytes disk_flush_payload(const DiskFlushFields &d, std::uint32_t pointer_size);
Bytes disk_flush_record(std::int64_t timestamp, const DiskFlushFields &d, std::uint32_t pointer_size);

// ---- Linux to Windows ----
// What a block request's rwbs text ("WS", "R", "FWFS", "F") asks:
// Read or Write; FlushBuffers for a flush alone; empty for discards and
// others Windows' DiskIo does not describe. Init ops are the caller's.
std::optional<DiskOp> disk_op_from_rwbs(std::string_view rwbs);
// IrpFlags for a request: its operation, IRP_SYNCHRONOUS_API when synchronous ('S').
std::uint32_t irp_flags_from_rwbs(std::string_view rwbs);

// A whole disk of /sys/block: its name and device number.
struct BlockDisk {
    std::string name; // "sda", "nvme0n1"
    std::uint32_t major = 0;
    std::uint32_t minor = 0;
};
// The block tracepoints' dev_t (the kernel's major << 20 | minor).
constexpr std::uint32_t kernel_dev(std::uint32_t major, std::uint32_t minor) { return major << 20 | minor; }
// Windows numbers physical disks 0, 1, 2...; here a disk's number is its
// place among the whole disks of /sys/block ordered by name, digit runs
// compared as numbers, letter runs shorter first then alphabetically
// (sda < sdb < sdz < sdaa, nvme0n1 < nvme0n2 < nvme0n10 < nvme1n1). Empty
// for a device that is not one of them.
std::optional<std::uint32_t> disk_number(std::vector<BlockDisk> disks, std::uint32_t kernel_dev);
// The ordering itself (exposed for tests and the rundown).
bool disk_name_less(std::string_view a, std::string_view b);

} // namespace openetw::kernel
