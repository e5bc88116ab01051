/*
 * Filters at the source through the Win32 names, as Microsoft documents
 * them: EnableTraceEx2 with ENABLE_TRACE_PARAMETERS (version 2 with an
 * array of EVENT_FILTER_DESCRIPTORs, version 1 with one), EnableTraceEx
 * with one, StartTrace with EVENT_TRACE_PROPERTIES_V2's session filters,
 * EventWrite as the provider, OpenTrace/ProcessTrace reading what each
 * session kept, the enable callback's FilterData, and bad filters'
 * statuses. A names, no UNICODE.
 * usage: filters DIRECTORY
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
/* The process id (openetw-win32's windows.h has no GetCurrentProcessId). */
#ifdef _WIN32
#include <process.h>
#define this_process_id() ((ULONG)_getpid())
#else
#include <unistd.h>
#define this_process_id() ((ULONG)getpid())
#endif

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES_V2) + 2 * NAME_ROOM)

static const GUID ProviderGuid = {0x6b1ef0f5, 0x1d5e, 0x4c4e, {0x9a, 0x11, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x70}};

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

/* Bit id set for each event of ProviderGuid the file holds. */
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

/* What the provider's enable callback last got as FilterData. */
static ULONG g_filter_type, g_filter_size, g_callbacks;
static unsigned char g_filter_bytes[16];
static VOID NTAPI on_enable(LPCGUID source, ULONG is_enabled, UCHAR level, ULONGLONG any, ULONGLONG all,
                            PEVENT_FILTER_DESCRIPTOR filter, PVOID context)
{
    (void)source, (void)is_enabled, (void)level, (void)any, (void)all, (void)context;
    ++g_callbacks;
    g_filter_type = filter ? filter->Type : 0;
    g_filter_size = filter ? filter->Size : 0;
    if (filter && filter->Size <= sizeof g_filter_bytes)
        memcpy(g_filter_bytes, (const void *)(ULONG_PTR)filter->Ptr, filter->Size);
}

static void write_ids(REGHANDLE reg, USHORT first, USHORT last)
{
    USHORT id;
    for (id = first; id <= last; ++id) {
        EVENT_DESCRIPTOR d;
        ULONG value = id;
        EVENT_DATA_DESCRIPTOR data;
        EventDescCreate(&d, id, 0, 0, 4, 0, 0, 0);
        EventDataDescCreate(&data, &value, sizeof value);
        EventWrite(reg, &d, 1, &data);
    }
}

int main(int argc, char **argv)
{
    REGHANDLE reg = 0;
    TRACEHANDLE a = 0, b = 0, c = 0, d = 0, e = 0;
    ENABLE_TRACE_PARAMETERS params;
    ENABLE_TRACE_PARAMETERS_V1 params1;
    EVENT_FILTER_DESCRIPTOR filters[2];
    /* EVENT_FILTER_EVENT_ID with room for the ids that follow Events[0]. */
    union {
        EVENT_FILTER_EVENT_ID f;
        unsigned char bytes[sizeof(EVENT_FILTER_EVENT_ID) + 2 * sizeof(USHORT)];
    } ids;
    ULONG pid = this_process_id(), other_pid = 0x7FFFFFF0u;
    unsigned char schema[5] = {1, 2, 3, 4, 5};
    ULONG too_many[MAX_EVENT_FILTER_PID_COUNT + 1];
    ULONG i;
    if (argc < 2) {
        printf("usage: filters DIRECTORY\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    expect("EventRegister", EventRegister(&ProviderGuid, on_enable, NULL, &reg), ERROR_SUCCESS);

    /* Session a: EnableTraceEx2, version 2, an EVENT_ID filter admitting 2 and 4 and a PID filter of this process. */
    expect("StartTrace a", start("filters_a", &a, NULL, 0), ERROR_SUCCESS);
    memset(&ids, 0, sizeof ids);
    ids.f.FilterIn = TRUE;
    ids.f.Count = 2;
    {
        /* The ids run past the declared one-element array, into the union's room. */
        USHORT events[2] = {2, 4};
        memcpy(ids.bytes + offsetof(EVENT_FILTER_EVENT_ID, Events), events, sizeof events);
    }
    filters[0].Ptr = (ULONGLONG)(ULONG_PTR)&ids;
    filters[0].Size = (ULONG)(offsetof(EVENT_FILTER_EVENT_ID, Events) + 2 * sizeof(USHORT));
    filters[0].Type = EVENT_FILTER_TYPE_EVENT_ID;
    filters[1].Ptr = (ULONGLONG)(ULONG_PTR)&pid;
    filters[1].Size = sizeof pid;
    filters[1].Type = EVENT_FILTER_TYPE_PID;
    memset(&params, 0, sizeof params);
    params.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
    params.EnableFilterDesc = filters;
    params.FilterDescCount = 2;
    expect("EnableTraceEx2 EVENT_ID+PID",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params), ERROR_SUCCESS);

    /* Session b: version 1, one SCHEMATIZED filter: the callback gets it as FilterData. */
    expect("StartTrace b", start("filters_b", &b, NULL, 0), ERROR_SUCCESS);
    filters[0].Ptr = (ULONGLONG)(ULONG_PTR)schema;
    filters[0].Size = sizeof schema;
    filters[0].Type = EVENT_FILTER_TYPE_SCHEMATIZED;
    memset(&params1, 0, sizeof params1);
    params1.Version = ENABLE_TRACE_PARAMETERS_VERSION;
    params1.EnableFilterDesc = filters;
    g_callbacks = 0;
    expect("EnableTraceEx2 version 1 SCHEMATIZED",
           EnableTraceEx2(b, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0,
                          (PENABLE_TRACE_PARAMETERS)&params1),
           ERROR_SUCCESS);
    expect("  the callback ran", g_callbacks, 1);
    expect("  its FilterData type", g_filter_type, EVENT_FILTER_TYPE_SCHEMATIZED);
    expect("  its FilterData size", g_filter_size, sizeof schema);
    expect("  its FilterData bytes", memcmp(g_filter_bytes, schema, sizeof schema), 0);

    /* Session c: EnableTraceEx with an EVENT_ID exclude filter of 3. */
    expect("StartTrace c", start("filters_c", &c, NULL, 0), ERROR_SUCCESS);
    memset(&ids, 0, sizeof ids);
    ids.f.FilterIn = FALSE;
    ids.f.Count = 1;
    ids.f.Events[0] = 3;
    filters[0].Ptr = (ULONGLONG)(ULONG_PTR)&ids;
    filters[0].Size = sizeof(EVENT_FILTER_EVENT_ID);
    filters[0].Type = EVENT_FILTER_TYPE_EVENT_ID;
    expect("EnableTraceEx EVENT_ID out",
           EnableTraceEx(&ProviderGuid, NULL, c, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, filters),
           ERROR_SUCCESS);

    /* Session d: EVENT_TRACE_PROPERTIES_V2's session filter: another process's PID only. */
    filters[0].Ptr = (ULONGLONG)(ULONG_PTR)&other_pid;
    filters[0].Size = sizeof other_pid;
    filters[0].Type = EVENT_FILTER_TYPE_PID;
    expect("StartTrace d (session PID filter)", start("filters_d", &d, filters, 1), ERROR_SUCCESS);
    expect("EnableTraceEx2 d", EnableTraceEx2(d, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, NULL),
           ERROR_SUCCESS);

    /* Bad filters. */
    for (i = 0; i <= MAX_EVENT_FILTER_PID_COUNT; ++i)
        too_many[i] = i + 1;
    filters[0].Ptr = (ULONGLONG)(ULONG_PTR)too_many;
    filters[0].Size = sizeof too_many;
    filters[0].Type = EVENT_FILTER_TYPE_PID;
    params.EnableFilterDesc = filters;
    params.FilterDescCount = 1;
    expect("more than MAX_EVENT_FILTER_PID_COUNT pids",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params),
           ERROR_INVALID_PARAMETER);
    params.FilterDescCount = MAX_EVENT_FILTERS_COUNT + 1;
    expect("more than MAX_EVENT_FILTERS_COUNT filters",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params),
           ERROR_INVALID_PARAMETER);
    filters[0].Size = 0;
    params.FilterDescCount = 1;
    expect("a filter of Size 0",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params),
           ERROR_INVALID_PARAMETER);
    params.Version = 3;
    expect("ENABLE_TRACE_PARAMETERS version 3",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params),
           ERROR_INVALID_PARAMETER);
    filters[0].Ptr = (ULONGLONG)(ULONG_PTR)&ids;
    filters[0].Size = sizeof(EVENT_FILTER_EVENT_ID);
    filters[0].Type = EVENT_FILTER_TYPE_EVENT_ID;
    expect("a session filter of type EVENT_ID", start("filters_e", &e, filters, 1), ERROR_NOT_SUPPORTED);

    write_ids(reg, 1, 5);
    stop(a);
    stop(b);
    stop(c);
    stop(d);
    EventUnregister(reg);
    expect("session a holds ids 2 and 4", ids_in("filters_a"), (1u << 2) | (1u << 4));
    expect("session b holds ids 1 to 5", ids_in("filters_b"), 0x3Eu);
    expect("session c holds all but id 3", ids_in("filters_c"), 0x36u);
    expect("session d holds none", ids_in("filters_d"), 0);
    if (g_failures)
        printf("%d failures\n", g_failures);
    return g_failures ? 1 : 0;
}
