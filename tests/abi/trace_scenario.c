/*
 * trace_scenario - one fixed tracing scenario, for comparing platforms.
 *
 * The .etl file is an interface too: a trace written by openetw-1.dll (under
 * wine or Windows) must read back with the same records as one written by
 * libopenetw.so.1 from the same scenario, and each must read the other's.
 * Black-box: only the public headers and the shared library.
 *
 *   trace_scenario write FILE   runs the scenario, writing FILE
 *   trace_scenario dump FILE    prints FILE's records without what legitimately
 *                               differs between runs and machines (times,
 *                               process/thread ids, processors, buffer
 *                               placement, paths, processor count)
 *   trace_scenario check FILE   verifies that FILE holds exactly the events
 *                               the scenario writes, in order (exit 0)
 *   trace_scenario roundtrip DIR   write + check in DIR (the meson test)
 *
 * scripts/windows-tests.sh writes a trace on Linux and one under wine, dumps
 * each with both builds and requires the four dumps to be identical.
 */
#include <openetw/openetw.h>
#include <openetw/consumer.h>
#include <openetw/provider.h>
#include <openetw/session.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SCENARIO_EVENTS 600u
#define SCENARIO_SESSION "OpenETW-Scenario"

static const etw_guid provider_guid = {0x6b3e1f7eu, 0x1c2d, 0x4e5f, {0x80, 0x91, 0xa2, 0xb3, 0xc4, 0xd5, 0xe6, 0xf7}};
static const etw_guid class_guid_a = {0x11111111u, 0x2222, 0x3333, {0x44, 0x44, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55}};
static const etw_guid class_guid_b = {0xa0a0a0a0u, 0xb1b1, 0xc2c2, {0xd3, 0xd3, 0xe4, 0xe4, 0xe4, 0xe4, 0xe4, 0xe4}};

static int fail(const char *what, etw_status st)
{
    fprintf(stderr, "trace_scenario: %s: %s (%u) %s\n", what, etw_status_name(st), (unsigned)st,
            etw_last_error_message());
    return 1;
}

/* ---- the scenario: event i, deterministic ---- */

static uint32_t event_payload_size(uint32_t i) { return (i * 37u) % 301u; }
static uint8_t event_type(uint32_t i) { return (uint8_t)(i % 7u == 0 ? ETW_TYPE_START : 10u + i % 5u); }
static uint8_t event_level(uint32_t i) { return (uint8_t)(1u + i % 5u); }
static uint16_t event_version(uint32_t i) { return (uint16_t)(i % 3u); }
static int event_uses_mof(uint32_t i) { return i % 4u == 1u; }
static int event_uses_guid_ptr(uint32_t i) { return i % 6u == 2u; }
static const etw_guid *event_class(uint32_t i) { return i % 2u ? &class_guid_b : &class_guid_a; }
static uint8_t payload_byte(uint32_t i, uint32_t k) { return (uint8_t)((i * 131u + k * 7u + 3u) & 0xFFu); }

struct inline_event {
    etw_event_trace_header header;
    uint8_t payload[512];
};

struct mof_event {
    etw_event_trace_header header;
    etw_mof_field fields[2];
};

static etw_status write_event(etw_provider *provider, uint32_t i)
{
    const uint32_t n = event_payload_size(i);
    uint8_t data[512];
    uint32_t k;
    for (k = 0; k < n; ++k)
        data[k] = payload_byte(i, k);
    if (event_uses_mof(i)) {
        struct mof_event ev;
        uint32_t half = n / 2u;
        memset(&ev, 0, sizeof ev);
        ev.header.Size = (uint16_t)sizeof ev;
        ev.header.Flags = ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_MOF_PTR;
        ev.fields[0].DataPtr = (uint64_t)(uintptr_t)data;
        ev.fields[0].Length = half;
        ev.fields[1].DataPtr = (uint64_t)(uintptr_t)(data + half);
        ev.fields[1].Length = n - half;
        ev.header.Class.Type = event_type(i);
        ev.header.Class.Level = event_level(i);
        ev.header.Class.Version = event_version(i);
        ev.header.Guid = *event_class(i);
        return etw_provider_trace_event(provider, &ev.header);
    } else {
        struct inline_event ev;
        memset(&ev, 0, sizeof ev);
        ev.header.Size = (uint16_t)(sizeof ev.header + n);
        ev.header.Flags = ETW_WNODE_FLAG_TRACED_GUID;
        ev.header.Class.Type = event_type(i);
        ev.header.Class.Level = event_level(i);
        ev.header.Class.Version = event_version(i);
        if (event_uses_guid_ptr(i))
            etw_event_trace_header_set_guid_ptr(&ev.header, event_class(i));
        else
            ev.header.Guid = *event_class(i);
        memcpy(ev.payload, data, n);
        return etw_provider_trace_event(provider, &ev.header);
    }
}

static int run_write(const char *path)
{
    etw_properties *props = NULL;
    etw_session *session = NULL;
    etw_provider *provider = NULL;
    etw_status st;
    uint32_t i;
    int rc = 1;

    if ((st = etw_properties_create(&props, SCENARIO_SESSION)) != ETW_OK)
        return fail("etw_properties_create", st);
    if ((st = etw_properties_set_log_file_name(props, path)) != ETW_OK ||
        (st = etw_properties_set_buffer_size(props, 8)) != ETW_OK ||
        (st = etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL)) != ETW_OK ||
        (st = etw_properties_set_maximum_buffers(props, 64)) != ETW_OK) {
        rc = fail("etw_properties_set_*", st);
        goto out;
    }
    if ((st = etw_session_start(&session, props)) != ETW_OK) {
        rc = fail("etw_session_start", st);
        goto out;
    }
    if ((st = etw_provider_register(&provider, &provider_guid, NULL, NULL, NULL)) != ETW_OK) {
        rc = fail("etw_provider_register", st);
        goto out;
    }
    if ((st = etw_session_enable_provider(session, &provider_guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE,
                                          0, 0)) != ETW_OK) {
        rc = fail("etw_session_enable_provider", st);
        goto out;
    }
    for (i = 0; i < SCENARIO_EVENTS; ++i) {
        if ((st = write_event(provider, i)) != ETW_OK) {
            fprintf(stderr, "event %u: ", (unsigned)i);
            rc = fail("etw_provider_trace_event", st);
            goto out;
        }
        if (i % 100u == 99u && (st = etw_session_flush(session, NULL)) != ETW_OK) {
            rc = fail("etw_session_flush", st);
            goto out;
        }
    }
    if ((st = etw_session_stop(session, props)) != ETW_OK) {
        rc = fail("etw_session_stop", st);
        goto out;
    }
    if (etw_properties_events_lost(props) != 0) {
        fprintf(stderr, "trace_scenario: %u events lost\n", (unsigned)etw_properties_events_lost(props));
        goto out;
    }
    rc = 0;
out:
    etw_provider_unregister(provider);
    etw_session_close(session);
    etw_properties_destroy(props);
    return rc;
}

/* ---- reading ---- */

struct reader {
    FILE *out;       /* dump: where to print; NULL for check */
    uint32_t events; /* classic events seen */
    uint32_t others; /* other records (the logfile header, ...) */
    int bad;
};

static void print_guid(FILE *f, const etw_guid *g)
{
    fprintf(f, "%08x-%04x-%04x-%02x%02x-%02x%02x%02x%02x%02x%02x", (unsigned)g->Data1, (unsigned)g->Data2,
            (unsigned)g->Data3, g->Data4[0], g->Data4[1], g->Data4[2], g->Data4[3], g->Data4[4], g->Data4[5],
            g->Data4[6], g->Data4[7]);
}

static uint32_t fnv1a(const uint8_t *p, uint32_t n)
{
    uint32_t h = 2166136261u, k;
    for (k = 0; k < n; ++k)
        h = (h ^ p[k]) * 16777619u;
    return h;
}

static int32_t on_record(void *user_data, const etw_record *r)
{
    struct reader *rd = (struct reader *)user_data;
    if (r->kind == ETW_RECORD_KIND_FULL || r->kind == ETW_RECORD_KIND_INSTANCE)
        return 0; /* printed by on_event */
    rd->others++;
    if (rd->out)
        fprintf(rd->out, "record kind=%s header_type=0x%02x hook=0x%04x pointer_size=%u\n",
                etw_record_kind_name(r->kind), r->header_type, r->hook_id, (unsigned)r->pointer_size);
    return 0;
}

static int32_t on_event(void *user_data, const etw_classic_event *e)
{
    struct reader *rd = (struct reader *)user_data;
    const etw_event_trace_header *h = &e->header;
    const uint32_t i = rd->events++;
    if (rd->out) {
        /* ClientContext/Flags hold KernelTime/UserTime in a logged event: not printed */
        fprintf(rd->out, "event %u size=%u type=%u level=%u version=%u marker=0x%02x ht=0x%02x class=", (unsigned)i,
                (unsigned)h->Size, h->Class.Type, h->Class.Level, (unsigned)h->Class.Version, h->MarkerFlags,
                h->HeaderType);
        print_guid(rd->out, &h->Guid);
        fprintf(rd->out, " payload=%u fnv=%08x\n", (unsigned)e->payload_size,
                (unsigned)fnv1a(e->payload, e->payload_size));
    } else {
        /* check: exactly the scenario's event i */
        uint32_t n = event_payload_size(i), k;
        int ok = i < SCENARIO_EVENTS && e->payload_size == n && h->Class.Type == event_type(i) &&
                 h->Class.Level == event_level(i) && h->Class.Version == event_version(i) &&
                 memcmp(&h->Guid, event_class(i), sizeof h->Guid) == 0;
        for (k = 0; ok && k < n; ++k)
            ok = e->payload[k] == payload_byte(i, k);
        if (!ok) {
            if (rd->bad < 5)
                fprintf(stderr,
                        "trace_scenario: event %u differs from what the scenario wrote "
                        "(payload %u bytes, expected %u; type %u level %u)\n",
                        (unsigned)i, (unsigned)e->payload_size, (unsigned)n, h->Class.Type, h->Class.Level);
            rd->bad++;
        }
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *b = path, *p;
    for (p = path; p && *p; ++p)
        if (*p == '/' || *p == '\\')
            b = p + 1;
    return b ? b : "";
}

static int run_read(const char *path, FILE *out)
{
    etw_consumer *consumer = NULL;
    etw_consumer_options options;
    etw_logfile_info info;
    etw_consumer_stats stats;
    struct reader rd;
    etw_status st;
    const char *paths[1];
    int rc = 1;

    memset(&rd, 0, sizeof rd);
    rd.out = out;
    memset(&options, 0, sizeof options);
    options.struct_size = (uint32_t)sizeof options;
    options.flags = ETW_CONSUMER_ORDER_TIME;
    options.record = on_record;
    options.event = on_event;
    options.user_data = &rd;
    paths[0] = path;
    if ((st = etw_consumer_open(&consumer, paths, 1, &options)) != ETW_OK)
        return fail("etw_consumer_open", st);
    memset(&info, 0, sizeof info);
    info.struct_size = (uint32_t)sizeof info;
    if ((st = etw_consumer_logfile_header(&info, consumer, 0)) != ETW_OK) {
        rc = fail("etw_consumer_logfile_header", st);
        goto out;
    }
    if (out)
        fprintf(out,
                "logfile buffer_size=%u version=0x%08x pointer_size=%u log_file_mode=0x%08x "
                "clock=%u events_lost=%u buffers_lost=%u header_type=%u logger=%s file=%s\n",
                (unsigned)info.header.BufferSize, (unsigned)info.header.Version, (unsigned)info.header.PointerSize,
                (unsigned)info.header.LogFileMode, (unsigned)info.header.ReservedFlags,
                (unsigned)info.header.EventsLost, (unsigned)info.header.BuffersLost, (unsigned)info.header_type,
                info.logger_name, base_name(info.log_file_name));
    if ((st = etw_consumer_process(consumer)) != ETW_OK) {
        rc = fail("etw_consumer_process", st);
        goto out;
    }
    memset(&stats, 0, sizeof stats);
    stats.struct_size = (uint32_t)sizeof stats;
    if ((st = etw_consumer_get_stats(&stats, consumer)) != ETW_OK) {
        rc = fail("etw_consumer_get_stats", st);
        goto out;
    }
    if (out)
        fprintf(out,
                "total events=%u other_records=%u corrupt_buffers=%u corrupt_records=%u "
                "events_lost=%u first_problem=%u\n",
                (unsigned)rd.events, (unsigned)rd.others, (unsigned)stats.corrupt_buffers,
                (unsigned)stats.corrupt_records, (unsigned)stats.events_lost, (unsigned)stats.first_problem);
    if (!out) {
        if (rd.events != SCENARIO_EVENTS)
            fprintf(stderr, "trace_scenario: %u events read, %u written\n", (unsigned)rd.events,
                    (unsigned)SCENARIO_EVENTS);
        if (stats.corrupt_buffers || stats.corrupt_records || stats.first_problem != ETW_OK)
            fprintf(stderr, "trace_scenario: the reader found problems (status %u)\n", (unsigned)stats.first_problem);
        if (rd.bad || rd.events != SCENARIO_EVENTS || stats.corrupt_buffers || stats.corrupt_records ||
            stats.first_problem != ETW_OK)
            goto out;
        printf("OK: %u events read back as written (%u other records)\n", (unsigned)rd.events, (unsigned)rd.others);
    }
    rc = 0;
out:
    etw_consumer_close(consumer);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "write") == 0)
        return run_write(argv[2]);
    if (argc == 3 && strcmp(argv[1], "dump") == 0)
        return run_read(argv[2], stdout);
    if (argc == 3 && strcmp(argv[1], "check") == 0)
        return run_read(argv[2], NULL);
    if (argc == 3 && strcmp(argv[1], "roundtrip") == 0) {
        char path[4096];
        int rc;
        if (strlen(argv[2]) > sizeof path - 32)
            return 2;
        sprintf(path, "%s/scenario-roundtrip.etl", argv[2]);
        remove(path);
        rc = run_write(path);
        if (rc == 0)
            rc = run_read(path, NULL);
        return rc;
    }
    fprintf(stderr, "usage: trace_scenario write|dump|check FILE | roundtrip DIR\n");
    return 2;
}
