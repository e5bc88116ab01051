#include "kernel/disk_requests.hpp"

namespace openetw::kernel {

namespace {

constexpr std::uint64_t kSectorBytes = 512; // the block layer's sector, whatever the disk's
// Requests whose completion never came (a device removed): forgotten past this many.
constexpr std::size_t kMaxPending = 1u << 16;

} // namespace

void DiskRequests::issue(const TracepointFormat &format, const TracepointSample &sample)
{
    const auto dev = format.u(sample.raw, "dev");
    const auto sector = format.u(sample.raw, "sector");
    const auto nr_sector = format.u(sample.raw, "nr_sector");
    if (!dev || !sector || !nr_sector)
        return;
    if (issued_.size() >= kMaxPending)
        issued_.clear();
    Issued i;
    i.time = sample.time;
    i.thread_id = sample.tid;
    i.bytes = std::uint32_t(*nr_sector * kSectorBytes);
    i.irp = next_irp_++;
    issued_[{std::uint32_t(*dev), *sector}] = i;
}

Bytes DiskRequests::complete(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                             std::uint32_t pointer_size)
{
    const auto dev = format.u(sample.raw, "dev");
    const auto sector = format.u(sample.raw, "sector");
    const auto nr_sector = format.u(sample.raw, "nr_sector");
    const auto rwbs = format.str(sample.raw, "rwbs");
    if (!dev || !sector || !nr_sector || !rwbs)
        return {};
    Issued issued;
    bool known = false;
    if (auto it = issued_.find({std::uint32_t(*dev), *sector}); it != issued_.end()) {
        issued = it->second;
        known = true;
        issued_.erase(it);
    }
    const auto op = disk_op_from_rwbs(*rwbs);
    if (!op || (*op != DiskOp::Read && *op != DiskOp::Write))
        return {};
    DiskIoFields d;
    d.disk_number = disk_number(disks_, std::uint32_t(*dev)).value_or(0xFFFFFFFFu);
    d.irp_flags = irp_flags_from_rwbs(*rwbs);
    // The request's size at issue (the completion's nr_sector is what this
    // completion finished, which a partial completion makes smaller).
    d.transfer_size = known ? issued.bytes : std::uint32_t(*nr_sector * kSectorBytes);
    d.byte_offset = std::int64_t(*sector * kSectorBytes);
    const std::int64_t done = clock.to_session(sample.time);
    if (known) {
        d.irp = issued.irp;
        d.issuing_thread_id = issued.thread_id;
        const std::int64_t began = clock.to_session(issued.time);
        d.high_res_response_time = done > began ? std::uint64_t(done - began) : 0;
    }
    return disk_io_record(*op, done, d, pointer_size);
}

} // namespace openetw::kernel
