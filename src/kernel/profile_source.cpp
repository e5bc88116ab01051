// The sampled profile's live source (profile_source.hpp).
#include "kernel/profile_source.hpp"

#include "kernel/profile_records.hpp"

#include <string>

namespace openetw::kernel {

namespace {

// Ring pages per processor: 100 ms between drains is 100 samples at the
// default interval (820 at the shortest), each 48 bytes, or up to
// 1.6 KB with a 192-frame chain.
std::uint32_t ring_pages(const ProfileOptions &o)
{
    const std::uint64_t per_drain = 100ull * 10000 / o.interval_100ns + 1;
    const std::uint64_t bytes = per_drain * (o.stacks ? 48 + 8 * (kMaxStackFrames + 2) : 48) * 2;
    std::uint32_t pages = 8;
    while (std::uint64_t(pages) * 4096 < bytes && pages < 1024)
        pages *= 2;
    return pages;
}

} // namespace

Status check_profile_interval(std::uint32_t interval_100ns)
{
    if (interval_100ns >= kMinProfileInterval && interval_100ns <= kMaxProfileInterval)
        return Status::ok();
    return Fail(ETW_ERROR_INVALID_PARAMETER,
                "the sampled profile interval " + std::to_string(interval_100ns) + " (100 ns units) is out of range: " +
                    std::to_string(kMinProfileInterval) + " to " + std::to_string(kMaxProfileInterval));
}

Status ProfileSource::open()
{
    const std::uint32_t iv = options_.interval_100ns;
    if (Status st = check_profile_interval(iv); !st)
        return st;
    platform::PerfEventSpec spec;
    spec.kind = platform::PerfEventSpec::Kind::CpuClock;
    spec.period_ns = std::uint64_t(iv) * 100u;
    spec.sample_type =
        platform::kPerfSampleIp | platform::kPerfSampleTid | platform::kPerfSampleTime | platform::kPerfSampleCpu;
    if (options_.stacks) {
        // The kernel's own limit (kernel.perf_event_max_stack, 127 by
        // default): asking for more than it allows fails with EOVERFLOW.
        spec.sample_type |= platform::kPerfSampleCallchain;
    }
    spec.data_pages = ring_pages(options_);
    if (Status st = events_.open(spec); !st)
        return st;
    return events_.enable();
}

Status ProfileSource::drain(const PerfClock &clock, const Sink &sink)
{
    const std::uint32_t ptr = options_.pointer_size;
    platform::PerfDrainCounts counts;
    Status st = events_.drain(
        [&](const platform::PerfRecord &r) {
            if (r.type != platform::kPerfRecordSample)
                return; // LOST ones are in counts
            const auto s = parse_profile_sample(r.bytes, options_.stacks);
            if (!s) {
                ++lost_;
                return;
            }
            const std::int64_t ts = clock.to_session(s->time);
            Bytes rec = sampled_profile_record(ts, s->ip, s->tid, ptr);
            if (rec.empty() || rec.size() > options_.max_record) {
                ++lost_;
                return;
            }
            sink(s->cpu, s->time, std::move(rec));
            if (!options_.stacks)
                return;
            if (Bytes stack = stack_walk_record_within(ts, {ts, s->pid, s->tid, s->frames}, ptr, options_.max_record);
                !stack.empty())
                sink(s->cpu, s->time, std::move(stack));
        },
        &counts);
    lost_ += counts.lost;
    return st;
}

} // namespace openetw::kernel
