// The ring reader of perf_events.hpp, over plain memory: the POSIX file
// gives it a mapped ring, the tests a hand-built one.
#include "platform/perf_events.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::platform {

namespace {

std::uint16_t rd16(const std::uint8_t *p)
{
    std::uint16_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::uint32_t rd32(const std::uint8_t *p)
{
    std::uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

std::uint64_t rd64(const std::uint8_t *p)
{
    std::uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

} // namespace

std::uint64_t perf_ring_read(const std::uint8_t *data, std::uint64_t size, std::uint64_t tail, std::uint64_t head,
                             std::uint32_t cpu, std::vector<std::uint8_t> &scratch, const PerfRecordFn &each,
                             PerfDrainCounts *counts)
{
    const std::uint64_t mask = size - 1;
    std::uint8_t header[8];
    while (tail < head) {
        // The kernel keeps records 8-byte aligned, but a reader must not
        // trust that to find a header whole: copy it out byte-safe.
        const std::uint64_t at = tail & mask;
        const std::uint64_t first = std::min<std::uint64_t>(8, size - at);
        std::memcpy(header, data + at, first);
        std::memcpy(header + first, data, 8 - first);
        const std::uint32_t type = rd32(header);
        const std::uint16_t misc = rd16(header + 4);
        const std::uint16_t rsize = rd16(header + 6);
        if (rsize < 8 || rsize > head - tail) {
            if (counts)
                ++counts->malformed;
            return tail;
        }
        std::span<const std::uint8_t> bytes;
        if (at + rsize <= size) {
            bytes = {data + at, rsize};
        } else {
            // Wrapped: the end of the ring, then its start.
            scratch.resize(rsize);
            const std::size_t part = std::size_t(size - at);
            std::memcpy(scratch.data(), data + at, part);
            std::memcpy(scratch.data() + part, data, rsize - part);
            bytes = {scratch.data(), rsize};
        }
        if (counts) {
            ++counts->records;
            counts->bytes += rsize;
            if (type == kPerfRecordLost && rsize >= 24)
                counts->lost += rd64(bytes.data() + 16); // {header, u64 id, u64 lost}
        }
        PerfRecord r;
        r.type = type;
        r.misc = misc;
        r.cpu = cpu;
        r.bytes = bytes;
        each(r);
        tail += rsize;
    }
    return tail;
}

} // namespace openetw::platform
