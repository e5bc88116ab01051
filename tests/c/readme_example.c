/* The README's example, kept compiling and running by the test suite. */
/* README.md shows this file verbatim, laid out for reading there. */
/* clang-format off */
#include <openetw/openetw.h>
#include <stdio.h>
#include <string.h>

static const etw_guid kProvider = {0x6f70656e, 0x6574, 0x7764, {0x64, 0x65, 0x6d, 0x6f, 0, 0, 0, 1}};

static int32_t on_event(void *ctx, const etw_classic_event *e)
{
    (void)ctx;
    printf("%u bytes from thread %u: %s\n", e->payload_size, e->header.ThreadId, (const char *)e->payload);
    return 0; /* non-zero stops processing */
}

int main(void)
{
    etw_properties *props;
    etw_properties_create(&props, "My Session"); /* names are UTF-8 */
    etw_properties_set_log_file_name(props, "/tmp/my.etl");
    etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL);

    etw_session *session;
    if (etw_session_start(&session, props) != ETW_OK) { /* props gets the adjusted values */
        fprintf(stderr, "%s\n", etw_last_error_message()); /* names the field at fault */
        return 1;
    }
    etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER,
                                ETW_LEVEL_VERBOSE, 0, 0);

    etw_provider *provider;
    etw_provider_register(&provider, &kProvider, NULL, NULL, NULL);
    struct { etw_event_trace_header h; char text[16]; } ev;
    memset(&ev, 0, sizeof ev);
    ev.h.Size = sizeof ev;
    ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    ev.h.Guid = kProvider;
    ev.h.Class.Type = ETW_TYPE_INFO;
    ev.h.Class.Level = ETW_LEVEL_INFORMATION;
    strcpy(ev.text, "hello");
    etw_provider_trace_event(provider, &ev.h); /* lock-free, no syscall */

    etw_session_stop(session, props); /* final statistics into props */
    etw_session_close(session);
    etw_provider_unregister(provider);
    etw_properties_destroy(props);

    const char *paths[] = {"/tmp/my.etl"};
    etw_consumer_options opt;
    memset(&opt, 0, sizeof opt);
    opt.struct_size = sizeof opt;
    opt.event = on_event;
    etw_consumer *consumer;
    etw_consumer_open(&consumer, paths, 1, &opt);
    etw_consumer_process(consumer); /* callbacks run on this thread */
    etw_consumer_close(consumer);
    return 0;
}
