/*
 * openetw-demo: starts a session, writes events from several threads through
 * a registered provider, stops, and prints the statistics.
 */
#include <openetw/openetw.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const etw_guid kProvider = { 0x6f70656eu, 0x6574u, 0x7764u, { 0x64, 0x65, 0x6d, 0x6f, 0x00, 0x00, 0x00, 0x01 } };

struct worker {
    etw_provider *provider;
    unsigned long events;
    unsigned long payload;
    unsigned long ok;
    unsigned long lost;
    unsigned long failed;
    int index;
};

static void *write_events(void *arg)
{
    struct worker *w = (struct worker *)arg;
    size_t size = sizeof(etw_event_trace_header) + w->payload;
    unsigned char *buf = (unsigned char *)calloc(1, size);
    unsigned long i;
    if (!buf)
        return NULL;
    for (i = 0; i < w->events; ++i) {
        etw_event_trace_header *h = (etw_event_trace_header *)buf;
        etw_status st;
        memset(h, 0, sizeof *h);
        h->Size = (uint16_t)size;
        h->Class.Type = (uint8_t)(ETW_TYPE_USER_FIRST + w->index);
        h->Class.Level = ETW_LEVEL_INFORMATION;
        h->Guid = kProvider;
        h->Flags = ETW_WNODE_FLAG_TRACED_GUID;
        if (w->payload >= sizeof i)
            memcpy(buf + sizeof *h, &i, sizeof i);
        st = etw_provider_trace_event(w->provider, h);
        if (st == ETW_OK)
            w->ok++;
        else if (st == ETW_ERROR_NOT_ENOUGH_MEMORY)
            w->lost++;
        else
            w->failed++;
    }
    free(buf);
    return NULL;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: openetw-demo [--output FILE] [--mode sequential|circular|newfile|append|buffering|realtime]\n"
            "                    [--events N] [--threads T] [--buffer-kb K] [--min-buffers N] [--max-buffers N]\n"
            "                    [--max-file-mb M] [--clock 1|2|3] [--payload BYTES]\n");
}

static int fail(const char *what, etw_status st)
{
    fprintf(stderr, "openetw-demo: %s failed: %s (%u): %s\n", what, etw_status_name(st), st, etw_last_error_message());
    return 1;
}

/* Stops the session called name if its host process died (sessions are
 * system-wide, so a demo killed mid-run leaves one); 1 when it did. */
static int stop_orphan(const char *name)
{
    etw_session *old = NULL;
    etw_session_host_info host;
    int stopped = 0;
    memset(&host, 0, sizeof host);
    host.struct_size = sizeof host;
    if (etw_session_open(&old, name) != ETW_OK)
        return 0;
    if (etw_session_get_host_info(&host, old) == ETW_OK && host.state == ETW_SESSION_HOST_ORPHANED) {
        etw_session_stop(old, NULL); /* frees the name even when its file cannot be finished */
        fprintf(stderr, "openetw-demo: stopped the orphaned session of process %u (a killed earlier run)\n",
                host.process_id);
        stopped = 1;
    }
    etw_session_close(old);
    return stopped;
}

int main(int argc, char **argv)
{
    const char *output = "openetw-demo.etl";
    const char *mode_name = "sequential";
    unsigned long events = 100000, threads = 2, buffer_kb = 64, min_buffers = 0, max_buffers = 0, max_file_mb = 0;
    unsigned long clock = 1, payload = 64;
    uint32_t mode = ETW_FILE_MODE_SEQUENTIAL;
    int i;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage();
            return 0;
        }
        if (!v) {
            usage();
            return 2;
        }
        ++i;
        if (strcmp(a, "--output") == 0) output = v;
        else if (strcmp(a, "--mode") == 0) mode_name = v;
        else if (strcmp(a, "--events") == 0) events = strtoul(v, NULL, 10);
        else if (strcmp(a, "--threads") == 0) threads = strtoul(v, NULL, 10);
        else if (strcmp(a, "--buffer-kb") == 0) buffer_kb = strtoul(v, NULL, 10);
        else if (strcmp(a, "--min-buffers") == 0) min_buffers = strtoul(v, NULL, 10);
        else if (strcmp(a, "--max-buffers") == 0) max_buffers = strtoul(v, NULL, 10);
        else if (strcmp(a, "--max-file-mb") == 0) max_file_mb = strtoul(v, NULL, 10);
        else if (strcmp(a, "--clock") == 0) clock = strtoul(v, NULL, 10);
        else if (strcmp(a, "--payload") == 0) payload = strtoul(v, NULL, 10);
        else {
            usage();
            return 2;
        }
    }
    if (strcmp(mode_name, "sequential") == 0) mode = ETW_FILE_MODE_SEQUENTIAL;
    else if (strcmp(mode_name, "circular") == 0) mode = ETW_FILE_MODE_CIRCULAR;
    else if (strcmp(mode_name, "newfile") == 0) mode = ETW_FILE_MODE_NEWFILE;
    else if (strcmp(mode_name, "append") == 0) mode = ETW_FILE_MODE_APPEND;
    else if (strcmp(mode_name, "buffering") == 0 || strcmp(mode_name, "realtime") == 0) {
        fprintf(stderr, "openetw-demo: --mode %s is not built yet (real-time and buffering sessions come in a later issue)\n",
                mode_name);
        return 2;
    } else {
        usage();
        return 2;
    }
    if (threads < 1 || threads > 256 || payload > 65000) {
        fprintf(stderr, "openetw-demo: --threads must be 1..256 and --payload at most 65000\n");
        return 2;
    }

    etw_properties *props = NULL;
    etw_status st = etw_properties_create(&props, "openetw-demo");
    if (st != ETW_OK)
        return fail("etw_properties_create", st);
    if ((st = etw_properties_set_log_file_name(props, output)) != ETW_OK ||
        (st = etw_properties_set_log_file_mode(props, mode)) != ETW_OK ||
        (st = etw_properties_set_buffer_size(props, (uint32_t)buffer_kb)) != ETW_OK ||
        (st = etw_properties_set_minimum_buffers(props, (uint32_t)min_buffers)) != ETW_OK ||
        (st = etw_properties_set_maximum_buffers(props, (uint32_t)max_buffers)) != ETW_OK ||
        (st = etw_properties_set_maximum_file_size(props, (uint32_t)max_file_mb)) != ETW_OK ||
        (st = etw_properties_set_clock_type(props, (uint32_t)clock)) != ETW_OK)
        return fail("setting the properties", st);

    etw_session *session = NULL;
    st = etw_session_start(&session, props);
    if (st == ETW_ERROR_ALREADY_EXISTS && stop_orphan("openetw-demo"))
        st = etw_session_start(&session, props); /* a killed earlier run held the name */
    if (st != ETW_OK)
        return fail("etw_session_start", st);
    etw_provider *provider = NULL;
    if ((st = etw_provider_register(&provider, &kProvider, NULL, NULL, NULL)) != ETW_OK)
        return fail("etw_provider_register", st);
    if ((st = etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0)) != ETW_OK)
        return fail("etw_session_enable_provider", st);

    struct worker *workers = (struct worker *)calloc(threads, sizeof *workers);
    pthread_t *tids = (pthread_t *)calloc(threads, sizeof *tids);
    unsigned long t, ok = 0, lost = 0, failed = 0;
    if (!workers || !tids)
        return 1;
    for (t = 0; t < threads; ++t) {
        workers[t].provider = provider;
        workers[t].events = events / threads + (t < events % threads ? 1 : 0);
        workers[t].payload = payload;
        workers[t].index = (int)t;
        pthread_create(&tids[t], NULL, write_events, &workers[t]);
    }
    for (t = 0; t < threads; ++t) {
        pthread_join(tids[t], NULL);
        ok += workers[t].ok;
        lost += workers[t].lost;
        failed += workers[t].failed;
    }
    st = etw_session_stop(session, props);
    if (st != ETW_OK)
        fail("etw_session_stop", st);
    etw_session_close(session);
    etw_provider_unregister(provider);

    printf("session          %s\n", etw_properties_session_name(props));
    printf("log file         %s\n", etw_properties_log_file_name(props));
    printf("events attempted %lu (%lu threads)\n", events, threads);
    printf("events written   %lu\n", ok);
    printf("events dropped   %lu (NOT_ENOUGH_MEMORY), %lu other failures\n", lost, failed);
    printf("BufferSize       %u KB\n", etw_properties_buffer_size(props));
    printf("MinimumBuffers   %u\n", etw_properties_minimum_buffers(props));
    printf("MaximumBuffers   %u\n", etw_properties_maximum_buffers(props));
    printf("NumberOfBuffers  %u\n", etw_properties_number_of_buffers(props));
    printf("FreeBuffers      %u\n", etw_properties_free_buffers(props));
    printf("EventsLost       %u\n", etw_properties_events_lost(props));
    printf("BuffersWritten   %u\n", etw_properties_buffers_written(props));
    printf("LogBuffersLost   %u\n", etw_properties_log_buffers_lost(props));
    printf("RealTimeBuffersLost %u\n", etw_properties_real_time_buffers_lost(props));
    printf("LoggerThreadId   %llu\n", (unsigned long long)etw_properties_logger_thread_id(props));
    printf("clock type       %u\n", etw_properties_clock_type(props));
    free(workers);
    free(tids);
    etw_properties_destroy(props);
    return st == ETW_OK ? 0 : 1;
}
