/*
 * A real-time session consumed while it runs, and a manifest-style provider
 * (EventRegister/EventWrite), written as Windows code does: the consumer
 * thread blocks in ProcessTrace on OpenTrace(LoggerName, REAL_TIME); the
 * main thread writes, then stops the session, which ends ProcessTrace.
 * Checks what EventWrite and its variants record (docs/WIN32.md): the
 * whole EVENT_DESCRIPTOR, the thread's activity id (EventActivityIdControl)
 * or the caller's, a related activity id as an extended data item,
 * EventWriteString's STRING_ONLY flag, the data descriptors in order as the
 * user data, the 64/32-bit header flag, Keyword filtering.
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

static int g_events, g_gathered, g_transfers, g_strings, g_callbacks_on, g_callbacks_off;
static GUID g_thread_activity;
static const GUID Activity = {0x11111111, 0x2222, 0x3333, {1, 2, 3, 4, 5, 6, 7, 8}};
static const GUID Related = {0x44444444, 0x5555, 0x6666, {8, 7, 6, 5, 4, 3, 2, 1}};
static const WCHAR Text[] = {'s', 'h', 'i', 'p', 'p', 'e', 'd', 0};
static ULONG g_next;
static ULONG g_process_status = 0xFFFFFFFF;
static TRACEHANDLE g_trace;

static VOID WINAPI OnEvent(PEVENT_RECORD r)
{
    if (IsEqualGUID(&r->EventHeader.ProviderId, &EventTraceGuid))
        return;
    CHECK(IsEqualGUID(&r->EventHeader.ProviderId, &ProviderGuid));
    /* An EVENT_HEADER record: no CLASSIC_HEADER, the pointer size said. */
    CHECK((r->EventHeader.Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER) == 0);
    CHECK((r->EventHeader.Flags &
           (sizeof(void *) == 8 ? EVENT_HEADER_FLAG_64_BIT_HEADER : EVENT_HEADER_FLAG_32_BIT_HEADER)) != 0);
    if (r->EventHeader.Flags & EVENT_HEADER_FLAG_STRING_ONLY) { /* EventWriteString */
        CHECK(r->EventHeader.EventDescriptor.Level == TRACE_LEVEL_WARNING);
        CHECK(r->EventHeader.EventDescriptor.Keyword == 0x10);
        CHECK(r->EventHeader.EventDescriptor.Id == 0);
        CHECK(r->UserDataLength == sizeof Text);
        CHECK(memcmp(r->UserData, Text, sizeof Text) == 0);
        ++g_strings;
        return;
    }
    if (r->EventHeader.EventDescriptor.Opcode == 14) { /* EventWriteTransfer, EventWriteEx */
        CHECK(IsEqualGUID(&r->EventHeader.ActivityId, &Activity));
        CHECK(r->EventHeader.Flags & EVENT_HEADER_FLAG_EXTENDED_INFO);
        CHECK(r->ExtendedDataCount == 1);
        CHECK(r->ExtendedData[0].ExtType == EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID);
        CHECK(r->ExtendedData[0].DataSize == sizeof(GUID));
        CHECK(memcmp((const void *)(uintptr_t)r->ExtendedData[0].DataPtr, &Related, sizeof(GUID)) == 0);
        CHECK(r->UserDataLength == 4 + 6);
        ++g_transfers;
        return;
    }
    CHECK(r->ExtendedDataCount == 0);
    CHECK(IsEqualGUID(&r->EventHeader.ActivityId, &g_thread_activity));
    CHECK(r->EventHeader.EventDescriptor.Id == 7);
    CHECK(r->EventHeader.EventDescriptor.Channel == 0x10);
    CHECK(r->EventHeader.EventDescriptor.Task == 0x55);
    CHECK(r->EventHeader.EventDescriptor.Keyword == 0x10);
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

    {
        GUID old;
        CHECK(EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_SET_ID, &old) == ERROR_SUCCESS);
        CHECK(EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, &g_thread_activity) == ERROR_SUCCESS);
    }
    EventDescCreate(&desc, 7, 3, 0x10, TRACE_LEVEL_WARNING, 0x55, 12, 0x10);
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
    /* With the caller's activity id and a related one. */
    {
        EVENT_DESCRIPTOR transfer = desc;
        transfer.Opcode = 14;
        CHECK(EventWriteTransfer(reg, &transfer, &Activity, &Related, 2, data) == ERROR_SUCCESS);
        CHECK(EventWriteEx(reg, &transfer, 0, 0, &Activity, &Related, 2, data) == ERROR_SUCCESS);
        CHECK(EventWriteString(reg, TRACE_LEVEL_WARNING, 0x10, Text) == ERROR_SUCCESS);
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
    CHECK(g_transfers == 2);
    CHECK(g_strings == 1);
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
