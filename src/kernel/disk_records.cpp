#include "kernel/disk_records.hpp"

#include "kernel/payload_bytes.hpp"

#include <algorithm>

namespace openetw::kernel {

namespace {

Bytes disk_record(DiskOp op, std::int64_t timestamp, std::uint32_t pointer_size, Bytes payload)
{
    return perfinfo_record(hook_id(kGroupDiskIo, std::uint8_t(op)), kDiskIoVersion, timestamp, pointer_size, payload);
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

} // namespace

Bytes disk_io_payload(const DiskIoFields &d, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u32(d.disk_number).u32(d.irp_flags).u32(d.transfer_size).u32(d.reserved);
    w.u64(std::uint64_t(d.byte_offset)).ptr(d.file_object).ptr(d.irp);
    w.u64(d.high_res_response_time).u32(d.issuing_thread_id);
    return w.take();
}

Bytes disk_io_record(DiskOp op, std::int64_t timestamp, const DiskIoFields &d, std::uint32_t pointer_size)
{
    if (op != DiskOp::Read && op != DiskOp::Write)
        return {};
    return disk_record(op, timestamp, pointer_size, disk_io_payload(d, pointer_size));
}

Bytes disk_io_init_payload(const DiskIoInitFields &d, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(d.irp).u32(d.issuing_thread_id);
    return w.take();
}

Bytes disk_io_init_record(DiskOp op, std::int64_t timestamp, const DiskIoInitFields &d, std::uint32_t pointer_size)
{
    if (op != DiskOp::ReadInit && op != DiskOp::WriteInit && op != DiskOp::FlushInit)
        return {};
    return disk_record(op, timestamp, pointer_size, disk_io_init_payload(d, pointer_size));
}

Bytes disk_flush_payload(const DiskFlushFields &d, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u32(d.disk_number).u32(d.irp_flags).u64(d.high_res_response_time).ptr(d.irp).u32(d.issuing_thread_id);
    return w.take();
}

Bytes disk_flush_record(std::int64_t timestamp, const DiskFlushFields &d, std::uint32_t pointer_size)
{
    return disk_record(DiskOp::FlushBuffers, timestamp, pointer_size, disk_flush_payload(d, pointer_size));
}

std::optional<DiskOp> disk_op_from_rwbs(std::string_view rwbs)
{
    // blk_fill_rwbs: an optional 'F' (preflush), then the operation
    // (W, R, F flush, D discard, DE secure erase, N other), then FUA 'F',
    // readahead 'A', sync 'S', meta 'M'.
    if (rwbs.empty())
        return std::nullopt;
    std::size_t i = 0;
    if (rwbs[0] == 'F' && rwbs.size() > 1 && (rwbs[1] == 'W' || rwbs[1] == 'R' || rwbs[1] == 'D' || rwbs[1] == 'N'))
        i = 1;
    switch (rwbs[i]) {
    case 'R':
        return DiskOp::Read;
    case 'W':
        return DiskOp::Write;
    case 'F':
        return DiskOp::FlushBuffers;
    default:
        return std::nullopt;
    }
}

std::uint32_t irp_flags_from_rwbs(std::string_view rwbs)
{
    std::uint32_t flags = 0;
    const auto op = disk_op_from_rwbs(rwbs);
    if (op == DiskOp::Read)
        flags |= kIrpReadOperation;
    else if (op == DiskOp::Write)
        flags |= kIrpWriteOperation;
    if (rwbs.find('S') != std::string_view::npos)
        flags |= kIrpSynchronousApi;
    return flags;
}

bool disk_name_less(std::string_view a, std::string_view b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = is_digit(a[i]), db = is_digit(b[j]);
        std::size_t ei = i, ej = j;
        while (ei < a.size() && is_digit(a[ei]) == da)
            ++ei;
        while (ej < b.size() && is_digit(b[ej]) == db)
            ++ej;
        std::string_view ra = a.substr(i, ei - i), rb = b.substr(j, ej - j);
        if (da != db)
            return da; // digits before letters
        if (da) {
            // As numbers: leading zeros dropped, then the longer is larger.
            while (ra.size() > 1 && ra[0] == '0')
                ra.remove_prefix(1);
            while (rb.size() > 1 && rb[0] == '0')
                rb.remove_prefix(1);
        }
        // Letter runs shorter first too: sdz before sdaa, as the kernel names them.
        if (ra.size() != rb.size())
            return ra.size() < rb.size();
        if (ra != rb)
            return ra < rb;
        i = ei;
        j = ej;
    }
    return a.size() - i < b.size() - j;
}

std::optional<std::uint32_t> disk_number(std::vector<BlockDisk> disks, std::uint32_t dev)
{
    std::sort(disks.begin(), disks.end(),
              [](const BlockDisk &x, const BlockDisk &y) { return disk_name_less(x.name, y.name); });
    for (std::size_t k = 0; k < disks.size(); ++k)
        if (kernel_dev(disks[k].major, disks[k].minor) == dev)
            return std::uint32_t(k);
    return std::nullopt;
}

} // namespace openetw::kernel
