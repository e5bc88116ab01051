// The consumer workloads of openetw-bench: --kind=gen writes the file the
// consumer figures read (bench/run runs it once, before measuring),
// --kind=consumer reads it through the public consumer API with the
// callback and order asked for, and --kind=residency says how much of it is
// in the page cache (a cold file would measure the disk, not the consumer).
#include "openetw_bench.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace bench::ours {

// Writes --events events (64-byte payload, one thread) to --file, without
// loss, for the consumer runs.
int kind_gen(const Args &a)
{
    Setup s;
    if (!s.start(a, "file", 1024))
        return setup_failure(a, s);
    Event e;
    make_event(e, std::uint32_t(a.num("payload", 64)));
    const std::uint64_t n = a.num("events", 1000000);
    std::uint64_t failed = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        while (etw_provider_trace_event(s.provider, &e.h) != ETW_OK) {
            ++failed; // out of buffers: give the logger a moment and retry
            usleep(100);
        }
    }
    std::uint32_t lost = 0;
    if (etw_status st = s.teardown(&lost); st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    Json j;
    j.integer("events", n).integer("retries", failed).integer("file_bytes", file_bytes(s.file)).str("file", s.file);
    return emit_ok(kImpl, a, j);
}

namespace {

struct ConsumerCount {
    std::uint64_t events = 0, payload_bytes = 0, check = 0;
};

int32_t on_event(void *user, const etw_classic_event *ev)
{
    auto *c = static_cast<ConsumerCount *>(user);
    ++c->events;
    c->payload_bytes += ev->payload_size;
    if (ev->payload_size)
        c->check += ev->payload[0];
    return 0;
}

// Callbacks that do nothing: what the consumer itself costs.
int32_t on_event_empty(void *, const etw_classic_event *) { return 0; }
int32_t on_record_empty(void *, const etw_record *) { return 0; }

// Share of the file's pages in the page cache (mincore), -1 if unknown.
double resident_fraction(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return -1;
    const std::uint64_t size = file_bytes(path);
    double share = -1;
    void *map = size ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (map != MAP_FAILED) {
        const long page = ::sysconf(_SC_PAGESIZE);
        std::vector<unsigned char> in((size + page - 1) / page);
        if (::mincore(map, size, in.data()) == 0) {
            std::uint64_t n = 0;
            for (unsigned char c : in)
                n += c & 1;
            share = double(n) / double(in.size());
        }
        ::munmap(map, size);
    }
    ::close(fd);
    return share;
}

} // namespace

int kind_residency(const Args &a)
{
    const std::string path = a.str("file");
    Json j;
    j.integer("bytes", file_bytes(path)).num("resident_fraction", resident_fraction(path));
    return emit_ok(kImpl, a, j);
}

// --callback=event (counts events, reads a payload byte), event-empty,
// record-empty or none; --order=time|file.
int kind_consumer(const Args &a)
{
    const std::string path = a.str("file");
    const std::string callback = a.str("callback", "event");
    ConsumerCount count;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = a.str("order") == "file" ? ETW_CONSUMER_ORDER_FILE : ETW_CONSUMER_ORDER_TIME;
    if (callback == "event")
        o.event = on_event;
    else if (callback == "event-empty")
        o.event = on_event_empty;
    else if (callback == "record-empty")
        o.record = on_record_empty;
    else if (callback != "none")
        return emit_fail(kImpl, a, "error", "unknown --callback=" + callback);
    o.user_data = &count;
    const double resident = resident_fraction(path);
    const char *paths[1] = {path.c_str()};
    const std::int64_t t0 = now_ns(), c0 = thread_cpu_ns();
    etw_consumer *c = nullptr;
    if (etw_status st = etw_consumer_open(&c, paths, 1, &o); st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_consumer_open: " + status_text(st));
    const etw_status st = etw_consumer_process(c);
    const std::int64_t t1 = now_ns(), c1 = thread_cpu_ns();
    etw_consumer_stats stats{};
    stats.struct_size = sizeof stats;
    etw_consumer_get_stats(&stats, c);
    etw_consumer_close(c);
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_consumer_process: " + status_text(st));
    const std::uint64_t bytes = file_bytes(path);
    const double secs = double(t1 - t0) / 1e9, cpu = double(c1 - c0) / 1e9;
    Json j;
    j.integer("bytes", bytes)
        .integer("records", stats.records)
        .integer("events", count.events)
        .integer("check", count.check)
        .num("seconds", secs)
        .num("cpu_seconds", cpu)
        .num("resident_fraction", resident)
        .num("mb_per_s", double(bytes) / 1e6 / secs)
        .num("mb_per_cpu_s", double(bytes) / 1e6 / cpu)
        .num("records_per_s", double(stats.records) / secs);
    return emit_ok(kImpl, a, j);
}

} // namespace bench::ours
