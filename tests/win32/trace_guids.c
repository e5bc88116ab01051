/*
 * EnumerateTraceGuidsEx and EnableTraceEx2's EVENT_CONTROL_CODE_CAPTURE_STATE
 * (docs/WIN32.md, "Capture state and the provider listing"): the status of
 * each documented case, the ERROR_INSUFFICIENT_BUFFER protocol, the
 * TRACE_GUID_INFO / TRACE_PROVIDER_INSTANCE_INFO / TRACE_ENABLE_INFO blocks
 * for two registrations of this process and a session, a GUID enabled ahead
 * of its registration (PRE_ENABLE), and the EnableCallback's IsEnabled 2 with
 * the enablement unchanged. Run with OPENETW_REGISTRY=none (this process's
 * sessions only). A names, no UNICODE.
 * usage: trace_guids DIRECTORY
 */
#include <windows.h>
#include <evntprov.h>
#include <evntrace.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wmistr.h>

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES) + 2 * NAME_ROOM)

static int g_failures;
static const GUID ProviderGuid = {0x1b0e7d4c, 0x2a3f, 0x4e5d, {0x9c, 0x8b, 0x7a, 0x69, 0x58, 0x47, 0x36, 0x25}};
static const GUID PreGuid = {0x1b0e7d4c, 0x2a3f, 0x4e5d, {0x9c, 0x8b, 0x7a, 0x69, 0x58, 0x47, 0x36, 0x26}};
static const GUID NobodyGuid = {0x1b0e7d4c, 0x2a3f, 0x4e5d, {0x9c, 0x8b, 0x7a, 0x69, 0x58, 0x47, 0x36, 0x27}};

static void expect(const char *what, unsigned long long got, unsigned long long want)
{
    if (got != want) {
        printf("FAIL %s: %llu, expected %llu\n", what, got, want);
        ++g_failures;
    } else {
        printf("ok   %s: %llu\n", what, got);
    }
}

static ULONG g_calls, g_last_is_enabled, g_last_level;
static ULONGLONG g_last_any;
static void NTAPI on_enable(LPCGUID source, ULONG is_enabled, UCHAR level, ULONGLONG any, ULONGLONG all,
                            PEVENT_FILTER_DESCRIPTOR filter, PVOID context)
{
    (void)source, (void)all, (void)filter, (void)context;
    ++g_calls;
    g_last_is_enabled = is_enabled;
    g_last_level = level;
    g_last_any = any;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, BLOCK);
    TRACEHANDLE h = 0;
    REGHANDLE r1 = 0, r2 = 0;
    ULONG len = 0, s;
    unsigned char buf[1024];
    p->Wnode.BufferSize = BLOCK;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->Wnode.ClientContext = 1;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    p->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + NAME_ROOM;
    p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    snprintf((char *)p + p->LogFileNameOffset, NAME_ROOM, "%s/trace-guids-%d.etl", dir, (int)getpid());
    s = StartTraceA(&h, "Win32TraceGuids", p);
    expect("StartTrace", s, ERROR_SUCCESS);
    if (s != ERROR_SUCCESS)
        return 1;
    expect("EnableTraceEx2 enable",
           EnableTraceEx2(h, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 3, 0xF0, 0, 0, NULL), ERROR_SUCCESS);
    expect("EnableTraceEx2 enable ahead",
           EnableTraceEx2(h, &PreGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, 2, 0, 0, 0, NULL), ERROR_SUCCESS);
    expect("EventRegister 1", EventRegister(&ProviderGuid, on_enable, NULL, &r1), ERROR_SUCCESS);
    expect("EventRegister 2", EventRegister(&ProviderGuid, NULL, NULL, &r2), ERROR_SUCCESS);
    expect("enable callback at registration", g_calls, 1);

    /* Capture state: IsEnabled 2 with the call's level and keywords; the enablement stays. */
    expect("EnableTraceEx2 capture state",
           EnableTraceEx2(h, &ProviderGuid, EVENT_CONTROL_CODE_CAPTURE_STATE, 5, 0x3, 0, 0, NULL), ERROR_SUCCESS);
    expect("capture callback", g_calls, 2);
    expect("capture IsEnabled", g_last_is_enabled, EVENT_CONTROL_CODE_CAPTURE_STATE);
    expect("capture Level", g_last_level, 5);
    expect("capture MatchAnyKeyword", g_last_any, 0x3);
    expect("EventProviderEnabled at the session's level after it", EventProviderEnabled(r1, 3, 0x10), TRUE);
    expect("EventProviderEnabled above the session's level", EventProviderEnabled(r1, 5, 0x10), FALSE);
    expect("capture state of a GUID the session does not enable",
           EnableTraceEx2(h, &NobodyGuid, EVENT_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0, 0, NULL),
           ERROR_WMI_GUID_NOT_FOUND);

    /* TraceGuidQueryList: the size first, then the GUIDs. */
    expect("QueryList with no buffer", EnumerateTraceGuidsEx(TraceGuidQueryList, NULL, 0, NULL, 0, &len),
           ERROR_INSUFFICIENT_BUFFER);
    expect("QueryList size: two GUIDs", len, 2 * sizeof(GUID));
    s = EnumerateTraceGuidsEx(TraceGuidQueryList, NULL, 0, buf, sizeof buf, &len);
    expect("QueryList", s, ERROR_SUCCESS);
    expect("QueryList first GUID",
           memcmp(buf, &ProviderGuid, sizeof(GUID)) == 0 || memcmp(buf + 16, &ProviderGuid, 16) == 0, 1);

    /* TraceGuidQueryInfo: one instance (this process, two registrations count as one process), one session. */
    expect("QueryInfo with a small buffer",
           EnumerateTraceGuidsEx(TraceGuidQueryInfo, (PVOID)&ProviderGuid, sizeof(GUID), buf, 8, &len),
           ERROR_INSUFFICIENT_BUFFER);
    expect("QueryInfo size", len,
           sizeof(TRACE_GUID_INFO) + sizeof(TRACE_PROVIDER_INSTANCE_INFO) + sizeof(TRACE_ENABLE_INFO));
    s = EnumerateTraceGuidsEx(TraceGuidQueryInfo, (PVOID)&ProviderGuid, sizeof(GUID), buf, sizeof buf, &len);
    expect("QueryInfo", s, ERROR_SUCCESS);
    if (s == ERROR_SUCCESS) {
        const TRACE_GUID_INFO *gi = (const TRACE_GUID_INFO *)buf;
        const TRACE_PROVIDER_INSTANCE_INFO *inst = (const TRACE_PROVIDER_INSTANCE_INFO *)(gi + 1);
        const TRACE_ENABLE_INFO *en = (const TRACE_ENABLE_INFO *)(inst + 1);
        expect("InstanceCount", gi->InstanceCount, 1);
        expect("Pid", inst->Pid, (unsigned long long)getpid());
        expect("NextOffset of the last", inst->NextOffset, 0);
        expect("Flags", inst->Flags, 0);
        expect("EnableCount", inst->EnableCount, 1);
        expect("IsEnabled", en->IsEnabled, 1);
        expect("Level", en->Level, 3);
        expect("LoggerId", en->LoggerId, h & 0xFFFF);
        expect("MatchAnyKeyword", en->MatchAnyKeyword, 0xF0);
    }
    s = EnumerateTraceGuidsEx(TraceGuidQueryInfo, (PVOID)&PreGuid, sizeof(GUID), buf, sizeof buf, &len);
    expect("QueryInfo of a GUID enabled ahead", s, ERROR_SUCCESS);
    if (s == ERROR_SUCCESS) {
        const TRACE_PROVIDER_INSTANCE_INFO *inst =
            (const TRACE_PROVIDER_INSTANCE_INFO *)((const TRACE_GUID_INFO *)buf + 1);
        expect("its Flags", inst->Flags, TRACE_PROVIDER_FLAG_PRE_ENABLE);
        expect("its Pid", inst->Pid, 0);
        expect("its EnableCount", inst->EnableCount, 1);
    }
    expect("QueryInfo of a GUID nobody has",
           EnumerateTraceGuidsEx(TraceGuidQueryInfo, (PVOID)&NobodyGuid, sizeof(GUID), buf, sizeof buf, &len),
           ERROR_WMI_GUID_NOT_FOUND);
    expect("QueryInfo without InBuffer", EnumerateTraceGuidsEx(TraceGuidQueryInfo, NULL, 0, buf, sizeof buf, &len),
           ERROR_INVALID_PARAMETER);
    expect("QueryInfo with a short InBuffer",
           EnumerateTraceGuidsEx(TraceGuidQueryInfo, (PVOID)&ProviderGuid, 8, buf, sizeof buf, &len),
           ERROR_INVALID_PARAMETER);
    expect("NULL ReturnLength", EnumerateTraceGuidsEx(TraceGuidQueryList, NULL, 0, buf, sizeof buf, NULL),
           ERROR_INVALID_PARAMETER);
    expect("NULL OutBuffer with a size", EnumerateTraceGuidsEx(TraceGuidQueryList, NULL, 0, NULL, 64, &len),
           ERROR_INVALID_PARAMETER);
    expect("TraceGuidQueryProcess", EnumerateTraceGuidsEx(TraceGuidQueryProcess, NULL, 0, buf, sizeof buf, &len),
           ERROR_NOT_SUPPORTED);

    /* EnumerateTraceGuids: the registered GUID only (PreGuid is enabled, not registered). */
    {
        TRACE_GUID_PROPERTIES props[2], *array[2] = {&props[0], &props[1]};
        ULONG count = 0;
        expect("EnumerateTraceGuids", EnumerateTraceGuids(array, 2, &count), ERROR_SUCCESS);
        expect("its GuidCount", count, 1);
        expect("its Guid", memcmp(&props[0].Guid, &ProviderGuid, sizeof(GUID)) == 0, 1);
        expect("its IsEnable", props[0].IsEnable, TRUE);
        expect("its LoggerId", props[0].LoggerId, h & 0xFFFF);
        expect("its EnableLevel", props[0].EnableLevel, 3);
        expect("its EnableFlags", props[0].EnableFlags, 0xF0);
        expect("EnumerateTraceGuids with a count of 0", EnumerateTraceGuids(array, 0, &count), ERROR_INVALID_PARAMETER);
        expect("EnumerateTraceGuids with a NULL GuidCount", EnumerateTraceGuids(array, 2, NULL),
               ERROR_INVALID_PARAMETER);
        array[1] = NULL;
        expect("EnumerateTraceGuids with a NULL element", EnumerateTraceGuids(array, 2, &count),
               ERROR_INVALID_PARAMETER);
        {
            REGHANDLE r3 = 0;
            expect("EventRegister of the GUID enabled ahead", EventRegister(&PreGuid, NULL, NULL, &r3), ERROR_SUCCESS);
            expect("EnumerateTraceGuids into one element", EnumerateTraceGuids(array, 1, &count), ERROR_MORE_DATA);
            expect("its GuidCount", count, 2);
            EventUnregister(r3);
        }
    }

    EventUnregister(r1);
    EventUnregister(r2);
    memset(p, 0, BLOCK);
    p->Wnode.BufferSize = BLOCK;
    expect("stop", ControlTraceA(h, NULL, p, EVENT_TRACE_CONTROL_STOP), ERROR_SUCCESS);
    free(p);
    printf("%d failure(s)\n", g_failures);
    return g_failures ? 1 : 0;
}
