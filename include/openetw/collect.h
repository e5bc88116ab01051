/*
 * openetw/collect.h - a NATS JetStream stream rebuilt as .etl files.
 *
 * Sessions export their buffers to a stream (etw_properties_set_export);
 * etw_collect_stream reads such a stream and writes one file per machine's
 * session instance (machine, session, start) into a folder, byte for byte
 * the file that session wrote when the stream holds all of it
 * (docs/FLEET.md, "Collecting"). The result is an etw_collect_report: one
 * entry per instance (its path, names, start, outcome, what is missing) and
 * how many instances the session filter left out.
 *
 * Threads. etw_collect_stream blocks the calling thread while it reads the
 * stream and writes the files, and runs no callback. A report is not
 * synchronized: one thread at a time may use it. Different reports may be
 * used from different threads.
 */
#ifndef OPENETW_COLLECT_H
#define OPENETW_COLLECT_H

#include <stdint.h>
#include "export.h"
#include "status.h"

ETW_BEGIN_DECLS

/** Opaque result of etw_collect_stream; the caller destroys it. */
typedef struct etw_collect_report etw_collect_report;

/* ---- etw_collect_stream flags ---- */
/** Replace a file that exists with other contents (etwctl collect --force). */
#define ETW_COLLECT_OVERWRITE 0x1u

/* ---- etw_collected_file.outcome ---- */
#define ETW_COLLECT_WRITTEN   0u /* a new file */
#define ETW_COLLECT_UNCHANGED 1u /* the file existed with these very bytes */
#define ETW_COLLECT_REPLACED  2u /* the file existed with other bytes; ETW_COLLECT_OVERWRITE replaced it */
#define ETW_COLLECT_KEPT      3u /* the file existed with other bytes and was left alone */
#define ETW_COLLECT_NO_FILE   4u /* the stream no longer holds the header buffer: nothing to begin a file with */
#define ETW_COLLECT_FAILED    5u /* writing the file failed; error says why */

/**
 * One session instance of the stream and what became of its file. Set
 * struct_size to sizeof(etw_collected_file) before etw_collect_report_file.
 * The strings (UTF-8) belong to the report and stay valid until
 * etw_collect_report_destroy or the next etw_collect_stream on it.
 */
typedef struct etw_collected_file {
    uint32_t struct_size;
    uint32_t outcome;          /* ETW_COLLECT_WRITTEN ... ETW_COLLECT_FAILED */
    int64_t  start_time;       /* the session's StartTime, FILETIME (UTC): one instance of a name */
    uint64_t data_buffers;     /* data buffers in the file (header buffer not counted) */
    uint32_t complete;         /* 1: the stream held all of it, the file is the session's own; else 0 */
    uint32_t missing_count;    /* sentences in missing; 0 when complete */
    const char *path;          /* FOLDER/MACHINE.SESSION.START.etl, names escaped (docs/FLEET.md) */
    const char *machine;       /* the host name as the session's export sent it */
    const char *session;       /* the session name */
    const char *start_utc;     /* start_time as the file name gives it: UTC YYYYMMDDTHHMMSS.fffffffZ */
    const char *missing;       /* what the stream lacks, one sentence per line ('\n' between them); "" when complete */
    const char *error;         /* why the file was kept or not written; "" otherwise */
} etw_collected_file;

/**
 * Creates an empty report (no files, none skipped) into *out, for
 * etw_collect_stream to fill. Destroy it with etw_collect_report_destroy.
 * ETW_ERROR_INVALID_PARAMETER for NULL out; ETW_ERROR_OUTOFMEMORY.
 */
ETW_API etw_status etw_collect_report_create(etw_collect_report **out);

/** Frees a report and its strings. NULL is accepted. */
ETW_API void etw_collect_report_destroy(etw_collect_report *report);

/**
 * Reads the stream url ("nats://HOST[:PORT][,HOST[:PORT]...]/STREAM",
 * optionally "?since=YYYY-MM-DDTHH:MM:SSZ", as etw_consumer_open takes it)
 * and writes each selected session instance as
 * folder/MACHINE.SESSION.START.etl. The report's previous contents are
 * replaced; it is filled as far as the collect went, also when the status
 * is not ETW_OK.
 *
 * machine: NULL or "" for every machine, else only that host name (compared
 * as written; the server filters by subject). session: NULL or "" for every
 * session, else only that name (compared case-insensitively, as session
 * names are). credentials_file: the `key = value` file of
 * etw_properties_set_export; NULL or "" for the file that the environment
 * variable OPENETW_NATS_CREDENTIALS names, if set. flags: 0 or
 * ETW_COLLECT_OVERWRITE. A file that exists with the same bytes is left as
 * it is (ETW_COLLECT_UNCHANGED); with other bytes it is kept
 * (ETW_COLLECT_KEPT) unless ETW_COLLECT_OVERWRITE.
 *
 * Returns ETW_OK when every selected instance was complete and its file
 * written or unchanged. Before anything is read:
 * ETW_ERROR_INVALID_PARAMETER (NULL report, url or folder, unknown flags)
 * and ETW_ERROR_PATH_NOT_FOUND (the folder does not exist). Reading the
 * stream: the statuses of etw_consumer_open for a nats:// path
 * (ETW_ERROR_FILE_NOT_FOUND no server or no such stream,
 * ETW_ERROR_ACCESS_DENIED credentials refused, ETW_ERROR_INVALID_NAME /
 * ETW_ERROR_INVALID_PARAMETER a bad URL, ETW_ERROR_NOT_SUPPORTED a build
 * without NATS); ETW_ERROR_NO_MORE_ITEMS when no instance matches the
 * filters. Then, with the report filled, the first that applies:
 * ETW_ERROR_WRITE_FAULT or ETW_ERROR_DISK_FULL (a file could not be
 * written), ETW_ERROR_ALREADY_EXISTS (a file was kept),
 * ETW_ERROR_HANDLE_EOF (an instance is incomplete in the stream: the
 * message counts them). Each failure's message says what was wrong.
 */
ETW_API etw_status etw_collect_stream(etw_collect_report *report, const char *url, const char *folder,
                                      const char *machine, const char *session, const char *credentials_file,
                                      uint32_t flags);

/** *out = the number of files (session instances) in the report. ETW_ERROR_INVALID_PARAMETER for NULL. */
ETW_API etw_status etw_collect_report_file_count(uint32_t *out, const etw_collect_report *report);

/**
 * *out = how many session instances of the stream the session filter left
 * out. The machine filter is the server's subject filter: what it leaves
 * out is never read, so never counted. ETW_ERROR_INVALID_PARAMETER for NULL.
 */
ETW_API etw_status etw_collect_report_skipped(uint64_t *out, const etw_collect_report *report);

/**
 * Fills *out with file index of the report, in (machine, session, start)
 * order. out->struct_size must be set; the library fills at most that many
 * bytes. ETW_ERROR_INVALID_PARAMETER for NULL, a struct_size too small, or
 * index out of range.
 */
ETW_API etw_status etw_collect_report_file(etw_collected_file *out, const etw_collect_report *report,
                                           uint32_t index);

/**
 * The name of an outcome, as etwctl collect --json gives it: "written",
 * "unchanged", "replaced", "kept", "no file", "failed"; "unknown" for any
 * other value. Static text.
 */
ETW_API const char *etw_collect_outcome_name(uint32_t outcome);

ETW_END_DECLS

#endif /* OPENETW_COLLECT_H */
