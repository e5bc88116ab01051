/*
 * openetw/provider.h - event providers: RegisterTraceGuids / EventRegister,
 * enable notifications, TraceEvent (EVENT_TRACE_HEADER records) and EventWrite
 * (EVENT_HEADER records that keep their descriptor), activity ids.
 *
 * A provider registers a control GUID, learns through its enable callback
 * when sessions enable or disable it, checks cheaply whether it is enabled
 * for a level, and writes events with EVENT_TRACE_HEADER semantics. An event
 * goes to every running session that enabled the provider's GUID and whose
 * level admits it.
 *
 * Threads: etw_provider_trace_event, etw_provider_write_event,
 * etw_activity_id_control and etw_provider_is_enabled may be called
 * from any number of threads at once, concurrently with session control.
 * They take no lock, make no system call in the common case, never allocate
 * and never set the thread's last error message. etw_provider_unregister must
 * not run concurrently with other calls on the same provider.
 */
#ifndef OPENETW_PROVIDER_H
#define OPENETW_PROVIDER_H

#include <stdint.h>
#include "export.h"
#include "status.h"
#include "records.h"
#include "filter.h"

ETW_BEGIN_DECLS

/** Opaque provider registration. */
typedef struct etw_provider etw_provider;

/** What an enable callback receives: the provider's state after the change. */
typedef struct etw_provider_enable_info {
    uint32_t struct_size;       /* sizeof(etw_provider_enable_info) */
    uint32_t is_enabled;        /* 1 while any session enables the provider */
    uint32_t level;             /* highest level any session takes; 0 = every level */
    uint32_t reserved;
    uint64_t match_any_keyword; /* OR of the sessions' flags (all bits when one gave 0) */
    uint64_t match_all_keyword; /* AND of the sessions' match-all keywords */
    uint64_t session_handle;    /* the session whose change caused this call (0 at registration) */
    /* Added in 1.2: the SCHEMATIZED filter (ETW_EVENT_FILTER_TYPE_SCHEMATIZED) that
       session enabled the provider with, as EnableCallback's FilterData; NULL when
       it gave none. Valid during the call. (filter.h) When it holds at least an
       EVENT_FILTER_HEADER (24 bytes), the library has set the header's InstanceId
       (bytes 8..15, a copy: the controller's bytes are unchanged) to the session's
       identifier, one bit, which etw_provider_write_event_ex's filter takes to
       skip that session, as Windows sets it for EventWriteEx. */
    const etw_event_filter_descriptor *filter_data;
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t reserved_pad32; /* explicit tail padding on 32-bit targets */
#endif
} etw_provider_enable_info;

/**
 * Enable notification. For a session of this process it is called on the
 * thread that enables or disables the provider (etw_session_enable_provider,
 * etw_session_start of a private session, etw_session_stop), or on the
 * registering thread when a session already enables it. For a session of
 * another process (system-wide sessions, docs/SYSTEM_SESSIONS.md) it is
 * called on the registering thread when that session already enables the
 * provider, and otherwise on the library's notification thread of this
 * process (one, started by the first registration), as Windows calls it on a
 * thread of its own. Always with no library lock held, so it may call back
 * into the library. info is valid during the call.
 */
typedef void (*etw_provider_enable_callback)(const etw_provider_enable_info *info, void *user_data);
/** Frees user_data; called exactly once, by etw_provider_unregister. */
typedef void (*etw_user_data_free)(void *user_data);

/**
 * Registers a provider for guid (several registrations of one GUID are
 * allowed). callback and user_data_free may be NULL. If a session already
 * enables the GUID, the callback runs before this returns. Sessions of other
 * processes enable it too when their host runs as this process's user or
 * root and admits it (ETW_SESSION_RIGHT_LOG, see etw_session_grant); its
 * events then go straight into their shared buffers. On success the
 * library owns user_data (freed with user_data_free at unregister); on
 * failure it does not. ETW_ERROR_INVALID_PARAMETER for NULL out or guid.
 */
ETW_API etw_status etw_provider_register(etw_provider **out, const etw_guid *guid,
                                         etw_provider_enable_callback callback, void *user_data,
                                         etw_user_data_free user_data_free);

/**
 * Unregisters and frees the provider. When it returns, no callback of this
 * provider is running or will run (a callback running on this very thread,
 * when unregister is called from inside it, finishes after it returns), and
 * user_data_free has run once. NULL is accepted.
 */
ETW_API void etw_provider_unregister(etw_provider *provider);

/**
 * 1 if some session would take an event of this level and keyword, by the
 * rules etw_provider_write_event applies per session (EventEnabled,
 * EventProviderEnabled): level 0, or level at most the session's (a session
 * enabled at level 0 takes every level); and keyword (flags) 0, or keyword
 * sharing a bit with the session's MatchAnyKeyword (0 there: every bit) and
 * holding every bit of its MatchAllKeyword. Else 0. 0 for NULL.
 */
ETW_API int etw_provider_is_enabled(const etw_provider *provider, uint8_t level, uint64_t flags);

/**
 * The provider's enabled word: non-zero while some session enables the
 * provider, 0 otherwise. Testing it inline before building an event
 * (`if (*word) ...`) costs one load and a branch and no call, like
 * EventEnabled or an LTTng tracepoint's own check; it is a hint that may be
 * a moment late (etw_provider_trace_event checks again, and
 * etw_provider_is_enabled also filters by level and flags). The pointer stays
 * valid until etw_provider_unregister; the library owns the word. Any thread.
 * NULL for NULL.
 */
ETW_API const volatile uint32_t *etw_provider_enabled_word(const etw_provider *provider);

/**
 * Writes an event (TraceEvent) to every session that enables the provider.
 * header->Size covers the header and the payload that follows it in memory,
 * or, with ETW_WNODE_FLAG_USE_MOF_PTR in Flags, the header and an array of
 * up to ETW_MAX_MOF_FIELDS etw_mof_field entries whose data is gathered
 * inline. Flags must contain ETW_WNODE_FLAG_TRACED_GUID; with
 * ETW_WNODE_FLAG_USE_GUID_PTR the class GUID is read through GuidPtr (the
 * real GUID is stored). In the logged record the engine fills ThreadId,
 * ProcessId, TimeStamp (raw session clock) and KernelTime/UserTime (ticks of
 * 15.625 ms, sampled at most once a tick), or ProcessorTime in private
 * sessions; in the caller's *header it overwrites only HeaderType and
 * MarkerFlags, as TraceEvent does. Class.Level filters per session.
 * Returns ETW_OK (also when no session enables the provider: that costs one
 * load and a branch, nothing else is checked, and nothing is logged, as
 * EventWrite for a provider no session enables; so a provider whose session
 * stopped gets ETW_OK for writes that go nowhere once it heard the stop (its
 * callback says disabled): test etw_provider_enabled_word first to tell);
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND (the event reached a session of another
 * process that is stopping, before this process heard the stop: neither
 * written nor counted, as TraceEvent's ERROR_INVALID_HANDLE for a session
 * that is gone);
 * ETW_ERROR_INVALID_FLAG_NUMBER (no TRACED_GUID); ETW_ERROR_INVALID_PARAMETER
 * (NULL, Size below 48, more than 16 MOF fields or a MOF array whose size is
 * not a multiple of 16, a NULL GuidPtr or DataPtr, a total of header and
 * data above 0xFFFF, whatever the sessions' buffer sizes);
 * ETW_ERROR_MORE_DATA (the event is not smaller than the session's buffer
 * size minus 72 bytes); ETW_ERROR_NOT_ENOUGH_MEMORY (no free buffer: the
 * event is dropped and counted in the session's EventsLost);
 * ETW_ERROR_LOG_FILE_FULL (a real-time session's backlog is full and no
 * consumer is attached: the event is refused and counted in EventsLost).
 * In a lossless session (ETW_SESSION_LOSSLESS) the last two happen only
 * after waiting up to the session's lossless timeout for space: the call
 * then blocks, and makes system calls. With several sessions the first
 * failure is returned; the others still got the event.
 */
ETW_API etw_status etw_provider_trace_event(etw_provider *provider, etw_event_trace_header *header);

/** What an EVENT_HEADER event is (EVENT_DESCRIPTOR, Windows' layout: 16 bytes). */
typedef struct etw_event_descriptor {
    uint16_t Id;
    uint8_t Version;
    uint8_t Channel;
    uint8_t Level;
    uint8_t Opcode;
    uint16_t Task;
    uint64_t Keyword;
} etw_event_descriptor;

/** One piece of an event's user data (EVENT_DATA_DESCRIPTOR, 16 bytes). */
typedef struct etw_event_data_descriptor {
    uint64_t Ptr;      /* the address of the bytes */
    uint32_t Size;     /* their count; 0 adds nothing */
    uint32_t Reserved; /* low byte: Type, ETW_EVENT_DATA_DESCRIPTOR_TYPE_*; the other bytes 0 */
} etw_event_data_descriptor;

/* EVENT_DATA_DESCRIPTOR.Type (the low byte of Reserved): what the bytes are. */
#define ETW_EVENT_DATA_DESCRIPTOR_TYPE_NONE 0u              /* payload */
#define ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA 1u    /* TraceLogging event metadata: the EVENT_SCHEMA_TL item */
#define ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA 2u /* provider traits: the PROV_TRAITS item */

/* etw_provider_write_event's flags: EVENT_HEADER.Flags bits the caller sets. */
#define ETW_EVENT_WRITE_STRING_ONLY 0x0004u /* EVENT_HEADER_FLAG_STRING_ONLY: the data is one NUL-terminated UTF-16 string */

/* What EVENT_HEADER records hold (etw_event_record.flags, etw_extended_item.ext_type). */
#define ETW_EVENT_HEADER_FLAG_EXTENDED_INFO 0x0001u /* extended data items follow the header */
#define ETW_EVENT_HEADER_FLAG_STRING_ONLY 0x0004u   /* the user data is one NUL-terminated UTF-16 string */
#define ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID 0x0001u /* data: the related activity id (16 bytes) */
#define ETW_EVENT_HEADER_EXT_TYPE_SID 0x0002u               /* data: a binary SID (etw_extended_item_sid_string) */
#define ETW_EVENT_HEADER_EXT_TYPE_TS_ID 0x0003u             /* data: SessionId (32 bits) */
#define ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32 0x0005u     /* data: MatchId (64 bits), 32-bit addresses */
#define ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64 0x0006u     /* data: MatchId (64 bits), 64-bit addresses */
#define ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY 0x000Au         /* data: Key (64 bits) */
#define ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY 0x000Du /* data: ProcessStartKey (64 bits) */
#define ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL 0x000Bu    /* data: TraceLogging event metadata (tracelogging.h) */
#define ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS 0x000Cu        /* data: the provider's traits (etw_provider_set_traits) */

/* At most this many data descriptors per event (MAX_EVENT_DATA_DESCRIPTORS). */
#define ETW_MAX_EVENT_DATA_DESCRIPTORS 128u

/**
 * Writes an event with its descriptor (EventWriteEx without its filter) to
 * every session that enables the provider and takes its level and keyword
 * (see etw_provider_is_enabled), as an EVENT_HEADER record
 * (docs/ETL_FORMAT.md section 3.5; HeaderType 0x13, 0x12 in a 32-bit
 * process): ThreadId, ProcessId, TimeStamp and KernelTime/UserTime (or
 * ProcessorTime in private sessions) filled as etw_provider_trace_event
 * fills them, ProviderId = the provider's GUID, the descriptor as given,
 * ActivityId = *activity_id, or the calling thread's (etw_activity_id_control)
 * when NULL; related_activity_id, when not NULL, as a RELATED_ACTIVITYID
 * extended item (Flags then has EVENT_HEADER_FLAG_EXTENDED_INFO); then the
 * data descriptors' bytes, in order. flags: 0 or ETW_EVENT_WRITE_STRING_ONLY.
 * A data descriptor of Type ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA
 * (at most one) is not payload: its bytes, a TraceLogging event's metadata
 * (tracelogging.h; a UINT16 size that equals Size first, Size at least 4),
 * become the record's last extended item, EVENT_SCHEMA_TL. The provider's
 * traits (etw_provider_set_traits) become a PROV_TRAITS item before it, on
 * every event of the provider; a provider without traits takes them from a
 * descriptor of Type ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA (at
 * most one; a UINT16 size that equals Size first, Size at least 3), which
 * is ignored when it has some, as Windows does. Items are 8-byte aligned:
 * each adds 8 + Size rounded up to 8 bytes to the record. (Windows looks at
 * Type only for providers that called EventSetInformation; this library
 * always does, so payload descriptors must have Reserved 0.)
 * Returns ETW_OK (also when no session takes the event: nothing is checked
 * then when no session enables the provider at all, as for
 * etw_provider_trace_event); ETW_ERROR_INVALID_PARAMETER (NULL provider or
 * descriptor, data NULL with a count, a descriptor with Ptr 0 and a Size,
 * more than ETW_MAX_EVENT_DATA_DESCRIPTORS, an unknown flag, a Type other
 * than the three above or other bytes of Reserved set, two descriptors of
 * one metadata Type, metadata whose size prefix is not its Size);
 * ETW_ERROR_ARITHMETIC_OVERFLOW (header, items and data above 0xFFFF bytes);
 * and, per session, etw_provider_trace_event's ETW_ERROR_MORE_DATA,
 * ETW_ERROR_NOT_ENOUGH_MEMORY, ETW_ERROR_LOG_FILE_FULL and
 * ETW_ERROR_WMI_INSTANCE_NOT_FOUND (the first failure; the other sessions
 * still got the event). The caller keeps every pointer; none is kept.
 * Any thread; no lock, no allocation, no system call in the common case.
 */
ETW_API etw_status etw_provider_write_event(etw_provider *provider, const etw_event_descriptor *descriptor,
                                            uint32_t flags, const etw_guid *activity_id,
                                            const etw_guid *related_activity_id, uint32_t data_count,
                                            const etw_event_data_descriptor *data);

/**
 * etw_provider_write_event with EventWriteEx's Filter: filter is the bitwise
 * OR of the identifiers of the sessions that must not get the event, each
 * the InstanceId an enable callback found in that session's SCHEMATIZED
 * FilterData (etw_provider_enable_info.filter_data); 0: every session, as
 * etw_provider_write_event. A session's identifier is one bit, fixed while
 * it runs; sessions of one process have distinct bits (up to 64 sessions;
 * the sessions of other processes may share a bit with one of this
 * process's, whose exclusion then skips both). Statuses, threads and costs
 * as etw_provider_write_event (the filter costs one AND per session).
 */
ETW_API etw_status etw_provider_write_event_ex(etw_provider *provider, const etw_event_descriptor *descriptor,
                                               uint64_t filter, uint32_t flags, const etw_guid *activity_id,
                                               const etw_guid *related_activity_id, uint32_t data_count,
                                               const etw_event_data_descriptor *data);

/* etw_activity_id_control's codes (EVENT_ACTIVITY_CTRL_*). */
#define ETW_ACTIVITY_CTRL_GET_ID        1u /* *activity_id = the thread's id */
#define ETW_ACTIVITY_CTRL_SET_ID        2u /* the thread's id = *activity_id */
#define ETW_ACTIVITY_CTRL_CREATE_ID     3u /* *activity_id = a new unique id */
#define ETW_ACTIVITY_CTRL_GET_SET_ID    4u /* swap *activity_id and the thread's id */
#define ETW_ACTIVITY_CTRL_CREATE_SET_ID 5u /* *activity_id = the thread's id; the thread's id = a new unique id */

/**
 * The calling thread's activity id (EventActivityIdControl): the ActivityId
 * of the EVENT_HEADER events it writes without one. A thread starts with
 * the zero GUID. A created id is never the zero GUID and never repeats in
 * a process (a per-process counter); the process id and a random
 * per-process value keep processes apart. ETW_OK; ETW_ERROR_INVALID_PARAMETER for NULL
 * activity_id or an unknown code. Any thread; affects only the caller's.
 */
ETW_API etw_status etw_activity_id_control(uint32_t control_code, etw_guid *activity_id);

/* ---- Provider listing (EnumerateTraceGuidsEx) ---- */

/**
 * The provider GUIDs of the namespace (EnumerateTraceGuidsEx with
 * TraceGuidQueryList): every GUID a live process registers
 * (etw_provider_register, in this process or another of the namespace) or a
 * running session enables, each once, in byte order. Writes up to capacity
 * GUIDs to guids and the number there are to *out_count. ETW_OK;
 * ETW_ERROR_MORE_DATA when capacity is smaller than *out_count (guids then
 * holds the first capacity); ETW_ERROR_INVALID_PARAMETER for NULL out_count,
 * or guids NULL with a capacity. A process that died (even by SIGKILL) is
 * never listed. A snapshot: providers may come and go meanwhile. Any thread.
 */
ETW_API etw_status etw_provider_list(etw_guid *guids, uint32_t capacity, uint32_t *out_count);

/** A process registering a provider (TRACE_PROVIDER_INSTANCE_INFO). */
typedef struct etw_provider_process {
    uint32_t process_id;
    uint32_t registrations; /* etw_provider_register calls of the GUID not yet unregistered */
} etw_provider_process;

/** A session enabling a provider, as it did (TRACE_ENABLE_INFO). */
typedef struct etw_provider_session {
    uint64_t session_handle;    /* etw_session_handle, Wnode.HistoricalContext */
    uint64_t match_any_keyword; /* as given to etw_session_enable_provider */
    uint64_t match_all_keyword;
    uint32_t level;             /* 0 = every level */
    uint32_t filter_count;      /* event filters the session attached (0: none) */
    uint32_t enable_property;   /* EVENT_ENABLE_PROPERTY_* (0: none) */
    uint32_t reserved;
    char session_name[128];     /* UTF-8, NUL-terminated, cut at a character boundary when longer */
} etw_provider_session;

/**
 * Who registers provider guid and which sessions enable it
 * (EnumerateTraceGuidsEx with TraceGuidQueryInfo). Writes up to
 * process_capacity processes (by process id) to processes and the number
 * there are to *out_process_count (0 when sessions enable the GUID but no
 * process registers it yet), and up to session_capacity sessions to sessions
 * and their number to *out_session_count. The sessions: those of the
 * namespace's session host (any process's) and this process's own.
 * ETW_OK; ETW_ERROR_MORE_DATA when either capacity is smaller than its
 * count (both arrays then hold what fits, both counts are set);
 * ETW_ERROR_WMI_GUID_NOT_FOUND when no live process registers the GUID and
 * no running session enables it; ETW_ERROR_INVALID_PARAMETER for NULL guid
 * or counts, or an array NULL with a capacity. Any thread.
 */
ETW_API etw_status etw_provider_query(const etw_guid *guid, etw_provider_process *processes,
                                      uint32_t process_capacity, uint32_t *out_process_count,
                                      etw_provider_session *sessions, uint32_t session_capacity,
                                      uint32_t *out_session_count);

ETW_END_DECLS

#endif /* OPENETW_PROVIDER_H */
