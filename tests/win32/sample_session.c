/*
 * A controller, a classic (MOF) provider and a consumer in one program,
 * written as a Windows developer writes them after Microsoft's samples
 * ("Starting an event tracing session", "Writing MOF events", "Consuming
 * events"): UNICODE names, L"..." literals (built with -fshort-wchar), the
 * Windows headers only. It checks what Windows guarantees at each step and
 * exits non-zero on the first difference.
 * usage: sample_session DIRECTORY
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strsafe.h>
#include <wmistr.h>
#include <evntrace.h>
#include <evntcons.h>

#define LOGSESSION_NAME L"OpenETW Win32 Sample Session"
#define EVENT_COUNT 25

/* {6E3E8E76-21C9-4D6E-8D71-3F0B3A1A5C01} control GUID of the provider */
static const GUID ProviderGuid = {0x6e3e8e76, 0x21c9, 0x4d6e, {0x8d, 0x71, 0x3f, 0x0b, 0x3a, 0x1a, 0x5c, 0x01}};
/* {6E3E8E76-21C9-4D6E-8D71-3F0B3A1A5C02} event class GUID */
static const GUID MyCategoryGuid = {0x6e3e8e76, 0x21c9, 0x4d6e, {0x8d, 0x71, 0x3f, 0x0b, 0x3a, 0x1a, 0x5c, 0x02}};

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static TRACEHANDLE g_SessionHandle = 0;
static BOOL g_TraceOn = FALSE;
static UCHAR g_EnableLevel = 0;
static ULONG g_EnableFlags = 0;
static int g_Requests = 0;

static ULONG WINAPI ControlCallback(WMIDPREQUESTCODE RequestCode, PVOID Context, ULONG *Reserved, PVOID Header)
{
    ULONG status = ERROR_SUCCESS;
    UNREFERENCED_PARAMETER(Context);
    UNREFERENCED_PARAMETER(Reserved);
    ++g_Requests;
    switch (RequestCode) {
    case WMI_ENABLE_EVENTS:
        SetLastError(0);
        g_SessionHandle = GetTraceLoggerHandle(Header);
        if (INVALID_HANDLE_VALUE == (HANDLE)(ULONG_PTR)g_SessionHandle) {
            status = GetLastError();
            g_SessionHandle = 0;
            break;
        }
        g_EnableLevel = GetTraceEnableLevel(g_SessionHandle);
        g_EnableFlags = GetTraceEnableFlags(g_SessionHandle);
        g_TraceOn = TRUE;
        break;
    case WMI_DISABLE_EVENTS:
        g_TraceOn = FALSE;
        g_SessionHandle = 0;
        break;
    default:
        status = ERROR_INVALID_PARAMETER;
    }
    return status;
}

/* The payload of each event: a sequence number and a fixed-size string. */
typedef struct _MY_EVENT {
    EVENT_TRACE_HEADER Header;
    MOF_FIELD Data[2];
} MY_EVENT;

static int g_Events, g_HeaderEvents, g_Buffers, g_FirstWasHeader = -1;
static ULONG g_NextSequence;

static VOID WINAPI ProcessEventRecord(PEVENT_RECORD pEvent)
{
    if (IsEqualGUID(&pEvent->EventHeader.ProviderId, &EventTraceGuid) &&
        pEvent->EventHeader.EventDescriptor.Opcode == EVENT_TRACE_TYPE_INFO) {
        TRACE_LOGFILE_HEADER *h = (TRACE_LOGFILE_HEADER *)pEvent->UserData;
        if (g_FirstWasHeader < 0)
            g_FirstWasHeader = 1;
        CHECK(pEvent->UserDataLength >= offsetof(TRACE_LOGFILE_HEADER, LoggerName));
        CHECK(h->PointerSize == sizeof(void *));
        ++g_HeaderEvents;
        return;
    }
    if (g_FirstWasHeader < 0)
        g_FirstWasHeader = 0;
    CHECK(IsEqualGUID(&pEvent->EventHeader.ProviderId, &MyCategoryGuid));
    CHECK((pEvent->EventHeader.Flags & EVENT_HEADER_FLAG_CLASSIC_HEADER) != 0);
    CHECK(pEvent->EventHeader.EventDescriptor.Opcode == 10);
    CHECK(pEvent->EventHeader.EventDescriptor.Level == TRACE_LEVEL_INFORMATION);
    CHECK(pEvent->UserDataLength == sizeof(ULONG) + 16);
    CHECK(*(ULONG *)pEvent->UserData == g_NextSequence);
    CHECK(memcmp((char *)pEvent->UserData + 4, "sample payload!", 16) == 0);
    CHECK(pEvent->UserContext == (PVOID)&g_Events);
    ++g_NextSequence;
    ++g_Events;
}

static VOID WINAPI ProcessEvent(PEVENT_TRACE pEvent)
{
    if (IsEqualGUID(&pEvent->Header.Guid, &EventTraceGuid)) {
        ++g_HeaderEvents;
        return;
    }
    CHECK(IsEqualGUID(&pEvent->Header.Guid, &MyCategoryGuid));
    CHECK(pEvent->Header.Class.Type == 10);
    CHECK(pEvent->MofLength == sizeof(ULONG) + 16);
    ++g_Events;
}

static ULONG WINAPI StopAfterFirstBuffer(PEVENT_TRACE_LOGFILEW pLogfile)
{
    CHECK(pLogfile->BuffersRead >= 1);
    ++g_Buffers;
    return FALSE;
}

static ULONG WINAPI CountBuffers(PEVENT_TRACE_LOGFILEW pLogfile)
{
    CHECK(pLogfile->BufferSize > 0);
    ++g_Buffers;
    return TRUE;
}

/* ASCII path to WCHAR (the test's directory comes from the command line). */
static void widen(WCHAR *out, const char *in)
{
    while ((*out++ = (WCHAR)(unsigned char)*in++) != 0) {
    }
}

static size_t wlen(const WCHAR *s)
{
    size_t n = 0;
    while (s[n] != 0)
        ++n;
    return n;
}

int main(int argc, char **argv)
{
    WCHAR LogFilePath[MAX_PATH];
    char path[MAX_PATH];
    ULONG status;
    TRACEHANDLE SessionHandle = 0;
    TRACEHANDLE RegistrationHandle = 0;
    TRACE_GUID_REGISTRATION EventClassGuids[1] = {{&MyCategoryGuid, NULL}};
    EVENT_TRACE_PROPERTIES *pSessionProperties;
    ULONG BufferSize;
    MY_EVENT MyEvent;
    ULONG i;
    static const char text[16] = "sample payload!";

    CHECK(argc == 2);
    snprintf(path, sizeof path, "%s/win32-sample.etl", argv[1]);
    remove(path);
    widen(LogFilePath, path);

    /* ---- Controller: start the session ---- */
    BufferSize =
        sizeof(EVENT_TRACE_PROPERTIES) + (ULONG)((wlen(LogFilePath) + 1) * sizeof(WCHAR)) + sizeof(LOGSESSION_NAME);
    pSessionProperties = (EVENT_TRACE_PROPERTIES *)malloc(BufferSize);
    CHECK(pSessionProperties != NULL);
    ZeroMemory(pSessionProperties, BufferSize);
    pSessionProperties->Wnode.BufferSize = BufferSize;
    pSessionProperties->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    pSessionProperties->Wnode.ClientContext = 1; /* QPC clock resolution */
    pSessionProperties->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
    pSessionProperties->MaximumFileSize = 5; /* 5 MB */
    pSessionProperties->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    pSessionProperties->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + sizeof(LOGSESSION_NAME);
    CHECK(SUCCEEDED(StringCbCopy((LPWSTR)((char *)pSessionProperties + pSessionProperties->LogFileNameOffset),
                                 (wlen(LogFilePath) + 1) * sizeof(WCHAR), LogFilePath)));

    status = StartTrace(&SessionHandle, LOGSESSION_NAME, pSessionProperties);
    if (status != ERROR_SUCCESS) {
        fprintf(stderr, "StartTrace() failed with %lu\n", (unsigned long)status);
        return 1;
    }
    CHECK(SessionHandle != 0);
    CHECK(pSessionProperties->Wnode.HistoricalContext == SessionHandle);
    CHECK(memcmp((char *)pSessionProperties + pSessionProperties->LoggerNameOffset, LOGSESSION_NAME,
                 sizeof(LOGSESSION_NAME)) == 0);
    CHECK(pSessionProperties->Wnode.BufferSize == BufferSize);
    CHECK(pSessionProperties->BufferSize > 0); /* the default was chosen */
    CHECK(pSessionProperties->NumberOfBuffers >= pSessionProperties->MinimumBuffers);
    CHECK(pSessionProperties->MaximumBuffers >= pSessionProperties->MinimumBuffers);
    /* A second session of the same name is refused. */
    {
        TRACEHANDLE again = 0;
        EVENT_TRACE_PROPERTIES *copy = (EVENT_TRACE_PROPERTIES *)malloc(BufferSize);
        memcpy(copy, pSessionProperties, BufferSize);
        ZeroMemory(&copy->Wnode.Guid, sizeof(GUID));
        copy->LogFileNameOffset = 0;
        copy->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
        status = StartTrace(&again, LOGSESSION_NAME, copy);
        if (status != ERROR_ALREADY_EXISTS)
            fprintf(stderr, "second StartTrace: %lu\n", (unsigned long)status);
        CHECK(status == ERROR_ALREADY_EXISTS);
        free(copy);
    }

    /* ---- Provider: register; the session enables it ---- */
    status =
        RegisterTraceGuids(ControlCallback, NULL, &ProviderGuid, 1, EventClassGuids, NULL, NULL, &RegistrationHandle);
    CHECK(status == ERROR_SUCCESS);
    CHECK(RegistrationHandle != 0);
    CHECK(EventClassGuids[0].RegHandle != NULL);
    CHECK(!g_TraceOn);
    status = EnableTraceEx2(SessionHandle, &ProviderGuid, EVENT_CONTROL_CODE_ENABLE_PROVIDER, TRACE_LEVEL_INFORMATION,
                            0x5, 0, 0, NULL);
    CHECK(status == ERROR_SUCCESS);
    CHECK(g_TraceOn);
    CHECK(g_EnableLevel == TRACE_LEVEL_INFORMATION);
    CHECK(g_EnableFlags == 0x5);

    ZeroMemory(&MyEvent, sizeof(MY_EVENT));
    MyEvent.Header.Size = sizeof(EVENT_TRACE_HEADER) + sizeof(MOF_FIELD) * 2;
    MyEvent.Header.Flags = WNODE_FLAG_TRACED_GUID | WNODE_FLAG_USE_MOF_PTR;
    MyEvent.Header.Guid = MyCategoryGuid;
    MyEvent.Header.Class.Type = 10;
    MyEvent.Header.Class.Level = TRACE_LEVEL_INFORMATION;
    for (i = 0; i < EVENT_COUNT; ++i) {
        MyEvent.Data[0].DataPtr = (ULONG64)(ULONG_PTR)&i;
        MyEvent.Data[0].Length = sizeof(ULONG);
        MyEvent.Data[1].DataPtr = (ULONG64)(ULONG_PTR)text;
        MyEvent.Data[1].Length = sizeof text;
        status = TraceEvent(g_SessionHandle, &MyEvent.Header);
        CHECK(status == ERROR_SUCCESS);
    }
    /* A level above the session's is not taken (and is no error). */
    MyEvent.Header.Class.Level = TRACE_LEVEL_VERBOSE;
    CHECK(TraceEvent(g_SessionHandle, &MyEvent.Header) == ERROR_SUCCESS);

    /* ---- Query by name, then list every session ---- */
    status = QueryTrace(0, LOGSESSION_NAME, pSessionProperties);
    CHECK(status == ERROR_SUCCESS);
    CHECK(pSessionProperties->EventsLost == 0);
    CHECK(pSessionProperties->Wnode.HistoricalContext == SessionHandle);
    {
        EVENT_TRACE_PROPERTIES *list[4];
        ULONG count = 0, found = 0, k;
        const ULONG each = sizeof(EVENT_TRACE_PROPERTIES) + 2 * 1024 * sizeof(WCHAR);
        for (k = 0; k < 4; ++k) {
            list[k] = (EVENT_TRACE_PROPERTIES *)calloc(1, each);
            list[k]->Wnode.BufferSize = each;
            list[k]->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
            list[k]->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + 1024 * sizeof(WCHAR);
        }
        CHECK(QueryAllTraces(list, 4, &count) == ERROR_SUCCESS);
        CHECK(count >= 1);
        for (k = 0; k < count && k < 4; ++k)
            if (memcmp((char *)list[k] + list[k]->LoggerNameOffset, LOGSESSION_NAME, sizeof(LOGSESSION_NAME)) == 0) {
                ++found;
                CHECK(memcmp((char *)list[k] + list[k]->LogFileNameOffset, LogFilePath,
                             (wlen(LogFilePath) + 1) * sizeof(WCHAR)) == 0);
                CHECK(list[k]->Wnode.HistoricalContext == SessionHandle);
            }
        CHECK(found == 1);
        for (k = 0; k < 4; ++k)
            free(list[k]);
    }

    /* ---- Stop by handle: the final statistics come back ---- */
    status = ControlTrace(SessionHandle, NULL, pSessionProperties, EVENT_TRACE_CONTROL_STOP);
    CHECK(status == ERROR_SUCCESS);
    CHECK(pSessionProperties->BuffersWritten >= 1);
    CHECK(pSessionProperties->EventsLost == 0);
    CHECK(!g_TraceOn); /* stopping disabled the provider */
    CHECK(ControlTrace(SessionHandle, NULL, pSessionProperties, EVENT_TRACE_CONTROL_QUERY) ==
          ERROR_WMI_INSTANCE_NOT_FOUND);
    CHECK(UnregisterTraceGuids(RegistrationHandle) == ERROR_SUCCESS);
    CHECK(UnregisterTraceGuids(RegistrationHandle) == ERROR_INVALID_PARAMETER);
    free(pSessionProperties);

    /* ---- Consumer: EVENT_RECORD callbacks ---- */
    {
        EVENT_TRACE_LOGFILE trace;
        TRACEHANDLE hTrace;
        ZeroMemory(&trace, sizeof(EVENT_TRACE_LOGFILE));
        trace.LogFileName = LogFilePath;
        trace.EventRecordCallback = (PEVENT_RECORD_CALLBACK)ProcessEventRecord;
        trace.ProcessTraceMode = PROCESS_TRACE_MODE_EVENT_RECORD;
        trace.Context = &g_Events;
        hTrace = OpenTrace(&trace);
        CHECK(hTrace != INVALID_PROCESSTRACE_HANDLE);
        CHECK(trace.LogfileHeader.PointerSize == sizeof(void *));
        CHECK(trace.LogfileHeader.BuffersWritten >= 1);
        CHECK(trace.LogfileHeader.LoggerName != NULL);
        CHECK(memcmp(trace.LogfileHeader.LoggerName, LOGSESSION_NAME, sizeof(LOGSESSION_NAME)) == 0);
        status = ProcessTrace(&hTrace, 1, 0, 0);
        CHECK(status == ERROR_SUCCESS);
        CHECK(g_FirstWasHeader == 1);
        CHECK(g_HeaderEvents == 1);
        CHECK(g_Events == EVENT_COUNT);
        CHECK(CloseTrace(hTrace) == ERROR_SUCCESS);
        CHECK(CloseTrace(hTrace) == ERROR_INVALID_HANDLE);
    }

    /* ---- Consumer: EVENT_TRACE callbacks and buffer callbacks ---- */
    {
        EVENT_TRACE_LOGFILE trace;
        TRACEHANDLE hTrace;
        ZeroMemory(&trace, sizeof(EVENT_TRACE_LOGFILE));
        trace.LogFileName = LogFilePath;
        trace.EventCallback = ProcessEvent;
        trace.BufferCallback = CountBuffers;
        g_Events = g_HeaderEvents = g_Buffers = 0;
        hTrace = OpenTrace(&trace);
        CHECK(hTrace != INVALID_PROCESSTRACE_HANDLE);
        CHECK(ProcessTrace(&hTrace, 1, 0, 0) == ERROR_SUCCESS);
        CHECK(g_Events == EVENT_COUNT);
        CHECK(g_HeaderEvents == 1);
        CHECK(g_Buffers >= 1);
        /* A BufferCallback returning FALSE ends processing: ERROR_CANCELLED. */
        trace.BufferCallback = StopAfterFirstBuffer;
        CHECK(CloseTrace(hTrace) == ERROR_SUCCESS);
        hTrace = OpenTrace(&trace);
        g_Buffers = 0;
        CHECK(ProcessTrace(&hTrace, 1, 0, 0) == ERROR_CANCELLED);
        CHECK(g_Buffers == 1);
        CHECK(CloseTrace(hTrace) == ERROR_SUCCESS);
    }
    printf("sample session: %d events written, stopped, read back\n", EVENT_COUNT);
    return 0;
}
