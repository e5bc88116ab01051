// The system logger (NT Kernel Logger) for openetw-bench's kernel figure
// (bench/runner/kernel_logger.py):
//
//   --kind=syslogger  starts a system logger in this process (--flags, a
//       list etw_enable_flags_parse takes; --file; --buffer-kb and
//       --buffers-per-cpu), prints {"ready":1,"logger_tid":N} once its
//       start (and DCStart rundown) returned, waits until stdin closes or
//       gives a line, stops, and prints its statistics. bench/run reads the
//       CPU time of this process from /proc meanwhile, as it does perf's.
//   --kind=kernel-count  reads such a file (--file) and counts its records
//       by the hooks the figure is about (SysClEnter/SysClExit, CSwitch),
//       and the workload's among them (--tids: CSwitch records whose old
//       thread is one of them; --syscall: SysClEnter records of that number).
#include "openetw_bench.hpp"

#include <set>
#include <sstream>

#include <unistd.h>

namespace bench::ours {

namespace {

constexpr std::uint16_t kSysClEnter = 0x0F33, kSysClExit = 0x0F34, kCSwitch = 0x0524;

struct Counts {
    std::uint64_t records = 0, enter = 0, exit = 0, cswitch = 0, other = 0;
    std::uint64_t enter_matched = 0, cswitch_matched = 0;
    std::uint64_t syscall = ~0ull;
    std::set<std::uint32_t> tids;
};

std::uint64_t pointer_at(const std::uint8_t *p, std::uint32_t size)
{
    if (size == 4) {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        return v;
    }
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

int32_t on_record(void *user, const etw_record *r)
{
    auto *c = static_cast<Counts *>(user);
    if (r->kind == ETW_RECORD_KIND_SYSTEM && r->hook_id == 0 && r->buffer_index == 0)
        return 0; // the logfile header
    ++c->records;
    const bool hooked = (r->present & ETW_RECORD_HAS_HOOK_ID) != 0;
    if (hooked && r->hook_id == kSysClEnter) {
        ++c->enter;
        // SysCallAddress: the call's number, pointer-sized.
        const std::uint32_t ps = r->pointer_size ? r->pointer_size : 8;
        if (r->payload_size >= ps && pointer_at(r->payload, ps) == c->syscall)
            ++c->enter_matched;
    } else if (hooked && r->hook_id == kSysClExit) {
        ++c->exit;
    } else if (hooked && r->hook_id == kCSwitch) {
        ++c->cswitch;
        // NewThreadId, OldThreadId: the old thread is the one switched away.
        if (r->payload_size >= 8) {
            std::uint32_t old_tid;
            std::memcpy(&old_tid, r->payload + 4, 4);
            c->cswitch_matched += c->tids.count(old_tid);
        }
    } else {
        ++c->other; // rundown, SystemConfig
    }
    return 0;
}

} // namespace

int kind_syslogger(const Args &a)
{
#if defined(OEB_HAVE_SESSION_OPTIONS)
    std::uint32_t flags = 0;
    if (etw_status st = etw_enable_flags_parse(&flags, a.str("flags", "systemcall").c_str()); st != ETW_OK)
        return emit_fail(kImpl, a, "error", "--flags: " + status_text(st));
    const std::string file = a.str("file");
    const std::string name = "oebench-kernel-" + std::to_string(getpid());
    etw_properties *props = nullptr;
    etw_properties_create(&props, name.c_str());
    const std::uint32_t per_cpu = std::uint32_t(a.num("buffers-per-cpu", 64));
    etw_properties_set_buffer_size(props, std::uint32_t(a.num("buffer-kb", 64)));
    etw_properties_set_minimum_buffers(props, per_cpu * cpu_count());
    etw_properties_set_maximum_buffers(props, per_cpu * cpu_count());
    etw_properties_set_log_file_name(props, file.c_str());
    // A name of its own with SYSTEM_LOGGER_MODE: never the machine's NT Kernel Logger.
    etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL | ETW_SYSTEM_LOGGER_MODE);
    etw_properties_set_enable_flags(props, flags);
    etw_session_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    etw_session *s = nullptr;
    const std::int64_t t0 = now_ns();
    if (etw_status st = etw_session_start_ex(&s, props, &o); st != ETW_OK) {
        const std::string why = "etw_session_start_ex: " + status_text(st);
        etw_properties_destroy(props);
        // No right to read the kernel's events, or a kernel without the
        // tracepoints: the figure is not available here, not broken.
        const bool na = st == ETW_ERROR_ACCESS_DENIED || st == ETW_ERROR_NOT_SUPPORTED;
        return emit_fail(kImpl, a, na ? "not_built" : "error", why);
    }
    const std::int64_t started = now_ns();
    etw_session_query(s, props);
    std::printf("{\"ready\":1,\"logger_tid\":%llu,\"start_ms\":%.3f}\n",
                static_cast<unsigned long long>(etw_properties_logger_thread_id(props)), double(started - t0) / 1e6);
    std::fflush(stdout);
    char line[64];
    (void)!::read(0, line, sizeof line); // a line or EOF: stop
    const std::int64_t t1 = now_ns();
    const etw_status st = etw_session_stop(s, props);
    const std::int64_t stopped = now_ns();
    etw_session_close(s);
    Json j;
    j.integer("events_lost", etw_properties_events_lost(props))
        .integer("buffers_written", etw_properties_buffers_written(props))
        .integer("log_buffers_lost", etw_properties_log_buffers_lost(props))
        .integer("number_of_buffers", etw_properties_number_of_buffers(props))
        .integer("file_bytes", file_bytes(file))
        .num("start_ms", double(started - t0) / 1e6)
        .num("stop_ms", double(stopped - t1) / 1e6);
    etw_properties_destroy(props);
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    return emit_ok(kImpl, a, j);
#else
    return emit_fail(kImpl, a, "not_built", "etw_session_start_ex is not in this build");
#endif
}

int kind_kernel_count(const Args &a)
{
    Counts c;
    c.syscall = a.num("syscall", ~0ull);
    std::stringstream tids(a.str("tids"));
    for (std::string t; std::getline(tids, t, ',');)
        if (!t.empty())
            c.tids.insert(std::uint32_t(std::strtoul(t.c_str(), nullptr, 10)));
    const std::string file = a.str("file");
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = ETW_CONSUMER_ORDER_FILE | ETW_CONSUMER_RAW_TIMESTAMP;
    o.record = on_record;
    o.user_data = &c;
    etw_consumer *consumer = nullptr;
    const char *paths[] = {file.c_str()};
    if (etw_status st = etw_consumer_open(&consumer, paths, 1, &o); st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_consumer_open: " + status_text(st));
    const etw_status st = etw_consumer_process(consumer);
    etw_consumer_close(consumer);
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_consumer_process: " + status_text(st));
    Json j;
    j.integer("records", c.records)
        .integer("sysclenter", c.enter)
        .integer("sysclexit", c.exit)
        .integer("cswitch", c.cswitch)
        .integer("other", c.other)
        .integer("sysclenter_matched", c.enter_matched)
        .integer("cswitch_matched", c.cswitch_matched);
    return emit_ok(kImpl, a, j);
}

} // namespace bench::ours
