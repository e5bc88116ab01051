// SampledProfile and StackWalk records, and the processor clock's perf
// samples they come from (profile_records.hpp).
#include "kernel/profile_records.hpp"

#include "format/etl_layout.hpp"
#include "kernel/payload_bytes.hpp"
#include "platform/perf_events.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::kernel {

using etl::rd32;
using etl::rd64;

Bytes sampled_profile_payload(std::uint64_t instruction_pointer, std::uint32_t thread_id, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.ptr(instruction_pointer).u32(thread_id).u16(1).u16(0);
    return w.take();
}

Bytes sampled_profile_record(std::int64_t timestamp, std::uint64_t instruction_pointer, std::uint32_t thread_id,
                             std::uint32_t pointer_size)
{
    return perfinfo_record(hook_id(kGroupPerfInfo, kTypeSampledProfile), kSampledProfileVersion, timestamp,
                           pointer_size, sampled_profile_payload(instruction_pointer, thread_id, pointer_size));
}

Bytes stack_walk_payload(const StackFields &s, std::uint32_t pointer_size)
{
    PayloadBytes w(pointer_size);
    w.u64(std::uint64_t(s.event_timestamp)).u32(s.process_id).u32(s.thread_id);
    const std::size_t n = std::min(s.frames.size(), kMaxStackFrames);
    for (std::size_t i = 0; i < n; ++i)
        w.ptr(s.frames[i]);
    return w.take();
}

Bytes stack_walk_record(std::int64_t timestamp, const StackFields &s, std::uint32_t pointer_size)
{
    return perfinfo_record(hook_id(kGroupStackWalk, kTypeStackWalk), kStackWalkVersion, timestamp, pointer_size,
                           stack_walk_payload(s, pointer_size));
}

std::optional<ProfileSample> parse_profile_sample(std::span<const std::uint8_t> r, bool with_callchain)
{
    // header (8), ip, pid/tid, time, cpu/res: 40 bytes; then nr and the chain.
    if (r.size() < 40 || rd32(r.data()) != platform::kPerfRecordSample)
        return std::nullopt;
    ProfileSample s;
    s.ip = rd64(r.data() + 8);
    s.pid = rd32(r.data() + 16);
    s.tid = rd32(r.data() + 20);
    s.time = rd64(r.data() + 24);
    s.cpu = rd32(r.data() + 32);
    if (!with_callchain)
        return s;
    if (!parse_callchain(r.subspan(40), &s.frames))
        return std::nullopt;
    return s;
}

std::optional<std::size_t> parse_callchain(std::span<const std::uint8_t> at, std::vector<std::uint64_t> *frames)
{
    if (at.size() < 8)
        return std::nullopt;
    const std::uint64_t nr = rd64(at.data());
    if (nr > (at.size() - 8) / 8)
        return std::nullopt;
    for (std::uint64_t i = 0; i < nr; ++i)
        if (const std::uint64_t a = rd64(at.data() + 8 + 8 * i); a < platform::kPerfContextMax)
            frames->push_back(a);
    return std::size_t(8 + 8 * nr);
}

Bytes stack_walk_record_within(std::int64_t timestamp, StackFields s, std::uint32_t pointer_size,
                               std::size_t max_record)
{
    // A PERFINFO header (0x10) and EventTimeStamp, StackProcess, StackThread (16).
    constexpr std::size_t kFixed = 0x10 + 16;
    if (s.frames.empty() || max_record < kFixed + pointer_size)
        return {};
    const std::size_t room = (max_record - kFixed) / pointer_size;
    if (s.frames.size() > room)
        s.frames.resize(room);
    return stack_walk_record(timestamp, s, pointer_size);
}

} // namespace openetw::kernel
