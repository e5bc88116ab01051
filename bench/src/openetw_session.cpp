// Session control and memory for openetw-bench: --kind=startstop (start
// and stop latency of a file session, in this process or through the
// session host) and --kind=memory (what a running session costs beyond its
// buffers).
#include "openetw_bench.hpp"

#include <unistd.h>

#include <set>

namespace bench::ours {

int kind_startstop(const Args &a)
{
    const unsigned iters = unsigned(a.num("iterations", 20));
    std::vector<double> start_us, stop_us;
    etw_provider *provider = nullptr;
    etw_provider_register(&provider, &kProvider, nullptr, nullptr, nullptr);
    // A new file per session (truncating and rewriting one file makes ext4
    // flush it on close, which is not the engine's cost).
    const std::string base = a.str("dir", "/tmp") + "/oebench-ss-" + std::to_string(getpid()) + "-";
    const std::uint32_t cpus = cpu_count();
    const std::uint32_t per_cpu = std::uint32_t(a.num("buffers-per-cpu", 16));
    for (unsigned i = 0; i < iters; ++i) {
        const std::string file = base + std::to_string(i) + ".etl";
        etw_properties *p = nullptr;
        etw_properties_create(&p, ("oebench-ss-" + std::to_string(getpid())).c_str());
        etw_properties_set_buffer_size(p, std::uint32_t(a.num("buffer-kb", 64)));
        etw_properties_set_minimum_buffers(p, per_cpu * cpus);
        etw_properties_set_maximum_buffers(p, per_cpu * cpus);
        etw_properties_set_log_file_mode(p, ETW_FILE_MODE_SEQUENTIAL);
        etw_properties_set_log_file_name(p, file.c_str());
        etw_session *s = nullptr;
        const std::int64_t t0 = now_ns();
        etw_status st = etw_session_start(&s, p);
        if (st == ETW_OK)
            st = etw_session_enable_provider(s, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0);
        const std::int64_t t1 = now_ns();
        if (st != ETW_OK)
            return emit_fail(kImpl, a, "error", "start: " + status_text(st));
        Event e;
        make_event(e, 64);
        etw_provider_trace_event(provider, &e.h);
        const std::int64_t t2 = now_ns();
        st = etw_session_stop(s, p);
        const std::int64_t t3 = now_ns();
        if (st != ETW_OK)
            return emit_fail(kImpl, a, "error", "stop: " + status_text(st));
        etw_session_close(s);
        etw_properties_destroy(p);
        ::unlink(file.c_str());
        start_us.push_back(double(t1 - t0) / 1e3);
        stop_us.push_back(double(t3 - t2) / 1e3);
    }
    etw_provider_unregister(provider);
    return emit_ok(kImpl, a, startstop_figures(start_us, stop_us, iters));
}

// Memory beyond the buffers: PSS growth from before the session starts to
// while it runs with every buffer used, minus the PSS of the buffer region
// (the largest mapping the start created).
int kind_memory(const Args &a)
{
    etw_provider *warm = nullptr;
    etw_provider_register(&warm, &kProvider, nullptr, nullptr, nullptr); // library state that exists anyway
    std::set<std::uintptr_t> before_maps;
    for (const Mapping &m : mappings())
        before_maps.insert(m.start);
    const std::int64_t before = pss_bytes();
    Setup s;
    if (!s.start(a, "file", 16))
        return setup_failure(a, s);
    const std::uint32_t cpus = cpu_count();
    const std::uint64_t buffer_bytes =
        std::uint64_t(a.num("buffer-kb", 64)) * 1024 * a.num("buffers-per-cpu", 16) * cpus;
    // Use every buffer: write bursts several times the pool from every CPU.
    Team team;
    team.run(cpus, [&](unsigned) {
        Event e;
        make_event(e, 64);
        for (std::uint64_t k = 0; k < 4 * buffer_bytes / 112; ++k)
            etw_provider_trace_event(s.provider, &e.h);
    });
    etw_session_query(s.session, s.props);
    const std::uint64_t allocated =
        std::uint64_t(etw_properties_number_of_buffers(s.props)) * etw_properties_buffer_size(s.props) * 1024;
    const std::int64_t after = pss_bytes();
    const Mapping *region = nullptr;
    const auto now = mappings();
    for (const Mapping &m : now)
        if (!before_maps.count(m.start) && (!region || m.end - m.start > region->end - region->start))
            region = &m;
    const std::int64_t region_pss = region ? region->pss : 0;
    Json j;
    j.num("beyond_buffers_kib", double(after - before - region_pss) / 1024.0)
        .num("pss_growth_kib", double(after - before) / 1024.0)
        .num("region_pss_kib", double(region_pss) / 1024.0)
        .num("region_mapping_kib", region ? double(region->end - region->start) / 1024.0 : 0)
        .num("buffer_kib", double(allocated) / 1024.0);
    s.teardown(nullptr);
    ::unlink(s.file.c_str());
    etw_provider_unregister(warm);
    return emit_ok(kImpl, a, j);
}

} // namespace bench::ours
