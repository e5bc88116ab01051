/*
 * A real-time session consumed while it runs, and a manifest-style provider
 * (EventRegister/EventWrite), written as Windows code does: the consumer
 * thread blocks in ProcessTrace on OpenTrace(LoggerName, REAL_TIME); the
 * main thread writes, then stops the session, which ends ProcessTrace.
 * Checks the EventWrite mapping (docs/WIN32.md): payload = the data
 * descriptors in order, Opcode/Level/Version carried, Keyword filtering.
 */
#define _DEFAULT_SOURCE 1 /* usleep under -std=c99 */
#include <windows.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <evntprov.h>
#include <evntrace.h>
#include <evntcons.h>

#define SESSION "OpenETW Win32 Realtime"
#define EVENTS 200

static const GUID ProviderGuid = {0x2a8b1c3d, 0x4e5f, 0x4a6b, {0x8c, 0x9d, 0x0e, 0x1f, 0x2a, 0x3b, 0x4c, 0x5d}};

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static int g_events, g_gathered, g_callbacks_on, g_callbacks_off;
static ULONG g_next;
static ULONG g_process_status = 0xFFFFFFFF;
static TRACEHANDLE g_trace;

static VOID WINAPI OnEvent(PEVENT_RECORD r)
{
    if (IsEqualGUID(&r->EventHeader.ProviderId, &EventTraceGuid))
        return;
    CHECK(IsEqualGUID(&r->EventHeader.ProviderId, &ProviderGuid));
    if (r->EventHeader.EventDescriptor.Opcode == 13) { /* 20 descriptors: gathered inline */
        int k;
        CHECK(r->UserDataLength == 20);
        for (k = 0; k < 20; ++k)
            CHECK(((unsigned char *)r->UserData)[k] == (unsigned char)(100 + k));
        ++g_gathered;
        return;
    }
    CHECK(r->EventHeader.EventDescriptor.Opcode == 12);
    CHECK(r->EventHeader.EventDescriptor.Level == TRACE_LEVEL_WARNING);
    CHECK(r->EventHeader.EventDescriptor.Version == 3);
    CHECK(r->UserDataLength == 4 + 6);
    CHECK(*(ULONG *)r->UserData == g_next);
    CHECK(memcmp((char *)r->UserData + 4, "hello", 6) == 0);
    ++g_next;
    ++g_events;
}

static VOID NTAPI OnEnable(LPCGUID id, ULONG is_enabled, UCHAR level, ULONGLONG any, ULONGLONG all,
                           PEVENT_FILTER_DESCRIPTOR filter, PVOID context)
{
    (void)level;
    (void)any;
    (void)all;
    CHECK(IsEqualGUID(id, &ProviderGuid));
    CHECK(filter == NULL);
    CHECK(context == &g_events);
    if (is_enabled == EVENT_CONTROL_CODE_ENABLE_PROVIDER)
        ++g_callbacks_on;
    else
        ++g_callbacks_off;
}

static void *consume(void *arg)
{
    (void)arg;
    g_process_status = ProcessTrace(&g_trace, 1, NULL, NULL);
    return NULL;
}

int main(void)
{
    const ULONG size = sizeof(EVENT_TRACE_PROPERTIES) + sizeof(SESSION);
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, size);
    TRACEHANDLE session = 0;
    REGHANDLE reg = 0;
    EVENT_TRACE_LOGFILEA lf;
    EVENT_DESCRIPTOR desc;
    EVENT_DATA_DESCRIPTOR data[2];
    pthread_t thread;
    ULONG i;

    p->Wnode.BufferSize = size;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->Wnode.ClientContext = 1;
    p->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
    p->FlushTimer = 1;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    CHECK(StartTraceA(&session, SESSION, p) == ERROR_SUCCESS);
    CHECK(strcmp((char *)p + p->LoggerNameOffset, SESSION) == 0);

    CHECK(EventRegister(&ProviderGuid, OnEnable, &g_events, &reg) == ERROR_SUCCESS);
    CHECK(!EventProviderEnabled(reg, TRACE_LEVEL_WARNING, 0));
    CHECK(EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_WARNING, 0x10, 0, 0,
                         NULL) == ERROR_SUCCESS);
    CHECK(g_callbacks_on == 1);

    memset(&lf, 0, sizeof lf);
    lf.LoggerName = (LPSTR)SESSION;
    lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    lf.EventRecordCallback = OnEvent;
    g_trace = OpenTraceA(&lf);
    CHECK(g_trace != INVALID_PROCESSTRACE_HANDLE);
    CHECK(pthread_create(&thread, NULL, consume, NULL) == 0);

    EventDescCreate(&desc, 7, 3, 0, TRACE_LEVEL_WARNING, 0, 12, 0x10);
    CHECK(EventEnabled(reg, &desc));
    for (i = 0; i < EVENTS; ++i) {
        EventDataDescCreate(&data[0], &i, sizeof i);
        EventDataDescCreate(&data[1], "hello", 6);
        CHECK(EventWrite(reg, &desc, 2, data) == ERROR_SUCCESS);
    }
    /* More descriptors than MOF fields (16): one payload, in order. */
    {
        static unsigned char bytes[20];
        EVENT_DATA_DESCRIPTOR many[20];
        EVENT_DESCRIPTOR gathered = desc;
        int k;
        gathered.Opcode = 13;
        for (k = 0; k < 20; ++k) {
            bytes[k] = (unsigned char)(100 + k);
            EventDataDescCreate(&many[k], &bytes[k], 1);
        }
        CHECK(EventWrite(reg, &gathered, 20, many) == ERROR_SUCCESS);
    }
    /* Not taken: a keyword the session did not ask for, a level above its own. */
    {
        EVENT_DESCRIPTOR other = desc;
        other.Keyword = 0x20;
        CHECK(!EventEnabled(reg, &other));
        CHECK(EventWrite(reg, &other, 2, data) == ERROR_SUCCESS);
        other = desc;
        other.Level = TRACE_LEVEL_VERBOSE;
        CHECK(!EventEnabled(reg, &other));
        CHECK(EventWrite(reg, &other, 2, data) == ERROR_SUCCESS);
    }

    CHECK(StopTraceA(session, NULL, p) == ERROR_SUCCESS);
    CHECK(p->EventsLost == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(g_process_status == ERROR_SUCCESS);
    CHECK(g_events == EVENTS);
    CHECK(g_gathered == 1);
    CHECK(g_callbacks_off == 1);
    CHECK(CloseTrace(g_trace) == ERROR_SUCCESS);

    /* CloseTrace while ProcessTrace runs on another thread: ERROR_CTX_CLOSE_PENDING,
       ProcessTrace returns ERROR_SUCCESS, the session keeps running. */
    memset(p, 0, size);
    p->Wnode.BufferSize = size;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
    p->FlushTimer = 1;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    CHECK(StartTraceA(&session, SESSION, p) == ERROR_SUCCESS);
    CHECK(EnableTraceEx2(session, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_WARNING, 0x10, 0, 0,
                         NULL) == ERROR_SUCCESS);
    g_trace = OpenTraceA(&lf);
    CHECK(g_trace != INVALID_PROCESSTRACE_HANDLE);
    g_events = 0;
    g_next = 0;
    g_process_status = 0xFFFFFFFF;
    CHECK(pthread_create(&thread, NULL, consume, NULL) == 0);
    i = 0;
    EventDataDescCreate(&data[0], &i, sizeof i);
    CHECK(EventWrite(reg, &desc, 2, data) == ERROR_SUCCESS);
    CHECK(FlushTraceA(session, NULL, p) == ERROR_SUCCESS);
    while (__atomic_load_n(&g_events, __ATOMIC_SEQ_CST) == 0) /* the consumer is inside ProcessTrace */
        usleep(1000);
    CHECK(CloseTrace(g_trace) == ERROR_CTX_CLOSE_PENDING);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(g_process_status == ERROR_SUCCESS);
    CHECK(CloseTrace(g_trace) == ERROR_INVALID_HANDLE);
    CHECK(QueryTraceA(0, SESSION, p) == ERROR_SUCCESS);
    CHECK(StopTraceA(0, SESSION, p) == ERROR_SUCCESS);

    CHECK(EventUnregister(reg) == ERROR_SUCCESS);
    CHECK(EventUnregister(reg) == ERROR_INVALID_HANDLE);
    free(p);
    printf("real-time: %d events delivered while the session ran, then CloseTrace ended processing\n", EVENTS);
    return 0;
}
