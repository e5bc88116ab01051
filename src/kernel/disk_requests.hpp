// Block requests followed from issue to completion (block:block_rq_issue,
// block:block_rq_complete) and written at completion as DiskIo/Read or
// Write, as Windows does: TransferSize and ByteOffset of the request,
// IssuingThreadId from its issue, HighResResponseTime the session ticks
// from issue to completion, DiskNumber its disk's place in /sys/block
// (disk_records.hpp). Pure: the caller gives formats, samples and clock.
#pragma once

#include "kernel/disk_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace openetw::kernel {

class DiskRequests {
public:
    explicit DiskRequests(std::vector<BlockDisk> disks) : disks_(std::move(disks)) {}

    // A block_rq_issue sample: remembered until its completion.
    void issue(const TracepointFormat &format, const TracepointSample &sample);
    // A block_rq_complete sample: its DiskIo/Read or Write; empty for other
    // operations (flushes, discards) and malformed samples.
    Bytes complete(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                   std::uint32_t pointer_size);
    std::size_t pending() const noexcept { return issued_.size(); }

private:
    struct Issued {
        std::uint64_t time = 0; // perf ns
        std::uint32_t thread_id = 0;
        std::uint32_t bytes = 0;
        std::uint64_t irp = 0;
    };
    std::vector<BlockDisk> disks_;
    std::map<std::pair<std::uint32_t, std::uint64_t>, Issued> issued_; // by (dev, sector)
    std::uint64_t next_irp_ = 1;
};

} // namespace openetw::kernel
