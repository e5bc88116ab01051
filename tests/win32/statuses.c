/*
 * Every documented status of the Win32 ETW functions, table-driven: each row
 * sets up one case as Microsoft's documentation of the function describes
 * it and names the status Windows returns. A names (UTF-8), no UNICODE.
 * usage: statuses DIRECTORY
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wmistr.h>
#include <evntrace.h>
#include <evntcons.h>

#define NAME_ROOM 256
#define BLOCK (sizeof(EVENT_TRACE_PROPERTIES) + 2 * NAME_ROOM)

static char g_dir[200];
static const GUID ProviderGuid = {0x1f0e6a41, 0x7d3b, 0x4f43, {0x9a, 0x10, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa}};

/* A properties block with room for both names; log file name optional. */
static EVENT_TRACE_PROPERTIES *props(const char *log_file)
{
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, BLOCK);
    p->Wnode.BufferSize = BLOCK;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->Wnode.ClientContext = 1;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    if (log_file != NULL) {
        p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL;
        p->LogFileNameOffset = sizeof(EVENT_TRACE_PROPERTIES) + NAME_ROOM;
        snprintf((char *)p + p->LogFileNameOffset, NAME_ROOM, "%s/%s", g_dir, log_file);
    } else {
        p->LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
    }
    return p;
}

static ULONG start(const char *name, EVENT_TRACE_PROPERTIES *p, TRACEHANDLE *h)
{
    ULONG s = StartTraceA(h, name, p);
    return s;
}

static void stop(const char *name)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ControlTraceA(0, name, p, EVENT_TRACE_CONTROL_STOP);
    free(p);
}

static ULONG WINAPI Callback(WMIDPREQUESTCODE c, PVOID ctx, ULONG *r, PVOID b)
{
    (void)c;
    (void)ctx;
    (void)r;
    (void)b;
    return 0;
}

/* ---- StartTrace ---- */
static ULONG start_null_properties(void)
{
    TRACEHANDLE h;
    return StartTraceA(&h, "W32 s", NULL);
}
static ULONG start_null_handle(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = StartTraceA(NULL, "W32 s", p);
    free(p);
    return s;
}
static ULONG start_null_name(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = StartTraceA(&h, NULL, p);
    free(p);
    return s;
}
static ULONG start_small_buffer_size(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->Wnode.BufferSize = sizeof(EVENT_TRACE_PROPERTIES) - 1;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_no_room_for_name(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->Wnode.BufferSize = sizeof(EVENT_TRACE_PROPERTIES) + 4; /* "W32 s" needs 6 bytes */
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_logger_offset_inside(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->LoggerNameOffset = 16;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_logger_offset_past_end(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->LoggerNameOffset = BLOCK + 8;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_logfile_offset_past_end(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props("x.etl");
    p->LogFileNameOffset = BLOCK + 8;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_logfile_unterminated(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props("x.etl");
    memset((char *)p + p->LogFileNameOffset, 'a', NAME_ROOM);
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_logfile_offset_inside(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props("x.etl");
    p->LogFileNameOffset = 8;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_no_traced_guid(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->Wnode.Flags = 0;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_bad_mode_combination(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props("x.etl");
    p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_FILE_MODE_CIRCULAR;
    p->MaximumFileSize = 1;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_kernel_guid_other_name(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->Wnode.Guid = SystemTraceControlGuid;
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}
static ULONG start_name_in_use(void)
{
    TRACEHANDLE h1, h2;
    EVENT_TRACE_PROPERTIES *p = props(NULL), *q = props(NULL);
    ULONG s = start("W32 in use", p, &h1);
    if (s == ERROR_SUCCESS)
        s = start("w32 IN USE", q, &h2); /* names compare case-insensitively */
    else
        s = 0xDEAD;
    stop("W32 in use");
    free(p);
    free(q);
    return s;
}
static ULONG start_log_file_in_use(void)
{
    TRACEHANDLE h1, h2;
    EVENT_TRACE_PROPERTIES *p = props("shared.etl"), *q = props("shared.etl");
    ULONG s = start("W32 file 1", p, &h1);
    if (s == ERROR_SUCCESS)
        s = start("W32 file 2", q, &h2);
    else
        s = 0xDEAD;
    stop("W32 file 1");
    stop("W32 file 2");
    free(p);
    free(q);
    return s;
}
static ULONG start_missing_folder(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props("no/such/folder/x.etl");
    ULONG s = start("W32 s", p, &h);
    free(p);
    return s;
}

/* W names are UTF-16: an unpaired surrogate cannot be translated; a name
   beyond the BMP round-trips through QueryTraceW at LoggerNameOffset. */
static ULONG start_w_unpaired_surrogate(void)
{
    static const WCHAR bad[] = {'W', '3', '2', 0xD800, 'x', 0};
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = StartTraceW(&h, bad, p);
    free(p);
    return s;
}
static ULONG start_w_round_trip(void)
{
    static const WCHAR name[] = {'W', '3', '2', ' ', 0x00E9, 0xD83D, 0xDE00, 0};
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL), *q = props(NULL);
    ULONG s = StartTraceW(&h, name, p);
    if (s == ERROR_SUCCESS) {
        s = QueryTraceW(h, NULL, q);
        if (s == ERROR_SUCCESS && memcmp((char *)q + q->LoggerNameOffset, name, sizeof name) != 0)
            s = 0xBAD;
        if (StopTraceW(0, name, q) != ERROR_SUCCESS)
            s = 0xBAD2;
    }
    free(p);
    free(q);
    return s;
}

/* ---- ControlTrace ---- */
static ULONG control_null_properties(void) { return ControlTraceA(0, "W32 s", NULL, EVENT_TRACE_CONTROL_QUERY); }
static ULONG control_bad_code(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = ControlTraceA(0, "W32 s", p, 99);
    free(p);
    return s;
}
static ULONG control_small_buffer_size(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    p->Wnode.BufferSize = 40;
    ULONG s = ControlTraceA(0, "W32 s", p, EVENT_TRACE_CONTROL_QUERY);
    free(p);
    return s;
}
static ULONG control_no_handle_no_name(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = ControlTraceA(0, NULL, p, EVENT_TRACE_CONTROL_QUERY);
    free(p);
    return s;
}
static ULONG control_unknown_name(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = ControlTraceA(0, "W32 never started", p, EVENT_TRACE_CONTROL_STOP);
    free(p);
    return s;
}
static ULONG control_unknown_handle(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = ControlTraceA(0x7777777, NULL, p, EVENT_TRACE_CONTROL_QUERY);
    free(p);
    return s;
}
static ULONG control_stop_twice(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = start("W32 twice", p, &h);
    if (s == ERROR_SUCCESS)
        s = StopTraceA(h, NULL, p);
    s = s == ERROR_SUCCESS ? StopTraceA(h, NULL, p) : 0xDEAD;
    free(p);
    return s;
}
/* Too small a block for the names: ERROR_MORE_DATA, Wnode.BufferSize says the size needed. */
static ULONG control_names_do_not_fit(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    EVENT_TRACE_PROPERTIES *q = props(NULL);
    ULONG s = start("W32 a longer session name", p, &h);
    if (s == ERROR_SUCCESS) {
        q->Wnode.BufferSize = sizeof(EVENT_TRACE_PROPERTIES) + 4;
        s = QueryTraceA(h, NULL, q);
        if (s == ERROR_MORE_DATA && q->Wnode.BufferSize != sizeof(EVENT_TRACE_PROPERTIES) + 26)
            s = 0xBAD;
        if (q->Wnode.HistoricalContext != h) /* the fixed members were still filled */
            s = 0xBAD2;
    }
    stop("W32 a longer session name");
    free(p);
    free(q);
    return s;
}

/* ---- QueryAllTraces ---- */
static ULONG all_null_array(void)
{
    ULONG n;
    return QueryAllTracesA(NULL, 1, &n);
}
static ULONG all_zero_count(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL), *a[1] = {p};
    ULONG n, s = QueryAllTracesA(a, 0, &n);
    free(p);
    return s;
}
static ULONG all_count_above_64(void)
{
    EVENT_TRACE_PROPERTIES *p = props(NULL), *a[65];
    ULONG n, i, s;
    for (i = 0; i < 65; ++i)
        a[i] = p;
    s = QueryAllTracesA(a, 65, &n);
    free(p);
    return s;
}
static ULONG all_too_small(void)
{
    TRACEHANDLE h1, h2;
    EVENT_TRACE_PROPERTIES *p = props(NULL), *q = props(NULL), *r = props(NULL), *a[1] = {r};
    ULONG n = 0, s;
    start("W32 all 1", p, &h1);
    start("W32 all 2", q, &h2);
    s = QueryAllTracesA(a, 1, &n);
    if (s == ERROR_MORE_DATA && n != 2)
        s = 0xBAD;
    stop("W32 all 1");
    stop("W32 all 2");
    free(p);
    free(q);
    free(r);
    return s;
}

/* ---- EnableTrace / EnableTraceEx2 ---- */
static ULONG ex2_null_guid(void) { return EnableTraceEx2(1, NULL, 1, 4, 0, 0, 0, NULL); }
static ULONG ex2_zero_handle(void) { return EnableTraceEx2(0, &ProviderGuid, 1, 4, 0, 0, 0, NULL); }
static ULONG ex2_bad_code(void)
{
    TRACEHANDLE h;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = start("W32 ex2", p, &h);
    s = s == ERROR_SUCCESS ? EnableTraceEx2(h, &ProviderGuid, 3, 4, 0, 0, 0, NULL) : 0xDEAD;
    stop("W32 ex2");
    free(p);
    return s;
}
static ULONG ex2_bad_parameters_version(void)
{
    TRACEHANDLE h;
    ENABLE_TRACE_PARAMETERS params;
    EVENT_TRACE_PROPERTIES *p = props(NULL);
    ULONG s = start("W32 ex2", p, &h);
    memset(&params, 0, sizeof params);
    params.Version = 7;
    s = s == ERROR_SUCCESS ? EnableTraceEx2(h, &ProviderGuid, 1, 4, 0, 0, 0, &params) : 0xDEAD;
    stop("W32 ex2");
    free(p);
    return s;
}
static ULONG ex2_unknown_handle(void) { return EnableTraceEx2(0x7777777, &ProviderGuid, 1, 4, 0, 0, 0, NULL); }
static ULONG enable_null_guid(void) { return EnableTrace(TRUE, 0, 4, NULL, 1); }

/* ---- Classic providers ---- */
static ULONG reg_null_callback(void)
{
    TRACEHANDLE h;
    return RegisterTraceGuidsA(NULL, NULL, &ProviderGuid, 0, NULL, NULL, NULL, &h);
}
static ULONG reg_null_guid(void)
{
    TRACEHANDLE h;
    return RegisterTraceGuidsA(Callback, NULL, NULL, 0, NULL, NULL, NULL, &h);
}
static ULONG reg_null_handle(void)
{
    return RegisterTraceGuidsA(Callback, NULL, &ProviderGuid, 0, NULL, NULL, NULL, NULL);
}
static ULONG unreg_unknown(void) { return UnregisterTraceGuids(0x7777777); }
static ULONG trace_unknown_handle(void)
{
    EVENT_TRACE_HEADER e;
    memset(&e, 0, sizeof e);
    e.Size = sizeof e;
    e.Flags = WNODE_FLAG_TRACED_GUID;
    return TraceEvent(0x7777777, &e);
}
static ULONG trace_null_event(void) { return TraceEvent(1, NULL); }
static ULONG trace_no_traced_guid(void)
{
    TRACEHANDLE reg;
    EVENT_TRACE_HEADER e;
    ULONG s = RegisterTraceGuidsA(Callback, NULL, &ProviderGuid, 0, NULL, NULL, NULL, &reg);
    memset(&e, 0, sizeof e);
    e.Size = sizeof e;
    s = s == ERROR_SUCCESS ? TraceEvent(reg, &e) : 0xDEAD;
    UnregisterTraceGuids(reg);
    return s;
}
static ULONG logger_handle_null(void)
{
    TRACEHANDLE h = GetTraceLoggerHandle(NULL);
    return h == (TRACEHANDLE)(ULONG_PTR)INVALID_HANDLE_VALUE ? GetLastError() : 0xBAD;
}
static ULONG enable_level_bad_handle(void)
{
    SetLastError(0);
    return GetTraceEnableLevel(0x7777777) == 0 ? GetLastError() : 0xBAD;
}
static ULONG enable_flags_bad_handle(void)
{
    SetLastError(0);
    return GetTraceEnableFlags(0x7777777) == 0 ? GetLastError() : 0xBAD;
}

/* ---- Manifest providers ---- */
static ULONG register_null_guid(void)
{
    REGHANDLE h;
    return EventRegister(NULL, NULL, NULL, &h);
}
static ULONG register_null_handle(void) { return EventRegister(&ProviderGuid, NULL, NULL, NULL); }
static ULONG unregister_unknown(void) { return EventUnregister(0x7777777); }
static ULONG write_unknown(void)
{
    EVENT_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    return EventWrite(0x7777777, &d, 0, NULL);
}
static ULONG write_too_many_descriptors(void)
{
    REGHANDLE h;
    EVENT_DESCRIPTOR d;
    static EVENT_DATA_DESCRIPTOR data[MAX_EVENT_DATA_DESCRIPTORS + 1];
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    memset(&d, 0, sizeof d);
    s = s == ERROR_SUCCESS ? EventWrite(h, &d, MAX_EVENT_DATA_DESCRIPTORS + 1, data) : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG write_above_64k(void)
{
    REGHANDLE h;
    EVENT_DESCRIPTOR d;
    EVENT_DATA_DESCRIPTOR data;
    static char big[70000];
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    memset(&d, 0, sizeof d);
    EventDataDescCreate(&data, big, sizeof big);
    s = s == ERROR_SUCCESS ? EventWrite(h, &d, 1, &data) : 0xDEAD;
    EventUnregister(h);
    return s;
}
/* 0x50 header + 24-byte RELATED_ACTIVITYID item + data: one byte above 0xFFFF. */
static ULONG transfer_related_above_64k(void)
{
    REGHANDLE h;
    EVENT_DESCRIPTOR d;
    EVENT_DATA_DESCRIPTOR data;
    static char big[0xFFFF - 0x50 - 24 + 1];
    static const GUID related = {1, 2, 3, {4, 5, 6, 7, 8, 9, 10, 11}};
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    memset(&d, 0, sizeof d);
    EventDataDescCreate(&data, big, sizeof big);
    s = s == ERROR_SUCCESS ? EventWriteTransfer(h, &d, NULL, &related, 1, &data) : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG transfer_unknown(void)
{
    EVENT_DESCRIPTOR d;
    memset(&d, 0, sizeof d);
    return EventWriteTransfer(0x7777777, &d, NULL, NULL, 0, NULL);
}
static ULONG transfer_null_descriptor(void)
{
    REGHANDLE h;
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    s = s == ERROR_SUCCESS ? EventWriteTransfer(h, NULL, NULL, NULL, 0, NULL) : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG write_ex_unknown_flag(void)
{
    REGHANDLE h;
    EVENT_DESCRIPTOR d;
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    memset(&d, 0, sizeof d);
    s = s == ERROR_SUCCESS ? EventWriteEx(h, &d, 0, 0x4, NULL, NULL, 0, NULL) : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG write_ex_known_flags(void)
{
    REGHANDLE h;
    EVENT_DESCRIPTOR d;
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    memset(&d, 0, sizeof d);
    s = s == ERROR_SUCCESS
            ? EventWriteEx(h, &d, ~0ull, EVENT_WRITE_FLAG_NO_FAULTING | EVENT_WRITE_FLAG_INPRIVATE, NULL, NULL, 0, NULL)
            : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG write_string_null(void)
{
    REGHANDLE h;
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    s = s == ERROR_SUCCESS ? EventWriteString(h, 0, 0, NULL) : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG write_string_unknown(void)
{
    static const WCHAR text[] = {'x', 0};
    return EventWriteString(0x7777777, 0, 0, text);
}
static ULONG set_information(EVENT_INFO_CLASS info_class, PVOID info, ULONG length)
{
    REGHANDLE h;
    ULONG s = EventRegister(&ProviderGuid, NULL, NULL, &h);
    s = s == ERROR_SUCCESS ? EventSetInformation(h, info_class, info, length) : 0xDEAD;
    EventUnregister(h);
    return s;
}
static ULONG set_information_unknown_handle(void)
{
    static const char traits[] = {5, 0, 'a', 'b', 0};
    return EventSetInformation(0x7777777, EventProviderSetTraits, (PVOID)traits, sizeof traits);
}
static ULONG set_information_unknown_class(void) { return set_information((EVENT_INFO_CLASS)99, NULL, 0); }
static ULONG set_traits_null(void) { return set_information(EventProviderSetTraits, NULL, 5); }
static ULONG set_traits(void)
{
    static const char traits[] = {5, 0, 'a', 'b', 0};
    return set_information(EventProviderSetTraits, (PVOID)traits, sizeof traits);
}
static ULONG activity_unknown_code(void)
{
    GUID g;
    return EventActivityIdControl(6, &g);
}
static ULONG activity_null(void) { return EventActivityIdControl(EVENT_ACTIVITY_CTRL_GET_ID, NULL); }
static ULONG activity_create(void)
{
    GUID g;
    return EventActivityIdControl(EVENT_ACTIVITY_CTRL_CREATE_ID, &g);
}

/* ---- Consumers ---- */
static ULONG open_null(void) { return OpenTraceA(NULL) == INVALID_PROCESSTRACE_HANDLE ? GetLastError() : 0xBAD; }
static ULONG open_no_file_name(void)
{
    EVENT_TRACE_LOGFILEA lf;
    memset(&lf, 0, sizeof lf);
    return OpenTraceA(&lf) == INVALID_PROCESSTRACE_HANDLE ? GetLastError() : 0xBAD;
}
static ULONG open_missing_file(void)
{
    EVENT_TRACE_LOGFILEA lf;
    char path[300];
    snprintf(path, sizeof path, "%s/missing.etl", g_dir);
    memset(&lf, 0, sizeof lf);
    lf.LogFileName = path;
    return OpenTraceA(&lf) == INVALID_PROCESSTRACE_HANDLE ? GetLastError() : 0xBAD;
}
static ULONG open_unknown_session(void)
{
    EVENT_TRACE_LOGFILEA lf;
    memset(&lf, 0, sizeof lf);
    lf.LoggerName = (LPSTR) "W32 never started";
    lf.ProcessTraceMode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    return OpenTraceA(&lf) == INVALID_PROCESSTRACE_HANDLE ? GetLastError() : 0xBAD;
}
static ULONG process_null(void) { return ProcessTrace(NULL, 1, NULL, NULL); }
static ULONG process_zero_count(void)
{
    TRACEHANDLE h = 1;
    return ProcessTrace(&h, 0, NULL, NULL);
}
static ULONG process_unknown(void)
{
    TRACEHANDLE h = 0x7777777;
    return ProcessTrace(&h, 1, NULL, NULL);
}
static ULONG close_unknown(void) { return CloseTrace(0x7777777); }

struct row {
    const char *name;
    ULONG (*run)(void);
    ULONG expected;
};

static const struct row rows[] = {
    {"StartTrace: NULL Properties", start_null_properties, ERROR_INVALID_PARAMETER},
    {"StartTrace: NULL TraceHandle", start_null_handle, ERROR_INVALID_PARAMETER},
    {"StartTrace: NULL InstanceName", start_null_name, ERROR_INVALID_PARAMETER},
    {"StartTrace: Wnode.BufferSize below the structure", start_small_buffer_size, ERROR_BAD_LENGTH},
    {"StartTrace: no room for the session name", start_no_room_for_name, ERROR_BAD_LENGTH},
    {"StartTrace: LoggerNameOffset inside the structure", start_logger_offset_inside, ERROR_INVALID_PARAMETER},
    {"StartTrace: LoggerNameOffset past the block", start_logger_offset_past_end, ERROR_INVALID_PARAMETER},
    {"StartTrace: LogFileNameOffset past the block", start_logfile_offset_past_end, ERROR_BAD_PATHNAME},
    {"StartTrace: log file name not terminated", start_logfile_unterminated, ERROR_BAD_PATHNAME},
    {"StartTrace: LogFileNameOffset inside the structure", start_logfile_offset_inside, ERROR_INVALID_PARAMETER},
    {"StartTrace: Wnode.Flags without TRACED_GUID", start_no_traced_guid, ERROR_INVALID_PARAMETER},
    {"StartTrace: SEQUENTIAL with CIRCULAR", start_bad_mode_combination, ERROR_INVALID_PARAMETER},
    {"StartTrace: SystemTraceControlGuid, other name", start_kernel_guid_other_name, ERROR_INVALID_PARAMETER},
    {"StartTrace: name in use", start_name_in_use, ERROR_ALREADY_EXISTS},
    {"StartTrace: log file used by another session", start_log_file_in_use, ERROR_BAD_PATHNAME},
    {"StartTrace: log file folder missing", start_missing_folder, ERROR_PATH_NOT_FOUND},
    {"StartTraceW: unpaired surrogate in the name", start_w_unpaired_surrogate, ERROR_NO_UNICODE_TRANSLATION},
    {"StartTraceW/QueryTraceW/StopTraceW: UTF-16 name round trip", start_w_round_trip, ERROR_SUCCESS},
    {"ControlTrace: NULL Properties", control_null_properties, ERROR_INVALID_PARAMETER},
    {"ControlTrace: unknown ControlCode", control_bad_code, ERROR_INVALID_PARAMETER},
    {"ControlTrace: Wnode.BufferSize below the structure", control_small_buffer_size, ERROR_BAD_LENGTH},
    {"ControlTrace: no handle and no name", control_no_handle_no_name, ERROR_INVALID_PARAMETER},
    {"ControlTrace: stop an unknown session", control_unknown_name, ERROR_WMI_INSTANCE_NOT_FOUND},
    {"ControlTrace: unknown handle", control_unknown_handle, ERROR_WMI_INSTANCE_NOT_FOUND},
    {"StopTrace: a stopped session", control_stop_twice, ERROR_WMI_INSTANCE_NOT_FOUND},
    {"QueryTrace: names do not fit", control_names_do_not_fit, ERROR_MORE_DATA},
    {"QueryAllTraces: NULL PropertyArray", all_null_array, ERROR_INVALID_PARAMETER},
    {"QueryAllTraces: PropertyArrayCount 0", all_zero_count, ERROR_INVALID_PARAMETER},
    {"QueryAllTraces: PropertyArrayCount above 64", all_count_above_64, ERROR_INVALID_PARAMETER},
    {"QueryAllTraces: array too small", all_too_small, ERROR_MORE_DATA},
    {"EnableTraceEx2: NULL ProviderId", ex2_null_guid, ERROR_INVALID_PARAMETER},
    {"EnableTraceEx2: TraceHandle 0", ex2_zero_handle, ERROR_INVALID_PARAMETER},
    {"EnableTraceEx2: unknown ControlCode", ex2_bad_code, ERROR_INVALID_PARAMETER},
    {"EnableTraceEx2: EnableParameters version", ex2_bad_parameters_version, ERROR_INVALID_PARAMETER},
    {"EnableTraceEx2: unknown TraceHandle", ex2_unknown_handle, ERROR_INVALID_HANDLE},
    {"EnableTrace: NULL ControlGuid", enable_null_guid, ERROR_INVALID_PARAMETER},
    {"RegisterTraceGuids: NULL RequestAddress", reg_null_callback, ERROR_INVALID_PARAMETER},
    {"RegisterTraceGuids: NULL ControlGuid", reg_null_guid, ERROR_INVALID_PARAMETER},
    {"RegisterTraceGuids: NULL RegistrationHandle", reg_null_handle, ERROR_INVALID_PARAMETER},
    {"UnregisterTraceGuids: unknown handle", unreg_unknown, ERROR_INVALID_PARAMETER},
    {"TraceEvent: unknown handle", trace_unknown_handle, ERROR_INVALID_HANDLE},
    {"TraceEvent: NULL EventTrace", trace_null_event, ERROR_INVALID_PARAMETER},
    {"TraceEvent: Flags without TRACED_GUID", trace_no_traced_guid, ERROR_INVALID_FLAG_NUMBER},
    {"GetTraceLoggerHandle: NULL Buffer", logger_handle_null, ERROR_INVALID_PARAMETER},
    {"GetTraceEnableLevel: unknown handle", enable_level_bad_handle, ERROR_INVALID_HANDLE},
    {"GetTraceEnableFlags: unknown handle", enable_flags_bad_handle, ERROR_INVALID_HANDLE},
    {"EventRegister: NULL ProviderId", register_null_guid, ERROR_INVALID_PARAMETER},
    {"EventRegister: NULL RegHandle", register_null_handle, ERROR_INVALID_PARAMETER},
    {"EventUnregister: unknown handle", unregister_unknown, ERROR_INVALID_HANDLE},
    {"EventWrite: unknown handle", write_unknown, ERROR_INVALID_HANDLE},
    {"EventWrite: more than MAX_EVENT_DATA_DESCRIPTORS", write_too_many_descriptors, ERROR_INVALID_PARAMETER},
    {"EventWrite: event above 64 KB", write_above_64k, ERROR_ARITHMETIC_OVERFLOW},
    {"EventWriteTransfer: event and related activity item above 64 KB", transfer_related_above_64k,
     ERROR_ARITHMETIC_OVERFLOW},
    {"EventWriteTransfer: unknown handle", transfer_unknown, ERROR_INVALID_HANDLE},
    {"EventWriteTransfer: NULL descriptor", transfer_null_descriptor, ERROR_INVALID_PARAMETER},
    {"EventWriteEx: a flag Windows does not define", write_ex_unknown_flag, ERROR_INVALID_PARAMETER},
    {"EventWriteEx: NO_FAULTING | INPRIVATE, any Filter", write_ex_known_flags, ERROR_SUCCESS},
    {"EventWriteString: NULL String", write_string_null, ERROR_INVALID_PARAMETER},
    {"EventWriteString: unknown handle", write_string_unknown, ERROR_INVALID_HANDLE},
    {"EventSetInformation: unknown handle", set_information_unknown_handle, ERROR_INVALID_PARAMETER},
    {"EventSetInformation: unknown class", set_information_unknown_class, ERROR_NOT_SUPPORTED},
    {"EventSetInformation: SetTraits, NULL EventInformation", set_traits_null, ERROR_INVALID_PARAMETER},
    {"EventSetInformation: SetTraits", set_traits, ERROR_SUCCESS},
    {"EventActivityIdControl: unknown code", activity_unknown_code, ERROR_INVALID_PARAMETER},
    {"EventActivityIdControl: NULL ActivityId", activity_null, ERROR_INVALID_PARAMETER},
    {"EventActivityIdControl: CREATE_ID", activity_create, ERROR_SUCCESS},
    {"OpenTrace: NULL Logfile", open_null, ERROR_INVALID_PARAMETER},
    {"OpenTrace: no LoggerName, no LogFileName", open_no_file_name, ERROR_BAD_PATHNAME},
    {"OpenTrace: file does not exist", open_missing_file, ERROR_FILE_NOT_FOUND},
    {"OpenTrace: real-time session not running", open_unknown_session, ERROR_WMI_INSTANCE_NOT_FOUND},
    {"ProcessTrace: NULL HandleArray", process_null, ERROR_INVALID_PARAMETER},
    {"ProcessTrace: HandleCount 0", process_zero_count, ERROR_INVALID_PARAMETER},
    {"ProcessTrace: unknown handle", process_unknown, ERROR_INVALID_HANDLE},
    {"CloseTrace: unknown handle", close_unknown, ERROR_INVALID_HANDLE},
};

int main(int argc, char **argv)
{
    size_t i, failures = 0;
    if (argc != 2)
        return 2;
    snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
    for (i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        ULONG got = rows[i].run();
        if (got != rows[i].expected) {
            printf("FAIL %s: %lu, expected %lu\n", rows[i].name, (unsigned long)got, (unsigned long)rows[i].expected);
            ++failures;
        } else {
            printf("ok   %s: %lu\n", rows[i].name, (unsigned long)got);
        }
    }
    /* No failing call may leave a session behind. */
    {
        EVENT_TRACE_PROPERTIES *p = props(NULL), *a[1] = {p};
        ULONG n = 99;
        ULONG s = QueryAllTracesA(a, 1, &n);
        if (s != ERROR_SUCCESS || n != 0) {
            printf("FAIL sessions left running: status %lu, count %lu\n", (unsigned long)s, (unsigned long)n);
            ++failures;
        }
        free(p);
    }
    printf("%zu of %zu cases failed\n", failures, sizeof rows / sizeof rows[0]);
    return failures == 0 ? 0 : 1;
}
