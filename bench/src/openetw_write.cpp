// The write-cost workloads of openetw-bench with the session in this
// process: --kind=write (ns per event, clean-batch percentiles) and
// --kind=cgloop (instructions per event under callgrind). Their
// --host=remote variants are in openetw_remote.cpp and share these loops.
// --record=event writes the same payload as an EVENT_HEADER event
// (etw_provider_write_event: a descriptor and one data descriptor) instead
// of a classic one. --record=event3 and --record=tl3 write one fixed event
// of three fields (INT32, INT64, a 9-byte UTF-8 string): as EventWrite with
// three data descriptors, and as TraceLogging (etw_provider_write_tracelogging,
// its metadata encoded per call), so the pair prices self-description.
#include "openetw_bench.hpp"

#include <openetw/tracelogging.h>

#include <unistd.h>

namespace {

// What oe_bench_measured_loop writes: globals, so that the counted region
// holds the write calls and nothing of their setup.
enum class Record { classic, event, event3, tl3 };
Record record_of(const bench::Args &a)
{
    const std::string r = a.str("record", "classic");
    return r == "event" ? Record::event : r == "event3" ? Record::event3 : r == "tl3" ? Record::tl3 : Record::classic;
}

etw_provider *g_cg_provider = nullptr;
bench::ours::Event g_cg_event;
Record g_cg_record = Record::classic;
const etw_event_descriptor kDescriptor = {bench::ours::kEventId, 1, 0x10, ETW_LEVEL_INFORMATION, 10, 3, 0x1};
const etw_event_descriptor kTlDescriptor = {0, 0, ETW_TL_CHANNEL, ETW_LEVEL_INFORMATION, 0, 0, 0x1};

etw_status write_as_event(etw_provider *prov, const bench::ours::Event &e)
{
    const etw_event_data_descriptor d = {std::uint64_t(reinterpret_cast<std::uintptr_t>(e.payload)),
                                         std::uint32_t(e.h.Size - sizeof(etw_event_trace_header)), 0};
    return etw_provider_write_event(prov, &kDescriptor, 0, nullptr, nullptr, 1, &d);
}

// The three-field event's values (volatile reads: not folded into constants).
volatile std::int32_t g_order_id = 4711;
volatile std::int64_t g_amount = 123456789;
const char kCustomer[] = "Fabrikam";

template <class T>
std::uint64_t address(const T *p)
{
    return std::uint64_t(reinterpret_cast<std::uintptr_t>(p));
}

etw_status write_event3(etw_provider *prov)
{
    const std::int32_t id = g_order_id;
    const std::int64_t amount = g_amount;
    const etw_event_data_descriptor d[3] = {{address(&id), 4, 0},
                                            {address(&amount), 8, 0},
                                            {address(kCustomer), sizeof kCustomer, 0}};
    return etw_provider_write_event(prov, &kDescriptor, 0, nullptr, nullptr, 3, d);
}

etw_status write_tl3(etw_provider *prov)
{
    const std::int32_t id = g_order_id;
    const std::int64_t amount = g_amount;
    const etw_tl_field f[3] = {{"order_id", &id, 4, ETW_TL_IN_INT32, 0, 0},
                               {"amount", &amount, 8, ETW_TL_IN_INT64, 0, 0},
                               {"customer", kCustomer, sizeof kCustomer - 1, ETW_TL_IN_ANSISTRING, ETW_TL_OUT_UTF8, 0}};
    return etw_provider_write_tracelogging(prov, "OrderShipped", &kTlDescriptor, nullptr, nullptr, 3, f);
}

etw_status write_one(Record r, etw_provider *prov, const bench::ours::Event &e)
{
    switch (r) {
    case Record::event:
        return write_as_event(prov, e);
    case Record::event3:
        return write_event3(prov);
    case Record::tl3:
        return write_tl3(prov);
    default:
        return etw_provider_trace_event(prov, const_cast<etw_event_trace_header *>(&e.h));
    }
}

} // namespace

// The region callgrind counts (--toggle-collect=oe_bench_measured_loop).
extern "C" __attribute__((noinline)) std::uint64_t oe_bench_measured_loop(std::uint64_t n)
{
    // One loop per record: the loop holds the write call and nothing to choose it.
    std::uint64_t ok = 0;
    switch (g_cg_record) {
    case Record::event:
        for (std::uint64_t i = 0; i < n; ++i)
            ok += write_as_event(g_cg_provider, g_cg_event) == ETW_OK ? 1 : 0;
        return ok;
    case Record::event3:
        for (std::uint64_t i = 0; i < n; ++i)
            ok += write_event3(g_cg_provider) == ETW_OK ? 1 : 0;
        return ok;
    case Record::tl3:
        for (std::uint64_t i = 0; i < n; ++i)
            ok += write_tl3(g_cg_provider) == ETW_OK ? 1 : 0;
        return ok;
    default:
        break;
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
    if (const Record r = record_of(a); r == Record::event)
        return write_cost(threads, warmup, events, batch, [&](unsigned) {
            auto e = std::make_shared<Event>();
            make_event(*e, payload);
            return [e, prov] { return write_as_event(prov, *e) == ETW_OK; };
        });
    else if (r == Record::event3)
        return write_cost(threads, warmup, events, batch,
                          [&](unsigned) { return [prov] { return write_event3(prov) == ETW_OK; }; });
    else if (r == Record::tl3)
        return write_cost(threads, warmup, events, batch,
                          [&](unsigned) { return [prov] { return write_tl3(prov) == ETW_OK; }; });
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
    g_cg_record = record_of(a);
    make_event(g_cg_event, std::uint32_t(a.num("payload", 64)));
    for (std::uint64_t i = a.num("warmup", 10000); i > 0; --i)
        write_one(g_cg_record, g_cg_provider, g_cg_event);
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
