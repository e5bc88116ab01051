/*
 * openetw/status.h - status codes and the thread's last error message.
 *
 * Every fallible call returns an etw_status. The values are Win32 error
 * codes, the vocabulary ETW itself uses, and are never renumbered: a value
 * that means ERROR_INVALID_PARAMETER on Windows means the same here.
 *
 * Besides the status, a failing call leaves a sentence in a thread-local
 * slot saying what was wrong with which argument or field; read it with
 * etw_last_error_message(). Every call that returns an etw_status resets the
 * slot, to "" on success. The event-writing hot path (documented per
 * function) never touches it.
 */
#ifndef OPENETW_STATUS_H
#define OPENETW_STATUS_H

#include <stdint.h>
#include "export.h"

ETW_BEGIN_DECLS

/** A Win32 error code. 0 is success. */
typedef uint32_t etw_status;

#define ETW_OK                          0u    /* ERROR_SUCCESS */
#define ETW_ERROR_FILE_NOT_FOUND        2u
#define ETW_ERROR_PATH_NOT_FOUND        3u    /* the log file's folder does not exist */
#define ETW_ERROR_ACCESS_DENIED         5u
#define ETW_ERROR_INVALID_HANDLE        6u
#define ETW_ERROR_NOT_ENOUGH_MEMORY     8u    /* a session ran out of free buffers */
#define ETW_ERROR_INVALID_DATA          13u   /* corrupt input (file, buffer, record) */
#define ETW_ERROR_OUTOFMEMORY           14u   /* an allocation failed */
#define ETW_ERROR_BAD_LENGTH            24u   /* a size or length field is wrong */
#define ETW_ERROR_WRITE_FAULT           29u
#define ETW_ERROR_READ_FAULT            30u
#define ETW_ERROR_HANDLE_EOF            38u   /* a file ended early */
#define ETW_ERROR_NOT_SUPPORTED         50u
#define ETW_ERROR_INVALID_PARAMETER     87u
#define ETW_ERROR_DISK_FULL             112u
#define ETW_ERROR_INSUFFICIENT_BUFFER   122u
#define ETW_ERROR_INVALID_NAME          123u  /* a session or file name is empty or too long */
#define ETW_ERROR_BAD_PATHNAME          161u
#define ETW_ERROR_BUSY                  170u
#define ETW_ERROR_ALREADY_EXISTS        183u
#define ETW_ERROR_INVALID_FLAG_NUMBER   186u  /* EVENT_TRACE_HEADER.Flags lacks WNODE_FLAG_TRACED_GUID */
#define ETW_ERROR_MORE_DATA             234u  /* the output buffer is too small, or an event exceeds a buffer */
#define ETW_ERROR_ARITHMETIC_OVERFLOW   534u  /* an EVENT_HEADER event above 64 KB (EventWrite) */
#define ETW_ERROR_NO_MORE_ITEMS         259u
#define ETW_ERROR_NO_UNICODE_TRANSLATION 1113u /* invalid UTF-8 or UTF-16 */
#define ETW_ERROR_NOT_FOUND             1168u /* no schema describes the event (decode.h) */
#define ETW_ERROR_CANCELLED             1223u
#define ETW_ERROR_INTERNAL_ERROR        1359u /* a bug in OpenETW: please report it */
#define ETW_ERROR_NO_SYSTEM_RESOURCES   1450u /* the maximum number of sessions is running */
#define ETW_ERROR_TIMEOUT               1460u
#define ETW_ERROR_LOG_FILE_FULL         1502u
#define ETW_ERROR_WMI_GUID_NOT_FOUND    4200u
#define ETW_ERROR_WMI_INSTANCE_NOT_FOUND 4201u /* no running session has that name or handle */
#define ETW_ERROR_CTX_CLOSE_PENDING     7007u

/**
 * The status's symbolic name, e.g. "ETW_ERROR_INVALID_PARAMETER", or
 * "ETW_ERROR_UNKNOWN" for a value this library does not define.
 * Static text: never freed, valid for the life of the process. Thread-safe.
 */
ETW_API const char *etw_status_name(etw_status status);

/**
 * A short English description of the status ("The parameter is incorrect.").
 * Static text, as etw_status_name(). Thread-safe.
 */
ETW_API const char *etw_status_string(etw_status status);

/**
 * The message the last failing call on this thread left, naming the
 * argument or field at fault; "" after a call that succeeded. Never NULL.
 * The text belongs to the library and stays valid until the next library
 * call on the same thread.
 */
ETW_API const char *etw_last_error_message(void);

/** The status the last call on this thread returned (ETW_OK after success). */
ETW_API etw_status etw_last_error_status(void);

ETW_END_DECLS

#endif /* OPENETW_STATUS_H */
