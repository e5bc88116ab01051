// floor-bench: the physical floor of every figure (see floor.hpp), with the
// same arguments and output as openetw-bench and lttng-bench.
#include "common.hpp"
#include "floor.hpp"
#include "workloads.hpp"

using namespace bench;
using namespace bench::floor;

namespace {

constexpr const char *kImpl = "floor";

void make_event(EventImage &img, std::uint32_t payload)
{
    std::memset(&img, 0, sizeof img);
    const std::uint16_t size = std::uint16_t(48 + payload);
    std::memcpy(img.header, &size, 2);
    img.header[4] = 10;                      // Class.Type
    img.header[5] = 4;                       // Class.Level
    const std::uint32_t flags = 0x00020000u; // WNODE_FLAG_TRACED_GUID
    std::memcpy(img.header + 0x2C, &flags, 4);
    for (int i = 0; i < 16; ++i)
        img.header[0x18 + i] = std::uint8_t(0xA0 + i);
    fill_payload(img.payload, payload);
}

template <int C>
Json write_cost_clock(const Args &a)
{
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint32_t payload = std::uint32_t(a.num("payload", 64));
    const std::size_t ring = std::size_t(a.num("ring-kb", 1024)) * 1024;
    const bool disabled = a.str("mode") == "disabled";
    return write_cost(
        threads, a.num("warmup", 100000), a.num("events", 1000000), std::uint32_t(a.num("batch", 100)), [&](unsigned) {
            auto img = std::make_shared<EventImage>();
            make_event(*img, payload);
            ring_init(ring);
            return [img, disabled] { return disabled ? floor_disabled(img->header) : floor_write<C>(img->header); };
        });
}

int kind_write(const Args &a)
{
    Json j;
    switch (a.num("clock", 1)) {
    case 2:
        j = write_cost_clock<2>(a);
        break;
    case 3:
        j = write_cost_clock<3>(a);
        break;
    default:
        j = write_cost_clock<1>(a);
        break;
    }
    // The ring overwrites: nothing is ever dropped.
    j.integer("events_lost", 0).num("lost_fraction", 0);
    return emit_ok(kImpl, a, j);
}

// Flat-out or paced writes through the pipeline to a file.
template <int C>
int pipeline_run(const Args &a, bool paced)
{
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint32_t payload = std::uint32_t(a.num("payload", 64));
    const std::uint32_t bs = std::uint32_t(a.num("buffer-kb", 64)) * 1024;
    const std::uint64_t total = std::uint64_t(bs) * a.num("buffers-per-cpu", 16) * cpu_count();
    const std::string path = a.str("dir", "/tmp") + "/floor-" + std::to_string(getpid()) + ".bin";
    Pipeline pl;
    const std::int64_t cpu0 = process_cpu_ns();
    const std::int64_t main0 = thread_cpu_ns();
    if (!pl.open(path, threads, bs, total, a.num("lossless", 0) != 0))
        return emit_fail(kImpl, a, "error", "cannot open " + path);
    std::vector<std::int64_t> writer_cpu(threads, 0);
    std::vector<PacedThread> pt(threads);
    const std::uint64_t events = a.num("events", 10000000);
    const double rate = a.real("rate", 1e6), seconds = a.real("seconds", 1.0);
    Team team;
    team.run(threads, [&](unsigned i) {
        Pipeline::Stream &s = pl.stream(i);
        s.tid = std::uint32_t(syscall(SYS_gettid));
        s.pid = std::uint32_t(getpid());
        EventImage img;
        make_event(img, payload);
        const std::int64_t c0 = thread_cpu_ns();
        if (paced)
            paced_loop(pt[i], rate / threads, seconds, [&] { return pl.write<C>(s, img.header); });
        else
            for (std::uint64_t k = 0; k < events; ++k)
                pl.write<C>(s, img.header);
        pl.finish_writer(s);
        writer_cpu[i] = thread_cpu_ns() - c0;
    });
    pl.close();
    const std::int64_t end = now_ns();
    const std::int64_t main_cpu = thread_cpu_ns() - main0;
    std::uint64_t lost = 0, recorded = 0, offered = 0;
    std::int64_t wcpu = 0;
    for (unsigned i = 0; i < threads; ++i) {
        lost += pl.stream(i).lost;
        recorded += pl.stream(i).events;
        wcpu += writer_cpu[i];
        offered += paced ? pt[i].offered : events;
    }
    const std::int64_t logger_cpu = process_cpu_ns() - cpu0 - wcpu - main_cpu;
    const std::uint64_t bytes = file_bytes(path);
    ::unlink(path.c_str());
    // What the streams wrote, counted by the floor itself.
    StreamCounts c = team_stream_counts(a, team, end, offered, lost, bytes, logger_cpu, wcpu);
    c.recorded = recorded;
    Json j = stream_figures(c);
    j.num("flusher_thread_cpu_ns_per_event", recorded ? double(pl.flusher_cpu_ns()) / double(recorded) : 0);
    return emit_ok(kImpl, a, j);
}

int kind_pipeline(const Args &a, bool paced)
{
    switch (a.num("clock", 1)) {
    case 2:
        return pipeline_run<2>(a, paced);
    case 3:
        return pipeline_run<3>(a, paced);
    default:
        return pipeline_run<1>(a, paced);
    }
}

// The least a consumer can do with an .etl file: read every byte once and
// walk each data buffer's records by their Size fields.
int kind_consumer(const Args &a)
{
    const std::string path = a.str("file");
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return emit_fail(kImpl, a, "error", "cannot open " + path);
    std::uint32_t bs = 0;
    if (::pread(fd, &bs, 4, 0) != 4 || bs < 0x48 || bs > (16u << 20)) {
        ::close(fd);
        return emit_fail(kImpl, a, "error", "not an .etl file: " + path);
    }
    std::vector<std::uint8_t> chunk(std::size_t(bs) * 16);
    const std::int64_t t0 = now_ns();
    std::uint64_t bytes = 0, records = 0, payload_sum = 0, buffers = 0;
    for (;;) {
        const ssize_t n = ::read(fd, chunk.data(), chunk.size());
        if (n <= 0)
            break;
        bytes += std::uint64_t(n);
        for (std::size_t off = 0; off + bs <= std::size_t(n); off += bs, ++buffers) {
            if (buffers == 0)
                continue; // the header buffer
            const std::uint8_t *b = chunk.data() + off;
            std::uint32_t filled;
            std::memcpy(&filled, b + 4, 4);
            if (filled > bs)
                filled = bs;
            for (std::uint32_t r = 0x48; r + 48 <= filled;) {
                std::uint16_t size;
                std::memcpy(&size, b + r, 2);
                if (size < 48)
                    break;
                payload_sum += b[r + 48 < filled ? r + 48 : r];
                ++records;
                r += (std::uint32_t(size) + 7u) & ~7u;
            }
        }
    }
    const std::int64_t t1 = now_ns();
    ::close(fd);
    const double secs = double(t1 - t0) / 1e9;
    Json j;
    j.integer("bytes", bytes)
        .integer("records", records)
        .integer("check", payload_sum)
        .num("seconds", secs)
        .num("mb_per_s", double(bytes) / 1e6 / secs)
        .num("records_per_s", double(records) / secs);
    return emit_ok(kImpl, a, j);
}

// Session start/stop floor: map the buffer bytes, open the log file and
// write its header buffer, start the logger thread; stop: join the thread,
// close the file, unmap.
int kind_startstop(const Args &a)
{
    const std::uint32_t bs = std::uint32_t(a.num("buffer-kb", 64)) * 1024;
    const std::size_t total = std::size_t(bs) * a.num("buffers-per-cpu", 16) * cpu_count();
    const unsigned iters = unsigned(a.num("iterations", 20));
    // A new file per session, as openetw-bench does.
    const std::string base = a.str("dir", "/tmp") + "/floor-ss-" + std::to_string(getpid()) + "-";
    std::vector<double> start_us, stop_us;
    std::vector<std::uint8_t> hdr(bs, 0xFF);
    for (unsigned i = 0; i < iters; ++i) {
        const std::string path = base + std::to_string(i) + ".bin";
        const std::int64_t t0 = now_ns();
        void *mem = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (mem == MAP_FAILED || fd < 0 || ::write(fd, hdr.data(), bs) != ssize_t(bs))
            return emit_fail(kImpl, a, "error", "start failed");
        std::atomic<std::uint32_t> word{0};
        std::thread logger([&] {
            while (word.load(std::memory_order_acquire) == 0)
                futex_wait(&word, 0, 1000);
        });
        const std::int64_t t1 = now_ns();
        word.store(1, std::memory_order_release);
        futex_wake(&word);
        logger.join();
        ::pwrite(fd, hdr.data(), bs, 0); // the header rewrite at the end
        ::close(fd);
        munmap(mem, total);
        const std::int64_t t2 = now_ns();
        ::unlink(path.c_str());
        start_us.push_back(double(t1 - t0) / 1e3);
        stop_us.push_back(double(t2 - t1) / 1e3);
    }
    return emit_ok(kImpl, a, startstop_figures(start_us, stop_us, iters));
}

// Memory beyond the buffers: PSS growth of the process when the ring (of the
// session's buffer bytes) is created and used, minus the ring's own PSS.
int kind_memory(const Args &a)
{
    const std::uint32_t bs = std::uint32_t(a.num("buffer-kb", 64)) * 1024;
    const std::size_t total = std::size_t(bs) * a.num("buffers-per-cpu", 16) * cpu_count();
    const std::int64_t before = pss_bytes();
    void *mem = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return emit_fail(kImpl, a, "error", "mmap failed");
    std::memset(mem, 1, total);
    const std::int64_t after = pss_bytes();
    std::int64_t ring_pss = 0;
    for (const Mapping &m : mappings())
        if (m.start <= std::uintptr_t(mem) && std::uintptr_t(mem) < m.end)
            ring_pss += m.pss;
    Json j;
    j.num("beyond_buffers_kib", double(after - before - ring_pss) / 1024.0)
        .num("pss_growth_kib", double(after - before) / 1024.0)
        .num("buffer_kib", double(total) / 1024.0);
    munmap(mem, total);
    return emit_ok(kImpl, a, j);
}

// The cost of the building blocks a write path is made of, measured on this
// machine (ns per operation, a loop of n with the loop overhead included).
template <class Op>
double per_op_ns(std::uint64_t n, Op op)
{
    for (std::uint64_t i = 0; i < n / 10; ++i)
        op(i);
    const std::int64_t c0 = thread_cpu_ns();
    for (std::uint64_t i = 0; i < n; ++i)
        op(i);
    return double(thread_cpu_ns() - c0) / double(n);
}

std::atomic<std::uint64_t> g_word{0};
alignas(64) std::uint8_t g_dst[4096];
alignas(64) std::uint8_t g_src[512];

int kind_primitives(const Args &a)
{
    const std::uint64_t n = a.num("events", 2000000);
    volatile std::int64_t sink = 0;
    Json j;
    j.num("clock_monotonic_ns", per_op_ns(n, [&](std::uint64_t) { sink = sink + clock_read<1>(); }));
    j.num("clock_realtime_ns", per_op_ns(n, [&](std::uint64_t) { sink = sink + clock_read<2>(); }));
    j.num("rdtsc_ns", per_op_ns(n, [&](std::uint64_t) { sink = sink + clock_read<3>(); }));
    j.num("clock_monotonic_coarse_ns", per_op_ns(n, [&](std::uint64_t) {
              timespec ts;
              clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
              sink = sink + ts.tv_nsec;
          }));
    j.num("sched_getcpu_ns", per_op_ns(n, [&](std::uint64_t) { sink = sink + sched_getcpu(); }));
    j.num("atomic_fetch_add_ns", per_op_ns(n, [&](std::uint64_t) { g_word.fetch_add(1, std::memory_order_acq_rel); }));
    j.num("atomic_cas_ns", per_op_ns(n, [&](std::uint64_t) {
              std::uint64_t v = g_word.load(std::memory_order_acquire);
              g_word.compare_exchange_weak(v, v + 1, std::memory_order_acq_rel);
          }));
    j.num("memcpy_112_ns", per_op_ns(n, [&](std::uint64_t i) {
              std::memcpy(g_dst + (i & 31) * 112 % 3584, g_src, 112);
              asm volatile("" ::: "memory");
          }));
    j.num("futex_wake_no_waiter_ns", per_op_ns(n / 20, [&](std::uint64_t) {
              futex_wake(reinterpret_cast<std::atomic<std::uint32_t> *>(&g_word));
          }));
    return emit_ok(kImpl, a, j);
}

EventImage g_cg_img;

} // namespace

// The region callgrind counts (--toggle-collect=oe_bench_measured_loop).
extern "C" __attribute__((noinline)) std::uint64_t oe_bench_measured_loop(std::uint64_t n)
{
    std::uint64_t ok = 0;
    for (std::uint64_t i = 0; i < n; ++i)
        ok += floor_write<1>(g_cg_img.header) ? 1 : 0;
    return ok;
}

int main(int argc, char **argv)
{
    Args a(argc, argv);
    const std::string kind = a.str("kind");
    if (kind == "write")
        return kind_write(a);
    if (kind == "throughput")
        return kind_pipeline(a, false);
    if (kind == "paced")
        return kind_pipeline(a, true);
    if (kind == "consumer")
        return kind_consumer(a);
    if (kind == "startstop")
        return kind_startstop(a);
    if (kind == "memory")
        return kind_memory(a);
    if (kind == "primitives")
        return kind_primitives(a);
    if (kind == "cgloop") {
        make_event(g_cg_img, std::uint32_t(a.num("payload", 64)));
        ring_init(std::size_t(a.num("ring-kb", 1024)) * 1024);
        for (std::uint64_t i = a.num("warmup", 10000); i > 0; --i)
            floor_write<1>(g_cg_img.header);
        const std::uint64_t n = a.num("events", 100000);
        const std::uint64_t ok = oe_bench_measured_loop(n);
        Json j;
        j.integer("events", n).integer("written", ok);
        return emit_ok(kImpl, a, j);
    }
    return emit_fail(kImpl, a, "error", "unknown --kind=" + kind);
}
