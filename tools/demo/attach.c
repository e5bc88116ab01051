/*
 * --attach NAME: a provider process. It writes into a session some other
 * process started (etwctl start) and enabled the demo provider in
 * (etwctl enable), and never starts or stops a session itself.
 */
#include "demo.h"

#include <stdio.h>
#include <string.h>

#define ENABLE_WAIT_MS 5000u /* a session's enable reaches a new provider at once; this is the bound */

static void on_enable(const etw_provider_enable_info *info, void *user_data)
{
    demo_signal_set((struct demo_signal *)user_data, info->is_enabled != 0);
}

/* Prints the whole session's counters, when this user may query it. */
static void print_session(etw_session *session)
{
    etw_properties *props = NULL;
    if (etw_properties_create(&props, "query") != ETW_OK)
        return;
    if (etw_session_query(session, props) == ETW_OK) {
        printf("session EventsLost     %u (every provider of the session)\n", etw_properties_events_lost(props));
        printf("session BuffersWritten %u\n", etw_properties_buffers_written(props));
    }
    etw_properties_destroy(props);
}

int demo_run_attach(const struct demo_options *o)
{
    etw_session *session = NULL;
    etw_provider *provider = NULL;
    struct demo_signal enabled;
    struct demo_writes writes;
    etw_status st = etw_session_open(&session, o->attach);
    if (st == ETW_ERROR_WMI_INSTANCE_NOT_FOUND) {
        fprintf(stderr, "openetw-demo: no running session is called %s: start one first (etwctl start %s)\n", o->attach,
                o->attach);
        return 1;
    }
    if (st != ETW_OK)
        return demo_fail("etw_session_open", st);

    demo_signal_init(&enabled);
    /* The callback runs before register returns when the session already
     * enables the provider, else on the library's notification thread. */
    if ((st = etw_provider_register(&provider, &kProvider, on_enable, &enabled, NULL)) != ETW_OK) {
        etw_session_close(session);
        demo_signal_destroy(&enabled);
        return demo_fail("etw_provider_register", st);
    }
    if (!demo_signal_wait(&enabled, ENABLE_WAIT_MS) && !etw_provider_is_enabled(provider, 0, 0)) {
        fprintf(stderr,
                "openetw-demo: the session does not enable the demo provider (waited %u ms): etwctl enable %s %s\n",
                ENABLE_WAIT_MS, o->attach, DEMO_PROVIDER_TEXT);
        etw_provider_unregister(provider);
        etw_session_close(session);
        demo_signal_destroy(&enabled);
        return 1;
    }
    if (!etw_provider_is_enabled(provider, ETW_LEVEL_INFORMATION, 0))
        fprintf(stderr,
                "openetw-demo: warning: the demo provider is enabled below level %u (information): "
                "its events are not logged\n",
                ETW_LEVEL_INFORMATION);

    demo_write_events(provider, o, &writes);
    etw_provider_unregister(provider);
    demo_signal_destroy(&enabled);

    printf("session          %s (attached: not started or stopped here)\n", o->attach);
    printf("provider         %s\n", DEMO_PROVIDER_TEXT);
    demo_print_writes(o, &writes);
    print_session(session);
    etw_session_close(session);
    return writes.ok == o->events ? 0 : 1;
}
