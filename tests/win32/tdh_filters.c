/*
 * TDH payload filters as a Windows program builds them (Microsoft's
 * EnableTraceEx2 example): TdhCreatePayloadFilter per event descriptor,
 * TdhAggregatePayloadFilters into one EVENT_FILTER_DESCRIPTOR with
 * EventMatchALLFlags, EnableTraceEx2, then TdhCleanupPayloadEventFilterDescriptor
 * and TdhDeletePayloadFilter. The provider writes self-describing
 * (TraceLogging-style) events through EventWrite; the file shows which
 * passed. Then each function's statuses for bad arguments.
 * usage: tdh_filters DIRECTORY (built with -fshort-wchar: L"..." is UTF-16)
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wmistr.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>
#include <tdh.h>

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES) + 2 * NAME_ROOM)

static const GUID ProviderGuid = {0x6b1ef0f6, 0x1d5e, 0x4c4e, {0x9a, 0x11, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x71}};
static const GUID OtherGuid = {0x6b1ef0f7, 0x1d5e, 0x4c4e, {0x9a, 0x11, 0x2b, 0x3c, 0x4d, 0x5e, 0x6f, 0x72}};

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

/* Bit Count (the first field, a distinct value per event) of each event the file holds. */
static ULONG g_counts;
static VOID WINAPI on_event(PEVENT_RECORD e)
{
    LONG count;
    if (!IsEqualGUID(&e->EventHeader.ProviderId, &ProviderGuid) || e->UserDataLength < sizeof count)
        return;
    memcpy(&count, e->UserData, sizeof count);
    if (count >= 0 && count < 32)
        g_counts |= 1u << count;
}

static ULONG counts_in(const char *name)
{
    char path[NAME_ROOM];
    EVENT_TRACE_LOGFILEA trace;
    TRACEHANDLE h;
    snprintf(path, sizeof path, "%s/%s.etl", g_dir, name);
    memset(&trace, 0, sizeof trace);
    trace.LogFileName = path;
    trace.EventRecordCallback = on_event;
    trace.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
    g_counts = 0;
    h = OpenTraceA(&trace);
    if (h == INVALID_PROCESSTRACE_HANDLE) {
        printf("FAIL OpenTrace %s\n", path);
        ++g_failures;
        return 0;
    }
    expect("ProcessTrace", ProcessTrace(&h, 1, NULL, NULL), ERROR_SUCCESS);
    CloseTrace(h);
    return g_counts;
}

/* TraceLogging event metadata: UINT16 size, one extension byte, the event
 * name, then fields Count (TlgInINT32 = 7) and Name (TlgInANSISTRING = 2). */
static const unsigned char g_meta[] = {18, 0, 0, 'E', 0, 'C', 'o', 'u', 'n', 't', 0, 7, 'N', 'a', 'm', 'e', 0, 2};

/* One self-describing event: id, version, its Count and Name. */
static void write_event(REGHANDLE reg, USHORT id, UCHAR version, LONG count, const char *name)
{
    EVENT_DESCRIPTOR d;
    EVENT_DATA_DESCRIPTOR data[3];
    EventDescCreate(&d, id, version, 0, 4, 0, 0, 0);
    EventDataDescCreate(&data[0], g_meta, sizeof g_meta);
    data[0].Type = EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA;
    EventDataDescCreate(&data[1], &count, sizeof count);
    EventDataDescCreate(&data[2], name, (ULONG)strlen(name) + 1);
    expect("EventWrite", EventWrite(reg, &d, 3, data), ERROR_SUCCESS);
}

static void bad_arguments(void)
{
    EVENT_DESCRIPTOR d;
    PAYLOAD_FILTER_PREDICATE p = {L"Count", PAYLOADFIELD_EQ, L"1"};
    PAYLOAD_FILTER_PREDICATE many[MAX_PAYLOAD_PREDICATES + 1];
    PVOID f = NULL, g = NULL, pair[2];
    EVENT_FILTER_DESCRIPTOR agg;
    static WCHAR big[MAX_EVENT_FILTER_PAYLOAD_SIZE + 2];
    ULONG i;
    EventDescCreate(&d, 1, 0, 0, 4, 0, 0, 0);
    for (i = 0; i <= MAX_PAYLOAD_PREDICATES; ++i)
        many[i] = p;
    expect("Create: NULL ProviderGuid", TdhCreatePayloadFilter(NULL, &d, FALSE, 1, &p, &f), ERROR_INVALID_PARAMETER);
    expect("Create: NULL EventDescriptor", TdhCreatePayloadFilter(&ProviderGuid, NULL, FALSE, 1, &p, &f),
           ERROR_INVALID_PARAMETER);
    expect("Create: NULL predicates", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, NULL, &f),
           ERROR_INVALID_PARAMETER);
    expect("Create: NULL PayloadFilter", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, NULL),
           ERROR_INVALID_PARAMETER);
    expect("Create: 0 predicates", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 0, &p, &f),
           ERROR_INVALID_PARAMETER);
    expect("Create: more than MAX_PAYLOAD_PREDICATES",
           TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, MAX_PAYLOAD_PREDICATES + 1, many, &f),
           ERROR_INVALID_PARAMETER);
    p.CompareOp = 9;
    expect("Create: CompareOp 9", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f), ERROR_INVALID_PARAMETER);
    p.CompareOp = PAYLOADFIELD_INVALID;
    expect("Create: PAYLOADFIELD_INVALID", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f),
           ERROR_INVALID_PARAMETER);
    p.CompareOp = PAYLOADFIELD_IS;
    expect("Create: PAYLOADFIELD_IS", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f), ERROR_NOT_SUPPORTED);
    p.CompareOp = PAYLOADFIELD_BETWEEN;
    expect("Create: BETWEEN with one value", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f),
           ERROR_INVALID_PARAMETER);
    p.CompareOp = PAYLOADFIELD_MODULO;
    p.Value = L"0";
    expect("Create: MODULO 0", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f), ERROR_INVALID_PARAMETER);
    p.CompareOp = PAYLOADFIELD_EQ;
    p.FieldName = L"";
    expect("Create: an empty FieldName", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f),
           ERROR_INVALID_PARAMETER);
    p.FieldName = L"Count";
    p.Value = NULL;
    expect("Create: a NULL Value", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f),
           ERROR_INVALID_PARAMETER);
    for (i = 0; i < MAX_EVENT_FILTER_PAYLOAD_SIZE; ++i)
        big[i] = 'x';
    p.Value = big;
    expect("Create: above MAX_EVENT_FILTER_PAYLOAD_SIZE", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f),
           ERROR_INSUFFICIENT_BUFFER);
    expect("  *PayloadFilter stays NULL", f == NULL, 1);

    p.Value = L"1";
    expect("Create", TdhCreatePayloadFilter(&ProviderGuid, &d, FALSE, 1, &p, &f), ERROR_SUCCESS);
    expect("Create (another provider)", TdhCreatePayloadFilter(&OtherGuid, &d, FALSE, 1, &p, &g), ERROR_SUCCESS);
    pair[0] = f;
    pair[1] = g;
    expect("Aggregate: two providers' filters", TdhAggregatePayloadFilters(2, pair, NULL, &agg),
           ERROR_INVALID_PARAMETER);
    expect("Aggregate: count 0", TdhAggregatePayloadFilters(0, pair, NULL, &agg), ERROR_INVALID_PARAMETER);
    expect("Aggregate: NULL filters", TdhAggregatePayloadFilters(1, NULL, NULL, &agg), ERROR_INVALID_PARAMETER);
    expect("Aggregate: NULL descriptor", TdhAggregatePayloadFilters(1, pair, NULL, NULL), ERROR_INVALID_PARAMETER);
    pair[1] = NULL;
    expect("Aggregate: a NULL filter", TdhAggregatePayloadFilters(2, pair, NULL, &agg), ERROR_INVALID_PARAMETER);
    expect("Cleanup: NULL", TdhCleanupPayloadEventFilterDescriptor(NULL), ERROR_INVALID_PARAMETER);
    expect("Delete: NULL", TdhDeletePayloadFilter(NULL), ERROR_INVALID_PARAMETER);
    expect("Delete", TdhDeletePayloadFilter(&f), ERROR_SUCCESS);
    expect("  sets the pointer to NULL", f == NULL, 1);
    expect("Delete: a NULL filter", TdhDeletePayloadFilter(&f), ERROR_INVALID_PARAMETER);
    expect("Delete (another provider)", TdhDeletePayloadFilter(&g), ERROR_SUCCESS);
}

int main(int argc, char **argv)
{
    REGHANDLE reg = 0;
    TRACEHANDLE a = 0;
    EVENT_DESCRIPTOR e1, e2;
    PAYLOAD_FILTER_PREDICATE count_gt = {L"Count", PAYLOADFIELD_GT, L"5"};
    PAYLOAD_FILTER_PREDICATE name_has = {L"Name", PAYLOADFIELD_CONTAINS, L"AN"};
    PAYLOAD_FILTER_PREDICATE count_mod = {L"Count", PAYLOADFIELD_MODULO, L"7"};
    PVOID single[3] = {NULL, NULL, NULL};
    BOOLEAN match_all[3] = {FALSE, TRUE, TRUE};
    EVENT_FILTER_DESCRIPTOR filter;
    ENABLE_TRACE_PARAMETERS params;
    ULONG i;
    if (argc < 2) {
        printf("usage: tdh_filters DIRECTORY\n");
        return 2;
    }
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    bad_arguments();

    expect("EventRegister", EventRegister(&ProviderGuid, NULL, NULL, &reg), ERROR_SUCCESS);
    expect("EventSetInformation(EventProviderUseDescriptorType)",
           EventSetInformation(reg, EventProviderUseDescriptorType, &(BOOLEAN){TRUE}, sizeof(BOOLEAN)), ERROR_SUCCESS);
    /* Event 1: Count > 5. Event 2: Name contains "an" (any case) AND Count a multiple of 7 (both flagged). */
    EventDescCreate(&e1, 1, 0, 0, 4, 0, 0, 0);
    EventDescCreate(&e2, 2, 0, 0, 4, 0, 0, 0);
    expect("TdhCreatePayloadFilter event 1", TdhCreatePayloadFilter(&ProviderGuid, &e1, TRUE, 1, &count_gt, &single[0]),
           ERROR_SUCCESS);
    expect("TdhCreatePayloadFilter event 2 name",
           TdhCreatePayloadFilter(&ProviderGuid, &e2, FALSE, 1, &name_has, &single[1]), ERROR_SUCCESS);
    expect("TdhCreatePayloadFilter event 2 modulo",
           TdhCreatePayloadFilter(&ProviderGuid, &e2, FALSE, 1, &count_mod, &single[2]), ERROR_SUCCESS);
    memset(&filter, 0, sizeof filter);
    expect("TdhAggregatePayloadFilters", TdhAggregatePayloadFilters(3, single, match_all, &filter), ERROR_SUCCESS);
    expect("  Type", filter.Type, EVENT_FILTER_TYPE_PAYLOAD);
    expect("  Size within MAX_EVENT_FILTER_PAYLOAD_SIZE",
           filter.Size > 0 && filter.Size <= MAX_EVENT_FILTER_PAYLOAD_SIZE, 1);

    expect("StartTrace", start("tdh_a", &a), ERROR_SUCCESS);
    memset(&params, 0, sizeof params);
    params.Version = ENABLE_TRACE_PARAMETERS_VERSION_2;
    params.EnableFilterDesc = &filter;
    params.FilterDescCount = 1;
    expect("EnableTraceEx2 PAYLOAD",
           EnableTraceEx2(a, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0, 0, &params), ERROR_SUCCESS);
    /* The session copied the filter: freeing it now changes nothing. */
    expect("TdhCleanupPayloadEventFilterDescriptor", TdhCleanupPayloadEventFilterDescriptor(&filter), ERROR_SUCCESS);
    expect("  zeroes the descriptor", filter.Ptr == 0 && filter.Size == 0, 1);
    for (i = 0; i < 3; ++i)
        expect("TdhDeletePayloadFilter", TdhDeletePayloadFilter(&single[i]), ERROR_SUCCESS);

    write_event(reg, 1, 0, 3, "x");       /* Count 3 is not > 5: out */
    write_event(reg, 1, 0, 9, "x");       /* in */
    write_event(reg, 2, 0, 7, "banana");  /* "an", 7 % 7: in */
    write_event(reg, 2, 0, 14, "BANANA"); /* "AN" in any case, 14 % 7: in */
    write_event(reg, 2, 0, 12, "banana"); /* 12 is no multiple of 7: out */
    write_event(reg, 2, 0, 21, "cherry"); /* no "an": out */
    write_event(reg, 3, 0, 5, "x");       /* no filter names event 3: in */
    write_event(reg, 1, 1, 2, "x");       /* event 1 version 1: no filter names it: in */
    stop(a);
    EventUnregister(reg);
    expect("the session holds Counts 2, 5, 7, 9 and 14", counts_in("tdh_a"),
           (1u << 2) | (1u << 5) | (1u << 7) | (1u << 9) | (1u << 14));
    if (g_failures)
        printf("%d failures\n", g_failures);
    return g_failures ? 1 : 0;
}
