// What the sources of openetw-bench share: the provider and event every
// workload writes, the session the arguments describe, and one entry point
// per --kind (each workload in a file of its own, openetw_bench.cpp picks).
#pragma once

#include "common.hpp"
#include "rt_consumer.hpp"
#include "workloads.hpp"

#include <openetw/openetw.h>

namespace bench::ours {

constexpr const char *kImpl = "ours";

// The provider every run registers, and the class GUID of its events.
constexpr etw_guid kProvider = {0x4F455442, 0x4245, 0x4E43, {0x48, 0x50, 0x52, 0x4F, 0x56, 0x49, 0x44, 0x31}};
constexpr etw_guid kClass = {0x4F455442, 0x4245, 0x4E43, {0x48, 0x43, 0x4C, 0x41, 0x53, 0x53, 0x30, 0x31}};

struct Event {
    etw_event_trace_header h;
    std::uint8_t payload[512];
};

inline void make_event(Event &e, std::uint32_t payload)
{
    std::memset(&e, 0, sizeof e);
    e.h.Size = std::uint16_t(sizeof(etw_event_trace_header) + payload);
    e.h.Class.Type = 10;
    e.h.Class.Level = ETW_LEVEL_INFORMATION;
    e.h.Guid = kClass;
    e.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    fill_payload(e.payload, payload);
}

// The status name with the library's last error message.
std::string status_text(etw_status st);

// One session of the mode the arguments ask for, with the provider enabled.
// The id of the workloads' EVENT_HEADER event (--record=event), which --filter names.
inline constexpr std::uint16_t kEventId = 7;

struct Setup {
    etw_properties *props = nullptr;
    etw_session *session = nullptr;
    etw_provider *provider = nullptr;
    RtConsumer rt;
    std::string file;
    std::string mode;
    etw_status status = ETW_OK;
    std::string why;        // failure text
    bool not_built = false; // the mode is not available in this build
    std::string export_url; // --export-server: the stream this session also publishes to
    // The final statistics, read at the stop.
    std::uint32_t buffers_written = 0, export_buffers_lost = 0;

    ~Setup() { teardown(nullptr); }

    // register_provider false: the session only (--kind=host, whose
    // provider registers in another process).
    bool start(const Args &a, const std::string &mode_, std::uint32_t buffers_per_cpu_default,
               bool register_provider = true);
    bool fail(etw_status st, const std::string &what);
    // Stops the session (props receives the final statistics).
    etw_status teardown(std::uint32_t *events_lost);
};

int setup_failure(const Args &a, const Setup &s);

// The events a write-cost run asks for on all its threads (warm-up and both
// phases): what its lost fraction is a fraction of.
inline std::uint64_t offered_events(const Args &a)
{
    return a.num("threads", 1) * (a.num("warmup", 100000) + 2 * a.num("events", 1000000));
}

// The write-cost loop of kind_write on `threads` threads into whatever
// session enables prov.
Json measure_write(const Args &a, etw_provider *prov);

// The instruction count loop of kind_cgloop (warm-up, then --events events
// in the region callgrind counts); returns the events written.
std::uint64_t counted_writes(const Args &a, etw_provider *prov);
// Its result: the events asked for, written and lost.
int emit_counted(const Args &a, std::uint64_t written, std::uint64_t lost);

// A registry file and its "<registry>.*" files (session regions).
void remove_registry_files(const std::string &registry);

// One entry point per --kind, by file.
// openetw_write.cpp
int kind_write(const Args &a);
int kind_cgloop(const Args &a);
// openetw_remote.cpp: --kind=host, and write/cgloop with --host=remote
int kind_host(const Args &a);
int kind_write_remote(const Args &a);
int kind_cgloop_remote(const Args &a);
// openetw_stream.cpp: throughput (paced false) and paced
int kind_stream(const Args &a, bool paced);
// openetw_consumer.cpp
int kind_gen(const Args &a);
int kind_residency(const Args &a);
int kind_consumer(const Args &a);
// openetw_session.cpp
int kind_startstop(const Args &a);
int kind_memory(const Args &a);

// openetw_kernel.cpp: the system logger of the kernel figure, and its file's counts
int kind_syslogger(const Args &a);
int kind_kernel_count(const Args &a);

} // namespace bench::ours
