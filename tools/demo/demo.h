/*
 * Shared by the openetw-demo sources: the options, the writer threads, the
 * session helpers and one function per way of running (a mode).
 */
#ifndef OPENETW_DEMO_H
#define OPENETW_DEMO_H

#include <openetw/openetw.h>

#include <pthread.h>

/* The demo provider: 6f70656e-6574-7764-6465-6d6f00000001 ("openetwdemo"). */
extern const etw_guid kProvider;
#define DEMO_PROVIDER_TEXT "6f70656e-6574-7764-6465-6d6f00000001"
#define DEMO_MAX_THREADS 256

struct demo_options {
    const char *session; /* session name (--session, or NAME of --attach) */
    const char *output;  /* log file; NULL for none */
    int output_given;    /* --output was on the command line */
    const char *mode_name;
    uint32_t mode;      /* LogFileMode of the file modes */
    const char *attach; /* --attach NAME: provider process only */
    unsigned long events, threads, buffer_kb, min_buffers, max_buffers, max_file_mb, clock, payload;
};

/* What the writer threads saw, summed over the threads. */
struct demo_writes {
    unsigned long ok;          /* ETW_OK while the provider was enabled: logged */
    unsigned long dropped;     /* NOT_ENOUGH_MEMORY or LOG_FILE_FULL: counted in the session's EventsLost */
    unsigned long refused;     /* WMI_INSTANCE_NOT_FOUND: the session was stopping; neither logged nor counted */
    unsigned long not_enabled; /* not written: no session enabled the provider (it stopped or disabled it) */
    unsigned long failed;      /* any other status */
    etw_status first_failure;
    unsigned long thread_ok[DEMO_MAX_THREADS]; /* per thread: its ETW_OK events */
    unsigned long newest[DEMO_MAX_THREADS];    /* per thread: 1 + index of its last ETW_OK event (0: none) */
};

/* What a consumer found in a file or a live feed. */
struct demo_count {
    unsigned long records;     /* every record, headers included */
    unsigned long events;      /* events of the demo provider */
    unsigned long threads;     /* writer threads tracked in newest[] */
    unsigned long *per_thread; /* per writer thread: its events seen */
    unsigned long *newest;     /* per writer thread: 1 + highest event index seen (0: none) */
};

/* A flag one thread sets and another waits for, with a deadline. */
struct demo_signal {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int set;
};

/* writers.c */
void demo_write_events(etw_provider *provider, const struct demo_options *o, struct demo_writes *out);
void demo_print_writes(const struct demo_options *o, const struct demo_writes *w);
int demo_count_init(struct demo_count *c, unsigned long threads);
void demo_count_event(struct demo_count *c, const etw_classic_event *event);
void demo_count_free(struct demo_count *c);
etw_status demo_count_file(const char *path, struct demo_count *out, etw_consumer_stats *stats);
void demo_signal_init(struct demo_signal *s);
void demo_signal_set(struct demo_signal *s, int value);
int demo_signal_wait(struct demo_signal *s, unsigned timeout_ms); /* the flag at return */
void demo_signal_destroy(struct demo_signal *s);

/* session_setup.c */
int demo_fail(const char *what, etw_status st);
etw_properties *demo_properties(const struct demo_options *o, uint32_t mode, const char *log_file);
etw_status demo_start(etw_session **out, etw_properties *props);
void demo_print_statistics(const etw_properties *props);
int demo_run_file_mode(const struct demo_options *o);

/* one file each */
int demo_run_attach(const struct demo_options *o);
int demo_run_realtime(const struct demo_options *o);
int demo_run_buffering(const struct demo_options *o);

#endif /* OPENETW_DEMO_H */
