/*
 * openetw/properties.h - session properties (EVENT_TRACE_PROPERTIES).
 *
 * An etw_properties holds everything StartTrace and ControlTrace read and
 * write in the variable-length EVENT_TRACE_PROPERTIES block: the fixed
 * record, the session name and the log file name. Build one from a session
 * name, set members, then start a session from it; or import a block built
 * elsewhere (Windows code, a binding, a file) with complete validation, and
 * export the Windows-layout block again.
 *
 * Setters check what a member allows on its own (a range, a name's length
 * and encoding) and leave the object unchanged on failure. Rules that tie
 * members together (mode combinations, MaximumFileSize for circular files,
 * EnableFlags only for system loggers) are checked by etw_properties_validate,
 * by etw_properties_import, and when a session starts.
 *
 * Threads: an etw_properties is not synchronized. Use one object from one
 * thread at a time; distinct objects are independent. Getters of string
 * members return text owned by the object, valid until the member is set
 * again or the object is destroyed.
 */
#ifndef OPENETW_PROPERTIES_H
#define OPENETW_PROPERTIES_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "records.h"

ETW_BEGIN_DECLS

/** Opaque session properties. */
typedef struct etw_properties etw_properties;

/* ---- Life cycle ---- */

/**
 * Creates properties for a session named session_name (UTF-8, 1 to 1024
 * characters). Defaults: BufferSize ETW_DEFAULT_BUFFER_SIZE_KB, clock
 * ETW_CLOCK_QPC, Wnode.Flags ETW_WNODE_FLAG_TRACED_GUID, no log file, every
 * other member 0 (the engine adjusts the buffer counts when the session
 * starts). *out receives an object the caller frees with
 * etw_properties_destroy.
 * Returns ETW_ERROR_INVALID_PARAMETER (out or session_name NULL),
 * ETW_ERROR_INVALID_NAME (empty or too long), ETW_ERROR_NO_UNICODE_TRANSLATION
 * (not UTF-8), ETW_ERROR_OUTOFMEMORY.
 */
ETW_API etw_status etw_properties_create(etw_properties **out, const char *session_name);

/** Copies src into a new object (*out), output members included. */
ETW_API etw_status etw_properties_clone(etw_properties **out, const etw_properties *src);

/** Frees the object. NULL is accepted. */
ETW_API void etw_properties_destroy(etw_properties *props);

/* ---- Names (UTF-8 in the API, UTF-16LE in the block) ---- */

/** Sets the session name: UTF-8, 1..ETW_MAX_SESSION_NAME_LENGTH characters. */
ETW_API etw_status etw_properties_set_session_name(etw_properties *props, const char *name);
/** The session name, UTF-8. "" for NULL props. */
ETW_API const char *etw_properties_session_name(const etw_properties *props);

/**
 * Sets the log file name (UTF-8, at most ETW_MAX_LOG_FILE_NAME_LENGTH
 * characters). NULL or "" removes it: the session then has no log file.
 */
ETW_API etw_status etw_properties_set_log_file_name(etw_properties *props, const char *name);
/** The log file name, UTF-8; "" when there is none or props is NULL. */
ETW_API const char *etw_properties_log_file_name(const etw_properties *props);

/* ---- Export (an OpenETW extension; not part of the Windows block) ---- */

/**
 * Makes the session also publish every buffer it writes to a NATS JetStream
 * stream: url is "nats://HOST[:PORT]/STREAM" (port 4222 by default; STREAM
 * of letters, digits, '-' and '_', at most 64; the stream is created if
 * missing). The session host's logger publishes the log file header buffer
 * first, then each buffer exactly as it goes to the .etl file, one
 * acknowledged message each, on the subject STREAM.<machine>.<session>,
 * with headers naming the machine, the session, its start time and the
 * buffer's sequence (docs/FLEET.md). While the server is slow or gone the
 * buffers wait in a bounded on-disk spool and are sent in order when it
 * returns; a buffer the full spool cannot take counts in RealTimeBuffersLost.
 * etw_session_stop waits (at most 20 s) until the last buffers are
 * acknowledged, else fails with ETW_ERROR_TIMEOUT saying how many are still
 * spooled and where (the file is complete either way).
 *
 * credentials_file: a file of `key = value` lines (user, password, token,
 * creds, nkey_seed, tls_ca, tls_cert, tls_key) the session host reads at
 * the start; NULL or "" for none, in which case the file named by the
 * environment variable OPENETW_NATS_CREDENTIALS of the starting process is
 * used, if set. Credentials are never part of the URL, so that no secret
 * shows in a process list.
 *
 * url NULL or "" removes the export (and the credentials file).
 * ETW_ERROR_INVALID_PARAMETER: NULL props, a URL that is not
 * nats://HOST[:PORT]/STREAM (another scheme, a user part, a bad port, a
 * query), a URL or credentials file name over 1024 bytes;
 * ETW_ERROR_INVALID_NAME: a bad stream name; ETW_ERROR_NOT_SUPPORTED: this
 * build has no NATS support. Each with a message naming the part at fault.
 * The start then fails with ETW_ERROR_ACCESS_DENIED when the server refuses
 * the credentials and ETW_ERROR_FILE_NOT_FOUND when no server answers, with
 * the server's reason. The strings are copied. Not thread-safe on one props.
 */
ETW_API etw_status etw_properties_set_export(etw_properties *props, const char *url, const char *credentials_file);
/** The export URL, UTF-8; "" when there is none or props is NULL. Owned by props until it changes. */
ETW_API const char *etw_properties_export_url(const etw_properties *props);
/** The export's credentials file as set; "" when none or props is NULL. Owned by props until it changes. */
ETW_API const char *etw_properties_export_credentials(const etw_properties *props);

/* ---- Input members. Setters return ETW_ERROR_INVALID_PARAMETER for NULL props. ---- */

/** BufferSize in KB; ETW_ERROR_INVALID_PARAMETER outside 4..16384. */
ETW_API etw_status etw_properties_set_buffer_size(etw_properties *props, uint32_t kilobytes);
ETW_API uint32_t etw_properties_buffer_size(const etw_properties *props);

/** MinimumBuffers; raised at start to 2 per processor and capped at ETW_MAX_BUFFERS. */
ETW_API etw_status etw_properties_set_minimum_buffers(etw_properties *props, uint32_t count);
ETW_API uint32_t etw_properties_minimum_buffers(const etw_properties *props);

/**
 * MaximumBuffers; raised at start to the adjusted minimum and capped at
 * ETW_MAX_BUFFERS. 0 (the default) takes Windows' rule at start: the adjusted
 * minimum plus 20, and at least 16 MiB of buffers (not in buffering mode).
 */
ETW_API etw_status etw_properties_set_maximum_buffers(etw_properties *props, uint32_t count);
ETW_API uint32_t etw_properties_maximum_buffers(const etw_properties *props);

/** MaximumFileSize in MB (KB with ETW_USE_KBYTES_FOR_SIZE); 0 = no limit. */
ETW_API etw_status etw_properties_set_maximum_file_size(etw_properties *props, uint32_t size);
ETW_API uint32_t etw_properties_maximum_file_size(const etw_properties *props);

/** LogFileMode: ETW_FILE_MODE_* and ETW_*_MODE bits (combinations checked by validate). */
ETW_API etw_status etw_properties_set_log_file_mode(etw_properties *props, uint32_t mode);
ETW_API uint32_t etw_properties_log_file_mode(const etw_properties *props);

/** FlushTimer in seconds (file mode: 0 = no timed flush; real-time: 0 = 1 s). */
ETW_API etw_status etw_properties_set_flush_timer(etw_properties *props, uint32_t seconds);
ETW_API uint32_t etw_properties_flush_timer(const etw_properties *props);

/** EnableFlags (ETW_FLAG_*): valid only for system loggers. */
ETW_API etw_status etw_properties_set_enable_flags(etw_properties *props, uint32_t flags);
ETW_API uint32_t etw_properties_enable_flags(const etw_properties *props);

/**
 * Parses a list of system logger EnableFlags into *mask: names separated by
 * ',', '+' or '|' (spaces around them allowed), each a flag's short name
 * ("process", "image_load", "disk_io"), its documented name
 * ("EVENT_TRACE_FLAG_DISK_IO") or an xperf group ("PROC_THREAD", "LOADER"),
 * in any case; or one number, decimal or 0x hex, taken as is
 * (docs/KERNEL_LOGGER.md lists the names).
 * Statuses: ETW_OK; ETW_ERROR_INVALID_PARAMETER for a NULL argument, an empty
 * list or an unknown name (the last error message names it; *mask is then
 * unchanged). No state: any thread.
 */
ETW_API etw_status etw_enable_flags_parse(uint32_t *mask, const char *text);
/**
 * The names of mask's flags, joined by ',' in value order ("process,thread");
 * bits no flag documents are appended as one hex number; "0" for 0. Writes at
 * most size bytes into text (the caller's buffer), NUL-terminated, and the
 * size the whole text needs, NUL included, into *needed (may be NULL).
 * Statuses: ETW_OK; ETW_ERROR_MORE_DATA when size is smaller than that (text
 * then holds as much as fits, NUL-terminated, if size > 0);
 * ETW_ERROR_INVALID_PARAMETER when text is NULL and size is not 0. No state:
 * any thread.
 */
ETW_API etw_status etw_enable_flags_format(char *text, size_t size, size_t *needed, uint32_t mask);

/** AgeLimit / FlushThreshold (the same LONG member). */
ETW_API etw_status etw_properties_set_flush_threshold(etw_properties *props, int32_t value);
ETW_API int32_t etw_properties_flush_threshold(const etw_properties *props);

/** Wnode.Guid, the session GUID. All zero (the default) asks start to generate one. */
ETW_API etw_status etw_properties_set_guid(etw_properties *props, const etw_guid *guid);
/** Copies Wnode.Guid into *out. ETW_ERROR_INVALID_PARAMETER for NULL arguments. */
ETW_API etw_status etw_properties_get_guid(etw_guid *out, const etw_properties *props);

/** Wnode.ClientContext, the clock type: ETW_CLOCK_DEFAULT (0) .. ETW_CLOCK_CPU_CYCLE (3). */
ETW_API etw_status etw_properties_set_clock_type(etw_properties *props, uint32_t clock_type);
ETW_API uint32_t etw_properties_clock_type(const etw_properties *props);

/* ---- Output members (filled when a session starts, is queried or stops; 0 for NULL) ---- */

ETW_API uint32_t etw_properties_number_of_buffers(const etw_properties *props);
ETW_API uint32_t etw_properties_free_buffers(const etw_properties *props);
ETW_API uint32_t etw_properties_events_lost(const etw_properties *props);
ETW_API uint32_t etw_properties_buffers_written(const etw_properties *props);
ETW_API uint32_t etw_properties_log_buffers_lost(const etw_properties *props);
ETW_API uint32_t etw_properties_real_time_buffers_lost(const etw_properties *props);
ETW_API uint64_t etw_properties_logger_thread_id(const etw_properties *props);
/** Wnode.HistoricalContext: the session handle after a start. */
ETW_API uint64_t etw_properties_historical_context(const etw_properties *props);

/**
 * Copies the fixed record (Wnode through LoggerNameOffset) as it would be
 * exported into *out. Offsets are those of the exported block.
 */
ETW_API etw_status etw_properties_get_record(etw_event_trace_properties *out,
                                             const etw_properties *props);

/* ---- Whole-object operations ---- */

/**
 * Checks the rules that tie members together, as StartTrace does:
 * Wnode.Flags has TRACED_GUID; BufferSize in range; ClientContext 0..3;
 * no forbidden mode combination (Logging Mode Constants); MaximumFileSize
 * set for circular, newfile and preallocate; "%d" in a NEWFILE file name;
 * a log file for file modes; EnableFlags only on a system logger (the NT
 * Kernel Logger GUID or name, or ETW_SYSTEM_LOGGER_MODE).
 * Returns ETW_OK or the first rule broken (ETW_ERROR_INVALID_PARAMETER,
 * ETW_ERROR_BAD_PATHNAME for a NEWFILE name without %d), with a message
 * naming the member.
 */
ETW_API etw_status etw_properties_validate(const etw_properties *props);

/**
 * Writes the Windows-layout block into out_block: the fixed record, then the
 * session name, then the log file name, both NUL-terminated UTF-16LE, every
 * other byte zero; Wnode.BufferSize is the block size and
 * LoggerNameOffset/LogFileNameOffset locate the names (LogFileNameOffset 0
 * when there is no log file). With ETW_FILE_MODE_NEWFILE or
 * ETW_PRIVATE_LOGGER_MODE, ETW_LOG_FILE_SUFFIX_ROOM characters are reserved
 * after the log file name for the suffix the engine appends. A block that
 * came from etw_properties_import is written with its original size and
 * offsets as long as the names still fit.
 * *out_size (may be NULL) receives the block size. If block_size is too
 * small, returns ETW_ERROR_MORE_DATA and writes nothing but *out_size;
 * out_block may be NULL to ask for the size.
 */
ETW_API etw_status etw_properties_export(void *out_block, size_t block_size, size_t *out_size,
                                         const etw_properties *props);

/**
 * Reads a block built elsewhere into a new object (*out), with complete
 * validation: the structure fits the block; Wnode.BufferSize covers the
 * structure and lies within the block; WNODE_FLAG_TRACED_GUID is set; each
 * name offset is 2-aligned, past the structure and inside the block; the
 * session name comes before the log file name and they do not overlap;
 * each name is NUL-terminated inside Wnode.BufferSize, at most 1024
 * characters and valid UTF-16; and every rule of etw_properties_validate.
 * Output members are taken as they are.
 * Returns ETW_ERROR_BAD_LENGTH for sizes, lengths and names crossing the
 * end; ETW_ERROR_INVALID_PARAMETER for flags, offsets, modes and values;
 * ETW_ERROR_INVALID_NAME for an empty or too long name;
 * ETW_ERROR_NO_UNICODE_TRANSLATION for an unpaired surrogate;
 * ETW_ERROR_OUTOFMEMORY. The message names the field and byte offset.
 */
ETW_API etw_status etw_properties_import(etw_properties **out, const void *block,
                                         size_t block_size);

ETW_END_DECLS

#endif /* OPENETW_PROPERTIES_H */
