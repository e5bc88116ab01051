/*
 * StartTrace on a properties block sized exactly for its names, as a
 * program that allocates no spare room has it: the cases Wine's advapi32
 * tests record on such a block (eventlog.c, test_start_trace), each with
 * the status Windows returns. One field is wrong per case; the block is
 * otherwise valid, so each status shows which check Windows makes.
 * A names, no UNICODE. usage: start_block DIRECTORY
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wmistr.h>
#include <evntrace.h>

static const char kName[] = "W32 block";
static char g_file[240]; /* DIRECTORY/block.etl */

/* Room for exactly kName and g_file after the structure; LogFileMode 0
 * (EVENT_TRACE_FILE_MODE_NONE: a file, written sequentially). */
static EVENT_TRACE_PROPERTIES *block(void)
{
    ULONG size = (ULONG)(sizeof(EVENT_TRACE_PROPERTIES) + sizeof kName + strlen(g_file) + 1);
    EVENT_TRACE_PROPERTIES *p = (EVENT_TRACE_PROPERTIES *)calloc(1, size);
    p->Wnode.BufferSize = size;
    p->Wnode.Flags = WNODE_FLAG_TRACED_GUID;
    p->LogFileMode = EVENT_TRACE_FILE_MODE_NONE;
    p->LoggerNameOffset = sizeof(EVENT_TRACE_PROPERTIES);
    p->LogFileNameOffset = (ULONG)(sizeof(EVENT_TRACE_PROPERTIES) + sizeof kName);
    memcpy((char *)p + p->LogFileNameOffset, g_file, strlen(g_file) + 1);
    return p;
}

static ULONG start_with(EVENT_TRACE_PROPERTIES *p, const char *name)
{
    TRACEHANDLE h = 0;
    ULONG s = StartTraceA(&h, name, p);
    if (s == ERROR_SUCCESS)
        ControlTraceA(h, NULL, p, EVENT_TRACE_CONTROL_STOP);
    free(p);
    return s;
}

static ULONG buffer_size_zero(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    p->Wnode.BufferSize = 0;
    return start_with(p, kName);
}
static ULONG name_longer_than_block(void)
{
    char name[600];
    memset(name, 'x', sizeof name - 1);
    name[sizeof name - 1] = 0;
    return start_with(block(), name);
}
/* Two characters more than its room: the copy would overwrite the log file name. */
static ULONG name_into_log_file_name(void) { return start_with(block(), "W32 block++"); }
static ULONG null_properties(void)
{
    TRACEHANDLE h;
    return StartTraceA(&h, kName, NULL);
}
static ULONG null_handle(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    ULONG s = StartTraceA(NULL, kName, p);
    free(p);
    return s;
}
static ULONG log_file_offset_one(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    p->LogFileNameOffset = 1;
    return start_with(p, kName);
}
static ULONG logger_offset_one(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    p->LoggerNameOffset = 1;
    return start_with(p, kName);
}
static ULONG sequential_and_circular(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    p->LogFileMode = EVENT_TRACE_FILE_MODE_SEQUENTIAL | EVENT_TRACE_FILE_MODE_CIRCULAR;
    return start_with(p, kName);
}
static ULONG kernel_guid_other_name(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    p->Wnode.Guid = SystemTraceControlGuid;
    return start_with(p, kName);
}
static ULONG no_log_file_not_real_time(void)
{
    EVENT_TRACE_PROPERTIES *p = block();
    p->LogFileNameOffset = 0;
    return start_with(p, kName);
}
static ULONG valid(void) { return start_with(block(), kName); }
static ULONG name_in_use(void)
{
    TRACEHANDLE h = 0;
    EVENT_TRACE_PROPERTIES *first = block();
    ULONG s = StartTraceA(&h, kName, first);
    if (s != ERROR_SUCCESS) {
        free(first);
        return 0xBAD;
    }
    s = start_with(block(), kName);
    ControlTraceA(h, NULL, first, EVENT_TRACE_CONTROL_STOP);
    free(first);
    return s;
}

struct row {
    const char *name;
    ULONG (*run)(void);
    ULONG expected;
};

static const struct row rows[] = {
    {"Wnode.BufferSize 0", buffer_size_zero, ERROR_BAD_LENGTH},
    {"a name longer than the block", name_longer_than_block, ERROR_BAD_LENGTH},
    {"a name running into the log file name", name_into_log_file_name, ERROR_BAD_LENGTH},
    {"NULL Properties", null_properties, ERROR_INVALID_PARAMETER},
    {"NULL TraceHandle", null_handle, ERROR_INVALID_PARAMETER},
    {"LogFileNameOffset 1", log_file_offset_one, ERROR_INVALID_PARAMETER},
    {"LoggerNameOffset 1", logger_offset_one, ERROR_INVALID_PARAMETER},
    {"SEQUENTIAL | CIRCULAR", sequential_and_circular, ERROR_INVALID_PARAMETER},
    {"SystemTraceControlGuid, another name", kernel_guid_other_name, ERROR_INVALID_PARAMETER},
    {"LogFileNameOffset 0, not real-time", no_log_file_not_real_time, ERROR_BAD_PATHNAME},
    {"the block as it is", valid, ERROR_SUCCESS},
    {"the same name again", name_in_use, ERROR_ALREADY_EXISTS},
};

int main(int argc, char **argv)
{
    size_t i, failures = 0;
    if (argc != 2)
        return 2;
    snprintf(g_file, sizeof g_file, "%s/block.etl", argv[1]);
    for (i = 0; i < sizeof rows / sizeof rows[0]; ++i) {
        ULONG got = rows[i].run();
        printf("%s StartTrace, %s: %lu, expected %lu\n", got == rows[i].expected ? "ok  " : "FAIL", rows[i].name,
               (unsigned long)got, (unsigned long)rows[i].expected);
        failures += got != rows[i].expected;
    }
    printf("%zu of %zu cases failed\n", failures, sizeof rows / sizeof rows[0]);
    return failures == 0 ? 0 : 1;
}
