#include "host/orphan_recovery.hpp"

#include "engine/buffer_pool.hpp"
#include "engine/owned_buffers.hpp"
#include "engine/remote_writers.hpp"
#include "engine/session_clock.hpp"
#include "format/buffer_repair.hpp"
#include "format/etl_layout.hpp"
#include "format/etl_writer.hpp"
#include "platform/region.hpp"

#include <openetw/constants.h>

#include <algorithm>

namespace openetw::host {

using engine::BufferPool;
using engine::ControlBlock;
using engine::OwnedBuffers;
using engine::quiesce_writers;
using engine::session_clock_now;

namespace {
constexpr std::int64_t kWriterWaitMs = 2000; // live writers of other processes finishing their event
} // namespace

Status collect_region(const std::string &region_path, std::uint32_t clock_type, std::uint16_t logger_id,
                      RegionLeftovers *out)
{
    platform::Region region;
    if (etw_status st = platform::shared_region_open(&region, region_path); st != ETW_OK)
        return Fail(st, st == ETW_ERROR_ACCESS_DENIED
                            ? "the session's region \"" + region_path + "\" is not ours to open"
                            : "the session's region \"" + region_path + "\" is gone");
    BufferPool pool;
    if (pool.attach(region) != ETW_OK)
        return Fail(ETW_ERROR_INVALID_DATA, "\"" + region_path + "\" is not a session region of this version");
    ControlBlock &cb = pool.control();
    // Writers of other processes still attached: no new event from now on.
    cb.closing.store(1, std::memory_order_seq_cst);
    quiesce_writers(cb, kWriterWaitMs);
    OwnedBuffers::quiesce_owners(cb, 0, kWriterWaitMs); // (the host's own owners died with it)
    const std::uint32_t bs = pool.buffer_size();
    std::uint64_t lost = cb.events_lost.load(std::memory_order_acquire);
    struct Found {
        std::int64_t first_time;
        std::vector<std::uint8_t> bytes;
    };
    std::vector<Found> found;
    const std::uint32_t n = pool.allocated();
    for (std::uint32_t i = 0; i < n; ++i) {
        std::uint8_t *b = pool.buffer(i);
        // A free buffer's state says no events (BufferPool::release).
        const std::uint64_t state = pool.desc(i).state.load(std::memory_order_acquire);
        if (BufferPool::events_of(state) == 0)
            continue;
        std::vector<std::uint8_t> copy(b, b + bs);
        const etl::RepairResult r = etl::repair_buffer(copy.data(), BufferPool::offset_of(state), bs);
        const std::uint32_t events = BufferPool::events_of(state);
        const std::uint64_t seq = etl::rd64(copy.data() + etl::buf::SequenceNumber);
        if (r.kept == 0 && seq == 0)
            continue;
        if (events > r.kept && seq == 0) {
            // Reserved but never finished (its writer died): counted, not kept.
            lost += events - r.kept;
            out->records_skipped += events - r.kept;
        }
        if (r.kept == 0)
            continue;
        std::uint32_t stream = pool.desc(i).stream.load(std::memory_order_relaxed);
        if (stream >= pool.streams())
            stream = 0;
        etl::BufferHeaderFields h;
        h.buffer_size = bs;
        h.filled = r.filled;
        h.timestamp = session_clock_now(clock_type, cb.cycle_hz != 0); // as its writers stamped
        h.sequence = seq;
        h.processor_index = std::uint16_t(stream);
        h.logger_id = logger_id;
        etl::write_buffer_header(copy.data(), h);
        etl::fill_buffer_tail(copy.data(), r.filled, bs);
        const std::int64_t first = std::int64_t(etl::rd64(copy.data() + etl::kBufferHeaderSize + 16));
        found.push_back({first, std::move(copy)});
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const Found &a, const Found &b) { return a.first_time < b.first_time; });
    for (Found &f : found)
        out->buffers.push_back(std::move(f.bytes));
    out->events_lost = std::uint32_t(std::min<std::uint64_t>(lost, 0xFFFFFFFFu));
    return Status::ok();
}

} // namespace openetw::host
