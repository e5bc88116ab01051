#include "kernel/disk_requests.hpp"

namespace openetw::kernel {

namespace {

constexpr std::uint64_t kSectorBytes = 512; // the block layer's sector, whatever the disk's
// Requests whose completion never came (a device removed): forgotten past this many.
constexpr std::size_t kMaxPending = 1u << 16;

} // namespace

Bytes DiskRequests::issue(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                          std::uint32_t pointer_size, bool follow, bool init)
{
    const auto dev = format.u(sample.raw, "dev");
    const auto sector = format.u(sample.raw, "sector");
    const auto nr_sector = format.u(sample.raw, "nr_sector");
    const auto rwbs = format.str(sample.raw, "rwbs");
    if (!dev || !sector || !nr_sector || !rwbs)
        return {};
    const auto op = disk_op_from_rwbs(*rwbs);
    Issued i;
    i.time = sample.time;
    i.thread_id = sample.tid;
    i.bytes = std::uint32_t(*nr_sector * kSectorBytes);
    i.irp = next_irp_++;
    if (follow && op == DiskOp::FlushBuffers) {
        std::deque<Issued> &q = flushes_[std::uint32_t(*dev)];
        if (q.size() >= kMaxPending)
            q.clear();
        q.push_back(i);
    } else if (follow) {
        if (issued_.size() >= kMaxPending)
            issued_.clear();
        issued_[{std::uint32_t(*dev), *sector}] = i;
    }
    if (!init || !op)
        return {};
    const DiskOp init_op = *op == DiskOp::Read    ? DiskOp::ReadInit
                           : *op == DiskOp::Write ? DiskOp::WriteInit
                                                  : DiskOp::FlushInit;
    return disk_io_init_record(init_op, clock.to_session(sample.time), {i.irp, sample.tid}, pointer_size);
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
    const auto op = disk_op_from_rwbs(*rwbs);
    Issued issued;
    bool known = false;
    if (op == DiskOp::FlushBuffers) {
        if (auto q = flushes_.find(std::uint32_t(*dev)); q != flushes_.end() && !q->second.empty()) {
            issued = q->second.front();
            known = true;
            q->second.pop_front();
        }
    } else if (auto it = issued_.find({std::uint32_t(*dev), *sector}); it != issued_.end()) {
        issued = it->second;
        known = true;
        issued_.erase(it);
    }
    if (!op)
        return {};
    const std::int64_t done = clock.to_session(sample.time);
    if (*op == DiskOp::FlushBuffers) {
        DiskFlushFields f;
        f.disk_number = disk_number(disks_, std::uint32_t(*dev)).value_or(0xFFFFFFFFu);
        f.irp_flags = irp_flags_from_rwbs(*rwbs);
        if (known) {
            f.irp = issued.irp;
            f.issuing_thread_id = issued.thread_id;
            const std::int64_t began = clock.to_session(issued.time);
            f.high_res_response_time = done > began ? std::uint64_t(done - began) : 0;
        }
        return disk_flush_record(done, f, pointer_size);
    }
    DiskIoFields d;
    d.disk_number = disk_number(disks_, std::uint32_t(*dev)).value_or(0xFFFFFFFFu);
    d.irp_flags = irp_flags_from_rwbs(*rwbs);
    // The request's size at issue (the completion's nr_sector is what this
    // completion finished, which a partial completion makes smaller).
    d.transfer_size = known ? issued.bytes : std::uint32_t(*nr_sector * kSectorBytes);
    d.byte_offset = std::int64_t(*sector * kSectorBytes);
    if (known) {
        d.irp = issued.irp;
        d.issuing_thread_id = issued.thread_id;
        const std::int64_t began = clock.to_session(issued.time);
        d.high_res_response_time = done > began ? std::uint64_t(done - began) : 0;
    }
    return disk_io_record(*op, done, d, pointer_size);
}

} // namespace openetw::kernel
