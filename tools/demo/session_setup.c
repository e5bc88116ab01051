/*
 * Session helpers shared by the modes that start a session (properties from
 * the options, start with orphan recovery, the statistics printout), and
 * the file modes: sequential, circular, newfile, append.
 */
#include "demo.h"

#include <stdio.h>
#include <string.h>

int demo_fail(const char *what, etw_status st)
{
    fprintf(stderr, "openetw-demo: %s failed: %s (%u): %s\n", what, etw_status_name(st), st, etw_last_error_message());
    return 1;
}

/* The session's properties from the options; NULL (reported) on failure. */
etw_properties *demo_properties(const struct demo_options *o, uint32_t mode, const char *log_file)
{
    etw_properties *props = NULL;
    etw_status st = etw_properties_create(&props, o->session);
    if (st != ETW_OK) {
        demo_fail("etw_properties_create", st);
        return NULL;
    }
    if ((log_file && (st = etw_properties_set_log_file_name(props, log_file)) != ETW_OK) ||
        (st = etw_properties_set_log_file_mode(props, mode)) != ETW_OK ||
        (st = etw_properties_set_buffer_size(props, (uint32_t)o->buffer_kb)) != ETW_OK ||
        (st = etw_properties_set_minimum_buffers(props, (uint32_t)o->min_buffers)) != ETW_OK ||
        (st = etw_properties_set_maximum_buffers(props, (uint32_t)o->max_buffers)) != ETW_OK ||
        (st = etw_properties_set_maximum_file_size(props, (uint32_t)o->max_file_mb)) != ETW_OK ||
        (st = etw_properties_set_clock_type(props, (uint32_t)o->clock)) != ETW_OK) {
        demo_fail("setting the properties", st);
        etw_properties_destroy(props);
        return NULL;
    }
    return props;
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

/* etw_session_start, once more if a killed earlier run held the name. */
etw_status demo_start(etw_session **out, etw_properties *props)
{
    etw_status st = etw_session_start(out, props);
    if (st == ETW_ERROR_ALREADY_EXISTS && stop_orphan(etw_properties_session_name(props)))
        st = etw_session_start(out, props);
    return st;
}

void demo_print_statistics(const etw_properties *props)
{
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
}

/* A log file session: start, enable the demo provider, write, stop. */
int demo_run_file_mode(const struct demo_options *o)
{
    etw_properties *props = demo_properties(o, o->mode, o->output);
    etw_session *session = NULL;
    etw_provider *provider = NULL;
    struct demo_writes writes;
    etw_status st;
    if (!props)
        return 1;
    if ((st = demo_start(&session, props)) != ETW_OK)
        return demo_fail("etw_session_start", st);
    if ((st = etw_provider_register(&provider, &kProvider, NULL, NULL, NULL)) != ETW_OK)
        return demo_fail("etw_provider_register", st);
    if ((st = etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0)) != ETW_OK)
        return demo_fail("etw_session_enable_provider", st);

    demo_write_events(provider, o, &writes);
    st = etw_session_stop(session, props);
    if (st != ETW_OK)
        demo_fail("etw_session_stop", st);
    etw_session_close(session);
    etw_provider_unregister(provider);

    printf("session          %s\n", etw_properties_session_name(props));
    printf("log file         %s\n", etw_properties_log_file_name(props));
    demo_print_writes(o, &writes);
    demo_print_statistics(props);
    etw_properties_destroy(props);
    return st == ETW_OK ? 0 : 1;
}
