/* Black-box test of properties.h from C99, through the shared library:
   build a block as a C program would, hand it to "Windows code" as bytes,
   and read a Windows-built block back. */
#include <openetw/openetw.h>

#include <stdlib.h>
#include <string.h>

#include "check.h"

static void build_and_export(void)
{
    etw_properties *p = NULL;
    etw_event_trace_properties rec;
    unsigned char *block;
    size_t size = 0;
    etw_properties *back = NULL;

    CHECK(etw_properties_create(&p, "C Session") == ETW_OK);
    CHECK(etw_properties_set_log_file_name(p, "/tmp/c_session.etl") == ETW_OK);
    CHECK(etw_properties_set_log_file_mode(p, ETW_FILE_MODE_SEQUENTIAL) == ETW_OK);
    CHECK(etw_properties_set_buffer_size(p, 8) == ETW_OK);
    CHECK(etw_properties_validate(p) == ETW_OK);

    CHECK(etw_properties_export(NULL, 0, &size, p) == ETW_ERROR_MORE_DATA);
    CHECK(size == 120 + 2 * 10 + 2 * 19);
    block = (unsigned char *)malloc(size);
    CHECK(block != NULL);
    CHECK(etw_properties_export(block, size, &size, p) == ETW_OK);
    memcpy(&rec, block, sizeof rec);
    CHECK(rec.Wnode.BufferSize == size);
    CHECK((rec.Wnode.Flags & ETW_WNODE_FLAG_TRACED_GUID) != 0);
    CHECK(rec.BufferSize == 8);
    CHECK(rec.LoggerNameOffset == 120);
    CHECK(rec.LogFileNameOffset == 140);
    CHECK(block[120] == 'C' && block[121] == 0);

    CHECK(etw_properties_import(&back, block, size) == ETW_OK);
    CHECK(strcmp(etw_properties_session_name(back), "C Session") == 0);
    CHECK(strcmp(etw_properties_log_file_name(back), "/tmp/c_session.etl") == 0);

    /* The same block one byte short is refused, and names the field. */
    etw_properties_destroy(back);
    back = NULL;
    CHECK(etw_properties_import(&back, block, size - 1) == ETW_ERROR_BAD_LENGTH);
    CHECK(strstr(etw_last_error_message(), "Wnode.BufferSize") != NULL);
    CHECK(back == NULL);

    free(block);
    etw_properties_destroy(p);
}

static void windows_style_block(void)
{
    /* What a Windows program allocates: the structure plus fixed room for both names. */
    enum { kNameRoom = 1024 * 2 };
    size_t total = sizeof(etw_event_trace_properties) + 2 * kNameRoom;
    unsigned char *block = (unsigned char *)calloc(1, total);
    etw_event_trace_properties *rec = (etw_event_trace_properties *)block;
    const char *name = "RealTimeOnly";
    size_t i;
    etw_properties *p = NULL;

    rec->Wnode.BufferSize = (uint32_t)total;
    rec->Wnode.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    rec->Wnode.ClientContext = ETW_CLOCK_SYSTEM_TIME;
    rec->BufferSize = 64;
    rec->LogFileMode = ETW_REAL_TIME_MODE;
    rec->LoggerNameOffset = sizeof(etw_event_trace_properties);
    rec->LogFileNameOffset = sizeof(etw_event_trace_properties) + kNameRoom;
    for (i = 0; name[i]; ++i)
        block[rec->LoggerNameOffset + 2 * i] = (unsigned char)name[i];

    CHECK(etw_properties_import(&p, block, total) == ETW_OK);
    CHECK(strcmp(etw_properties_session_name(p), name) == 0);
    CHECK(strcmp(etw_properties_log_file_name(p), "") == 0);
    CHECK(etw_properties_clock_type(p) == ETW_CLOCK_SYSTEM_TIME);
    etw_properties_destroy(p);

    rec->Wnode.Flags = 0;
    p = NULL;
    CHECK(etw_properties_import(&p, block, total) == ETW_ERROR_INVALID_PARAMETER);
    CHECK(etw_last_error_status() == ETW_ERROR_INVALID_PARAMETER);
    CHECK(strstr(etw_last_error_message(), "TRACED_GUID") != NULL);
    free(block);
}

static void statuses(void)
{
    CHECK(strcmp(etw_status_name(ETW_ERROR_MORE_DATA), "ETW_ERROR_MORE_DATA") == 0);
    CHECK(strlen(etw_status_string(ETW_ERROR_INVALID_NAME)) > 0);
    CHECK(strcmp(etw_version_string(), "0.1.0") == 0);
}

int main(void)
{
    build_and_export();
    windows_style_block();
    statuses();
    return check_summary();
}
