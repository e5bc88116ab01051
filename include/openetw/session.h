/*
 * openetw/session.h - trace sessions: StartTrace, ControlTrace,
 * QueryAllTraces and EnableTraceEx2.
 *
 * A session collects events from the providers it enables into buffers
 * (per processor, or one stream with ETW_NO_PER_PROCESSOR_BUFFERING) and a
 * logger thread writes full buffers to an .etl log file, delivers them to
 * live consumers, or keeps them in memory. A session keeps running until
 * it is stopped, whatever happens to the handles that refer to it and to
 * the process that started it.
 *
 * The session host: on Linux, etw_session_start hands the session to the
 * namespace's session host (openetw-hostd: one per user, one system-wide
 * for root; started on demand when none runs, or by systemd), which owns
 * its buffers, logger thread and log file from then on. Control calls from
 * any process are requests to the host, authorised by the caller's user as
 * the kernel reports it (etw_session_grant); providers write straight into
 * the session's shared buffers and live consumers read them, with no round
 * trip to the host. When no host can be reached or started (openetw-hostd
 * not installed beside the library or in its libexec folder and
 * $OPENETW_HOSTD unset, or the namespace's folder unfit), the start fails
 * and says why: a session never ends with its starter unless asked to.
 * Asking: ETW_SESSION_IN_PROCESS (etw_session_start_ex), or the
 * environment below. The session then runs in the calling process and ends
 * with it (etw_session_get_host_info says is_local); so it does on Windows.
 * Private sessions (ETW_PRIVATE_LOGGER_MODE) always run in their process.
 * Environment: OPENETW_REGISTRY=PATH chooses the namespace (none: sessions
 * are process-local); OPENETW_HOST=inprocess makes each process host what
 * it starts (the sessions end with it).
 *
 * Real-time mode (ETW_REAL_TIME_MODE, alone or with a log file): every
 * buffer the logger flushes is queued for the live consumers
 * (etw_consumer_open_session in consumer.h); each attached consumer gets
 * every buffer, in flush order. While no consumer is attached, at most the
 * backlog limit of buffers is kept (etw_session_options.
 * realtime_backlog_buffers; by default and at most MaximumBuffers minus one
 * per buffer stream) and the first consumer to attach gets them oldest
 * first. When the backlog is full and no consumer is attached, a session
 * without a log file refuses new events with ETW_ERROR_LOG_FILE_FULL
 * (counted in EventsLost) until one attaches; a buffer that arrives anyway
 * (it was being filled) is dropped. RealTimeBuffersLost counts exactly the
 * buffers no consumer got (dropped, or left when the session stopped with no
 * consumer attached); without a log file their events are added to
 * EventsLost, so delivered + EventsLost == events written. With a log file
 * every buffer is still written to the file and no event is refused.
 * FlushTimer 0 means 1 second in real-time mode. A slow consumer holds its
 * buffers, so the pool grows to MaximumBuffers and then events are dropped
 * (EventsLost), unless the session is lossless.
 *
 * Buffering mode (ETW_BUFFERING_MODE): an in-memory flight recorder.
 * MinimumBuffers (adjusted) are allocated once; MaximumBuffers and
 * FlushTimer are ignored. Full buffers are kept, and the oldest is reused
 * when a writer needs one (one buffer per stream is kept free for that).
 * Nothing is written until etw_session_flush (to the session's log file
 * name) or etw_session_flush_to_file: each flush writes the buffers held,
 * oldest first, as a complete .etl, and keeps them. Stopping does not write.
 *
 * Lossless sessions (ETW_SESSION_LOSSLESS, an OpenETW extension): a writer
 * that finds no free buffer, or a real-time backlog refusing events, waits
 * up to lossless_timeout_ms for space instead of dropping the event; only
 * after that wait is the event dropped (and counted). The wait happens in
 * etw_provider_trace_event, so only writers that may block should use it.
 *
 * Handles: etw_session_start and etw_session_open return an etw_session
 * handle that the caller releases with etw_session_close. Closing a handle
 * does not stop the session; stopping a session does not free the handle.
 * Calls through a handle whose session has stopped return
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND.
 *
 * Properties: start, query, update, flush and stop read or write an
 * etw_properties object (properties.h) the caller owns. The object is not
 * synchronized: do not use one object from two threads at once.
 *
 * Threads: every function here may be called from any thread, concurrently
 * with each other and with event writing (provider.h). Statistics are read
 * atomically member by member.
 */
#ifndef OPENETW_SESSION_H
#define OPENETW_SESSION_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "records.h"
#include "properties.h"
#include "filter.h"

ETW_BEGIN_DECLS

/** Opaque handle to a running (or stopped) session. */
typedef struct etw_session etw_session;

/**
 * Starts a session (StartTrace) from props and returns a handle in *out.
 *
 * Before starting, the output members of props (statistics,
 * Wnode.HistoricalContext) are cleared, so a properties object can be reused
 * after a stop. The rules of etw_properties_validate apply, and:
 * - the session name must not be in use by a running session (compared
 *   case-insensitively): ETW_ERROR_ALREADY_EXISTS;
 * - Wnode.Guid is generated when it is all zero; two running sessions may
 *   not share one: ETW_ERROR_ALREADY_EXISTS;
 * - at most etw_session_max_sessions() sessions run at once:
 *   ETW_ERROR_NO_SYSTEM_RESOURCES;
 * - the log file's folder must exist: ETW_ERROR_PATH_NOT_FOUND;
 * - ETW_BUFFERING_MODE with ETW_REAL_TIME_MODE or a file mode:
 *   ETW_ERROR_INVALID_PARAMETER; a buffering session's log file (optional)
 *   is not created at start, but its folder must exist;
 * - ETW_FILE_MODE_APPEND to an existing file needs the same BufferSize,
 *   clock type and processor count as the file: ETW_ERROR_INVALID_PARAMETER.
 * - ETW_PRIVATE_LOGGER_MODE: Wnode.Guid must be the control GUID of the
 *   provider to log (ETW_ERROR_INVALID_PARAMETER when zero); the session
 *   enables that provider (every level) in this process only; "_<pid>" is
 *   appended to the log file name (not twice when props is reused); events
 *   carry ProcessorTime (100 ns units) instead of KernelTime/UserTime.
 *
 * On success props receives the adjusted values: MinimumBuffers raised to
 * at least 2 per processor (2 in all without per-processor buffering),
 * MaximumBuffers raised to at least that (0: that minimum plus 20, and at
 * least 16 MiB of buffers, as Windows picks a default), both capped at ETW_MAX_BUFFERS and
 * at 4 GiB of buffers; Wnode.ClientContext (0 becomes 1; 3 becomes 2 where
 * there is no cycle counter); the GUID; the log file name; the statistics;
 * LoggerThreadId; and Wnode.HistoricalContext = etw_session_handle(*out).
 * On failure props is unchanged but for its cleared output members, and the
 * thread's last error message names the member at fault.
 * Other statuses: ETW_ERROR_INVALID_PARAMETER (NULL arguments, bad members),
 * ETW_ERROR_OUTOFMEMORY, file errors (ETW_ERROR_ACCESS_DENIED, ...), and
 * from the session host: ETW_ERROR_ACCESS_DENIED (the namespace's host runs
 * as another user, or the namespace's folder belongs to another user or is
 * writable by others), ETW_ERROR_FILE_NOT_FOUND (no host runs and
 * openetw-hostd is not found, or the host started does not answer),
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND (it died before answering). A relative log file name is the caller's: it is made
 * absolute before the host sees it. A log file that cannot be created leaves no name, region or file behind.
 */
ETW_API etw_status etw_session_start(etw_session **out, etw_properties *props);

/* ---- etw_session_options.flags ---- */
#define ETW_SESSION_LOSSLESS 0x1u /* writers wait (bounded) for space instead of dropping */
/* Start only (not reported by etw_session_get_options): when an orphaned
 * session (ETW_SESSION_HOST_ORPHANED) holds the name, stop it first (as
 * etw_session_stop does: its log file finished) and start in its place. A
 * session whose host is alive still gives ETW_ERROR_ALREADY_EXISTS. */
#define ETW_SESSION_REPLACE_ORPHAN 0x2u
/* Start only: take over the orphaned session holding the name and go on
 * logging. The orphan is stopped as with ETW_SESSION_REPLACE_ORPHAN (every
 * committed buffer, in its file or still in its memory, written), then the
 * session starts again in the caller with the orphan's last published
 * settings (props gives only the name; it receives what started), appending
 * to its sequential log file, and with the providers it had enabled enabled
 * again, so providers in other processes go on logging into it.
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND when no orphan has the name;
 * ETW_ERROR_ALREADY_EXISTS when its host is alive. */
#define ETW_SESSION_TAKE_OVER_ORPHAN 0x4u
/* Start only: run the session in the calling process rather than in the
 * session host; it ends with the process (is_local in
 * etw_session_get_host_info) and is this process's alone, as with
 * OPENETW_REGISTRY=none: other processes neither list nor control it.
 * Without it, a start that cannot reach a session host fails (see above). */
#define ETW_SESSION_IN_PROCESS 0x8u

/**
 * Options beyond EVENT_TRACE_PROPERTIES. Set struct_size to
 * sizeof(etw_session_options); zero members take their defaults.
 */
typedef struct etw_session_options {
    uint32_t struct_size;
    uint32_t flags;                    /* ETW_SESSION_* */
    uint32_t lossless_timeout_ms;      /* longest wait of a lossless writer; 0 = 1000 */
    uint32_t realtime_backlog_buffers; /* buffers kept with no consumer; 0 = the maximum
                                          (MaximumBuffers minus one per stream); capped there */
    /* Added in 1.1 (read when struct_size covers it): */
    uint32_t profile_interval; /* a system logger's sampled profile (EVENT_TRACE_FLAG_PROFILE):
                                  the interval in 100 ns units, as TRACE_PROFILE_INTERVAL
                                  (TraceSampledProfileIntervalInfo) gives it; 0 = 10000 (1 ms);
                                  else 1221 to 10000000 (ETW_ERROR_INVALID_PARAMETER outside) */
    /* Added in 1.2 (read when struct_size covers it; start only): session-level filters
       (EVENT_TRACE_PROPERTIES_V2.FilterDesc), applied to every provider the session
       enables: ETW_EVENT_FILTER_TYPE_PID and _EXECUTABLE_NAME only (another type:
       ETW_ERROR_NOT_SUPPORTED; bad ones as etw_session_enable_provider_ex says). */
    uint32_t filter_count;
    const etw_event_filter_descriptor *filters;
} etw_session_options;

/** sizeof the first version of etw_session_options (through realtime_backlog_buffers). */
#define ETW_SESSION_OPTIONS_V1_SIZE 16u

/* A system logger's profile interval, in 100 ns units, as Windows takes it
   (TRACE_PROFILE_INTERVAL, xperf -setprofint): 1 ms by default, 0.1221 ms to 1 s. */
#define ETW_DEFAULT_PROFILE_INTERVAL 10000u
#define ETW_MIN_PROFILE_INTERVAL 1221u
#define ETW_MAX_PROFILE_INTERVAL 10000000u

/**
 * A kernel event by its class GUID and event type, as CLASSIC_EVENT_ID
 * names it (TraceSetInformation's TraceStackTracingInfo).
 */
typedef struct etw_classic_event_id {
    etw_guid event_guid;
    uint8_t type;
    uint8_t reserved[7];
} etw_classic_event_id;

/** The most events etw_session_set_stack_tracing takes, as Windows. */
#define ETW_MAX_STACK_TRACING_EVENTS 256u

/**
 * etw_session_start with options (NULL: as etw_session_start).
 * ETW_ERROR_INVALID_PARAMETER when options->struct_size is smaller than the
 * first version of the struct (ETW_SESSION_OPTIONS_V1_SIZE), flags has
 * unknown bits or profile_interval is out of its range. Members past
 * struct_size take their defaults.
 */
ETW_API etw_status etw_session_start_ex(etw_session **out, etw_properties *props, const etw_session_options *options);

/**
 * The options the session runs with, defaults applied (realtime_backlog_buffers
 * is the effective limit, profile_interval the interval in force). out->struct_size
 * must be set; at most that many bytes are written, and struct_size is set to
 * what was. ETW_ERROR_INVALID_PARAMETER for NULL or a struct_size below
 * ETW_SESSION_OPTIONS_V1_SIZE.
 * A session of another process: a request to its host (ETW_ERROR_ACCESS_DENIED
 * without ETW_SESSION_RIGHT_CONTROL, ETW_ERROR_WMI_INSTANCE_NOT_FOUND when it
 * stopped or is orphaned).
 */
ETW_API etw_status etw_session_get_options(etw_session_options *out, const etw_session *session);

/**
 * Chooses the kernel events of a running system logger session that carry
 * their call stack (TraceSetInformation with TraceStackTracingInfo; xperf's
 * -stackwalk): each chosen event is followed, in its processor's buffers,
 * by a StackWalk/Stack record (the event's timestamp, process and thread,
 * then its frames, innermost first: kernel frames, then user frames). The
 * list replaces the previous one; count 0 turns stacks off. Served: the
 * events made from perf samples, which carry call chains (docs/KERNEL_LOGGER.md,
 * "Stacks"): PerfInfo (ce1dbfb4-137e-4da6-87b0-3f59aa102cbc) SampleProfile
 * 46, SysClEnter 51, SysClExit 52; Thread (3d6fa8d1-fe05-11d0-9dda-00c04fd7ba7c)
 * CSwitch 36; TcpIp (9a280ac0-c8e0-11d1-84e2-00c04fb998a2) 10, 11, 26, 27;
 * PageFault (3d6fa8d3-fe05-11d0-9dda-00c04fd7ba7c) 11, 12, 15.
 * ETW_ERROR_INVALID_PARAMETER (session NULL, events NULL with a count,
 * count above ETW_MAX_STACK_TRACING_EVENTS); ETW_ERROR_NOT_SUPPORTED (not a
 * system logger, or an event whose stacks this system cannot take, named;
 * nothing changes then); a session of another process: a request to its
 * host (ETW_ERROR_ACCESS_DENIED without ETW_SESSION_RIGHT_CONTROL,
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND when it stopped). Any thread; events is
 * read during the call only.
 */
ETW_API etw_status etw_session_set_stack_tracing(etw_session *session, const etw_classic_event_id *events,
                                                 uint32_t count);

/**
 * Parses a list of kernel events, as xperf's -stackwalk names them, for
 * etw_session_set_stack_tracing: names separated by ',', '+', '|' or
 * spaces, any case, each an xperf stackwalk flag ("Profile", "CSwitch",
 * "ReadyThread", "SyscallEnter", "FileRead", "PagefaultDemandZero"...) or
 * 0xmmnn (class group mm, event type nn, as xperf takes a custom event);
 * "none" alone is the empty list (stacks off). docs/KERNEL_LOGGER.md lists
 * the names. Writes up to capacity events to events and the number the
 * list holds to *out_count. Statuses: ETW_OK; ETW_ERROR_MORE_DATA when
 * capacity is smaller than *out_count (events then holds the first
 * capacity); ETW_ERROR_INVALID_PARAMETER for NULL text or out_count, events NULL with a
 * capacity, an empty list, an unknown name or a group with no kernel class
 * (named in the last error message). Which events this system serves is
 * for etw_session_set_stack_tracing to say. No state: any thread.
 */
ETW_API etw_status etw_stack_events_parse(etw_classic_event_id *events, uint32_t capacity,
                                          uint32_t *out_count, const char *text);

/**
 * Changes the sampled-profile interval of a running system logger session
 * (TraceSetInformation with TraceSampledProfileIntervalInfo; xperf's
 * -setprofint), in 100 ns units, ETW_MIN_PROFILE_INTERVAL to
 * ETW_MAX_PROFILE_INTERVAL. With EVENT_TRACE_FLAG_PROFILE on, the profile's
 * source reopens at the new interval at once (the samples the old one took
 * are still written); otherwise the interval serves when the flag is turned
 * on. etw_session_get_options reports it afterwards. Windows has one
 * interval for the machine; here each system logger has its own.
 * ETW_ERROR_INVALID_PARAMETER (session NULL, an interval out of the range,
 * named); ETW_ERROR_NOT_SUPPORTED (not a system logger); a failure to reopen
 * the source is reported as the start reports it, and leaves the interval
 * in force unchanged. A session of another process: a request to its host
 * (ETW_ERROR_ACCESS_DENIED without ETW_SESSION_RIGHT_CONTROL,
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND when it stopped). Any thread.
 */
ETW_API etw_status etw_session_set_profile_interval(etw_session *session, uint32_t interval_100ns);

/**
 * Opens a running session by name (case-insensitive) to control it; the
 * handle is released with etw_session_close. ETW_ERROR_WMI_INSTANCE_NOT_FOUND
 * when no running session has that name; ETW_ERROR_INVALID_PARAMETER for NULL.
 * A session of another process (system-wide sessions) opens too: query,
 * update, flush, stop, enable_provider and grant on the handle are requests
 * its host serves, and return ETW_ERROR_ACCESS_DENIED when the session
 * grants this process's user no ETW_SESSION_RIGHT_CONTROL (see
 * etw_session_grant), ETW_ERROR_WMI_INSTANCE_NOT_FOUND when the host stopped
 * the session or died before answering.
 */
ETW_API etw_status etw_session_open(etw_session **out, const char *session_name);

#define ETW_SESSION_HOST_RUNNING 1u  /* the host process is alive */
#define ETW_SESSION_HOST_ORPHANED 2u /* the host process died: stop the session to free its name */

/** Where a session runs. Set struct_size to sizeof(etw_session_host_info). */
typedef struct etw_session_host_info {
    uint32_t struct_size;
    uint32_t process_id; /* the host process (openetw-hostd, or the process that started it) */
    uint32_t state;      /* ETW_SESSION_HOST_* */
    uint32_t is_local;   /* 1 when the calling process is the host: the session ends with it */
} etw_session_host_info;

/**
 * Fills out with the session's host process and state.
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND when the session has stopped;
 * ETW_ERROR_INVALID_PARAMETER for NULL or a small struct_size.
 * An orphan (its host was killed) is finished by the next session host,
 * which starts with the next etw_session_start or etw_session_stop of the
 * namespace: stopping it returns its final statistics.
 */
ETW_API etw_status etw_session_get_host_info(etw_session_host_info *out, etw_session *session);

/** Releases a handle; the session keeps running. NULL is accepted. */
ETW_API void etw_session_close(etw_session *session);

/** The session handle value (Wnode.HistoricalContext); 0 for NULL. */
ETW_API uint64_t etw_session_handle(const etw_session *session);

/**
 * Stops the session (ControlTrace STOP): disables its providers (their
 * enable callbacks run on this thread), writes every buffer, finishes the log
 * file (the header buffer rewritten with the final BuffersWritten, EndTime,
 * EventsLost and BuffersLost) and joins the logger thread. If props is not
 * NULL it receives the final settings and statistics. The handle stays valid
 * until closed. ETW_ERROR_WMI_INSTANCE_NOT_FOUND when already stopped; a file
 * error met while finishing is returned after the session has stopped.
 * An orphaned session (ETW_SESSION_HOST_ORPHANED) stops here too: its name
 * is freed and its log file finished with every whole buffer its host wrote
 * (BuffersWritten in props); ETW_ERROR_INVALID_DATA, the name freed all the
 * same, when that file does not start with an .etl header buffer.
 */
ETW_API etw_status etw_session_stop(etw_session *session, etw_properties *props);

/** Copies the current settings and statistics into props (ControlTrace QUERY). */
ETW_API etw_status etw_session_query(etw_session *session, etw_properties *props);

/**
 * Changes a running session (ControlTrace UPDATE) from props: FlushTimer
 * (seconds; 0 disables timed flushing, or means 1 s in real-time mode),
 * MaximumBuffers (0 keeps it; never below the buffers already allocated; at
 * most the session's region capacity; ignored in buffering mode),
 * EnableFlags (system loggers only, else ETW_ERROR_INVALID_PARAMETER), and
 * the log file name: a different name finishes the current file and
 * continues in the new one (not for NEWFILE sessions; a real-time session
 * without a file starts writing one; a buffering session flushes there
 * from then on). Other members are ignored. props then receives the current
 * settings and statistics.
 */
ETW_API etw_status etw_session_update(etw_session *session, etw_properties *props);

/**
 * Flushes (ControlTrace FLUSH): every buffer holding events is handed to the
 * logger, and the call returns when the logger has written them to the log
 * file and queued them for real-time consumers. A buffering session writes
 * its buffers to its log file name instead (see the top of this header;
 * ETW_ERROR_INVALID_PARAMETER when it has none). props may be NULL;
 * otherwise it receives the statistics after the flush.
 */
ETW_API etw_status etw_session_flush(etw_session *session, etw_properties *props);

/**
 * Buffering sessions: writes the buffers held, oldest first, as a complete
 * .etl file at path (UTF-8; created or truncated), and keeps them.
 * ETW_ERROR_INVALID_PARAMETER for NULL or a session not in buffering mode,
 * ETW_ERROR_PATH_NOT_FOUND when the folder is missing, file errors.
 * props may be NULL; otherwise it receives the statistics. A session in the
 * session host: the host writes the file, as its own user, so only that
 * user or root may ask (ETW_ERROR_ACCESS_DENIED for a user with a control
 * grant); a relative path is the caller's. Paths are at most 1024
 * characters there.
 */
ETW_API etw_status etw_session_flush_to_file(etw_session *session, const char *path, etw_properties *props);

/**
 * Lists the running sessions (QueryAllTraces). *out_count receives the
 * number of running sessions; the first min(count, array_count) objects of
 * array (created by the caller with etw_properties_create) receive each
 * session's name, log file name, settings and statistics.
 * ETW_ERROR_MORE_DATA when array_count is smaller than the count (the
 * objects that fit are filled). array may be NULL when array_count is 0.
 */
ETW_API etw_status etw_session_list(uint32_t *out_count, etw_properties *const *array, uint32_t array_count);

#define ETW_CONTROL_CODE_DISABLE_PROVIDER 0u
#define ETW_CONTROL_CODE_ENABLE_PROVIDER 1u
#define ETW_CONTROL_CODE_CAPTURE_STATE 2u /* EVENT_CONTROL_CODE_CAPTURE_STATE */

/**
 * Enables or disables a provider for this session (EnableTraceEx2). The
 * provider need not be registered yet: it is enabled when it registers.
 * control_code: ETW_CONTROL_CODE_ENABLE_PROVIDER (again to change level or
 * keywords) or ETW_CONTROL_CODE_DISABLE_PROVIDER. level: the highest event
 * level the session takes (ETW_LEVEL_*, 0 = every level); events of a higher
 * level are not written to this session (events of level 0 always are).
 * match_any_keyword: the flags handed to the provider (0 = all).
 * Registered providers of that GUID are notified on this thread.
 * ETW_CONTROL_CODE_CAPTURE_STATE asks the provider to log its state
 * (EVENT_CONTROL_CODE_CAPTURE_STATE): the session must enable the provider
 * already (else ETW_ERROR_WMI_GUID_NOT_FOUND, and nothing is called; the
 * Windows documentation names no status for this). Every registration of
 * the GUID that the session enables, in this process and in others, has its
 * enable callback called once with is_enabled = ETW_CONTROL_CODE_CAPTURE_STATE
 * (2) and this call's level and keywords; nothing about the enablement
 * changes, and the events the callback logs go to every session enabling the
 * provider (each filtering by its own level and keywords). This process's
 * registrations are called on this thread before the call returns; other
 * processes' on their notification thread, a moment later. A registration
 * made after the request does not get it. Requests for a session hosted in
 * another process are kept there, the last 16 of them per session: a
 * process whose notification thread falls more than 16 requests behind
 * (callbacks slower than requests) gets the newest 16 and misses the older.
 * ETW_ERROR_INVALID_PARAMETER for NULL or another control code, or for a
 * private session and a GUID other than its own; a session of another
 * process: ETW_ERROR_ACCESS_DENIED without ETW_SESSION_RIGHT_CONTROL; a
 * ninth session enabling one GUID (sessions of one process; system-wide
 * sessions, in their host): ETW_ERROR_NO_SYSTEM_RESOURCES, as EnableTraceEx2
 * allows "up to eight trace sessions" per provider.
 */
ETW_API etw_status etw_session_enable_provider(etw_session *session, const etw_guid *provider_guid,
                                               uint32_t control_code, uint8_t level, uint64_t match_any_keyword,
                                               uint64_t match_all_keyword);

/*
 * Enable properties (ENABLE_TRACE_PARAMETERS.EnableProperty, ETW_EVENT_ENABLE_PROPERTY_*
 * in filter.h, given to etw_session_enable_provider_ex):
 * what a session asks of a provider's EVENT_HEADER events (etw_provider_write_event),
 * each written as an extended data item (etw_extended_item) in this order:
 *   SID               ETW_EVENT_HEADER_EXT_TYPE_SID: the writer's effective user id as the
 *                     binary SID S-1-22-1-<uid> (etw_extended_item_sid_string)
 *   TS_ID             ETW_EVENT_HEADER_EXT_TYPE_TS_ID: a 32-bit session id; on POSIX the
 *                     writing process's session (getsid), on Windows its Remote Desktop
 *                     Services session
 *   PROCESS_START_KEY ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY: 64 bits unique to the
 *                     writing process within the boot: on Linux its start time in clock
 *                     ticks after boot plus 1, shifted left 22 bits, or'ed with its pid
 *   EVENT_KEY         ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY: 64 bits unique to the event
 *                     within the writing process, the same in every session it goes to
 *   STACK_TRACE       ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 (STACK_TRACE32 in a 32-bit
 *                     process): MatchId 0 and the writing thread's return addresses,
 *                     innermost first, at most 192 (a deeper stack loses its outermost
 *                     frames); etw_extended_item_stack reads them. Before the first such
 *                     event of a process in a session, the process's loaded images are
 *                     written to it (Image/DCStart and ImageID/DbgID_RSDS records with
 *                     ELF build ids) so that the addresses resolve offline (etwdump).
 *   IGNORE_KEYWORD_0  no item: events whose keyword is 0 are not written to the session.
 * Classic events (etw_provider_trace_event) have no extended data: they carry none of
 * the items, and IGNORE_KEYWORD_0 (a filter on an event descriptor's keyword) leaves
 * them alone. A session with no property costs the writers nothing.
 */

/**
 * etw_session_enable_provider with enable parameters (EnableTraceEx2 with
 * ENABLE_TRACE_PARAMETERS): level and keywords, enable_property
 * (ETW_EVENT_ENABLE_PROPERTY_*, kept with the enablement and carried to
 * providers of other processes) and filters at the source (filter.h,
 * docs/FILTERS.md). params NULL: level 0, all keywords, no filter. Enabling
 * again replaces the level, keywords, properties and filters; disabling
 * ignores params. The filters are copied: the caller's buffers may be freed
 * when this returns. The session's own filters (etw_session_options.filters)
 * apply as well.
 * Statuses: as etw_session_enable_provider; ETW_ERROR_INVALID_PARAMETER for
 * a struct_size too small, unknown enable_property bits, more than
 * ETW_MAX_EVENT_FILTERS_COUNT filters, filters NULL with a count, a filter
 * with a NULL Ptr, a Size of 0 or above its type's limit, a type given twice,
 * a payload whose own sizes or counts disagree with Size (more than
 * ETW_MAX_EVENT_FILTER_PID_COUNT pids, 0 or more than
 * ETW_MAX_EVENT_FILTER_EVENT_ID_COUNT ids, names not NUL-terminated...);
 * ETW_ERROR_NOT_SUPPORTED for a filter type OpenETW does not implement
 * (PACKAGE_ID, PACKAGE_APP_ID, CONTAINER, STACKWALK_NAME,
 * STACKWALK_LEVEL_KW, SYSTEM_FLAGS, TRACEHANDLE) or a payload operator it
 * does not (IS, ISNOT). The last error message names the filter by
 * its index and what was wrong. Thread-safe.
 */
ETW_API etw_status etw_session_enable_provider_ex(etw_session *session, const etw_guid *provider_guid,
                                                  uint32_t control_code, const etw_enable_parameters *params);

/* ---- Rights over a system-wide session (etw_session_grant) ---- */
#define ETW_SESSION_RIGHT_CONTROL 0x1u /* query, update, flush, stop, enable providers, grant */
#define ETW_SESSION_RIGHT_LOG 0x2u     /* the user's providers log into the session */
#define ETW_SESSION_RIGHT_CONSUME 0x4u /* the user's real-time consumers attach */
#define ETW_SESSION_RIGHT_ALL 0x7u

/**
 * Sets the rights of user user_id over the session (EventAccessControl):
 * ETW_SESSION_RIGHT_* bits, replacing what the user had (0 revokes). A
 * session is owner-only when it starts: its host's user and root hold every
 * right; any other user's control request, provider or real-time consumer
 * gets ETW_ERROR_ACCESS_DENIED until granted. Rights are checked by the host
 * against the user the kernel reports for each caller. Works on a session
 * hosted here or, for a caller with the control right, in another process.
 * At most 16 users hold grants per session (ETW_ERROR_NO_SYSTEM_RESOURCES).
 * ETW_ERROR_INVALID_PARAMETER for NULL or unknown bits;
 * ETW_ERROR_NOT_SUPPORTED for a private session or where sessions are not
 * system-wide (OPENETW_REGISTRY=none, Windows). Thread-safe.
 */
ETW_API etw_status etw_session_grant(etw_session *session, uint32_t user_id, uint32_t rights);

/**
 * Sets how many sessions may run at once (default ETW_DEFAULT_MAX_SESSIONS).
 * Running sessions are not affected. ETW_ERROR_INVALID_PARAMETER for 0.
 */
ETW_API etw_status etw_session_set_max_sessions(uint32_t max_sessions);
/** The current maximum number of sessions. */
ETW_API uint32_t etw_session_max_sessions(void);

ETW_END_DECLS

#endif /* OPENETW_SESSION_H */
