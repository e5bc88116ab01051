// The workloads and their statistics, shared by the three benchmark
// programs so that every implementation is measured by the same loop: the
// write-cost loop (clean-batch percentiles and CPU time per event), the
// paced loop, the stream figures, and the team of threads they run on.
#pragma once

#include "common.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

#include <sys/resource.h>

namespace bench {

// ---------------------------------------------------------------- statistics

struct Percentiles {
    double p50 = 0, p99 = 0, p999 = 0, max = 0, mean = 0;
};

// Percentiles of v (sorted in place), nearest-rank.
inline Percentiles percentiles(std::vector<double> &v)
{
    Percentiles p;
    if (v.empty())
        return p;
    std::sort(v.begin(), v.end());
    auto at = [&](double q) {
        std::size_t i = std::size_t(std::ceil(q * double(v.size())));
        if (i > 0)
            --i;
        return v[std::min(i, v.size() - 1)];
    };
    p.p50 = at(0.50);
    p.p99 = at(0.99);
    p.p999 = at(0.999);
    p.max = v.back();
    double s = 0;
    for (double x : v)
        s += x;
    p.mean = s / double(v.size());
    return p;
}

// ---------------------------------------------------------------- threads

// Starts n threads running body(i) and releases them together.
class Team {
public:
    template <class Body>
    void run(unsigned n, Body body)
    {
        std::atomic<unsigned> ready{0};
        std::atomic<bool> go{false};
        std::vector<std::thread> ts;
        for (unsigned i = 0; i < n; ++i)
            ts.emplace_back([&, i] {
                ready.fetch_add(1);
                while (!go.load(std::memory_order_acquire))
                    ;
                body(i);
            });
        while (ready.load() != n)
            std::this_thread::yield();
        start_ns = now_ns();
        go.store(true, std::memory_order_release);
        for (auto &t : ts)
            t.join();
        end_ns = now_ns();
    }
    std::int64_t start_ns = 0, end_ns = 0;
};

// The raw counts of one stream run (throughput or paced) and the figures all
// three implementations report from them; each adds its own extras after.
struct StreamCounts {
    std::uint64_t offered = 0, recorded = 0, lost = 0, file_bytes = 0, buffer_bytes = 0;
    std::int64_t start_ns = 0;       // first event
    std::int64_t team_end_ns = 0;    // every writer thread joined
    std::int64_t writers_end_ns = 0; // last event offered (team_end_ns unless told apart)
    std::int64_t end_ns = 0;         // the stop returned: every recorded event is in the file
    std::int64_t logger_cpu_ns = 0, writer_cpu_ns = 0;
};

inline Json stream_figures(const StreamCounts &c)
{
    // Rates over the whole run, from the first event to the stop's return;
    // the rate while writing is kept too.
    const double secs = double(c.end_ns - c.start_ns) / 1e9;
    const double wsecs = double(c.team_end_ns - c.start_ns) / 1e9;
    const double offer_secs = double(c.writers_end_ns - c.start_ns) / 1e9;
    const auto per = [](double v, std::uint64_t n) { return n ? v / double(n) : 0.0; };
    Json j;
    j.integer("offered", c.offered)
        .integer("recorded", c.recorded)
        .integer("lost", c.lost)
        .num("lost_fraction", per(double(c.lost), c.offered))
        .num("seconds", secs)
        .num("writer_seconds", offer_secs)
        .num("events_per_s", double(c.recorded) / secs)
        .num("events_per_s_while_writing", double(c.recorded) / wsecs)
        .num("offered_per_s", double(c.offered) / offer_secs)
        .num("bytes_per_s", double(c.file_bytes) / secs)
        .integer("file_bytes", c.file_bytes)
        .num("bytes_per_event", per(double(c.file_bytes), c.recorded))
        .num("logger_cpu_ns_per_event", per(double(c.logger_cpu_ns), c.recorded))
        .num("writer_cpu_ns_per_event", per(double(c.writer_cpu_ns), c.offered))
        .integer("buffer_bytes", c.buffer_bytes);
    return j;
}

// The counts of a stream run whose writers were `team` (the last event
// offered when it joined), on a pool of the arguments' buffer bytes: of
// `offered` events `lost` were lost, the rest are recorded in `bytes`.
inline StreamCounts team_stream_counts(const Args &a, const Team &team, std::int64_t end_ns, std::uint64_t offered,
                                       std::uint64_t lost, std::uint64_t bytes, std::int64_t logger_cpu_ns,
                                       std::int64_t writer_cpu_ns)
{
    StreamCounts c;
    c.offered = offered;
    c.recorded = offered - std::min(offered, lost);
    c.lost = lost;
    c.file_bytes = bytes;
    c.buffer_bytes = std::uint64_t(a.num("buffer-kb", 64)) * 1024 * a.num("buffers-per-cpu", 16) * cpu_count();
    c.start_ns = team.start_ns;
    c.team_end_ns = c.writers_end_ns = team.end_ns;
    c.end_ns = end_ns;
    c.logger_cpu_ns = logger_cpu_ns;
    c.writer_cpu_ns = writer_cpu_ns;
    return c;
}

// The figures of a start/stop run: median and worst of each latency.
inline Json startstop_figures(std::vector<double> &start_us, std::vector<double> &stop_us, unsigned iterations)
{
    const Percentiles s = percentiles(start_us), p = percentiles(stop_us);
    Json j;
    j.num("start_us", s.p50)
        .num("stop_us", p.p50)
        .num("start_us_max", s.max)
        .num("stop_us_max", p.max)
        .integer("iterations", iterations);
    return j;
}

// ---------------------------------------------------------------- workloads

// The write-cost loop, per thread: `warmup` events, then two phases of
// `events` events each. write() is called once per event and returns true
// when the event was accepted (false: dropped).
//  - Phase A times batches of `batch` events with the monotonic clock (vDSO)
//    and, between batches (outside the timed window), reads the thread's
//    involuntary context switch count: a batch during which the thread was
//    preempted (the machine is shared) is counted but left out of the
//    "clean" percentiles.
//  - Phase B writes the same number of events untimed and measures the
//    thread's CPU time and wall time around the whole loop: the mean cost
//    per event, with nothing else in the loop and unaffected by preemption.
struct WriteStats {
    std::vector<double> batch_ns;       // ns per event of each batch
    std::vector<double> clean_batch_ns; // batches without preemption
    std::uint64_t written = 0, dropped = 0;
    std::int64_t phase_b_cpu_ns = 0, phase_b_wall_ns = 0;
    std::uint64_t phase_b_events = 0;
};

inline long involuntary_switches() noexcept
{
    rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nivcsw;
}

template <class Write>
inline void write_loop(WriteStats &ws, std::uint64_t warmup, std::uint64_t events, std::uint32_t batch, Write write)
{
    for (std::uint64_t i = 0; i < warmup; ++i)
        (void)write();
    const std::uint64_t batches = events / batch;
    ws.batch_ns.reserve(batches);
    ws.clean_batch_ns.reserve(batches);
    std::uint64_t dropped = 0;
    long sw = involuntary_switches();
    for (std::uint64_t b = 0; b < batches; ++b) {
        const std::int64_t t0 = now_ns();
        for (std::uint32_t i = 0; i < batch; ++i)
            dropped += write() ? 0 : 1;
        const std::int64_t t1 = now_ns();
        const double per = double(t1 - t0) / double(batch);
        ws.batch_ns.push_back(per);
        const long sw1 = involuntary_switches();
        if (sw1 == sw)
            ws.clean_batch_ns.push_back(per);
        sw = sw1;
    }
    const std::int64_t c0 = thread_cpu_ns(), w0 = now_ns();
    for (std::uint64_t i = 0; i < batches * batch; ++i)
        dropped += write() ? 0 : 1;
    ws.phase_b_wall_ns = now_ns() - w0;
    ws.phase_b_cpu_ns = thread_cpu_ns() - c0;
    ws.phase_b_events = batches * batch;
    ws.written = 2 * batches * batch - dropped;
    ws.dropped = dropped;
}

// Runs write_loop on `threads` threads (each with its own writer made by
// make(i)) and returns the merged result as JSON.
template <class MakeWriter>
inline Json write_cost(unsigned threads, std::uint64_t warmup, std::uint64_t events, std::uint32_t batch,
                       MakeWriter make)
{
    std::vector<WriteStats> per(threads);
    Team team;
    team.run(threads, [&](unsigned i) {
        auto w = make(i);
        write_loop(per[i], warmup, events, batch, w);
    });
    std::vector<double> all, clean;
    double cpu_sum = 0, wall_sum = 0;
    std::uint64_t written = 0, dropped = 0;
    for (auto &w : per) {
        all.insert(all.end(), w.batch_ns.begin(), w.batch_ns.end());
        clean.insert(clean.end(), w.clean_batch_ns.begin(), w.clean_batch_ns.end());
        const double n = double(w.phase_b_events ? w.phase_b_events : 1);
        cpu_sum += double(w.phase_b_cpu_ns) / n;
        wall_sum += double(w.phase_b_wall_ns) / n;
        written += w.written;
        dropped += w.dropped;
    }
    const std::size_t total_batches = all.size();
    Percentiles pa = percentiles(all);
    Percentiles pc = percentiles(clean);
    Json j;
    j.num("ns_cpu", cpu_sum / threads)
        .num("ns_wall", wall_sum / threads)
        .num("ns_p50", pc.p50)
        .num("ns_p99", pc.p99)
        .num("ns_p999", pc.p999)
        .num("ns_max_clean_batch", pc.max)
        .num("ns_p50_all", pa.p50)
        .num("ns_p99_all", pa.p99)
        .num("ns_p999_all", pa.p999)
        .num("ns_batch_mean_all", pa.mean)
        .integer("batches", total_batches)
        .integer("preempted_batches", total_batches - clean.size())
        .integer("batch", batch)
        .integer("written", written)
        .integer("dropped", dropped)
        .integer("events_offered", std::uint64_t(threads) * (warmup + 2 * (events / batch) * batch));
    return j;
}

// A pacer for offered loads: events are written in bursts of `burst`, and
// before each burst the thread spins until the burst's due time, so the
// offered rate is `rate` events/s (unless the writer cannot keep up).
struct Pacer {
    std::int64_t start;
    double period_ns;
    std::uint64_t burst;
    Pacer(double rate, std::uint64_t burst_) : start(now_ns()), period_ns(1e9 / rate), burst(burst_) {}
    // Waits until event i is due. Returns how late it is (ns, >= 0).
    std::int64_t wait(std::uint64_t i) const
    {
        const std::int64_t due = start + std::int64_t(double(i) * period_ns);
        std::int64_t t = now_ns();
        while (t < due)
            t = now_ns();
        return t - due;
    }
};

// Paced writes: each thread offers rate/threads events/s for `seconds`.
struct PacedThread {
    std::uint64_t offered = 0, failed = 0;
    std::int64_t elapsed_ns = 0;
};

template <class Write>
inline void paced_loop(PacedThread &pt, double rate, double seconds, Write write)
{
    const std::uint64_t burst = rate >= 2e6 ? 32 : rate >= 2e5 ? 8 : 1;
    const std::uint64_t total = std::uint64_t(rate * seconds);
    Pacer pacer(rate, burst);
    std::uint64_t i = 0;
    while (i < total) {
        pacer.wait(i);
        const std::uint64_t n = std::min(burst, total - i);
        for (std::uint64_t k = 0; k < n; ++k)
            pt.failed += write() ? 0 : 1;
        i += n;
    }
    pt.offered = total;
    pt.elapsed_ns = now_ns() - pacer.start;
}

} // namespace bench
