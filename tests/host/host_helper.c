/* A provider process of tests/host/host_test.cpp, using only the public C
 * API:  host_helper write GUID EVENTS THREADS
 *       host_helper rundown GUID
 * rundown registers GUID and waits (at most 20 s) for a capture-state
 * callback (is_enabled 2), answers it with one event numbered 900000000 + the
 * callback's level, prints "captured" and exits 0 (4 on timeout).
 * write:
 * Registers the provider GUID, waits (at most 5 s) until a session enables
 * it, writes EVENTS events (the event number as payload) from THREADS
 * threads, prints "written W dropped D failed F" and exits 0 when every
 * write returned ETW_OK (1 otherwise, 3 when never enabled). */
#include <openetw/openetw.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    etw_provider *provider;
    etw_guid guid;
    unsigned long first, count, ok, dropped, failed;
} worker;

static void *run(void *arg)
{
    worker *w = (worker *)arg;
    struct {
        etw_event_trace_header h;
        unsigned long long n;
    } ev;
    for (unsigned long i = 0; i < w->count; ++i) {
        memset(&ev, 0, sizeof ev);
        ev.h.Size = sizeof ev;
        ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
        ev.h.Guid = w->guid;
        ev.h.Class.Type = ETW_TYPE_INFO;
        ev.h.Class.Level = ETW_LEVEL_INFORMATION;
        ev.n = w->first + i;
        etw_status st = etw_provider_trace_event(w->provider, &ev.h);
        if (st == ETW_OK)
            w->ok++;
        else if (st == ETW_ERROR_NOT_ENOUGH_MEMORY)
            w->dropped++;
        else
            w->failed++;
    }
    return NULL;
}

static etw_provider *g_rundown_provider; /* atomic: set after register, read by the callback */
static etw_guid g_rundown_guid;
static volatile int g_captured;

/* The capture-state answer: one event, written from the callback. */
static void on_enable(const etw_provider_enable_info *info, void *user_data)
{
    (void)user_data;
    if (info->is_enabled != ETW_CONTROL_CODE_CAPTURE_STATE)
        return;
    /* The request can come before etw_provider_register has returned here
       (the listing shows the registration first): wait for the handle. */
    etw_provider *p = NULL;
    for (int i = 0; i < 5000 && !(p = __atomic_load_n(&g_rundown_provider, __ATOMIC_ACQUIRE)); ++i) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (!p)
        return;
    struct {
        etw_event_trace_header h;
        unsigned long long n;
    } ev;
    memset(&ev, 0, sizeof ev);
    ev.h.Size = sizeof ev;
    ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    ev.h.Guid = g_rundown_guid;
    ev.h.Class.Type = ETW_TYPE_DC_START;
    ev.h.Class.Level = ETW_LEVEL_INFORMATION;
    ev.n = 900000000ull + info->level;
    if (etw_provider_trace_event(p, &ev.h) == ETW_OK)
        __atomic_store_n(&g_captured, 1, __ATOMIC_SEQ_CST);
}

static int rundown(const etw_guid *guid)
{
    etw_provider *p = NULL;
    g_rundown_guid = *guid;
    if (etw_provider_register(&p, guid, on_enable, NULL, NULL) != ETW_OK) {
        fprintf(stderr, "register: %s\n", etw_last_error_message());
        return 1;
    }
    __atomic_store_n(&g_rundown_provider, p, __ATOMIC_RELEASE);
    for (int i = 0; i < 2000 && !__atomic_load_n(&g_captured, __ATOMIC_SEQ_CST); ++i) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    const int captured = __atomic_load_n(&g_captured, __ATOMIC_SEQ_CST);
    etw_provider_unregister(p);
    printf("%s\n", captured ? "captured" : "no capture-state request within 20 s");
    return captured ? 0 : 4;
}

int main(int argc, char **argv)
{
    const int is_rundown = argc == 3 && strcmp(argv[1], "rundown") == 0;
    if (!is_rundown && (argc != 5 || strcmp(argv[1], "write") != 0)) {
        fprintf(stderr, "usage: host_helper write GUID EVENTS THREADS | rundown GUID\n");
        return 2;
    }
    etw_guid guid;
    unsigned int d1, d2, d3, b[8];
    if (sscanf(argv[2], "%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x", &d1, &d2, &d3, &b[0], &b[1], &b[2], &b[3], &b[4],
               &b[5], &b[6], &b[7]) == 11) {
        guid.Data1 = d1;
        guid.Data2 = (uint16_t)d2;
        guid.Data3 = (uint16_t)d3;
        for (int i = 0; i < 8; ++i)
            guid.Data4[i] = (uint8_t)b[i];
    } else {
        fprintf(stderr, "bad GUID %s\n", argv[2]);
        return 2;
    }
    if (is_rundown)
        return rundown(&guid);
    const unsigned long events = strtoul(argv[3], NULL, 10), threads = strtoul(argv[4], NULL, 10);
    if (threads < 1 || threads > 16)
        return 2;
    etw_provider *p = NULL;
    if (etw_provider_register(&p, &guid, NULL, NULL, NULL) != ETW_OK) {
        fprintf(stderr, "register: %s\n", etw_last_error_message());
        return 1;
    }
    for (int i = 0; i < 500 && !etw_provider_is_enabled(p, 0, 0); ++i) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (!etw_provider_is_enabled(p, 0, 0)) {
        fprintf(stderr, "no session enables the provider\n");
        return 3;
    }
    worker w[16];
    pthread_t t[16];
    unsigned long ok = 0, dropped = 0, failed = 0;
    for (unsigned long i = 0; i < threads; ++i) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].provider = p;
        w[i].guid = guid;
        w[i].count = events / threads + (i < events % threads ? 1 : 0);
        w[i].first = i * (events / threads + 1);
        pthread_create(&t[i], NULL, run, &w[i]);
    }
    for (unsigned long i = 0; i < threads; ++i) {
        pthread_join(t[i], NULL);
        ok += w[i].ok;
        dropped += w[i].dropped;
        failed += w[i].failed;
    }
    etw_provider_unregister(p);
    printf("written %lu dropped %lu failed %lu\n", ok, dropped, failed);
    return ok == events ? 0 : 1;
}
