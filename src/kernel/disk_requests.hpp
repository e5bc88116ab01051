// Block requests followed from issue to completion (block:block_rq_issue,
// block:block_rq_complete) and written at completion as DiskIo/Read, Write
// or FlushBuffers, and at issue as ReadInit, WriteInit or FlushInit, as
// Windows does: TransferSize and ByteOffset of the request,
// IssuingThreadId from its issue, HighResResponseTime the session ticks
// from issue to completion, DiskNumber its disk's place in /sys/block
// (disk_records.hpp). Pure: the caller gives formats, samples and clock.
#pragma once

#include "kernel/disk_records.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tracepoint_format.hpp"
#include "kernel/tracepoint_source.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <utility>
#include <vector>

namespace openetw::kernel {

class DiskRequests {
public:
    explicit DiskRequests(std::vector<BlockDisk> disks) : disks_(std::move(disks)) {}

    // A block_rq_issue sample: remembered until its completion when
    // completions are followed (DISK_IO); with init (DISK_IO_INIT) its
    // DiskIo/ReadInit, WriteInit or FlushInit, of the Irp its completion
    // will carry (empty for discards and malformed samples).
    Bytes issue(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                std::uint32_t pointer_size, bool follow, bool init);
    // A block_rq_complete sample: its DiskIo/Read, Write or FlushBuffers;
    // empty for other operations (discards) and malformed samples.
    Bytes complete(const TracepointFormat &format, const TracepointSample &sample, const PerfClock &clock,
                   std::uint32_t pointer_size);
    std::size_t pending() const noexcept
    {
        std::size_t n = issued_.size();
        for (const auto &[dev, q] : flushes_)
            n += q.size();
        return n;
    }

private:
    struct Issued {
        std::uint64_t time = 0; // perf ns
        std::uint32_t thread_id = 0;
        std::uint32_t bytes = 0;
        std::uint64_t irp = 0;
    };
    std::vector<BlockDisk> disks_;
    std::map<std::pair<std::uint32_t, std::uint64_t>, Issued> issued_; // by (dev, sector)
    // Flushes carry no data, so no sector of their own to key them by:
    // each device's complete in the order they were issued.
    std::map<std::uint32_t, std::deque<Issued>> flushes_;
    std::uint64_t next_irp_ = 1;
};

} // namespace openetw::kernel
