/*
 * The writer threads: each writes its share of the events through one
 * registered provider and counts what etw_provider_trace_event returned.
 * As a provider does (EventEnabled before EventWrite), each event is written
 * only while etw_provider_is_enabled says a session takes it (the call, not
 * the inline enabled word: a plain read of the word races with the library's
 * atomic store as ThreadSanitizer sees it, and the demo runs under it): a write
 * through a provider no session enables returns ETW_OK and logs nothing (as
 * EventWrite on Windows), so it must not count as logged. (A session that
 * stops between the check and the write can still take one such ETW_OK per
 * thread: the status cannot tell; see docs/SYSTEM_SESSIONS.md.)
 */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const etw_guid kProvider = {0x6f70656eu, 0x6574u, 0x7764u, {0x64, 0x65, 0x6d, 0x6f, 0x00, 0x00, 0x00, 0x01}};

struct worker {
    etw_provider *provider;
    unsigned long events;
    unsigned long payload;
    int index;
    unsigned long newest;      /* 1 + index of the last ETW_OK event */
    struct demo_writes writes; /* its totals (newest[] unused) */
};

/* Event i of thread index: Class.Type ETW_TYPE_USER_FIRST + index, and the
 * payload starts with i (uint64_t, when it fits), so a reader can tell
 * which events of each thread it got. */
static void *write_events(void *arg)
{
    struct worker *w = (struct worker *)arg;
    size_t size = sizeof(etw_event_trace_header) + w->payload;
    unsigned char *buf = (unsigned char *)calloc(1, size);
    unsigned long i;
    if (!buf) {
        w->writes.failed = w->events;
        w->writes.first_failure = ETW_ERROR_OUTOFMEMORY;
        return NULL;
    }
    for (i = 0; i < w->events; ++i) {
        etw_event_trace_header *h = (etw_event_trace_header *)buf;
        uint64_t index = i;
        etw_status st;
        memset(h, 0, sizeof *h);
        h->Size = (uint16_t)size;
        h->Class.Type = (uint8_t)(ETW_TYPE_USER_FIRST + w->index);
        h->Class.Level = ETW_LEVEL_INFORMATION;
        h->Guid = kProvider;
        h->Flags = ETW_WNODE_FLAG_TRACED_GUID;
        if (w->payload >= sizeof index)
            memcpy(buf + sizeof *h, &index, sizeof index);
        if (!etw_provider_is_enabled(w->provider, 0, 0)) {
            w->writes.not_enabled++;
            continue;
        }
        st = etw_provider_trace_event(w->provider, h);
        if (st == ETW_OK) {
            w->writes.ok++;
            w->newest = i + 1;
        } else if (st == ETW_ERROR_NOT_ENOUGH_MEMORY || st == ETW_ERROR_LOG_FILE_FULL) {
            w->writes.dropped++; /* dropped or refused: the session counts it in EventsLost */
        } else if (st == ETW_ERROR_WMI_INSTANCE_NOT_FOUND) {
            w->writes.refused++;
        } else {
            if (w->writes.failed++ == 0)
                w->writes.first_failure = st;
        }
    }
    free(buf);
    return NULL;
}

void demo_write_events(etw_provider *provider, const struct demo_options *o, struct demo_writes *out)
{
    struct worker *workers = (struct worker *)calloc(o->threads, sizeof *workers);
    pthread_t *tids = (pthread_t *)calloc(o->threads, sizeof *tids);
    char *started = (char *)calloc(o->threads, 1);
    unsigned long t;
    memset(out, 0, sizeof *out);
    if (!workers || !tids || !started) {
        out->failed = o->events;
        out->first_failure = ETW_ERROR_OUTOFMEMORY;
        free(workers);
        free(tids);
        free(started);
        return;
    }
    for (t = 0; t < o->threads; ++t) {
        workers[t].provider = provider;
        workers[t].events = o->events / o->threads + (t < o->events % o->threads ? 1 : 0);
        workers[t].payload = o->payload;
        workers[t].index = (int)t;
    }
    for (t = 0; t < o->threads; ++t) {
        started[t] = pthread_create(&tids[t], NULL, write_events, &workers[t]) == 0;
        if (!started[t]) {
            fprintf(stderr,
                    "openetw-demo: could not start writer thread %lu; its events are written on the main thread\n", t);
            write_events(&workers[t]);
        }
    }
    for (t = 0; t < o->threads; ++t) {
        if (started[t])
            pthread_join(tids[t], NULL);
        out->ok += workers[t].writes.ok;
        out->dropped += workers[t].writes.dropped;
        out->refused += workers[t].writes.refused;
        out->not_enabled += workers[t].writes.not_enabled;
        if (workers[t].writes.failed && !out->failed)
            out->first_failure = workers[t].writes.first_failure;
        out->failed += workers[t].writes.failed;
        out->thread_ok[t] = workers[t].writes.ok;
        out->newest[t] = workers[t].newest;
    }
    free(workers);
    free(tids);
    free(started);
}

/* The lines every mode prints about the writers (the file modes printed them first). */
void demo_print_writes(const struct demo_options *o, const struct demo_writes *w)
{
    printf("events attempted %lu (%lu threads)\n", o->events, o->threads);
    printf("events written   %lu\n", w->ok);
    printf("events dropped   %lu (NOT_ENOUGH_MEMORY or LOG_FILE_FULL), %lu other failures\n", w->dropped, w->failed);
    if (w->refused || w->not_enabled)
        printf("events not logged %lu (the session was stopping: WMI_INSTANCE_NOT_FOUND), %lu (no session enabled "
               "the provider any more: not written)\n",
               w->refused, w->not_enabled);
    if (w->failed)
        printf("first failure    %s (%u)\n", etw_status_name(w->first_failure), w->first_failure);
}
