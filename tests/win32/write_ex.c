/*
 * EventWriteEx's Filter as Microsoft documents it: each session enables the
 * provider with a SCHEMATIZED filter that begins with an EVENT_FILTER_HEADER
 * (InstanceId 0); the enable callback finds that session's identifier in
 * FilterData's InstanceId; an event written with that bit in Filter skips
 * that session only. Two sessions, one skipped.
 * usage: write_ex DIRECTORY
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wmistr.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES) + 2 * NAME_ROOM)

static const GUID ProviderGuid = {0x6b1ef0f8, 0x1d5e, 0x4c4e, {0x9a, 0x11, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x73}};

static char g_dir[200];
static int g_failures;

static void expect(const char *what, ULONGLONG got, ULONGLONG want)
{
    if (got != want) {
        printf("FAIL %s: %llu, expected %llu\n", what, (unsigned long long)got, (unsigned long long)want);
        ++g_failures;
    } else {
        printf("ok   %s: %llu\n", what, (unsigned long long)got);
    }
}

static ULONG start(const char *name, TRACEHANDLE *h)
{
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, BLOCK);
    ULONG s;
    p->Wnode.BufferSize = BLOCK;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->Wnode.ClientContext = 1;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    p->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + NAME_ROOM;
    p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    snprintf((char *)p + p->LogFileNameOffset, NAME_ROOM, "%s/%s.etl", g_dir, name);
    s = StartTraceA(h, name, p);
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

/* The InstanceId each enable callback found, in call order. */
static ULONGLONG g_instance[4];
static ULONG g_calls;
static VOID NTAPI on_enable(LPCGUID source, ULONG is_enabled, UCHAR level, ULONGLONG any, ULONGLONG all,
                            PEVENT_FILTER_DESCRIPTOR filter, PVOID context)
{
    (void)source, (void)level, (void)any, (void)all, (void)context;
    if (is_enabled != EVENT_CONTROL_CODE_ENABLE_PROVIDER || g_calls >= 4)
        return;
    g_instance[g_calls++] = filter && filter->Size >= sizeof(EVENT_FILTER_HEADER)
                                ? ((const EVENT_FILTER_HEADER *)(ULONG_PTR)filter->Ptr)->InstanceId
                                : 0;
}

static void write_ex(REGHANDLE reg, USHORT id, ULONGLONG skip)
{
    EVENT_DESCRIPTOR d;
    EventDescCreate(&d, id, 0, 0, 4, 0, 0, 0);
    expect("EventWriteEx", EventWriteEx(reg, &d, skip, 0, NULL, NULL, 0, NULL), ERROR_SUCCESS);
}

int main(int argc, char **argv)
{
    REGHANDLE reg = 0;
    TRACEHANDLE a = 0, b = 0;
    /* The controller's filter: a header (InstanceId and NextOffset 0, as the docs ask) and its data. */
    struct {
        EVENT_FILTER_HEADER header;
        ULONG value;
    } schema;
    EVENT_FILTER_DESCRIPTOR filter;
    ENABLE_TRACE_PARAMETERS params;
    ULONGLONG id_a, id_b;
    if (argc < 2) {
        printf("usage: write_ex DIRECTORY\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    memset(&schema, 0, sizeof schema);
    schema.header.Id = 1;
    schema.header.Size = sizeof schema;
    schema.value = 42;
    filter.Ptr = (ULONGLONG)(ULONG_PTR)&schema;
    filter.Size = sizeof schema;
    filter.Type = EVENT_FILTER_TYPE_SCHEMATIZED;
    memset(&params, 0, sizeof params);
    params.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
    params.EnableFilterDesc = &filter;
    params.FilterDescCount = 1;

    expect("EventRegister", EventRegister(&ProviderGuid, on_enable, NULL, &reg), ERROR_SUCCESS);
    expect("StartTrace a", start("write_ex_a", &a), ERROR_SUCCESS);
    expect("StartTrace b", start("write_ex_b", &b), ERROR_SUCCESS);
    expect("EnableTraceEx2 a",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params), ERROR_SUCCESS);
    expect("EnableTraceEx2 b",
           EnableTraceEx2(b, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params), ERROR_SUCCESS);
    expect("two enable callbacks", g_calls, 2);
    id_a = g_instance[0];
    id_b = g_instance[1];
    expect("session a has an identifier", id_a != 0, 1);
    expect("session b has an identifier", id_b != 0, 1);
    expect("the identifiers differ", id_a != id_b, 1);
    expect("the controller's header is unchanged", schema.header.InstanceId, 0);

    write_ex(reg, 1, id_a);        /* b only */
    write_ex(reg, 2, 0);           /* both */
    write_ex(reg, 3, id_b);        /* a only */
    write_ex(reg, 4, id_a | id_b); /* neither */
    stop(a);
    stop(b);
    EventUnregister(reg);
    expect("session a holds ids 2 and 3", ids_in("write_ex_a"), (1u << 2) | (1u << 3));
    expect("session b holds ids 1 and 2", ids_in("write_ex_b"), (1u << 1) | (1u << 2));
    if (g_failures)
        printf("%d failures\n", g_failures);
    return g_failures ? 1 : 0;
}
