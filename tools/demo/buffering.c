/*
 * --mode buffering: an in-memory flight recorder. The session keeps its
 * newest buffers, reusing the oldest; the demo writes, flushes what is held
 * to --output, stops, and reads the file back: fewer events than written
 * is the point of the mode.
 */
#include "demo.h"

#include <stdio.h>
#include <string.h>

/* Writes the held buffers to path. flush_to_file needs the session hosted
 * here; when its host is another process, the session's own log file name
 * (set to path at start) is flushed instead. */
static etw_status flush_to(etw_session *session, const char *path, etw_properties *props, const char **how)
{
    etw_status st = etw_session_flush_to_file(session, path, props);
    *how = "etw_session_flush_to_file";
    if (st == ETW_ERROR_NOT_SUPPORTED) {
        *how = "etw_session_flush (the session is hosted by another process)";
        st = etw_session_flush(session, props);
    }
    return st;
}

int demo_run_buffering(const struct demo_options *o)
{
    etw_properties *props = demo_properties(o, ETW_BUFFERING_MODE, o->output);
    etw_session *session = NULL;
    etw_provider *provider = NULL;
    struct demo_writes writes;
    struct demo_count count;
    etw_consumer_stats stats;
    etw_status st, flushed, read;
    const char *how = "";
    unsigned long t;
    int ok;
    if (!props)
        return 1;
    if (!demo_count_init(&count, o->threads))
        return demo_fail("allocating the counters", ETW_ERROR_OUTOFMEMORY);
    if ((st = demo_start(&session, props)) != ETW_OK)
        return demo_fail("etw_session_start", st);
    if ((st = etw_provider_register(&provider, &kProvider, NULL, NULL, NULL)) != ETW_OK ||
        (st = etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0)) != ETW_OK) {
        demo_fail("registering and enabling the demo provider", st);
        etw_session_stop(session, NULL);
        return 1;
    }

    demo_write_events(provider, o, &writes);
    flushed = flush_to(session, o->output, props, &how);
    if (flushed != ETW_OK)
        demo_fail("flushing the session to its file", flushed);
    st = etw_session_stop(session, props); /* a buffering session writes nothing at stop */
    if (st != ETW_OK)
        demo_fail("etw_session_stop", st);
    etw_session_close(session);
    etw_provider_unregister(provider);

    printf("session          %s (buffering: in-memory flight recorder)\n", etw_properties_session_name(props));
    printf("flushed to       %s by %s\n", o->output, how);
    demo_print_writes(o, &writes);
    demo_print_statistics(props);
    ok = st == ETW_OK && flushed == ETW_OK;
    memset(&stats, 0, sizeof stats);
    if (flushed == ETW_OK) {
        read = demo_count_file(o->output, &count, &stats);
        if (read != ETW_OK) {
            demo_fail("reading the flushed file", read);
            ok = 0;
        }
        printf("file records     %lu (headers included), %llu buffers\n", count.records,
               (unsigned long long)stats.buffers);
        printf("file events      %lu of %lu written (the newest the ring held; fewer is expected)\n", count.events,
               writes.ok);
        /* Which events of each writer the ring kept: the newest buffers, across
         * all streams, so a thread that finished early may have none left. */
        for (t = 0; t < count.threads && t < 8; ++t)
            printf("thread %-2lu         logged %lu (last #%lu); in the file %lu (newest #%lu)\n", t,
                   writes.thread_ok[t], writes.newest[t], count.per_thread[t], count.newest[t]);
        if (count.events > writes.ok || (writes.ok > 0 && count.events == 0)) {
            fprintf(stderr, "openetw-demo: the file holds %lu demo events, of %lu written\n", count.events, writes.ok);
            ok = 0;
        }
    }
    demo_count_free(&count);
    etw_properties_destroy(props);
    return ok ? 0 : 1;
}
