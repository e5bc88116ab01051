// The harness shared by the three benchmark programs (openetw-bench, the
// OpenETW engine; floor-bench, the physical floor; lttng-bench, LTTng-UST).
//
// Every program takes the same arguments (--kind=... --key=value ...), runs
// one measurement in a fresh process and prints one JSON object on stdout:
//   {"ok":true,"impl":"ours","kind":"write",...,"result":{...}}
//   {"ok":false,"impl":"ours","status":"not_built","message":"..."}
// bench/run interleaves the programs, repeats, and aggregates.
#pragma once

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace bench {

// ---------------------------------------------------------------- arguments

class Args {
public:
    Args(int argc, char **argv)
    {
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            if (a.rfind("--", 0) != 0)
                continue;
            const auto eq = a.find('=');
            if (eq == std::string::npos)
                kv_[a.substr(2)] = "1";
            else
                kv_[a.substr(2, eq - 2)] = a.substr(eq + 1);
        }
    }
    std::string str(const std::string &k, const std::string &def = "") const
    {
        auto it = kv_.find(k);
        return it == kv_.end() ? def : it->second;
    }
    std::uint64_t num(const std::string &k, std::uint64_t def) const
    {
        auto it = kv_.find(k);
        return it == kv_.end() ? def : std::strtoull(it->second.c_str(), nullptr, 10);
    }
    double real(const std::string &k, double def) const
    {
        auto it = kv_.find(k);
        return it == kv_.end() ? def : std::strtod(it->second.c_str(), nullptr);
    }
    const std::map<std::string, std::string> &all() const { return kv_; }

private:
    std::map<std::string, std::string> kv_;
};

// ---------------------------------------------------------------- JSON out

// A flat JSON object built in order; values are numbers or strings.
class Json {
public:
    Json &num(const std::string &k, double v)
    {
        char buf[64];
        if (std::isfinite(v))
            std::snprintf(buf, sizeof buf, "%.6g", v);
        else
            std::snprintf(buf, sizeof buf, "null");
        add(k, buf);
        return *this;
    }
    Json &integer(const std::string &k, std::uint64_t v)
    {
        add(k, std::to_string(v));
        return *this;
    }
    Json &str(const std::string &k, const std::string &v)
    {
        add(k, quote(v));
        return *this;
    }
    Json &raw(const std::string &k, const std::string &json)
    {
        add(k, json);
        return *this;
    }
    std::string text() const { return "{" + body_ + "}"; }

    static std::string quote(const std::string &s)
    {
        std::string o = "\"";
        for (char c : s) {
            if (c == '"' || c == '\\') {
                o += '\\';
                o += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                char b[8];
                std::snprintf(b, sizeof b, "\\u%04x", c);
                o += b;
            } else {
                o += c;
            }
        }
        return o + "\"";
    }

private:
    void add(const std::string &k, const std::string &v)
    {
        if (!body_.empty())
            body_ += ",";
        body_ += quote(k) + ":" + v;
    }
    std::string body_;
};

inline std::string params_json(const Args &a)
{
    Json j;
    for (const auto &[k, v] : a.all())
        j.str(k, v);
    return j.text();
}

inline int emit_ok(const char *impl, const Args &a, const Json &result)
{
    Json j;
    j.raw("ok", "true").str("impl", impl).str("kind", a.str("kind")).raw("params", params_json(a)).raw("result", result.text());
    std::printf("%s\n", j.text().c_str());
    std::fflush(stdout);
    return 0;
}

// status: "not_built" (the feature is absent from this build or system),
// "error" (the measurement failed).
inline int emit_fail(const char *impl, const Args &a, const std::string &status, const std::string &message)
{
    Json j;
    j.raw("ok", "false").str("impl", impl).str("kind", a.str("kind")).raw("params", params_json(a)).str("status", status).str(
        "message", message);
    std::printf("%s\n", j.text().c_str());
    std::fflush(stdout);
    return status == "not_built" ? 0 : 1;
}

// ---------------------------------------------------------------- time

inline std::int64_t now_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// CPU time of the calling thread / the whole process (all threads, living
// and ended), nanoseconds.
inline std::int64_t thread_cpu_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}
inline std::int64_t process_cpu_ns() noexcept
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// utime + stime of another process, nanoseconds (clock-tick resolution).
inline std::int64_t other_process_cpu_ns(int pid)
{
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return -1;
    char buf[4096];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    const char *p = std::strrchr(buf, ')');
    if (!p)
        return -1;
    // Fields after the comm: state(3) ... utime(14) stime(15).
    unsigned long long ut = 0, st = 0;
    int field = 2;
    for (const char *q = p + 1; *q; ++q) {
        if (*q == ' ') {
            ++field;
            if (field == 14)
                ut = std::strtoull(q + 1, nullptr, 10);
            else if (field == 15) {
                st = std::strtoull(q + 1, nullptr, 10);
                break;
            }
        }
    }
    const long hz = sysconf(_SC_CLK_TCK);
    return std::int64_t((ut + st) * (1000000000ull / std::uint64_t(hz)));
}

// ---------------------------------------------------------------- memory

// Proportional set size of a process in bytes (smaps_rollup), -1 on error.
inline std::int64_t pss_bytes(int pid = 0)
{
    char path[64];
    if (pid == 0)
        std::snprintf(path, sizeof path, "/proc/self/smaps_rollup");
    else
        std::snprintf(path, sizeof path, "/proc/%d/smaps_rollup", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    std::int64_t kb = -1;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "Pss:", 4) == 0) {
            kb = std::strtoll(line + 4, nullptr, 10);
            break;
        }
    std::fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

// One mapping of /proc/<pid>/smaps with its size and Pss.
struct Mapping {
    std::uintptr_t start = 0, end = 0;
    std::string name;
    std::int64_t pss = 0; // bytes
};

inline std::vector<Mapping> mappings(int pid = 0)
{
    std::vector<Mapping> out;
    char path[64];
    if (pid == 0)
        std::snprintf(path, sizeof path, "/proc/self/smaps");
    else
        std::snprintf(path, sizeof path, "/proc/%d/smaps", pid);
    FILE *f = std::fopen(path, "r");
    if (!f)
        return out;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
        // A mapping line: "start-end perms offset dev inode [name]";
        // attribute lines: "Name:   value kB".
        const char *sp = std::strchr(line, ' ');
        if (!sp)
            continue;
        if (sp[-1] == ':') {
            if (std::strncmp(line, "Pss:", 4) == 0 && !out.empty())
                out.back().pss = std::strtoll(line + 4, nullptr, 10) * 1024;
            continue;
        }
        Mapping m;
        char *endp = nullptr;
        m.start = std::strtoull(line, &endp, 16);
        if (!endp || *endp != '-')
            continue;
        m.end = std::strtoull(endp + 1, nullptr, 16);
        // Skip perms, offset, dev, inode: the name follows the fifth field.
        const char *q = sp;
        for (int field = 1; field < 5 && q; ++field) {
            while (*q == ' ')
                ++q;
            q = std::strchr(q, ' ');
        }
        if (q) {
            while (*q == ' ')
                ++q;
            m.name = q;
        }
        while (!m.name.empty() && (m.name.back() == '\n' || m.name.back() == ' '))
            m.name.pop_back();
        out.push_back(m);
    }
    std::fclose(f);
    return out;
}

// ---------------------------------------------------------------- files

inline std::uint64_t file_bytes(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? std::uint64_t(st.st_size) : 0;
}

// Apparent bytes of every regular file below dir.
inline std::uint64_t tree_bytes(const std::string &dir)
{
    std::uint64_t total = 0;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return file_bytes(dir);
    while (dirent *e = readdir(d)) {
        if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
            continue;
        const std::string p = dir + "/" + e->d_name;
        struct stat st;
        if (lstat(p.c_str(), &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            total += tree_bytes(p);
        else if (S_ISREG(st.st_mode))
            total += std::uint64_t(st.st_size);
    }
    closedir(d);
    return total;
}

inline void remove_tree(const std::string &path)
{
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
        return;
    if (S_ISDIR(st.st_mode)) {
        if (DIR *d = opendir(path.c_str())) {
            while (dirent *e = readdir(d)) {
                if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0)
                    continue;
                remove_tree(path + "/" + e->d_name);
            }
            closedir(d);
        }
        ::rmdir(path.c_str());
    } else {
        ::unlink(path.c_str());
    }
}

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
        std::size_t i = std::size_t(std::ceil(q * double(v.size()))) ;
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
inline Json write_cost(unsigned threads, std::uint64_t warmup, std::uint64_t events, std::uint32_t batch, MakeWriter make)
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

// ---------------------------------------------------------------- event

// The event every program writes: an EVENT_TRACE_HEADER-shaped 48-byte
// header followed by the payload (OpenETW writes header + payload as one
// record of 48 + payload bytes; with 64 bytes that is the 112-byte record).
struct alignas(8) EventImage {
    std::uint8_t header[48];
    std::uint8_t payload[512];
};

inline void fill_payload(std::uint8_t *p, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        p[i] = std::uint8_t(i * 7 + 1);
}

inline std::uint32_t cpu_count() { return std::uint32_t(std::max(1L, sysconf(_SC_NPROCESSORS_CONF))); }

inline std::string machine_cpu()
{
    FILE *f = std::fopen("/proc/cpuinfo", "r");
    if (!f)
        return "";
    char line[512];
    std::string m;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "model name", 10) == 0) {
            const char *c = std::strchr(line, ':');
            m = c ? c + 2 : line;
            if (!m.empty() && m.back() == '\n')
                m.pop_back();
            break;
        }
    std::fclose(f);
    return m;
}

} // namespace bench
