/*
 * Every limit Microsoft documents for EnableTraceEx2's filters
 * (ENABLE_TRACE_PARAMETERS, EVENT_FILTER_DESCRIPTOR, evntprov.h's MAX_*),
 * one bad filter at a time, as a Windows program: the status and that the
 * refused call changed nothing (the session keeps the events its previous
 * enablement admits). Microsoft documents the limits but no status per
 * case (EnableTraceEx2's page lists ERROR_INVALID_PARAMETER for "a
 * parameter is incorrect"): a malformed filter is ERROR_INVALID_PARAMETER,
 * a filter type OpenETW does not implement ERROR_NOT_SUPPORTED.
 * Checked in this order: the array (count, NULL), then each filter in
 * order: a type given twice, Ptr, the type, the scope, Size, the contents.
 * usage: bad_filters DIRECTORY
 */
#include <windows.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wmistr.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES_V2) + 2 * NAME_ROOM)

static const GUID ProviderGuid = {0x6b1ef0f9, 0x1d5e, 0x4c4e, {0x9a, 0x11, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x74}};

static char g_dir[200];
static int g_failures;

static void expect(const char *what, ULONG got, ULONG want)
{
    if (got != want) {
        printf("FAIL %s: %lu, expected %lu\n", what, (unsigned long)got, (unsigned long)want);
        ++g_failures;
    } else {
        printf("ok   %s: %lu\n", what, (unsigned long)got);
    }
}

/* Starts a file session; with filters: EVENT_TRACE_PROPERTIES_V2's FilterDesc. */
static ULONG start(const char *name, TRACEHANDLE *h, EVENT_FILTER_DESCRIPTOR *filters, ULONG count)
{
    EVENT_TRACE_PROPERTIES_V2 *p = (EVENT_TRACE_PROPERTIES_V2 *)calloc(1, BLOCK);
    ULONG s;
    p->Wnode.BufferSize = BLOCK;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID | WNODE_FLAG_VERSIONED_PROPERTIES;
    p->Wnode.ClientContext = 1;
    p->VersionNumber = 2;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES_V2);
    p->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES_V2) + NAME_ROOM;
    p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    p->FilterDesc = filters;
    p->FilterDescCount = count;
    snprintf((char *)p + p->LogFileNameOffset, NAME_ROOM, "%s/%s.etl", g_dir, name);
    s = StartTraceA(h, name, (PEVENT_TRACE_PROPERTIES)p);
    free(p);
    return s;
}

static void stop(TRACEHANDLE h)
{
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, BLOCK);
    p->Wnode.BufferSize = BLOCK;
    ControlTraceA(h, NULL, p, EVENT_TRACE_CONTROL_STOP);
    free(p);
}

static ULONG g_ids;
static VOID WINAPI on_event(PEVENT_RECORD e)
{
    if (IsEqualGUID(&e->EventHeader.ProviderId, &ProviderGuid))
        g_ids |= 1u << e->EventHeader.EventDescriptor.Id;
}

static ULONG ids_in(const char *name)
{
    char path[NAME_ROOM];
    EVENT_TRACE_LOGFILEA trace;
    TRACEHANDLE h;
    snprintf(path, sizeof path, "%s/%s.etl", g_dir, name);
    memset(&trace, 0, sizeof trace);
    trace.LogFileName = path;
    trace.EventRecordCallback = on_event;
    trace.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    g_ids = 0;
    h = OpenTraceA(&trace);
    if (h == INVALID_PROCESSTRACE_HANDLE) {
        printf("FAIL OpenTrace %s\n", path);
        ++g_failures;
        return 0;
    }
    expect("ProcessTrace", ProcessTrace(&h, 1, NULL, NULL), ERROR_SUCCESS);
    CloseTrace(h);
    return g_ids;
}

static TRACEHANDLE g_session;

/* EnableTraceEx2 with one filter (or count filters at f). */
static ULONG enable(EVENT_FILTER_DESCRIPTOR *f, ULONG count)
{
    ENABLE_TRACE_PARAMETERS params;
    memset(&params, 0, sizeof params);
    params.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
    params.EnableFilterDesc = f;
    params.FilterDescCount = count;
    return EnableTraceEx2(g_session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params);
}

static EVENT_FILTER_DESCRIPTOR filter(const void *ptr, ULONG size, ULONG type)
{
    EVENT_FILTER_DESCRIPTOR f;
    f.Ptr = (ULONGLONG)(ULONG_PTR)ptr;
    f.Size = size;
    f.Type = type;
    return f;
}

int main(int argc, char **argv)
{
    static unsigned char zeros[MAX_EVENT_FILTER_PAYLOAD_SIZE + 8];
    ULONG pids[MAX_EVENT_FILTER_PID_COUNT + 1];
    /* EVENT_FILTER_EVENT_ID with room for 65 ids. */
    union {
        EVENT_FILTER_EVENT_ID f;
        unsigned char bytes[sizeof(EVENT_FILTER_EVENT_ID) + 64 * sizeof(USHORT)];
    } ids;
    union {
        EVENT_FILTER_EVENT_NAME f;
        unsigned char bytes[sizeof(EVENT_FILTER_EVENT_NAME) + 8];
    } names;
    EVENT_FILTER_DESCRIPTOR f[MAX_EVENT_FILTERS_COUNT + 1];
    REGHANDLE reg = 0;
    TRACEHANDLE other = 0;
    ULONG i;
    USHORT id;
    if (argc < 2) {
        printf("usage: bad_filters DIRECTORY\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    for (i = 0; i <= MAX_EVENT_FILTER_PID_COUNT; ++i)
        pids[i] = 1000 + i;
    memset(&ids, 0, sizeof ids);
    ids.f.FilterIn = TRUE;
    ids.f.Count = 1;
    ids.f.Events[0] = 2;

    expect("EventRegister", EventRegister(&ProviderGuid, NULL, NULL, &reg), ERROR_SUCCESS);
    expect("StartTrace", start("bad_filters", &g_session, NULL, 0), ERROR_SUCCESS);
    /* The enablement every refused call must leave alone: only event id 2. */
    f[0] = filter(&ids, sizeof ids.f, EVENT_FILTER_TYPE_EVENT_ID);
    expect("EnableTraceEx2 EVENT_ID {2}", enable(f, 1), ERROR_SUCCESS);

    /* The array. */
    for (i = 0; i <= MAX_EVENT_FILTERS_COUNT; ++i)
        f[i] = filter(&ids, sizeof ids.f, EVENT_FILTER_TYPE_EVENT_ID + i); /* distinct types: the count decides */
    expect("more than MAX_EVENT_FILTERS_COUNT (13) filters", enable(f, MAX_EVENT_FILTERS_COUNT + 1),
           ERROR_INVALID_PARAMETER);
    expect("FilterDescCount 1, EnableFilterDesc NULL", enable(NULL, 1), ERROR_INVALID_PARAMETER);

    /* Any filter. */
    f[0] = filter(&ids, sizeof ids.f, EVENT_FILTER_TYPE_EVENT_ID);
    f[1] = filter(&ids, sizeof ids.f, EVENT_FILTER_TYPE_EVENT_ID);
    expect("a type twice in one call", enable(f, 2), ERROR_INVALID_PARAMETER);
    f[0] = filter(NULL, 4, EVENT_FILTER_TYPE_PID);
    expect("Ptr NULL with a Size", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, 4, EVENT_FILTER_TYPE_NONE);
    expect("EVENT_FILTER_TYPE_NONE", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, 4, 0x80000003u);
    expect("a Type no EVENT_FILTER_TYPE_* names", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, 4, EVENT_FILTER_TYPE_PACKAGE_ID);
    expect("EVENT_FILTER_TYPE_PACKAGE_ID (not implemented)", enable(f, 1), ERROR_NOT_SUPPORTED);
    f[0] = filter(zeros, 4, EVENT_FILTER_TYPE_CONTAINER);
    expect("EVENT_FILTER_TYPE_CONTAINER (not implemented)", enable(f, 1), ERROR_NOT_SUPPORTED);

    /* Sizes: MAX_EVENT_FILTER_DATA_SIZE (1024), MAX_EVENT_FILTER_PAYLOAD_SIZE and _EVENT_NAME_SIZE (4096). */
    f[0] = filter(zeros, MAX_EVENT_FILTER_DATA_SIZE + 1, EVENT_FILTER_TYPE_SCHEMATIZED);
    expect("SCHEMATIZED above MAX_EVENT_FILTER_DATA_SIZE", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, MAX_EVENT_FILTER_DATA_SIZE + 2, EVENT_FILTER_TYPE_EXECUTABLE_NAME);
    expect("EXECUTABLE_NAME above MAX_EVENT_FILTER_DATA_SIZE", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, MAX_EVENT_FILTER_PAYLOAD_SIZE + 4, EVENT_FILTER_TYPE_PAYLOAD);
    expect("PAYLOAD above MAX_EVENT_FILTER_PAYLOAD_SIZE", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, MAX_EVENT_FILTER_EVENT_NAME_SIZE + 1, EVENT_FILTER_TYPE_EVENT_NAME);
    expect("EVENT_NAME above MAX_EVENT_FILTER_EVENT_NAME_SIZE", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, 0, EVENT_FILTER_TYPE_SCHEMATIZED);
    expect("Size 0", enable(f, 1), ERROR_INVALID_PARAMETER);

    /* PID: 1 to MAX_EVENT_FILTER_PID_COUNT (8) whole ids. */
    f[0] = filter(pids, 0, EVENT_FILTER_TYPE_PID);
    expect("PID with no id", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(pids, sizeof pids, EVENT_FILTER_TYPE_PID);
    expect("PID with more than MAX_EVENT_FILTER_PID_COUNT ids", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(pids, 6, EVENT_FILTER_TYPE_PID);
    expect("PID with a part of an id", enable(f, 1), ERROR_INVALID_PARAMETER);

    /* EVENT_ID and STACKWALK: Count 1 to MAX_EVENT_FILTER_EVENT_ID_COUNT (64), within Size. */
    ids.f.Count = 0;
    f[0] = filter(&ids, sizeof ids.f, EVENT_FILTER_TYPE_EVENT_ID);
    expect("EVENT_ID with Count 0", enable(f, 1), ERROR_INVALID_PARAMETER);
    ids.f.Count = MAX_EVENT_FILTER_EVENT_ID_COUNT + 1;
    f[0] = filter(&ids, sizeof ids.bytes, EVENT_FILTER_TYPE_EVENT_ID);
    expect("EVENT_ID with more than MAX_EVENT_FILTER_EVENT_ID_COUNT ids", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0].Type = EVENT_FILTER_TYPE_STACKWALK;
    expect("STACKWALK with more than MAX_EVENT_FILTER_EVENT_ID_COUNT ids", enable(f, 1), ERROR_INVALID_PARAMETER);
    ids.f.Count = 3;
    f[0] = filter(&ids, offsetof(EVENT_FILTER_EVENT_ID, Events) + 2 * sizeof(USHORT), EVENT_FILTER_TYPE_EVENT_ID);
    expect("EVENT_ID whose Size does not hold Count ids", enable(f, 1), ERROR_INVALID_PARAMETER);
    ids.f.Count = 1;

    /* EVENT_NAME: NameCount 1 or more. PAYLOAD: its predicates. */
    memset(&names, 0, sizeof names);
    f[0] = filter(&names, sizeof names.bytes, EVENT_FILTER_TYPE_EVENT_NAME);
    expect("EVENT_NAME with NameCount 0", enable(f, 1), ERROR_INVALID_PARAMETER);
    f[0] = filter(zeros, 16, EVENT_FILTER_TYPE_PAYLOAD);
    expect("PAYLOAD with no predicate", enable(f, 1), ERROR_INVALID_PARAMETER);

    /* Session-level filters (EVENT_TRACE_PROPERTIES_V2.FilterDesc): PID and EXECUTABLE_NAME only. */
    f[0] = filter(&ids, sizeof ids.f, EVENT_FILTER_TYPE_EVENT_ID);
    expect("a session filter of type EVENT_ID", start("bad_filters_s1", &other, f, 1), ERROR_NOT_SUPPORTED);
    f[0] = filter(zeros, 8, EVENT_FILTER_TYPE_SCHEMATIZED);
    expect("a session filter of type SCHEMATIZED", start("bad_filters_s2", &other, f, 1), ERROR_NOT_SUPPORTED);
    f[0] = filter(pids, sizeof pids, EVENT_FILTER_TYPE_PID);
    expect("a session PID filter with more than 8 ids", start("bad_filters_s3", &other, f, 1), ERROR_INVALID_PARAMETER);
    expect("a session filter count above MAX_EVENT_FILTERS_COUNT",
           start("bad_filters_s4", &other, f, MAX_EVENT_FILTERS_COUNT + 1), ERROR_INVALID_PARAMETER);

    /* "Up to eight trace sessions can enable ... the same modern provider": a ninth,
     * ERROR_NO_SYSTEM_RESOURCES (EnableTraceEx2's documented status). */
    {
        TRACEHANDLE more[8];
        char name[32];
        for (i = 0; i < 8; ++i) {
            snprintf(name, sizeof name, "bad_filters_n%lu", (unsigned long)i);
            expect("StartTrace", start(name, &more[i], NULL, 0), ERROR_SUCCESS);
        }
        for (i = 0; i < 7; ++i)
            expect("EnableTraceEx2 (sessions 2 to 8)",
                   EnableTraceEx2(more[i], &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, NULL),
                   ERROR_SUCCESS);
        expect("a ninth session",
               EnableTraceEx2(more[7], &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, NULL),
               ERROR_NO_SYSTEM_RESOURCES);
        for (i = 0; i < 8; ++i)
            stop(more[i]);
    }

    /* Nothing changed: the session still takes id 2 only. */
    for (id = 1; id <= 4; ++id) {
        EVENT_DESCRIPTOR d;
        EventDescCreate(&d, id, 0, 0, 4, 0, 0, 0);
        EventWrite(reg, &d, 0, NULL);
    }
    stop(g_session);
    EventUnregister(reg);
    expect("the first enablement holds: id 2 only", ids_in("bad_filters"), 1u << 2);
    if (g_failures)
        printf("%d failures\n", g_failures);
    return g_failures ? 1 : 0;
}
