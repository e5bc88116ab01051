// The write-cost workloads of openetw-bench with the session in this
// process: --kind=write (ns per event, clean-batch percentiles) and
// --kind=cgloop (instructions per event under callgrind). Their
// --host=remote variants are in openetw_remote.cpp and share these loops.
// --record=event writes the same payload as an EVENT_HEADER event
// (etw_provider_write_event: a descriptor and one data descriptor) instead
// of a classic one.
#include "openetw_bench.hpp"

#include <unistd.h>

namespace {

// What oe_bench_measured_loop writes: globals, so that the counted region
// holds the write calls and nothing of their setup.
etw_provider *g_cg_provider = nullptr;
bench::ours::Event g_cg_event;
bool g_cg_record_event = false;
const etw_event_descriptor kDescriptor = {bench::ours::kEventId, 1, 0x10, ETW_LEVEL_INFORMATION, 10, 3, 0x1};

etw_status write_as_event(etw_provider *prov, const bench::ours::Event &e)
{
    const etw_event_data_descriptor d = {std::uint64_t(reinterpret_cast<std::uintptr_t>(e.payload)),
                                         std::uint32_t(e.h.Size - sizeof(etw_event_trace_header)), 0};
    return etw_provider_write_event(prov, &kDescriptor, 0, nullptr, nullptr, 1, &d);
}

} // namespace

// The region callgrind counts (--toggle-collect=oe_bench_measured_loop).
extern "C" __attribute__((noinline)) std::uint64_t oe_bench_measured_loop(std::uint64_t n)
{
    std::uint64_t ok = 0;
    if (g_cg_record_event) {
        for (std::uint64_t i = 0; i < n; ++i)
            ok += write_as_event(g_cg_provider, g_cg_event) == ETW_OK ? 1 : 0;
        return ok;
    }
    for (std::uint64_t i = 0; i < n; ++i)
        ok += etw_provider_trace_event(g_cg_provider, &g_cg_event.h) == ETW_OK ? 1 : 0;
    return ok;
}

namespace bench::ours {

Json measure_write(const Args &a, etw_provider *prov)
{
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint32_t payload = std::uint32_t(a.num("payload", 64));
    // --check=inline: test the provider's enabled word before calling, as
    // provider.h suggests (and as an LTTng tracepoint does on its own).
    // Two loops, not one with a runtime choice: each writer stays a direct call.
    const std::uint64_t warmup = a.num("warmup", 100000), events = a.num("events", 1000000);
    const std::uint32_t batch = std::uint32_t(a.num("batch", 100));
    if (a.str("record", "classic") == "event")
        return write_cost(threads, warmup, events, batch, [&](unsigned) {
            auto e = std::make_shared<Event>();
            make_event(*e, payload);
            return [e, prov] { return write_as_event(prov, *e) == ETW_OK; };
        });
    return a.str("check", "call") == "inline"
               ? write_cost(threads, warmup, events, batch,
                            [&](unsigned) {
                                auto e = std::make_shared<Event>();
                                make_event(*e, payload);
                                const volatile std::uint32_t *word = etw_provider_enabled_word(prov);
                                return [e, prov, word] {
                                    return *word == 0 || etw_provider_trace_event(prov, &e->h) == ETW_OK;
                                };
                            })
               : write_cost(threads, warmup, events, batch, [&](unsigned) {
                     auto e = std::make_shared<Event>();
                     make_event(*e, payload);
                     return [e, prov] { return etw_provider_trace_event(prov, &e->h) == ETW_OK; };
                 });
}

int kind_write(const Args &a)
{
    if (a.str("host", "local") == "remote")
        return kind_write_remote(a);
    const std::string mode = a.str("mode", "file");
    Setup s;
    if (!s.start(a, mode, 256))
        return setup_failure(a, s);
    Json j = measure_write(a, s.provider);
    std::uint32_t lost = 0;
    const etw_status st = s.teardown(&lost);
    j.integer("events_lost", lost).num("lost_fraction", double(lost) / double(offered_events(a)));
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    if (!s.file.empty())
        ::unlink(s.file.c_str());
    return emit_ok(kImpl, a, j);
}

std::uint64_t counted_writes(const Args &a, etw_provider *prov)
{
    g_cg_provider = prov;
    g_cg_record_event = a.str("record", "classic") == "event";
    make_event(g_cg_event, std::uint32_t(a.num("payload", 64)));
    for (std::uint64_t i = a.num("warmup", 10000); i > 0; --i)
        if (g_cg_record_event)
            write_as_event(g_cg_provider, g_cg_event);
        else
            etw_provider_trace_event(g_cg_provider, &g_cg_event.h);
    return oe_bench_measured_loop(a.num("events", 100000));
}

int emit_counted(const Args &a, std::uint64_t written, std::uint64_t lost)
{
    Json j;
    j.integer("events", a.num("events", 100000)).integer("written", written).integer("events_lost", lost);
    return emit_ok(kImpl, a, j);
}

int kind_cgloop(const Args &a)
{
    if (a.str("host", "local") == "remote")
        return kind_cgloop_remote(a);
    Setup s;
    if (!s.start(a, a.str("mode", "file"), 1024))
        return setup_failure(a, s);
    const std::uint64_t written = counted_writes(a, s.provider);
    std::uint32_t lost = 0;
    s.teardown(&lost);
    if (!s.file.empty())
        ::unlink(s.file.c_str());
    return emit_counted(a, written, lost);
}

} // namespace bench::ours
