// lttng-bench: LTTng-UST (Debian's lttng-tools and liblttng-ust) on the same
// workloads as openetw-bench, controlled in-process through liblttng-ctl.
// bench/run starts `lttng-sessiond --no-kernel` before and stops it after.
//
// Sessions use per-UID, per-CPU ring buffers whose bytes match the OpenETW
// session's (sub-buffer size = BufferSize, sub-buffers per CPU = buffers per
// CPU): "disk" is a normal session writing to a local trace folder in
// discard mode (the peer of an OpenETW file session), "snapshot" a snapshot
// session with no output, in overwrite mode (the peer of buffering mode).
// Timestamps are LTTng-UST's CLOCK_MONOTONIC, the peer of clock type 1.
#include "common.hpp"
#include "workloads.hpp"

#include "lttng_tp.h"

#include <lttng/lttng.h>
#include <lttng/ust-version.h>

#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>

extern char **environ;

using namespace bench;

namespace {

constexpr const char *kImpl = "lttng";

struct Payload {
    alignas(8) std::uint8_t bytes[512];
};

// The consumer daemons' pids (the peers of OpenETW's logger thread).
std::vector<int> pids_named(const char *comm)
{
    std::vector<int> out;
    DIR *d = opendir("/proc");
    if (!d)
        return out;
    while (dirent *e = readdir(d)) {
        const int pid = std::atoi(e->d_name);
        if (pid <= 0)
            continue;
        char path[64], name[64] = {0};
        std::snprintf(path, sizeof path, "/proc/%d/comm", pid);
        if (FILE *f = std::fopen(path, "r")) {
            if (std::fgets(name, sizeof name, f)) {
                name[std::strcspn(name, "\n")] = 0;
                if (std::strcmp(name, comm) == 0)
                    out.push_back(pid);
            }
            std::fclose(f);
        }
    }
    closedir(d);
    return out;
}

std::int64_t consumerd_cpu_ns()
{
    std::int64_t t = 0;
    for (int pid : pids_named("lttng-consumerd"))
        t += std::max<std::int64_t>(0, other_process_cpu_ns(pid));
    return t;
}

std::string lerr(int code) { return lttng_strerror(code < 0 ? code : -code); }

struct Setup {
    std::string name;
    std::string trace_dir;
    lttng_handle *handle = nullptr;
    bool created = false;
    std::string why;
    bool not_built = false;

    ~Setup() { teardown(nullptr, nullptr); }

    bool start(const Args &a, const std::string &mode, std::uint64_t per_cpu_default)
    {
        if (mode == "disabled")
            return true;
        name = "oebench-" + std::to_string(getpid()) + "-" + a.str("tag", "0");
        lttng_session_descriptor *desc = nullptr;
        if (mode == "disk") {
            trace_dir = a.str("trace-dir", a.str("dir", "/tmp") + "/lttng-" + std::to_string(getpid()));
            remove_tree(trace_dir);
            desc = lttng_session_descriptor_local_create(name.c_str(), trace_dir.c_str());
        } else if (mode == "snapshot") {
            desc = lttng_session_descriptor_snapshot_create(name.c_str());
        } else {
            why = "unknown --mode=" + mode;
            return false;
        }
        const lttng_error_code rc = lttng_create_session_ext(desc);
        lttng_session_descriptor_destroy(desc);
        if (rc != LTTNG_OK) {
            why = "lttng_create_session_ext: " + lerr(rc) + " (is lttng-sessiond running?)";
            return false;
        }
        created = true;
        lttng_domain dom;
        std::memset(&dom, 0, sizeof dom);
        dom.type = LTTNG_DOMAIN_UST;
        dom.buf_type = LTTNG_BUFFER_PER_UID;
        handle = lttng_create_handle(name.c_str(), &dom);
        lttng_channel *ch = lttng_channel_create(&dom);
        std::snprintf(ch->name, sizeof ch->name, "ch");
        ch->attr.subbuf_size = a.num("buffer-kb", 64) * 1024;
        ch->attr.num_subbuf = a.num("buffers-per-cpu", per_cpu_default);
        ch->attr.overwrite = mode == "snapshot" ? 1 : 0;
        ch->attr.output = LTTNG_EVENT_MMAP;
        if (a.num("blocking", 0))
            lttng_channel_set_blocking_timeout(ch, -1);
        int r = lttng_enable_channel(handle, ch);
        lttng_channel_destroy(ch);
        if (r < 0) {
            why = "lttng_enable_channel: " + lerr(r);
            return false;
        }
        lttng_event ev;
        std::memset(&ev, 0, sizeof ev);
        ev.type = LTTNG_EVENT_TRACEPOINT;
        ev.loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
        ev.loglevel = -1;
        std::snprintf(ev.name, sizeof ev.name, "oebench:*");
        if ((r = lttng_enable_event(handle, &ev, "ch")) < 0) {
            why = "lttng_enable_event: " + lerr(r);
            return false;
        }
        if ((r = lttng_start_tracing(name.c_str())) < 0) {
            why = "lttng_start_tracing: " + lerr(r);
            return false;
        }
        // The session daemon enables the tracepoints in this process
        // asynchronously: wait until it has.
        const std::int64_t deadline = now_ns() + 20'000'000'000LL;
        while (!lttng_ust_tracepoint_enabled(oebench, ev64)) {
            if (now_ns() > deadline) {
                why = "the tracepoints were not enabled within 20 s (did the app register?)";
                return false;
            }
            usleep(1000);
        }
        return true;
    }

    // Stops (waiting until the consumer daemon has written everything) and
    // destroys the session; returns the discarded-event count.
    bool teardown(std::uint64_t *discarded, std::uint64_t *lost_packets)
    {
        if (!created)
            return true;
        created = false;
        int r = lttng_stop_tracing(name.c_str());
        bool ok = r >= 0;
        if (!ok)
            why = "lttng_stop_tracing: " + lerr(r);
        std::uint64_t d = 0, lp = 0;
        lttng_channel *chans = nullptr;
        const int n = lttng_list_channels(handle, &chans);
        bool found = false;
        for (int i = 0; i < n; ++i)
            if (std::strcmp(chans[i].name, "ch") == 0) {
                found = lttng_channel_get_discarded_event_count(&chans[i], &d) == 0 &&
                        lttng_channel_get_lost_packet_count(&chans[i], &lp) == 0;
            }
        if (!found && (discarded || lost_packets)) {
            why = "cannot read the channel's discarded-event count";
            ok = false;
        }
        std::free(chans);
        if (discarded)
            *discarded = d;
        if (lost_packets)
            *lost_packets = lp;
        lttng_destroy_handle(handle);
        handle = nullptr;
        if ((r = lttng_destroy_session(name.c_str())) < 0) {
            why = "lttng_destroy_session: " + lerr(r);
            ok = false;
        }
        return ok;
    }
};

int setup_failure(const Args &a, const Setup &s)
{
    return emit_fail(kImpl, a, s.not_built ? "not_built" : "error", s.why);
}

// One tracepoint call with the payload size the arguments ask for.
template <int Payload>
inline void tp(const std::uint8_t *p)
{
    if constexpr (Payload == 0)
        lttng_ust_tracepoint(oebench, ev0, p);
    else if constexpr (Payload == 512)
        lttng_ust_tracepoint(oebench, ev512, p);
    else
        lttng_ust_tracepoint(oebench, ev64, p);
}

template <int P>
Json write_cost_payload(const Args &a)
{
    const unsigned threads = unsigned(a.num("threads", 1));
    return write_cost(threads, a.num("warmup", 100000), a.num("events", 1000000), std::uint32_t(a.num("batch", 100)),
                      [&](unsigned) {
                          auto pl = std::make_shared<Payload>();
                          fill_payload(pl->bytes, sizeof pl->bytes);
                          return [pl] {
                              tp<P>(pl->bytes);
                              return true;
                          };
                      });
}

int kind_write(const Args &a)
{
    const std::string mode = a.str("mode", "disk");
    Setup s;
    if (!s.start(a, mode, 256))
        return setup_failure(a, s);
    Json j;
    switch (a.num("payload", 64)) {
    case 0:
        j = write_cost_payload<0>(a);
        break;
    case 512:
        j = write_cost_payload<512>(a);
        break;
    case 64:
        j = write_cost_payload<64>(a);
        break;
    default:
        return emit_fail(kImpl, a, "error", "payload must be 0, 64 or 512");
    }
    std::uint64_t discarded = 0, lost_packets = 0;
    if (!s.teardown(&discarded, &lost_packets))
        return emit_fail(kImpl, a, "error", s.why);
    const unsigned threads = unsigned(a.num("threads", 1));
    const double offered = double(threads * (a.num("warmup", 100000) + 2 * a.num("events", 1000000)));
    // The daemon sometimes reports a count with bit 63 set (seen with two
    // writer threads): the lost figure of that run is then unknown.
    if (double(discarded) > offered)
        j.raw("lost_fraction", "null").integer("implausible_discarded_count", discarded);
    else
        j.integer("events_lost", discarded).num("lost_fraction", double(discarded) / offered);
    j.integer("lost_packets", lost_packets);
    if (!s.trace_dir.empty())
        remove_tree(s.trace_dir);
    return emit_ok(kImpl, a, j);
}

template <int P>
int stream_payload(const Args &a, bool paced)
{
    Setup s;
    if (!s.start(a, "disk", 16))
        return setup_failure(a, s);
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint64_t events = a.num("events", 10000000);
    const double rate = a.real("rate", 1e6), seconds = a.real("seconds", 1.0);
    std::vector<std::int64_t> writer_cpu(threads, 0);
    std::vector<PacedThread> pt(threads);
    const std::int64_t cd0 = consumerd_cpu_ns();
    Team team;
    team.run(threads, [&](unsigned i) {
        Payload pl;
        fill_payload(pl.bytes, sizeof pl.bytes);
        const std::int64_t c0 = thread_cpu_ns();
        if (paced)
            paced_loop(pt[i], rate / threads, seconds, [&] {
                tp<P>(pl.bytes);
                return true;
            });
        else
            for (std::uint64_t k = 0; k < events; ++k)
                tp<P>(pl.bytes);
        writer_cpu[i] = thread_cpu_ns() - c0;
    });
    std::uint64_t discarded = 0, lost_packets = 0;
    const bool ok = s.teardown(&discarded, &lost_packets);
    const std::int64_t end = now_ns();
    const std::int64_t logger_cpu = consumerd_cpu_ns() - cd0;
    if (!ok)
        return emit_fail(kImpl, a, "error", s.why);
    std::uint64_t offered = 0;
    std::int64_t wcpu = 0;
    for (unsigned i = 0; i < threads; ++i) {
        offered += paced ? pt[i].offered : events;
        wcpu += writer_cpu[i];
    }
    if (discarded > offered)
        return emit_fail(kImpl, a, "error", "implausible discarded-event count " + std::to_string(discarded));
    const std::uint64_t bytes = tree_bytes(s.trace_dir);
    remove_tree(s.trace_dir);
    Json j = stream_figures(team_stream_counts(a, team, end, offered, discarded, bytes, logger_cpu, wcpu));
    j.integer("lost_packets", lost_packets);
    return emit_ok(kImpl, a, j);
}

int kind_stream(const Args &a, bool paced)
{
    switch (a.num("payload", 64)) {
    case 0:
        return stream_payload<0>(a, paced);
    case 512:
        return stream_payload<512>(a, paced);
    default:
        return stream_payload<64>(a, paced);
    }
}

// Writes --events events of 64 bytes into --trace-dir without loss (a
// blocking channel: run with LTTNG_UST_ALLOW_BLOCKING=1), for the consumer runs.
int kind_gen(const Args &a)
{
    Setup s;
    if (!s.start(a, "disk", 256))
        return setup_failure(a, s);
    Payload pl;
    fill_payload(pl.bytes, sizeof pl.bytes);
    const std::uint64_t n = a.num("events", 1000000);
    for (std::uint64_t i = 0; i < n; ++i)
        tp<64>(pl.bytes);
    std::uint64_t discarded = 0;
    if (!s.teardown(&discarded, nullptr))
        return emit_fail(kImpl, a, "error", s.why);
    Json j;
    j.integer("events", n)
        .integer("events_lost", discarded)
        .integer("file_bytes", tree_bytes(s.trace_dir))
        .str("trace_dir", s.trace_dir);
    return emit_ok(kImpl, a, j);
}

// LTTng's consumer side: babeltrace2 reading the CTF trace (every event
// decoded; the counter sink only counts them).
int kind_consumer(const Args &a)
{
    const std::string dir = a.str("trace-dir");
    const std::string out = a.str("dir", "/tmp") + "/bt2-" + std::to_string(getpid()) + ".txt";
    std::vector<std::string> argv_s = {"babeltrace2", dir, "--component=sink.utils.counter"};
    std::vector<char *> argv;
    for (auto &s : argv_s)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
    pid_t pid;
    const std::int64_t t0 = now_ns();
    if (posix_spawnp(&pid, "babeltrace2", &fa, nullptr, argv.data(), environ) != 0)
        return emit_fail(kImpl, a, "not_built", "babeltrace2 is not installed");
    int status = 0;
    waitpid(pid, &status, 0);
    const std::int64_t t1 = now_ns();
    posix_spawn_file_actions_destroy(&fa);
    std::uint64_t events = 0;
    if (FILE *f = std::fopen(out.c_str(), "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f)) {
            // "   N Event messages" (printed every `step` messages, and at the end).
            unsigned long long v;
            char w1[64], w2[64];
            if (std::sscanf(line, "%llu %63s %63s", &v, w1, w2) == 3 && std::strcmp(w1, "Event") == 0 &&
                std::strcmp(w2, "messages") == 0)
                events = v;
        }
        std::fclose(f);
    }
    ::unlink(out.c_str());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return emit_fail(kImpl, a, "error", "babeltrace2 failed");
    const std::uint64_t bytes = tree_bytes(dir);
    const double secs = double(t1 - t0) / 1e9;
    Json j;
    j.integer("bytes", bytes)
        .integer("records", events)
        .num("seconds", secs)
        .num("mb_per_s", double(bytes) / 1e6 / secs)
        .num("records_per_s", double(events) / secs);
    return emit_ok(kImpl, a, j);
}

int kind_startstop(const Args &a)
{
    const unsigned iters = unsigned(a.num("iterations", 20));
    std::vector<double> start_us, stop_us;
    Payload pl;
    fill_payload(pl.bytes, sizeof pl.bytes);
    for (unsigned i = 0; i < iters; ++i) {
        Setup s;
        const std::int64_t t0 = now_ns();
        if (!s.start(a, "disk", 16))
            return setup_failure(a, s);
        const std::int64_t t1 = now_ns();
        tp<64>(pl.bytes);
        const std::int64_t t2 = now_ns();
        if (!s.teardown(nullptr, nullptr))
            return emit_fail(kImpl, a, "error", s.why);
        const std::int64_t t3 = now_ns();
        remove_tree(s.trace_dir);
        start_us.push_back(double(t1 - t0) / 1e3);
        stop_us.push_back(double(t3 - t2) / 1e3);
    }
    return emit_ok(kImpl, a, startstop_figures(start_us, stop_us, iters));
}

// Memory beyond the buffers: PSS growth of this process, the session daemon
// and the consumer daemons from before the session to while it runs with
// every buffer used, minus the ring-buffer bytes.
int kind_memory(const Args &a)
{
    std::vector<int> daemons = pids_named("lttng-sessiond");
    for (int p : pids_named("lttng-consumerd"))
        daemons.push_back(p);
    auto total_pss = [&] {
        std::int64_t t = pss_bytes();
        for (int p : daemons)
            t += std::max<std::int64_t>(0, pss_bytes(p));
        return t;
    };
    const std::int64_t before = total_pss();
    Setup s;
    if (!s.start(a, "disk", 16))
        return setup_failure(a, s);
    // Consumer daemons the session started.
    for (int p : pids_named("lttng-consumerd"))
        if (std::find(daemons.begin(), daemons.end(), p) == daemons.end())
            daemons.push_back(p);
    const std::uint32_t cpus = cpu_count();
    const std::uint64_t buffer_bytes = a.num("buffer-kb", 64) * 1024 * a.num("buffers-per-cpu", 16) * cpus;
    Team team;
    team.run(cpus, [&](unsigned) {
        Payload pl;
        fill_payload(pl.bytes, sizeof pl.bytes);
        for (std::uint64_t k = 0; k < 4 * buffer_bytes / 80; ++k)
            tp<64>(pl.bytes);
    });
    const std::int64_t after = total_pss();
    Json j;
    j.num("beyond_buffers_kib", double(after - before - std::int64_t(buffer_bytes)) / 1024.0)
        .num("pss_growth_kib", double(after - before) / 1024.0)
        .num("buffer_kib", double(buffer_bytes) / 1024.0)
        .integer("processes", 1 + daemons.size());
    s.teardown(nullptr, nullptr);
    remove_tree(s.trace_dir);
    return emit_ok(kImpl, a, j);
}

Payload g_cg_payload;

} // namespace

// The region callgrind counts (--toggle-collect=oe_bench_measured_loop).
extern "C" __attribute__((noinline)) std::uint64_t oe_bench_measured_loop(std::uint64_t n)
{
    for (std::uint64_t i = 0; i < n; ++i)
        tp<64>(g_cg_payload.bytes);
    return n;
}

int main(int argc, char **argv)
{
    Args a(argc, argv);
    const std::string kind = a.str("kind");
    if (kind == "write")
        return kind_write(a);
    if (kind == "throughput")
        return kind_stream(a, false);
    if (kind == "paced")
        return kind_stream(a, true);
    if (kind == "gen")
        return kind_gen(a);
    if (kind == "consumer")
        return kind_consumer(a);
    if (kind == "startstop")
        return kind_startstop(a);
    if (kind == "memory")
        return kind_memory(a);
    if (kind == "cgloop") {
        Setup s;
        if (!s.start(a, a.str("mode", "snapshot"), 256))
            return setup_failure(a, s);
        fill_payload(g_cg_payload.bytes, sizeof g_cg_payload.bytes);
        for (std::uint64_t i = a.num("warmup", 10000); i > 0; --i)
            tp<64>(g_cg_payload.bytes);
        const std::uint64_t n = a.num("events", 100000);
        oe_bench_measured_loop(n);
        std::uint64_t discarded = 0;
        s.teardown(&discarded, nullptr);
        remove_tree(s.trace_dir);
        Json j;
        j.integer("events", n).integer("events_lost", discarded);
        return emit_ok(kImpl, a, j);
    }
    if (kind == "info") {
        Json j;
        j.str("version", "lttng-ust " + std::to_string(LTTNG_UST_MAJOR_VERSION) + "." +
                             std::to_string(LTTNG_UST_MINOR_VERSION) + "." +
                             std::to_string(LTTNG_UST_PATCHLEVEL_VERSION));
        return emit_ok(kImpl, a, j);
    }
    return emit_fail(kImpl, a, "error", "unknown --kind=" + kind);
}
