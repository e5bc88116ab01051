#include "kernel/tracepoint_source.hpp"

#include "format/etl_layout.hpp"
#include "kernel/ftrace_page.hpp"
#include "kernel/profile_records.hpp"
#include "platform/tracefs.hpp"

#include <algorithm>
#include <cstring>

namespace openetw::kernel {

bool parse_tracepoint_sample(std::span<const std::uint8_t> r, bool with_callchain, TracepointSample *out,
                             std::vector<std::uint64_t> *frames)
{
    // header 8, pid+tid 8, time 8, cpu+res 8; the call chain; raw_size 4.
    std::size_t at = 32;
    if (r.size() < at || etl::rd_le<std::uint32_t>(r.data()) != platform::kPerfRecordSample)
        return false;
    frames->clear();
    if (with_callchain) {
        const auto chain = parse_callchain(r.subspan(at), frames);
        if (!chain)
            return false;
        at += *chain;
    }
    if (r.size() - at < 4)
        return false;
    const std::uint32_t raw_size = etl::rd_le<std::uint32_t>(r.data() + at);
    at += 4;
    if (r.size() - at < raw_size)
        return false;
    out->pid = etl::rd_le<std::uint32_t>(r.data() + 8);
    out->tid = etl::rd_le<std::uint32_t>(r.data() + 12);
    out->time = etl::rd_le<std::uint64_t>(r.data() + 16);
    out->cpu = etl::rd_le<std::uint32_t>(r.data() + 24);
    out->raw = r.subspan(at, raw_size);
    out->frames = *frames;
    return true;
}

bool parse_major_fault_sample(std::span<const std::uint8_t> r, bool with_callchain, TracepointSample *out,
                              std::vector<std::uint64_t> *frames)
{
    // header 8, pid+tid 8, time 8, addr 8, cpu+res 8; the call chain.
    constexpr std::size_t kFixed = 40;
    if (r.size() < kFixed || etl::rd_le<std::uint32_t>(r.data()) != platform::kPerfRecordSample)
        return false;
    frames->clear();
    if (with_callchain && !parse_callchain(r.subspan(kFixed), frames))
        return false;
    out->pid = etl::rd_le<std::uint32_t>(r.data() + 8);
    out->tid = etl::rd_le<std::uint32_t>(r.data() + 12);
    out->time = etl::rd_le<std::uint64_t>(r.data() + 16);
    out->addr = etl::rd_le<std::uint64_t>(r.data() + 24);
    out->cpu = etl::rd_le<std::uint32_t>(r.data() + 32);
    out->raw = {};
    out->frames = *frames;
    return true;
}

Status TracepointSource::open(const std::vector<TracepointName> &names, std::uint32_t data_pages)
{
    std::vector<TracepointFormat> formats;
    std::vector<std::unique_ptr<platform::PerfEventSet>> sets;
    std::vector<bool> opened, callchain, major;
    std::vector<std::pair<std::string, std::string>> by_ftrace;
    for (const TracepointName &n : names) {
        platform::PerfEventSpec spec;
        major.push_back(n.major_faults);
        if (n.major_faults) {
            spec.kind = platform::PerfEventSpec::Kind::MajorFaults;
            spec.sample_type = kMajorFaultSampleType | (n.callchain ? platform::kPerfSampleCallchain : 0);
            spec.data_pages = n.data_pages != 0 ? n.data_pages : data_pages;
            auto set = std::make_unique<platform::PerfEventSet>();
            if (Status s = set->open(spec); !s)
                return s;
            formats.emplace_back();
            sets.push_back(std::move(set));
            opened.push_back(true);
            callchain.push_back(n.callchain);
            continue;
        }
        spec.kind = platform::PerfEventSpec::Kind::Tracepoint;
        spec.sample_type = kTracepointSampleType | (n.callchain ? platform::kPerfSampleCallchain : 0);
        spec.data_pages = n.data_pages != 0 ? n.data_pages : data_pages;
        if (Status s = platform::tracepoint_id(n.system, n.name, &spec.tracepoint_id); !s) {
            if (!n.optional || s.code != ETW_ERROR_NOT_SUPPORTED)
                return s;
            formats.emplace_back();
            sets.emplace_back();
            opened.push_back(false);
            callchain.push_back(false);
            continue;
        }
        std::string text;
        if (Status s = platform::tracepoint_format_text(n.system, n.name, &text); !s)
            return s;
        TracepointFormat f;
        if (Status s = TracepointFormat::parse(text, &f); !s)
            return s;
        std::unique_ptr<platform::PerfEventSet> set;
        if (n.ftrace) {
            by_ftrace.push_back({n.system, n.name});
        } else {
            set = std::make_unique<platform::PerfEventSet>();
            if (Status s = set->open(spec); !s)
                return s;
        }
        formats.push_back(std::move(f));
        sets.push_back(std::move(set));
        opened.push_back(true);
        callchain.push_back(n.callchain && !n.ftrace);
    }
    std::unique_ptr<platform::TraceInstance> ftrace;
    if (!by_ftrace.empty()) {
        ftrace = std::make_unique<platform::TraceInstance>();
        // As much ring a processor as perf's: data_pages of 4 KB.
        if (Status s = ftrace->open("openetw", by_ftrace, data_pages * 4); !s)
            return s;
    }
    // Enabled together once all opened, so that a failure leaves nothing running.
    for (auto &set : sets)
        if (set)
            if (Status s = set->enable(); !s)
                return s;
    formats_ = std::move(formats);
    sets_ = std::move(sets);
    opened_ = std::move(opened);
    callchain_ = std::move(callchain);
    major_faults_ = std::move(major);
    ftrace_ = std::move(ftrace);
    ftrace_index_.clear();
    for (std::size_t i = 0; i < formats_.size(); ++i)
        if (opened_[i] && !sets_[i])
            ftrace_index_[formats_[i].id()] = i;
    return Status::ok();
}

Status TracepointSource::drain(const TracepointFn &each)
{
    struct Read {
        std::uint64_t time;
        std::size_t tracepoint;
        std::uint32_t cpu, pid, tid;
        std::vector<std::uint8_t> raw;
        std::vector<std::uint64_t> frames;
        std::uint64_t addr = 0;
    };
    std::vector<Read> batch;
    std::vector<std::uint64_t> frames;
    Status result = Status::ok();
    for (std::size_t i = 0; i < sets_.size(); ++i) {
        if (!sets_[i])
            continue;
        platform::PerfDrainCounts dc;
        Status s = sets_[i]->drain(
            [&](const platform::PerfRecord &r) {
                if (r.type != platform::kPerfRecordSample)
                    return; // LOST is counted by the ring reader; nothing else is asked for
                TracepointSample t;
                if (!(major_faults_[i] ? parse_major_fault_sample(r.bytes, callchain_[i], &t, &frames)
                                       : parse_tracepoint_sample(r.bytes, callchain_[i], &t, &frames))) {
                    ++malformed_;
                    return;
                }
                batch.push_back({t.time, i, t.cpu, t.pid, t.tid, std::vector<std::uint8_t>(t.raw.begin(), t.raw.end()),
                                 frames, t.addr});
            },
            &dc);
        lost_ += dc.lost;
        malformed_ += dc.malformed;
        if (!s && result)
            result = std::move(s);
    }
    if (ftrace_) {
        Status s = ftrace_->drain([&](std::uint32_t cpu, std::span<const std::uint8_t> page) {
            const FtracePageCounts c = parse_ftrace_page(
                page, ftrace_->page_header_size(), [&](std::uint64_t time, std::span<const std::uint8_t> raw) {
                    // common_type, then common_pid at 4: the format's own fields.
                    if (raw.size() < 8) {
                        ++malformed_;
                        return;
                    }
                    const std::uint32_t id = etl::rd_le<std::uint16_t>(raw.data());
                    const std::uint32_t pid = etl::rd_le<std::uint32_t>(raw.data() + 4);
                    if (const auto i = ftrace_index_.find(id); i != ftrace_index_.end())
                        batch.push_back(
                            {time, i->second, cpu, pid, pid, std::vector<std::uint8_t>(raw.begin(), raw.end()), {}});
                });
            lost_ += c.missed;
            malformed_ += c.malformed ? 1 : 0;
        });
        if (!s && result)
            result = std::move(s);
    }
    std::stable_sort(batch.begin(), batch.end(), [](const Read &a, const Read &b) { return a.time < b.time; });
    for (const Read &r : batch) {
        TracepointSample t;
        t.tracepoint = r.tracepoint;
        t.cpu = r.cpu;
        t.pid = r.pid;
        t.tid = r.tid;
        t.time = r.time;
        t.raw = r.raw;
        t.frames = r.frames;
        t.addr = r.addr;
        each(t);
    }
    return result;
}

void TracepointSource::disable() noexcept
{
    for (auto &set : sets_)
        if (set)
            (void)set->disable();
    if (ftrace_)
        ftrace_->disable();
}

} // namespace openetw::kernel
