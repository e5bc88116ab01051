/*
 * openetw/consumer.h - read .etl files: buffers, records and events.
 *
 * An etw_consumer reads one or more .etl files, written by OpenETW or by
 * Windows, and calls back for every buffer and every record, as ProcessTrace
 * does. Open the files with etw_consumer_open (which reads and checks each
 * file's logfile header), read any file's header facts with
 * etw_consumer_logfile_header, then run etw_consumer_process.
 *
 * Order. ETW_CONSUMER_ORDER_TIME (the default) delivers records in time
 * order: each processor's buffers by SequenceNumber, merged by timestamp
 * across processors and files, as ProcessTrace does. ETW_CONSUMER_ORDER_FILE
 * delivers the files one after another, each buffer by buffer as stored and
 * each buffer's records by offset.
 *
 * Timestamps. Records carry the raw session-clock value and, unless
 * ETW_CONSUMER_RAW_TIMESTAMP is set, the FILETIME (100 ns since 1601, UTC)
 * computed from the logfile header as the WNODE_HEADER remarks describe:
 * clock 1 (QPC) StartTime + (raw - ref) * 10^7 / PerfFreq; clock 2 raw;
 * clock 3 StartTime + (raw - ref) * 10 / CpuSpeedInMHz, where ref is the
 * timestamp of the logfile header record; rounded down. A file whose divisor
 * is 0 keeps raw values.
 *
 * Damaged input. A damaged buffer or record never stops the other buffers
 * from being read where that is safe. Each problem is counted
 * (etw_consumer_get_stats), flagged to the buffer callback, and the first
 * one decides the status etw_consumer_process returns, with a message that
 * names the file and the file offset. A file is read by its buffers up to
 * its end: buffers past the header's BuffersWritten (a header not rewritten
 * because the writer was killed) are read while they look like buffers of
 * the file, and the disagreement is reported (ETW_ERROR_INVALID_DATA); a
 * buffer repeating an earlier one byte for byte is reported and its records
 * are not delivered twice; an end marker before a buffer's filled end is
 * reported. A buffer whose header disagrees with its records (an Offset
 * short of the records that follow it, or outside the buffer) is read as far
 * as its records frame within the buffer; when every record was framed that
 * is a warning, not a problem: it is flagged ETW_BUFFER_STATUS_WARNING to
 * the buffer callback, with its status and message, and does not change the
 * status etw_consumer_process returns. Memory stays bounded by the buffer
 * size: time order holds one stored buffer per processor stream of each
 * file and at most 64 MB of decompressed images in all (an image freed for
 * room is decompressed again when its stream is next read), file order one
 * buffer in all; no buffer or image exceeds 16 MB. Time order also keeps a
 * 32-byte entry per buffer of the files.
 *
 * Threads. Callbacks run only on the thread inside etw_consumer_process;
 * no library lock is held while they run. etw_consumer_cancel may be called
 * from any thread. Other functions must not race etw_consumer_close.
 */
#ifndef OPENETW_CONSUMER_H
#define OPENETW_CONSUMER_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "records.h"

ETW_BEGIN_DECLS

/** Opaque consumer of one or more .etl files. */
typedef struct etw_consumer etw_consumer;

/* ---- Record kinds: etw_record.kind ---- */
#define ETW_RECORD_KIND_SYSTEM    1u /* SYSTEM_TRACE_HEADER, HeaderType 0x01/0x02 */
#define ETW_RECORD_KIND_COMPACT   2u /* compact SYSTEM_TRACE_HEADER, 0x03/0x04 */
#define ETW_RECORD_KIND_PERFINFO  3u /* PERFINFO_TRACE_HEADER, 0x10/0x11 */
#define ETW_RECORD_KIND_FULL      4u /* EVENT_TRACE_HEADER (classic TraceEvent), 0x0A/0x14 */
#define ETW_RECORD_KIND_INSTANCE  5u /* EVENT_INSTANCE_GUID_HEADER, 0x0B/0x15 */
#define ETW_RECORD_KIND_EVENT     6u /* EVENT_HEADER (manifest, TraceLogging), 0x12/0x13 */
#define ETW_RECORD_KIND_MESSAGE   7u /* MESSAGE_TRACE_HEADER (WPP / TraceMessage) */
#define ETW_RECORD_KIND_ERROR     8u /* TRACE_HEADER_TYPE_ERROR (0x0D): undocumented, raw bytes only */

/* ---- etw_record.present: which optional members hold data ---- */
#define ETW_RECORD_HAS_THREAD_ID    0x0001u /* thread_id, process_id */
#define ETW_RECORD_HAS_TIMESTAMP    0x0002u /* timestamp, timestamp_raw */
#define ETW_RECORD_HAS_GUID         0x0004u /* guid: class GUID, ProviderId or message GUID */
#define ETW_RECORD_HAS_HOOK_ID      0x0008u /* hook_id, version_word */
#define ETW_RECORD_HAS_CLASS        0x0010u /* opcode, level, version */
#define ETW_RECORD_HAS_DESCRIPTOR   0x0020u /* event_id, channel, task, keyword */
#define ETW_RECORD_HAS_CPU_TIME     0x0040u /* kernel_time, user_time */
#define ETW_RECORD_HAS_ACTIVITY_ID  0x0080u /* activity_id */
#define ETW_RECORD_HAS_INSTANCE     0x0100u /* instance_id, parent_instance_id, parent_guid */
#define ETW_RECORD_HAS_MESSAGE      0x0200u /* message_number, message_flags */
#define ETW_RECORD_HAS_SEQUENCE     0x0400u /* message_sequence */
#define ETW_RECORD_HAS_COMPONENT_ID 0x0800u /* component_id */
#define ETW_RECORD_HAS_EVENT_FLAGS  0x1000u /* event_flags, event_property */

/** One EVENT_HEADER extended data item (EVENT_HEADER_EXTENDED_DATA_ITEM as stored). */
typedef struct etw_extended_item {
    uint16_t ext_type;     /* EVENT_HEADER_EXT_TYPE_* */
    uint16_t linkage;      /* bit 0: another item follows */
    uint16_t item_size;    /* item bytes including its 8-byte header */
    uint16_t data_size;
    const uint8_t *data;   /* data_size bytes, borrowed like the record */
} etw_extended_item;

/**
 * Every fact of one record, whatever its header kind. Members that the kind
 * does not carry are 0; `present` says which optional members hold data.
 * Passed to the record callback; borrowed until the callback returns
 * (copy what you keep).
 */
typedef struct etw_record {
    uint32_t struct_size;     /* sizeof(etw_record) of the library */
    uint32_t kind;            /* ETW_RECORD_KIND_* */
    uint32_t present;         /* ETW_RECORD_HAS_* */
    uint8_t  header_type;     /* HeaderType byte (0x0F for messages) */
    uint8_t  marker_flags;    /* 0xC0, or 0x90 for messages */
    uint16_t size;            /* the Size field: header + extended data + payload */
    uint32_t header_size;     /* fixed header plus header extensions or message fields */
    uint32_t pointer_size;    /* 4 or 8 as the 32/64-bit header type says; 0 when not said */
    uint32_t file_index;      /* which file of the consumer (order of etw_consumer_open) */
    uint32_t buffer_index;    /* buffer in its file, 0 = the header buffer */
    uint32_t buffer_offset;   /* offset in the buffer (the decompressed image for compressed buffers) */
    uint32_t processor;       /* processor of the buffer */
    uint32_t thread_id;
    uint32_t process_id;
    int64_t  timestamp;       /* FILETIME, or raw with ETW_CONSUMER_RAW_TIMESTAMP */
    int64_t  timestamp_raw;   /* the raw session-clock value as stored */
    etw_guid guid;
    etw_guid activity_id;
    etw_guid parent_guid;
    uint64_t keyword;
    uint32_t kernel_time;     /* with user_time: ProcessorTime in private sessions */
    uint32_t user_time;
    uint16_t hook_id;         /* SYSTEM/COMPACT/PERFINFO HookId (Type | Group << 8) */
    uint16_t version_word;    /* SYSTEM/COMPACT/PERFINFO Version word, extension bits included */
    uint16_t event_id;        /* EVENT_DESCRIPTOR.Id */
    uint16_t task;
    uint16_t version;         /* EVENT_DESCRIPTOR.Version or Class.Version */
    uint16_t event_flags;     /* EVENT_HEADER.Flags as stored */
    uint16_t event_property;
    uint16_t message_number;
    uint16_t message_flags;   /* TRACE_MESSAGE_* option flags */
    uint8_t  opcode;          /* EVENT_DESCRIPTOR.Opcode or Class.Type */
    uint8_t  level;
    uint8_t  channel;
    uint8_t  reserved0;
    uint16_t reserved1;
    uint32_t message_sequence;
    uint32_t component_id;
    uint32_t instance_id;
    uint32_t parent_instance_id;
    uint32_t payload_size;
    uint32_t extended_count;  /* entries in extended */
    const uint8_t *bytes;     /* the whole record, size bytes */
    const uint8_t *payload;   /* user data / MOF data / message arguments */
    const etw_extended_item *extended;
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t reserved_pad32;  /* explicit tail padding on 32-bit targets */
#endif
} etw_record;

/**
 * A classic event (EVENT_TRACE_HEADER or EVENT_INSTANCE_GUID_HEADER record)
 * as ProcessTrace's EventCallback sees it. Borrowed until the callback
 * returns.
 */
typedef struct etw_classic_event {
    uint32_t struct_size;
    uint32_t payload_size;
    etw_event_trace_header header; /* Windows layout; TimeStamp as etw_record.timestamp;
                                      ClientContext/Flags hold KernelTime/UserTime as stored */
    uint32_t instance_id;          /* instance records; else 0 */
    uint32_t parent_instance_id;
    etw_guid parent_guid;
    const uint8_t *payload;
    const etw_record *record;      /* every decoded fact of the same record */
} etw_classic_event;

/**
 * An EVENT_HEADER record (manifest-based, TraceLogging or EventWrite
 * events: ETW_RECORD_KIND_EVENT) as ProcessTrace's EventRecordCallback sees
 * its EVENT_RECORD: the EVENT_HEADER and EVENT_DESCRIPTOR fields, the
 * extended data items and the user data. Borrowed until the callback
 * returns. Decode it with etw_decoder_decode(record) (decode.h).
 */
typedef struct etw_event_record {
    uint32_t struct_size;          /* sizeof(etw_event_record) of the library */
    uint16_t flags;                /* EVENT_HEADER.Flags as stored */
    uint16_t event_property;       /* EVENT_HEADER.EventProperty */
    uint32_t thread_id;
    uint32_t process_id;
    int64_t  timestamp;            /* as etw_record.timestamp */
    etw_guid provider_id;
    uint16_t id;                   /* EVENT_DESCRIPTOR */
    uint8_t  version;
    uint8_t  channel;
    uint8_t  level;
    uint8_t  opcode;
    uint16_t task;
    uint64_t keyword;
    uint32_t kernel_time;          /* with user_time: ProcessorTime in private sessions */
    uint32_t user_time;
    etw_guid activity_id;
    uint16_t extended_data_count;
    uint16_t user_data_length;
    uint32_t reserved0;
    const etw_extended_item *extended_data;
    const uint8_t *user_data;
    const etw_record *record;      /* every decoded fact of the same record */
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t reserved_pad32;       /* explicit tail padding on 32-bit targets */
#endif
} etw_event_record;

/* ---- etw_buffer_info.status_flags ---- */
#define ETW_BUFFER_STATUS_CORRUPT      0x1u /* a problem was found; status/message say which */
#define ETW_BUFFER_STATUS_DECOMPRESSED 0x2u /* image is the decompressed copy of data */
#define ETW_BUFFER_STATUS_WARNING      0x4u /* the header disagrees with its records, all of which were read */

/**
 * One buffer, passed to the buffer callback after the buffer's last record
 * was delivered (also for buffers with no readable record). Borrowed until
 * the callback returns.
 */
typedef struct etw_buffer_info {
    uint32_t struct_size;
    uint32_t file_index;
    uint32_t buffer_index;    /* position in the file, 0 = the header buffer */
    uint32_t processor;       /* ProcessorIndex (PROC_INDEX) or ProcessorNumber */
    uint64_t file_offset;
    uint64_t sequence_number;
    int64_t  timestamp;       /* flush time: FILETIME, or raw with ETW_CONSUMER_RAW_TIMESTAMP */
    int64_t  timestamp_raw;
    uint32_t buffer_size;     /* BufferSize as stored (the compressed size for compressed buffers) */
    uint32_t stored_size;     /* bytes in data: less than buffer_size when the file ends early */
    uint32_t filled_size;     /* end of record data in image, header included */
    uint32_t saved_offset;
    uint32_t offset;          /* the Offset field */
    uint32_t state;
    uint16_t buffer_flag;     /* ETW_BUFFER_FLAG_* bits as stored */
    uint16_t buffer_type;
    uint16_t logger_id;
    uint16_t reserved0;
    uint32_t record_count;    /* records delivered from this buffer */
    uint32_t corrupt_records; /* records skipped or cut off in this buffer */
    uint32_t status_flags;    /* ETW_BUFFER_STATUS_* */
    etw_status status;        /* ETW_OK, or the first problem found in this buffer, else its warning */
    uint32_t image_size;
    uint32_t reserved1;
    const uint8_t *data;      /* the bytes as stored */
    const uint8_t *image;     /* what records are read from (== data unless decompressed) */
    const char *message;      /* the problem (then the warning), naming file and offsets; "" when status is ETW_OK */
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t reserved_pad32;  /* explicit tail padding on 32-bit targets */
#endif
} etw_buffer_info;

/*
 * Callbacks. Each returns 0 to continue; any other value stops processing
 * and etw_consumer_process returns ETW_ERROR_CANCELLED. Any may be NULL.
 */
typedef int32_t (*etw_buffer_callback)(void *user_data, const etw_buffer_info *buffer);
typedef int32_t (*etw_record_callback)(void *user_data, const etw_record *record);
typedef int32_t (*etw_event_callback)(void *user_data, const etw_classic_event *event);
typedef int32_t (*etw_event_record_callback)(void *user_data, const etw_event_record *event);

/* ---- etw_consumer_options.flags ---- */
#define ETW_CONSUMER_ORDER_TIME      0x0u /* default: per-processor sequence, merged by timestamp */
#define ETW_CONSUMER_ORDER_FILE      0x1u /* file by file, buffer by buffer as stored, records by offset */
#define ETW_CONSUMER_RAW_TIMESTAMP   0x2u /* timestamps stay raw session-clock values */
/* Added in 0.2: a stream is followed, as with "?follow=1" in its URL (see
 * etw_consumer_open); only with one stream path (else ETW_ERROR_INVALID_PARAMETER). */
#define ETW_CONSUMER_FOLLOW          0x4u

/** How to read and whom to call. Set struct_size to sizeof(etw_consumer_options). */
typedef struct etw_consumer_options {
    uint32_t struct_size;
    uint32_t flags;                 /* ETW_CONSUMER_* */
    etw_buffer_callback buffer;     /* after each buffer */
    etw_record_callback record;     /* every record of every kind */
    etw_event_callback event;       /* classic records (FULL and INSTANCE kinds), after record */
    void *user_data;                /* passed to every callback */
    void (*user_data_free)(void *user_data); /* runs exactly once; see etw_consumer_open */
    /* Added in 0.2 (a struct_size without it leaves it NULL): */
    etw_event_record_callback event_record; /* EVENT_HEADER records (manifest, TraceLogging), after record */
} etw_consumer_options;

/**
 * The TRACE_LOGFILE_HEADER facts of one opened file. Set struct_size to
 * sizeof(etw_logfile_info) before the call. The strings belong to the
 * consumer and stay valid until etw_consumer_close.
 */
typedef struct etw_logfile_info {
    uint32_t struct_size;
    uint32_t file_index;
    etw_trace_logfile_header64 header; /* every field as stored; a 32-bit session's header widened */
    int64_t  reference_timestamp;      /* raw SystemTime of the header record (matches StartTime) */
    uint64_t file_size;
    uint32_t header_type;              /* HeaderType of the header record: 1 = 32-bit, 2 = 64-bit session */
    uint32_t thread_id;                /* of the header record */
    uint32_t process_id;
    uint32_t compression_format;       /* COMPRESSION_FORMAT_* for compressed buffers (3 = XPRESS) */
    const char *logger_name;           /* UTF-8 */
    const char *log_file_name;         /* UTF-8, the name as stored in the file */
    const char *path;                  /* UTF-8, the path given to etw_consumer_open */
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t reserved_pad32;  /* explicit tail padding on 32-bit targets */
#endif
} etw_logfile_info;

/** Counters of the last (or running) etw_consumer_process. Set struct_size first. */
typedef struct etw_consumer_stats {
    uint32_t struct_size;
    uint32_t file_count;
    uint64_t buffers;          /* buffers processed */
    uint64_t corrupt_buffers;  /* buffers with a problem (flagged to the buffer callback) */
    uint64_t records;          /* records delivered */
    uint64_t corrupt_records;  /* records skipped, and buffers whose records stop at damage */
    uint64_t bytes_read;
    uint64_t events_lost;      /* sum of the files' EventsLost */
    etw_status first_problem;  /* the status of the first problem found, ETW_OK if none */
    uint32_t reserved0;
} etw_consumer_stats;

/**
 * Opens path_count .etl files (UTF-8 paths) into one consumer. Each file's
 * first buffer and logfile header are read and checked now; the other
 * buffers are read by etw_consumer_process. options may be NULL (time
 * order, FILETIME timestamps, no callbacks); its struct_size must be at
 * least the size of the first version of etw_consumer_options.
 * On success *out receives a consumer the caller closes with
 * etw_consumer_close. On failure *out is NULL and user_data_free (if any)
 * has already run.
 * Returns ETW_ERROR_INVALID_PARAMETER (out, paths or a path NULL,
 * path_count 0, bad struct_size, unknown flags), ETW_ERROR_FILE_NOT_FOUND,
 * ETW_ERROR_ACCESS_DENIED, ETW_ERROR_READ_FAULT, ETW_ERROR_HANDLE_EOF (a
 * file too short for its first buffer), ETW_ERROR_BAD_LENGTH or
 * ETW_ERROR_INVALID_DATA (a first buffer or logfile header that cannot be
 * read: the message names the file and offset), ETW_ERROR_OUTOFMEMORY.
 *
 * A path may instead be a NATS JetStream stream that sessions export to
 * (etw_properties_set_export): "nats://HOST[:PORT]/STREAM", optionally with
 * "?since=YYYY-MM-DDTHH:MM:SSZ". The stream is replayed now, from its start
 * (or that UTC time) to its last message, and each machine's session
 * instance in it becomes one more file of the consumer, read exactly as its
 * .etl file would be (its header buffer first, then its buffers in the
 * order the session wrote them; logfile info's path is
 * "URL#machine/session/start"). Credentials come from the file named by the
 * environment variable OPENETW_NATS_CREDENTIALS. Besides the statuses
 * above: ETW_ERROR_FILE_NOT_FOUND (no server answers, or it has no such
 * stream), ETW_ERROR_ACCESS_DENIED (the server refuses the credentials),
 * ETW_ERROR_HANDLE_EOF (the stream holds no session's header buffer),
 * ETW_ERROR_INVALID_NAME / ETW_ERROR_INVALID_PARAMETER (a bad URL),
 * ETW_ERROR_NOT_SUPPORTED (a build without NATS support); each message
 * gives the server's reason.
 *
 * Followed ("...?follow=1", also after since=: "?since=TIME&follow=1"; or
 * the flag ETW_CONSUMER_FOLLOW): the stream is the consumer's only path
 * (else ETW_ERROR_INVALID_PARAMETER), and etw_consumer_process reads what it
 * holds and then what sessions publish to it, until etw_consumer_cancel or
 * etw_consumer_close (it then returns ETW_ERROR_CANCELLED, after delivering
 * what it had fetched, unless close was called from a callback). Open
 * connects and fails as above, but an empty stream is no error. Each
 * session instance becomes a file when its header buffer arrives:
 * file_count grows while processing, and etw_consumer_logfile_header of a
 * new index is for the processing thread (the callbacks). Records of all
 * instances are merged in time order, each delivered once it is 3 seconds
 * older than this machine's clock (ETW_CONSUMER_ORDER_FILE: as they
 * arrive); a buffer that arrives later is delivered when it arrives. The
 * loss callback (etw_consumer_set_loss_callback) is told, as buffers_lost,
 * of messages the stream removed (its retention) before they were read and
 * of data buffers whose instance's header buffer was not read, and, as
 * events_lost, of the events a session's final header says it lost when it
 * stops (that file's header fields then become the final ones).
 * docs/FLEET.md, "Following a stream".
 */
ETW_API etw_status etw_consumer_open(etw_consumer **out, const char *const *paths, uint32_t path_count,
                                     const etw_consumer_options *options);

/**
 * Opens the NATS JetStream stream url ("nats://HOST[:PORT]/STREAM",
 * optionally "?since=YYYY-MM-DDTHH:MM:SSZ", "?follow=1" or both joined by
 * '&') as etw_consumer_open opens it
 * as a path, with the credentials of credentials_file (the `key = value`
 * file of etw_properties_set_export); NULL or "" for the file that the
 * environment variable OPENETW_NATS_CREDENTIALS names, if set. For callers
 * whose credentials are not in the process environment (a language
 * runtime that keeps its own copy of it). The same options, statuses and
 * ownership rules as etw_consumer_open; besides them
 * ETW_ERROR_INVALID_PARAMETER for a NULL url or one that is not nats://,
 * and the credentials file's statuses (ETW_ERROR_FILE_NOT_FOUND,
 * ETW_ERROR_PATH_NOT_FOUND: missing; ETW_ERROR_INVALID_DATA: malformed,
 * its line named).
 */
ETW_API etw_status etw_consumer_open_stream(etw_consumer **out, const char *url, const char *credentials_file,
                                            const etw_consumer_options *options);

/**
 * Reads every buffer of every file and runs the callbacks on the calling
 * thread. Each call starts from the beginning of the files again.
 * Returns ETW_OK when everything was read cleanly; ETW_ERROR_CANCELLED when
 * a callback returned non-zero or etw_consumer_cancel was called;
 * ETW_ERROR_READ_FAULT on an I/O error; otherwise, after reading all that
 * could be read, the status of the first problem found
 * (ETW_ERROR_HANDLE_EOF truncated file, ETW_ERROR_BAD_LENGTH size fields,
 * ETW_ERROR_INVALID_DATA unknown marker or corrupt compressed data,
 * ETW_ERROR_NOT_SUPPORTED unknown compression) with a message naming the
 * file and offset; ETW_ERROR_BUSY when the consumer is already processing
 * (another thread, or a call from inside a callback); ETW_ERROR_INVALID_PARAMETER
 * for NULL.
 */
ETW_API etw_status etw_consumer_process(etw_consumer *consumer);

/**
 * Stops processing from any thread: the running etw_consumer_process
 * returns ETW_ERROR_CANCELLED after the callback in progress (if any)
 * returns, and later calls return it at once. Cancelling is permanent.
 * Returns ETW_ERROR_INVALID_PARAMETER for NULL.
 */
ETW_API etw_status etw_consumer_cancel(etw_consumer *consumer);

/**
 * Closes the consumer and frees it; user_data_free runs. NULL is accepted.
 * When another thread is inside etw_consumer_process, close cancels it and
 * waits until it returns, so no callback runs after close returns. Called
 * from inside a callback, close cancels processing and returns
 * ETW_ERROR_CTX_CLOSE_PENDING: the consumer is freed when
 * etw_consumer_process returns (with ETW_ERROR_CANCELLED), and must not be
 * used after that. Otherwise returns ETW_OK.
 */
ETW_API etw_status etw_consumer_close(etw_consumer *consumer);

/** *out = number of files opened. ETW_ERROR_INVALID_PARAMETER for NULL. */
ETW_API etw_status etw_consumer_file_count(uint32_t *out, const etw_consumer *consumer);

/**
 * Fills *out with the logfile header facts of file file_index.
 * out->struct_size must be set; the library fills at most that many bytes.
 * Returns ETW_ERROR_INVALID_PARAMETER (NULL, struct_size too small, or
 * file_index out of range).
 */
ETW_API etw_status etw_consumer_logfile_header(etw_logfile_info *out, const etw_consumer *consumer,
                                               uint32_t file_index);

/**
 * Fills *out with the counters of the last or running etw_consumer_process
 * (call it from a callback, or after processing returned).
 * out->struct_size must be set. ETW_ERROR_INVALID_PARAMETER for NULL or a
 * struct_size too small.
 */
ETW_API etw_status etw_consumer_get_stats(etw_consumer_stats *out, const etw_consumer *consumer);

/* ---- Live (real-time) consumers ---- */

/**
 * Opens a live consumer of the running real-time session session_name
 * (UTF-8, compared case-insensitively; see session.h, "Real-time mode"): the
 * OpenTrace/ProcessTrace model of a real-time session. The consumer attaches
 * now: the session's backlog (buffers kept while no consumer was attached)
 * is delivered first, oldest first, then every buffer as the session flushes
 * it (when full, at each FlushTimer tick, on etw_session_flush, at stop).
 * Several consumers of one session each get every buffer.
 *
 * etw_consumer_process then blocks, delivering on the calling thread, for
 * each buffer in arrival order: the loss callback (if losses were counted
 * since the previous notification), the raw buffer callback, the record and
 * event callbacks of its records, then the buffer callback. It returns
 * ETW_OK once the session has stopped and everything it flushed was
 * delivered; ETW_ERROR_CANCELLED after etw_consumer_cancel (from any thread:
 * a process blocked waiting for data wakes at once) or a callback returning
 * non-zero. A second process continues where the first stopped. Closing the
 * consumer detaches it; the session keeps running. A consumer that does not
 * keep up holds its buffers, so the session's pool fills and its writers
 * drop events (EventsLost), or wait if the session is lossless.
 * The logfile header (etw_consumer_logfile_header, file 0) describes the
 * session: its name, clock, start time; log_file_name is the session's log
 * file, if any; path is session_name. ETW_CONSUMER_ORDER_* have no effect.
 * A session of another process works the same way: its host relays each
 * buffer with the losses counted since the last one; if the host dies the
 * feed ends and etw_consumer_process returns ETW_ERROR_HANDLE_EOF saying so.
 * Returns ETW_ERROR_INVALID_PARAMETER (NULL out or name, bad options, a
 * session not in real-time mode), ETW_ERROR_WMI_INSTANCE_NOT_FOUND (no
 * running session of that name, or an orphaned one), ETW_ERROR_ACCESS_DENIED
 * (another user's session that grants this user no ETW_SESSION_RIGHT_CONSUME),
 * ETW_ERROR_NO_UNICODE_TRANSLATION. On failure user_data_free (if any) has run.
 */
ETW_API etw_status etw_consumer_open_session(etw_consumer **out, const char *session_name,
                                             const etw_consumer_options *options);

/** What a loss callback receives. Borrowed until the callback returns. */
typedef struct etw_loss_info {
    uint32_t struct_size;
    uint32_t events_lost;  /* the session's EventsLost grew by this much since the last notification */
    uint32_t buffers_lost; /* its RealTimeBuffersLost grew by this much */
    uint32_t reserved;
} etw_loss_info;

/** Loss notification; return 0 to continue (see etw_consumer_open_session). */
typedef int32_t (*etw_loss_callback)(void *user_data, const etw_loss_info *info);
/** Raw buffer: the BufferSize bytes of a live buffer before its records are delivered. */
typedef int32_t (*etw_raw_buffer_callback)(void *user_data, const uint8_t *data, uint32_t size);

/**
 * Sets (or clears, with NULL) the loss callback of a live consumer: on the
 * processing thread, before the next buffer (or before process returns at
 * the end), it is told how many events and real-time buffers the session
 * lost since the previous notification, so a tool can report loss as it
 * happens rather than by querying. Losses also add to
 * etw_consumer_stats.events_lost. It receives options->user_data.
 * ETW_ERROR_BUSY while processing; ETW_ERROR_INVALID_PARAMETER for NULL
 * consumer. File consumers never call it; a followed stream does (see
 * etw_consumer_open).
 */
ETW_API etw_status etw_consumer_set_loss_callback(etw_consumer *consumer, etw_loss_callback callback);

/**
 * Sets (or clears) the raw buffer callback of a live consumer: each buffer's
 * bytes, header included, before its records. ETW_ERROR_BUSY while
 * processing. File consumers never call it.
 */
ETW_API etw_status etw_consumer_set_raw_buffer_callback(etw_consumer *consumer, etw_raw_buffer_callback callback);

/**
 * Reads a stack item (ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 or _STACK_TRACE32:
 * EVENT_EXTENDED_ITEM_STACK_TRACE64/32): *out_match_id (may be NULL) receives its
 * MatchId, *out_count the number of addresses it holds, and addresses the first
 * min(count, capacity) of them, innermost first (32-bit ones widened). addresses may be
 * NULL when capacity is 0. ETW_ERROR_INVALID_PARAMETER for NULL item or out_count, or an
 * item of another type; ETW_ERROR_INVALID_DATA for a data size that is no stack's (less
 * than the MatchId, or not a whole number of addresses); ETW_ERROR_MORE_DATA when
 * capacity is smaller than the count (the addresses that fit are written). Thread-safe;
 * reads only the item's bytes.
 */
ETW_API etw_status etw_extended_item_stack(const etw_extended_item *item, uint64_t *out_match_id,
                                           uint64_t *addresses, uint32_t capacity, uint32_t *out_count);

/**
 * Writes the SID of a SID item (ETW_EVENT_HEADER_EXT_TYPE_SID) as text, "S-1-22-1-1000"
 * for a Unix user, NUL-terminated, to buffer (buffer_size bytes); *out_length receives
 * its length without the NUL. ETW_ERROR_INVALID_PARAMETER for NULL item, buffer or
 * out_length, or an item of another type; ETW_ERROR_INVALID_DATA for bytes that are no
 * SID (revision 1, at most 15 subauthorities, the size they make);
 * ETW_ERROR_INSUFFICIENT_BUFFER when the text and its NUL do not fit (*out_length says
 * how long it is; at most 184 characters). Thread-safe.
 */
ETW_API etw_status etw_extended_item_sid_string(const etw_extended_item *item, char *buffer, uint32_t buffer_size,
                                                uint32_t *out_length);

/** Canonical name of a record kind ("system", "event", ...); "unknown" otherwise. Static text. */
ETW_API const char *etw_record_kind_name(uint32_t kind);

ETW_END_DECLS

#endif /* OPENETW_CONSUMER_H */
