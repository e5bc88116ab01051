// Sustained writes to a file session for openetw-bench: flat out
// (--kind=throughput: events/s, bytes/s, logger CPU) or at an offered rate
// (--kind=paced: events lost), reported with the figures all three
// implementations compute alike (stream_figures).
#include "openetw_bench.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace bench::ours {

namespace {

// The bench's events a stream holds: read back after the run (outside
// every timed figure) to show that the export lost nothing.
bool count_stream_events(const std::string &url, std::uint64_t *out, std::string *why)
{
    struct Count {
        std::uint64_t n = 0;
    } count;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.user_data = &count;
    o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
        if (std::memcmp(&e->header.Guid, &kClass, sizeof kClass) == 0)
            ++static_cast<Count *>(ud)->n;
        return 0;
    };
    etw_consumer *c = nullptr;
    const char *paths[] = {url.c_str()};
    etw_status st = etw_consumer_open(&c, paths, 1, &o);
    if (st == ETW_OK)
        st = etw_consumer_process(c);
    etw_consumer_close(c);
    if (st != ETW_OK) {
        *why = "reading the stream " + url + ": " + status_text(st);
        return false;
    }
    *out = count.n;
    return true;
}

} // namespace

int kind_stream(const Args &a, bool paced)
{
    Setup s;
    if (!s.start(a, a.str("mode", "file"), 16))
        return setup_failure(a, s);
    // --server-pid: the nats-server an export row publishes to (bench/run
    // started it), whose CPU from the first event to the stop returned is
    // the other half of what an export costs this machine.
    const int server_pid = int(a.num("server-pid", 0));
    const std::int64_t server0 = server_pid > 0 ? other_process_cpu_ns(server_pid) : -1;
    const std::int64_t cpu0 = process_cpu_ns();
    const std::int64_t main0 = thread_cpu_ns();
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint32_t payload = std::uint32_t(a.num("payload", 64));
    const std::uint64_t events = a.num("events", 10000000);
    const double rate = a.real("rate", 1e6), seconds = a.real("seconds", 1.0);
    std::vector<std::int64_t> writer_cpu(threads, 0);
    std::vector<PacedThread> pt(threads);
    std::vector<std::uint64_t> failed(threads, 0);
    Team team;
    team.run(threads, [&](unsigned i) {
        Event e;
        make_event(e, payload);
        const std::int64_t c0 = thread_cpu_ns();
        if (paced) {
            paced_loop(pt[i], rate / threads, seconds,
                       [&] { return etw_provider_trace_event(s.provider, &e.h) == ETW_OK; });
            failed[i] = pt[i].failed;
        } else {
            std::uint64_t f = 0;
            for (std::uint64_t k = 0; k < events; ++k)
                f += etw_provider_trace_event(s.provider, &e.h) == ETW_OK ? 0 : 1;
            failed[i] = f;
        }
        writer_cpu[i] = thread_cpu_ns() - c0;
    });
    std::uint32_t lost = 0;
    const etw_status st = s.teardown(&lost);
    const std::int64_t end = now_ns();
    const std::int64_t server1 = server0 >= 0 ? other_process_cpu_ns(server_pid) : -1;
    const std::int64_t main_cpu = thread_cpu_ns() - main0;
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    std::uint64_t offered = 0, fails = 0;
    std::int64_t wcpu = 0;
    for (unsigned i = 0; i < threads; ++i) {
        offered += paced ? pt[i].offered : events;
        fails += failed[i];
        wcpu += writer_cpu[i];
    }
    const std::int64_t logger_cpu = process_cpu_ns() - cpu0 - wcpu - main_cpu;
    const std::uint64_t bytes = file_bytes(s.file);
    ::unlink(s.file.c_str());
    const StreamCounts counts = team_stream_counts(a, team, end, offered, lost, bytes, logger_cpu, wcpu);
    Json j = stream_figures(counts);
    j.integer("write_failures", fails);
    // The session's host (this process: its logger, and the export's sender
    // and client when it exports) per buffer written.
    j.integer("buffers_written", s.buffers_written)
        .num("host_cpu_us_per_buffer", s.buffers_written ? double(logger_cpu) / 1e3 / s.buffers_written : 0.0);
    if (!s.export_url.empty()) {
        std::uint64_t in_stream = 0;
        std::string why;
        if (!count_stream_events(s.export_url, &in_stream, &why))
            return emit_fail(kImpl, a, "error", why);
        if (server0 >= 0 && server1 >= server0 && s.buffers_written != 0)
            j.num("server_cpu_us_per_buffer", double(server1 - server0) / 1e3 / s.buffers_written);
        j.integer("export_buffers_lost", s.export_buffers_lost)
            .integer("stream_events", in_stream)
            .num("stream_missing_fraction",
                 counts.recorded ? double(counts.recorded - std::min(counts.recorded, in_stream)) / counts.recorded
                                 : 0.0);
    }
    return emit_ok(kImpl, a, j);
}

} // namespace bench::ours
