/*
 * --mode realtime: a real-time session consumed live by a consumer of this
 * process on its own thread, with every event accounted for. Without a log
 * file, session.h promises delivered + EventsLost == events written (the
 * events the writers handed in, refused or dropped ones included).
 */
#include "demo.h"

#include <stdio.h>
#include <string.h>

#define CONSUMER_DRAIN_MS 30000u /* after stop, the consumer gets the last buffers; bound the wait */

struct live {
    etw_consumer *consumer;
    struct demo_count count;
    unsigned long loss_events, loss_buffers, loss_notices;
    etw_status status;
    struct demo_signal done;
};

static int32_t on_event(void *user_data, const etw_classic_event *event)
{
    demo_count_event(&((struct live *)user_data)->count, event);
    return 0;
}

static int32_t on_record(void *user_data, const etw_record *record)
{
    (void)record;
    ((struct live *)user_data)->count.records++;
    return 0;
}

static int32_t on_loss(void *user_data, const etw_loss_info *info)
{
    struct live *l = (struct live *)user_data;
    l->loss_events += info->events_lost;
    l->loss_buffers += info->buffers_lost;
    l->loss_notices++;
    return 0;
}

/* etw_consumer_process blocks until the session stops and all it flushed came. */
static void *consume(void *arg)
{
    struct live *l = (struct live *)arg;
    l->status = etw_consumer_process(l->consumer);
    demo_signal_set(&l->done, 1);
    return NULL;
}

/* Opens the live consumer and starts its thread; 0 (reported) on failure. */
static int start_consumer(struct live *l, pthread_t *tid, const char *session_name)
{
    etw_consumer_options opts;
    etw_status st;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.record = on_record;
    opts.event = on_event;
    opts.user_data = l;
    if ((st = etw_consumer_open_session(&l->consumer, session_name, &opts)) != ETW_OK)
        return !demo_fail("etw_consumer_open_session", st);
    if ((st = etw_consumer_set_loss_callback(l->consumer, on_loss)) != ETW_OK) {
        demo_fail("etw_consumer_set_loss_callback", st);
    } else if (pthread_create(tid, NULL, consume, l) != 0) {
        fprintf(stderr, "openetw-demo: could not start the consumer thread\n");
    } else {
        return 1;
    }
    etw_consumer_close(l->consumer);
    return 0;
}

int demo_run_realtime(const struct demo_options *o)
{
    /* A log file only when asked for: then every buffer also goes there. */
    const char *file = o->output_given ? o->output : NULL;
    uint32_t mode = ETW_REAL_TIME_MODE | (file ? ETW_FILE_MODE_SEQUENTIAL : 0u);
    etw_properties *props = demo_properties(o, mode, file);
    etw_session *session = NULL;
    etw_provider *provider = NULL;
    struct demo_writes writes;
    struct live live;
    pthread_t tid;
    unsigned long written, lost, accounted;
    int drained, ok, balanced;
    etw_status st;
    if (!props)
        return 1;
    memset(&live, 0, sizeof live);
    if (!demo_count_init(&live.count, o->threads))
        return demo_fail("allocating the counters", ETW_ERROR_OUTOFMEMORY);
    demo_signal_init(&live.done);
    if ((st = demo_start(&session, props)) != ETW_OK)
        return demo_fail("etw_session_start", st);
    if ((st = etw_provider_register(&provider, &kProvider, NULL, NULL, NULL)) != ETW_OK ||
        (st = etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0)) != ETW_OK) {
        demo_fail("registering and enabling the demo provider", st);
        etw_session_stop(session, NULL);
        return 1;
    }
    /* Attach before writing, so no event waits in the backlog or is refused for want of a consumer. */
    if (!start_consumer(&live, &tid, o->session)) {
        etw_session_stop(session, NULL);
        return 1;
    }

    demo_write_events(provider, o, &writes);
    st = etw_session_stop(session, props);
    if (st != ETW_OK)
        demo_fail("etw_session_stop", st);
    drained = demo_signal_wait(&live.done, CONSUMER_DRAIN_MS);
    if (!drained) {
        fprintf(stderr, "openetw-demo: the consumer did not finish %u ms after the stop: cancelling it\n",
                CONSUMER_DRAIN_MS);
        etw_consumer_cancel(live.consumer);
    }
    pthread_join(tid, NULL);
    etw_consumer_close(live.consumer);
    etw_session_close(session);
    etw_provider_unregister(provider);

    /* Events the session took in: logged, or counted in EventsLost. */
    written = writes.ok + writes.dropped;
    lost = etw_properties_events_lost(props);
    printf("session          %s (real-time%s%s)\n", etw_properties_session_name(props), file ? ", log file " : "",
           file ? file : "");
    demo_print_writes(o, &writes);
    printf("events delivered  %lu (to the live consumer; %lu records in all)\n", live.count.events, live.count.records);
    printf("events lost  %lu (EventsLost: refused or dropped by writers, and in real-time buffers no consumer got)\n",
           lost);
    printf("loss notices     %lu: %lu events, %lu buffers (the consumer's loss callback)\n", live.loss_notices,
           live.loss_events, live.loss_buffers);
    printf("consumer status  %s\n", etw_status_name(live.status));
    demo_print_statistics(props);

    ok = st == ETW_OK && drained && live.status == ETW_OK;
    if (file) {
        /* Every buffer also went to the file: the file holds what was not lost. */
        struct demo_count in_file;
        etw_status fst;
        if (!demo_count_init(&in_file, o->threads))
            return demo_fail("allocating the counters", ETW_ERROR_OUTOFMEMORY);
        fst = demo_count_file(file, &in_file, NULL);
        if (fst != ETW_OK) {
            demo_fail("reading the log file", fst);
            ok = 0;
        }
        accounted = in_file.events + lost;
        printf("events in file   %lu\n", in_file.events);
        printf("written %lu, in file %lu + lost %lu = %lu; delivered live %lu\n", written, in_file.events, lost,
               accounted, live.count.events);
        balanced = accounted == written && live.count.events <= in_file.events;
        demo_count_free(&in_file);
    } else {
        accounted = live.count.events + lost;
        printf("written %lu, delivered %lu + lost %lu = %lu\n", written, live.count.events, lost, accounted);
        balanced = accounted == written;
    }
    printf("accounting: %s\n", balanced ? "ok" : "MISMATCH");
    demo_count_free(&live.count);
    demo_signal_destroy(&live.done);
    etw_properties_destroy(props);
    return ok && balanced ? 0 : 1;
}
