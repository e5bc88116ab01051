/* A process that hosts a session for tests/system: starts NAME logging to
 * FILE, writes EVENTS events into it, flushes, prints "ready", then waits
 * until another process stops the session (exit 0) or it is killed.
 * "stream" instead of "host": prints "ready" right after the start, then
 * writes numbered events (flushing every 5000) until it is killed or the
 * session stops (exit 0). */
#define _POSIX_C_SOURCE 200809L
#include <openetw/openetw.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const etw_guid kProvider = {0x5e3d1c2a, 0x1b2c, 0x4d3e, {0x9f, 0x10, 0x21, 0x32, 0x43, 0x54, 0x65, 0x76}};

static int fail(const char *what, etw_status st)
{
    fprintf(stderr, "system_helper: %s: %u %s\n", what, st, etw_last_error_message());
    return 3;
}

/* "poke": every control call on whatever the registry lists (it may be
 * scribbled over): list, open, host info, query, stop, and a start that
 * replaces an orphan. Statuses do not matter; returning does (exit 0). */
static int poke(void)
{
    etw_properties *list[8] = {0};
    uint32_t count = 0, i;
    for (i = 0; i < 8; ++i)
        etw_properties_create(&list[i], "list");
    etw_session_list(&count, list, 8);
    for (i = 0; i < count && i < 8; ++i) {
        etw_session *s = NULL;
        etw_session_host_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (etw_session_open(&s, etw_properties_session_name(list[i])) != ETW_OK)
            continue;
        etw_session_get_host_info(&info, s);
        etw_session_query(s, list[i]);
        etw_session_stop(s, NULL);
        etw_session_close(s);
    }
    for (i = 0; i < 8; ++i)
        etw_properties_destroy(list[i]);
    etw_properties *props = NULL;
    etw_session *fresh = NULL;
    etw_session_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_REPLACE_ORPHAN;
    etw_properties_create(&props, "ScribDead");
    etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE);
    if (etw_session_start_ex(&fresh, props, &o) == ETW_OK) {
        etw_session_stop(fresh, NULL);
        etw_session_close(fresh);
    }
    etw_properties_destroy(props);
    printf("poked %u\n", count);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "poke") == 0)
        return poke();
    const int stream = argc == 4 && strcmp(argv[1], "stream") == 0;
    if (!stream && (argc != 5 || strcmp(argv[1], "host") != 0)) {
        fprintf(stderr, "usage: system_helper host NAME FILE EVENTS | stream NAME FILE\n");
        return 2;
    }
    etw_properties *props = NULL;
    etw_session *session = NULL;
    etw_provider *provider = NULL;
    etw_status st = etw_properties_create(&props, argv[2]);
    if (st == ETW_OK)
        st = etw_properties_set_log_file_name(props, argv[3]);
    if (st == ETW_OK)
        st = etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL);
    if (st == ETW_OK)
        st = etw_properties_set_buffer_size(props, 4);
    if (st == ETW_OK) /* room for every event: the tests count them exactly */
        st = etw_properties_set_maximum_buffers(props, 1024);
    if (st != ETW_OK)
        return fail("properties", st);
    if ((st = etw_session_start(&session, props)) != ETW_OK)
        return fail("start", st);
    if ((st = etw_provider_register(&provider, &kProvider, NULL, NULL, NULL)) != ETW_OK)
        return fail("register", st);
    if ((st = etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0)) != ETW_OK)
        return fail("enable", st);
    if (stream) {
        printf("ready\n");
        fflush(stdout);
        for (uint64_t i = 0;; ++i) {
            struct {
                etw_event_trace_header h;
                uint64_t n;
            } ev;
            memset(&ev, 0, sizeof ev);
            ev.h.Size = sizeof ev;
            ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
            ev.h.Guid = kProvider;
            ev.n = i;
            st = etw_provider_trace_event(provider, &ev.h);
            if (st == ETW_OK && i % 5000 == 4999)
                st = etw_session_flush(session, NULL);
            if (i % 1000 == 0 && etw_session_query(session, props) == ETW_ERROR_WMI_INSTANCE_NOT_FOUND)
                return 0; /* stopped by another process */
        }
    }
    const long events = atol(argv[4]);
    for (long i = 0; i < events; ++i) {
        struct {
            etw_event_trace_header h;
            uint64_t n;
        } ev;
        memset(&ev, 0, sizeof ev);
        ev.h.Size = sizeof ev;
        ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
        ev.h.Guid = kProvider;
        ev.n = (uint64_t)i;
        if ((st = etw_provider_trace_event(provider, &ev.h)) != ETW_OK)
            return fail("trace", st);
    }
    if ((st = etw_session_flush(session, NULL)) != ETW_OK)
        return fail("flush", st);
    printf("ready\n");
    fflush(stdout);
    /* Serve until someone stops the session (the servant thread does the work). */
    for (;;) {
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (etw_session_query(session, props) == ETW_ERROR_WMI_INSTANCE_NOT_FOUND)
            break;
    }
    etw_provider_unregister(provider);
    etw_session_close(session);
    etw_properties_destroy(props);
    return 0;
}
