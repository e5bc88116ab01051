/*
 * Counting what a consumer got: every record, the demo provider's events,
 * and per writer thread the newest event seen (so a flight recorder's file
 * can be checked to hold the newest events).
 */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int demo_count_init(struct demo_count *c, unsigned long threads)
{
    memset(c, 0, sizeof *c);
    c->threads = threads;
    c->newest = (unsigned long *)calloc(threads ? threads : 1, sizeof *c->newest);
    c->per_thread = (unsigned long *)calloc(threads ? threads : 1, sizeof *c->per_thread);
    return c->newest && c->per_thread;
}

void demo_count_free(struct demo_count *c)
{
    free(c->newest);
    free(c->per_thread);
    c->newest = NULL;
    c->per_thread = NULL;
}

void demo_count_event(struct demo_count *c, const etw_classic_event *event)
{
    unsigned long writer;
    uint64_t index;
    if (memcmp(&event->header.Guid, &kProvider, sizeof kProvider) != 0)
        return;
    c->events++;
    writer = (unsigned long)event->header.Class.Type - ETW_TYPE_USER_FIRST;
    if (event->header.Class.Type < ETW_TYPE_USER_FIRST || writer >= c->threads)
        return;
    c->per_thread[writer]++;
    if (event->payload_size < sizeof index)
        return;
    memcpy(&index, event->payload, sizeof index);
    if (index + 1 > c->newest[writer])
        c->newest[writer] = (unsigned long)(index + 1);
}

static int32_t count_record(void *user_data, const etw_record *record)
{
    (void)record;
    ((struct demo_count *)user_data)->records++;
    return 0;
}

static int32_t count_event(void *user_data, const etw_classic_event *event)
{
    demo_count_event((struct demo_count *)user_data, event);
    return 0;
}

/* Reads the .etl file at path into *out (initialized by the caller);
 * stats (may be NULL) receives the consumer's counters. Returns the
 * status of etw_consumer_open or etw_consumer_process. */
etw_status demo_count_file(const char *path, struct demo_count *out, etw_consumer_stats *stats)
{
    etw_consumer_options opts;
    etw_consumer *consumer = NULL;
    etw_status st;
    memset(&opts, 0, sizeof opts);
    opts.struct_size = sizeof opts;
    opts.flags = ETW_CONSUMER_ORDER_FILE;
    opts.record = count_record;
    opts.event = count_event;
    opts.user_data = out;
    st = etw_consumer_open(&consumer, &path, 1, &opts);
    if (st != ETW_OK)
        return st;
    st = etw_consumer_process(consumer);
    if (stats) {
        memset(stats, 0, sizeof *stats);
        stats->struct_size = sizeof *stats;
        etw_consumer_get_stats(stats, consumer);
    }
    etw_consumer_close(consumer);
    return st;
}
