/*
 * TraceSetInformation and TraceQueryInformation: each status case of
 * docs/WIN32.md ("Trace information"), then a system logger's stacks and
 * profile interval set through them (SessionHandle 0: the running system
 * loggers and those started later). Run with OPENETW_REGISTRY=none, so
 * SessionHandle 0 reaches this process's sessions only. The system logger
 * part needs the right to read the kernel's events (root): skipped (77)
 * without it. A names, no UNICODE.
 * usage: trace_information DIRECTORY
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wmistr.h>
#include <evntrace.h>

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES) + 2 * NAME_ROOM)

static char g_dir[200];
static int g_failures;

/* PerfInfo/SampleProfile, Thread/CSwitch and Thread/Start as CLASSIC_EVENT_IDs. */
static const GUID PerfInfoGuid = {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}};
static const GUID ThreadGuid = {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};

static void expect(const char *what, ULONG got, ULONG want)
{
    if (got != want) {
        printf("FAIL %s: %lu, expected %lu\n", what, (unsigned long)got, (unsigned long)want);
        ++g_failures;
    } else {
        printf("ok   %s: %lu\n", what, (unsigned long)got);
    }
}

/* Starts a file session; system: a system logger sampling the profile. */
static ULONG start(const char *name, int system, TRACEHANDLE *h)
{
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, BLOCK);
    ULONG s;
    p->Wnode.BufferSize = BLOCK;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->Wnode.ClientContext = 1;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    p->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + NAME_ROOM;
    p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL | (system ? EVENT_TRACE_SYSTEM_LOGGER_MODE : 0);
    p->EnableFlags = system ? EVENT_TRACE_FLAG_PROFILE : 0;
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

static ULONG set_interval(TRACEHANDLE h, ULONG source, ULONG interval)
{
    TRACE_PROFILE_INTERVAL i;
    i.Source = source;
    i.Interval = interval;
    return TraceSetInformation(h, TraceSampledProfileIntervalInfo, &i, sizeof i);
}

/* The interval TraceQueryInformation reports (0 on failure, reported). */
static ULONG query_interval(const char *what, TRACEHANDLE h)
{
    TRACE_PROFILE_INTERVAL i = {0, 0};
    ULONG returned = 0;
    expect(what, TraceQueryInformation(h, TraceSampledProfileIntervalInfo, &i, sizeof i, &returned), ERROR_SUCCESS);
    expect("  its ReturnLength", returned, sizeof i);
    return i.Interval;
}

static void refusals(TRACEHANDLE plain)
{
    TRACE_PROFILE_INTERVAL iv = {0, 10000};
    CLASSIC_EVENT_ID ids[257];
    BYTE buffer[64];
    ULONG returned = 99;
    ULONG flags = 0;
    memset(ids, 0, sizeof ids);

    /* Classes not served: never a silent success. */
    expect("set TraceSystemTraceEnableFlagsInfo", TraceSetInformation(0, TraceSystemTraceEnableFlagsInfo, &flags, 4),
           ERROR_NOT_SUPPORTED);
    expect("set TracePmcCounterListInfo", TraceSetInformation(0, TracePmcCounterListInfo, &flags, 4),
           ERROR_NOT_SUPPORTED);
    expect("set TraceProfileSourceListInfo (query only)", TraceSetInformation(0, TraceProfileSourceListInfo, &flags, 4),
           ERROR_NOT_SUPPORTED);
    expect("set an unknown class", TraceSetInformation(0, (TRACE_INFO_CLASS)1000, &flags, 4), ERROR_NOT_SUPPORTED);
    expect("query TraceStackTracingInfo (set only)",
           TraceQueryInformation(plain, TraceStackTracingInfo, buffer, sizeof buffer, &returned), ERROR_NOT_SUPPORTED);
    expect("query TraceVersionInfo", TraceQueryInformation(0, TraceVersionInfo, buffer, sizeof buffer, &returned),
           ERROR_NOT_SUPPORTED);
    expect("  its ReturnLength", returned, 0);

    /* TraceSampledProfileIntervalInfo, set. */
    expect("set interval, InformationLength 7",
           TraceSetInformation(0, TraceSampledProfileIntervalInfo, &iv, sizeof iv - 1), ERROR_BAD_LENGTH);
    expect("set interval, NULL TraceInformation",
           TraceSetInformation(0, TraceSampledProfileIntervalInfo, NULL, sizeof iv), ERROR_INVALID_PARAMETER);
    expect("set interval, source 1", set_interval(0, 1, 10000), ERROR_INVALID_PARAMETER);
    expect("set interval 1220", set_interval(0, 0, 1220), ERROR_INVALID_PARAMETER);
    expect("set interval 10000001", set_interval(0, 0, 10000001), ERROR_INVALID_PARAMETER);
    expect("set interval 0", set_interval(0, 0, 0), ERROR_INVALID_PARAMETER);
    expect("set interval, unknown handle", set_interval(0x7777777, 0, 10000), ERROR_WMI_INSTANCE_NOT_FOUND);
    expect("set interval, not a system logger", set_interval(plain, 0, 10000), ERROR_NOT_SUPPORTED);

    /* TraceSampledProfileIntervalInfo, query. */
    expect("query interval, InformationLength 4",
           TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &iv, 4, &returned), ERROR_BAD_LENGTH);
    expect("  its ReturnLength (the size needed)", returned, sizeof iv);
    expect("query interval, NULL TraceInformation",
           TraceQueryInformation(0, TraceSampledProfileIntervalInfo, NULL, sizeof iv, &returned),
           ERROR_INVALID_PARAMETER);
    iv.Source = 1;
    expect("query interval, source 1", TraceQueryInformation(0, TraceSampledProfileIntervalInfo, &iv, sizeof iv, NULL),
           ERROR_INVALID_PARAMETER);
    iv.Source = 0;
    expect("query interval, unknown handle",
           TraceQueryInformation(0x7777777, TraceSampledProfileIntervalInfo, &iv, sizeof iv, NULL),
           ERROR_WMI_INSTANCE_NOT_FOUND);
    expect("query interval, not a system logger",
           TraceQueryInformation(plain, TraceSampledProfileIntervalInfo, &iv, sizeof iv, NULL), ERROR_NOT_SUPPORTED);
    expect("query interval, SessionHandle 0 before any set", query_interval("query interval, 0", 0), 10000);

    /* TraceStackTracingInfo, set. */
    ids[0].EventGuid = PerfInfoGuid;
    ids[0].Type = 46;
    expect("set stacks, a length not a multiple of CLASSIC_EVENT_ID",
           TraceSetInformation(plain, TraceStackTracingInfo, ids, sizeof ids[0] + 1), ERROR_BAD_LENGTH);
    expect("set stacks, NULL TraceInformation", TraceSetInformation(plain, TraceStackTracingInfo, NULL, sizeof ids[0]),
           ERROR_INVALID_PARAMETER);
    expect("set stacks, 257 events", TraceSetInformation(plain, TraceStackTracingInfo, ids, sizeof ids),
           ERROR_INVALID_PARAMETER);
    expect("set stacks, SessionHandle 0", TraceSetInformation(0, TraceStackTracingInfo, ids, sizeof ids[0]),
           ERROR_INVALID_HANDLE);
    expect("set stacks, not a system logger", TraceSetInformation(plain, TraceStackTracingInfo, ids, sizeof ids[0]),
           ERROR_NOT_SUPPORTED);

    /* TraceProfileSourceListInfo: the timer, its range, its name. */
    expect("query sources, no buffer", TraceQueryInformation(0, TraceProfileSourceListInfo, NULL, 0, &returned),
           ERROR_BAD_LENGTH);
    expect("  its ReturnLength (the size needed)", returned, offsetof(PROFILE_SOURCE_INFO, Description) + 12);
    expect("query sources, NULL TraceInformation",
           TraceQueryInformation(0, TraceProfileSourceListInfo, NULL, sizeof buffer, &returned),
           ERROR_INVALID_PARAMETER);
    expect("query sources", TraceQueryInformation(0, TraceProfileSourceListInfo, buffer, sizeof buffer, &returned),
           ERROR_SUCCESS);
    {
        const PROFILE_SOURCE_INFO *info = (const PROFILE_SOURCE_INFO *)buffer;
        static const WCHAR timer[] = {'T', 'i', 'm', 'e', 'r', 0};
        expect("  its ReturnLength", returned, offsetof(PROFILE_SOURCE_INFO, Description) + sizeof timer);
        expect("  NextEntryOffset (the last)", info->NextEntryOffset, 0);
        expect("  Source (the timer)", info->Source, 0);
        expect("  MinInterval", info->MinInterval, 1221);
        expect("  MaxInterval", info->MaxInterval, 10000000);
        expect("  Description is Timer", memcmp(info->Description, timer, sizeof timer), 0);
    }
}

static int system_loggers(void)
{
    TRACEHANDLE first = 0, second = 0;
    CLASSIC_EVENT_ID ids[2];
    ULONG s = start("W32 info kernel", 1, &first);
    if (s == ERROR_ACCESS_DENIED) {
        printf("skip: no right to read the kernel's events\n");
        return 77;
    }
    expect("start a system logger", s, ERROR_SUCCESS);
    if (s != ERROR_SUCCESS)
        return 1;
    memset(ids, 0, sizeof ids);
    ids[0].EventGuid = PerfInfoGuid;
    ids[0].Type = 46;
    ids[1].EventGuid = ThreadGuid;
    ids[1].Type = 36;
    expect("set stacks, SampleProfile", TraceSetInformation(first, TraceStackTracingInfo, ids, sizeof ids[0]),
           ERROR_SUCCESS);
    expect("set stacks, SampleProfile and CSwitch", TraceSetInformation(first, TraceStackTracingInfo, ids, sizeof ids),
           ERROR_SUCCESS);
    ids[1].Type = 1; /* Thread/Start: from perf's side-band records, no stack */
    expect("set stacks, Thread/Start (not recorded here)",
           TraceSetInformation(first, TraceStackTracingInfo, ids, sizeof ids), ERROR_NOT_SUPPORTED);
    expect("set stacks off (length 0)", TraceSetInformation(first, TraceStackTracingInfo, NULL, 0), ERROR_SUCCESS);

    expect("its interval at the start", query_interval("query interval of the logger", first), 10000);
    expect("set its own interval", set_interval(first, 0, 50000), ERROR_SUCCESS);
    expect("its interval after", query_interval("query interval of the logger", first), 50000);
    /* SessionHandle 0, as Windows expects: every running system logger... */
    expect("set the interval for the machine", set_interval(0, 0, 20000), ERROR_SUCCESS);
    expect("the running logger's", query_interval("query interval of the logger", first), 20000);
    expect("the machine's", query_interval("query interval, 0", 0), 20000);
    /* ...and those started afterwards. */
    expect("start a second system logger", start("W32 info kernel 2", 1, &second), ERROR_SUCCESS);
    expect("the second logger's", query_interval("query interval of the second", second), 20000);
    stop(second);
    stop(first);
    expect("set the interval of a stopped logger", set_interval(first, 0, 10000), ERROR_WMI_INSTANCE_NOT_FOUND);
    return 0;
}

int main(int argc, char **argv)
{
    TRACEHANDLE plain = 0;
    int live;
    snprintf(g_dir, sizeof g_dir, "%s", argc > 1 ? argv[1] : ".");
    expect("start a session that is no system logger", start("W32 info plain", 0, &plain), ERROR_SUCCESS);
    refusals(plain);
    stop(plain);
    live = system_loggers();
    if (g_failures != 0) {
        printf("%d failures\n", g_failures);
        return 1;
    }
    return live;
}
