/*
 * openetw/filter.h - filters at the source and enable parameters:
 * EVENT_FILTER_DESCRIPTOR and the filter payloads EnableTraceEx2 takes in
 * ENABLE_TRACE_PARAMETERS, laid out as Windows lays them out
 * (etw_session_enable_provider_ex in session.h takes them).
 *
 * A filter is decided in the writing process before any buffer work: an
 * event a session's filter turns away costs about what an event of a
 * disabled level does, and a process a PID or executable-name filter turns
 * away is not enabled for that session at all (its provider's enable
 * callback does not see the session). docs/FILTERS.md says what each filter
 * does, what OpenETW does not support and which status each bad filter gets.
 *
 * These are plain data: the caller owns every buffer a descriptor points
 * to, and the library copies what it keeps before the enable call returns.
 */
#ifndef OPENETW_FILTER_H
#define OPENETW_FILTER_H

#include <stdint.h>
#include "export.h"
#include "records.h"

ETW_BEGIN_DECLS

/* ---- EVENT_FILTER_DESCRIPTOR.Type ---- */
#define ETW_EVENT_FILTER_TYPE_NONE 0x00000000u
#define ETW_EVENT_FILTER_TYPE_SCHEMATIZED 0x80000000u /* handed to the enable callback (FilterData) */
#define ETW_EVENT_FILTER_TYPE_SYSTEM_FLAGS 0x80000001u
#define ETW_EVENT_FILTER_TYPE_TRACEHANDLE 0x80000002u
#define ETW_EVENT_FILTER_TYPE_PID 0x80000004u             /* uint32_t process ids */
#define ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME 0x80000008u /* "a.exe;b" NUL-terminated UTF-16 */
#define ETW_EVENT_FILTER_TYPE_PACKAGE_ID 0x80000010u
#define ETW_EVENT_FILTER_TYPE_PACKAGE_APP_ID 0x80000020u
#define ETW_EVENT_FILTER_TYPE_PAYLOAD 0x80000100u    /* etw_payload_filter */
#define ETW_EVENT_FILTER_TYPE_EVENT_ID 0x80000200u   /* etw_event_filter_event_id */
#define ETW_EVENT_FILTER_TYPE_EVENT_NAME 0x80000400u /* etw_event_filter_event_name */
#define ETW_EVENT_FILTER_TYPE_STACKWALK 0x80001000u  /* etw_event_filter_event_id */
#define ETW_EVENT_FILTER_TYPE_STACKWALK_NAME 0x80002000u
#define ETW_EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW 0x80004000u
#define ETW_EVENT_FILTER_TYPE_CONTAINER 0x80008000u

/* ---- Windows' limits (evntprov.h) ---- */
#define ETW_MAX_EVENT_FILTERS_COUNT 13u           /* descriptors in one enable call */
#define ETW_MAX_EVENT_FILTER_DATA_SIZE 1024u      /* most filter types' Size */
#define ETW_MAX_EVENT_FILTER_PAYLOAD_SIZE 4096u   /* a PAYLOAD filter's Size */
#define ETW_MAX_EVENT_FILTER_EVENT_NAME_SIZE 4096u /* an EVENT_NAME filter's Size */
#define ETW_MAX_EVENT_FILTER_PID_COUNT 8u
#define ETW_MAX_EVENT_FILTER_EVENT_ID_COUNT 64u
#define ETW_MAX_PAYLOAD_PREDICATES 8u             /* tdh.h MAX_PAYLOAD_PREDICATES */

/* ---- EVENT_ENABLE_PROPERTY_* (ENABLE_TRACE_PARAMETERS.EnableProperty) ---- */
#define ETW_EVENT_ENABLE_PROPERTY_SID 0x00000001u
#define ETW_EVENT_ENABLE_PROPERTY_TS_ID 0x00000002u
#define ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE 0x00000004u
#define ETW_EVENT_ENABLE_PROPERTY_PSM_KEY 0x00000008u
#define ETW_EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0 0x00000010u
#define ETW_EVENT_ENABLE_PROPERTY_PROVIDER_GROUP 0x00000020u
#define ETW_EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0 0x00000040u
#define ETW_EVENT_ENABLE_PROPERTY_PROCESS_START_KEY 0x00000080u
#define ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY 0x00000100u
#define ETW_EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE 0x00000200u
#define ETW_EVENT_ENABLE_PROPERTY_ENABLE_SILOS 0x00000400u
#define ETW_EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING 0x00000800u
#define ETW_EVENT_ENABLE_PROPERTY_ALL 0x00000FFFu

/* ---- EVENT_DATA_DESCRIPTOR.Type (the low byte of etw_event_data_descriptor.Reserved) ---- */
#define ETW_EVENT_DATA_DESCRIPTOR_TYPE_NONE 0u
#define ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA 1u /* TraceLogging event metadata: name, fields */
#define ETW_EVENT_DATA_DESCRIPTOR_TYPE_PROVIDER_METADATA 2u

/** One filter (EVENT_FILTER_DESCRIPTOR, 16 bytes): Ptr points to Size bytes of the Type's payload. */
typedef struct etw_event_filter_descriptor {
    uint64_t Ptr;
    uint32_t Size;
    uint32_t Type;
} etw_event_filter_descriptor;

/**
 * EVENT_FILTER_EVENT_ID: the payload of an EVENT_ID filter (FilterIn 1: only
 * these ids are written; 0: every id but these) and of a STACKWALK filter
 * (FilterIn 1: only these ids carry stacks; 0: all but these). Size is
 * 4 + 2 * Count; Count is 1..ETW_MAX_EVENT_FILTER_EVENT_ID_COUNT.
 */
typedef struct etw_event_filter_event_id {
    uint8_t FilterIn;
    uint8_t Reserved;
    uint16_t Count;
    uint16_t Events[1]; /* Count of them */
} etw_event_filter_event_id;

/**
 * EVENT_FILTER_EVENT_NAME: the payload of an EVENT_NAME filter, for
 * TraceLogging events (named in their event metadata). NameCount
 * NUL-terminated UTF-8 names follow the fixed part (20 bytes, no padding
 * before Names). The filter applies to events of level <= Level (0: every
 * level) and keyword matching MatchAny/MatchAll as a session does; such an
 * event is written when its name is listed (FilterIn 1) or not listed (0).
 * Other events pass as the session's level and keywords decide.
 */
typedef struct etw_event_filter_event_name {
    uint64_t MatchAnyKeyword;
    uint64_t MatchAllKeyword;
    uint8_t Level;
    uint8_t FilterIn;
    uint16_t NameCount;
    uint8_t Names[4]; /* the names begin here, at offset 20 (4: Windows' sizeof is 24 too) */
} etw_event_filter_event_name;

/* ---- Payload filters (OpenETW's layout of TDH's aggregated filter) ---- */
/* PAYLOAD_OPERATOR (tdh.h): how a field compares with the value. */
#define ETW_PAYLOADFIELD_EQ 0u
#define ETW_PAYLOADFIELD_NE 1u
#define ETW_PAYLOADFIELD_LE 2u
#define ETW_PAYLOADFIELD_GT 3u
#define ETW_PAYLOADFIELD_LT 4u
#define ETW_PAYLOADFIELD_GE 5u
#define ETW_PAYLOADFIELD_BETWEEN 6u    /* value "low,high", inclusive */
#define ETW_PAYLOADFIELD_NOTBETWEEN 7u /* value "low,high" */
#define ETW_PAYLOADFIELD_MODULO 8u     /* integers: the field is a multiple of the value (not 0) */
#define ETW_PAYLOADFIELD_CONTAINS 20u  /* strings: the value is a substring */
#define ETW_PAYLOADFIELD_DOESNTCONTAIN 21u
#define ETW_PAYLOADFIELD_IS 30u        /* not supported (ETW_ERROR_NOT_SUPPORTED) */
#define ETW_PAYLOADFIELD_ISNOT 31u     /* not supported */

/**
 * The payload of a PAYLOAD filter: predicate_count (1..
 * ETW_MAX_PAYLOAD_PREDICATES) predicates follow, each an
 * etw_payload_filter_predicate then its field name (name_size bytes: UTF-8,
 * NUL-terminated) then its value (value_size bytes: UTF-8 text, as
 * PAYLOAD_FILTER_PREDICATE.Value gives it, NUL-terminated), the next
 * predicate starting at the following 4-byte boundary. match_all 1: every
 * predicate must hold (AND); 0: one suffices (OR), as TdhCreatePayloadFilter's
 * EventMatchANY. The filter applies to TraceLogging events (those with an
 * event-metadata data descriptor); an event without one passes; a field the
 * event lacks, or of a type the filter cannot compare, makes its predicate
 * false. Integer fields take decimal or 0x-hexadecimal values; string fields
 * compare as text, ASCII letters case-insensitively (UTF-16 fields as their
 * UTF-8 text).
 *
 * flags (ETW_PAYLOAD_FILTER_FLAG_*; the byte was reserved, 0, before
 * them): EVENT: an etw_payload_filter_event follows these 4
 * bytes, before the predicates, and the filter applies to that event (Id and
 * Version) only, as TdhCreatePayloadFilter's EventDescriptor; ALL_FILTERS
 * (with EVENT only): TdhAggregatePayloadFilters' EventMatchALLFlags; NEXT:
 * another etw_payload_filter follows at the 4-byte boundary after this one's
 * last predicate (an aggregate, all in one descriptor's Size). An event
 * passes when every filter without EVENT holds and, among the filters of its
 * Id and Version, every ALL_FILTERS one holds and, if there are others, one
 * of them holds; an event no filter names passes.
 */
typedef struct etw_payload_filter {
    uint16_t predicate_count;
    uint8_t match_all;
    uint8_t reserved; /* flags: ETW_PAYLOAD_FILTER_FLAG_* */
} etw_payload_filter;

#define ETW_PAYLOAD_FILTER_FLAG_EVENT 0x01u       /* an etw_payload_filter_event follows */
#define ETW_PAYLOAD_FILTER_FLAG_NEXT 0x02u        /* another etw_payload_filter follows */
#define ETW_PAYLOAD_FILTER_FLAG_ALL_FILTERS 0x04u /* EventMatchALLFlags (with EVENT) */

/** The event an etw_payload_filter with ETW_PAYLOAD_FILTER_FLAG_EVENT applies to (4 bytes). */
typedef struct etw_payload_filter_event {
    uint16_t Id;
    uint8_t Version;
    uint8_t reserved; /* 0 */
} etw_payload_filter_event;

/** One predicate of an etw_payload_filter (PAYLOAD_FILTER_PREDICATE without pointers). */
typedef struct etw_payload_filter_predicate {
    uint16_t compare_op; /* ETW_PAYLOADFIELD_* */
    uint16_t name_size;  /* bytes of the field name, its NUL included */
    uint16_t value_size; /* bytes of the value, its NUL included */
    uint16_t reserved;
} etw_payload_filter_predicate;

/** ENABLE_TRACE_PARAMETERS for etw_session_enable_provider_ex. Set struct_size to sizeof(etw_enable_parameters). */
typedef struct etw_enable_parameters {
    uint32_t struct_size;
    uint32_t enable_property; /* ETW_EVENT_ENABLE_PROPERTY_* */
    uint64_t match_any_keyword;
    uint64_t match_all_keyword;
    uint8_t level;
    uint8_t reserved[3];
    uint32_t filter_count;                       /* 0..ETW_MAX_EVENT_FILTERS_COUNT */
    etw_guid source_id;                          /* ENABLE_TRACE_PARAMETERS.SourceId: accepted, not used */
    const etw_event_filter_descriptor *filters; /* filter_count of them (NULL when 0) */
#if UINTPTR_MAX == 0xFFFFFFFFu
    uint32_t reserved_pad32;                     /* explicit tail padding on 32-bit targets */
#endif
} etw_enable_parameters;

ETW_END_DECLS

#endif /* OPENETW_FILTER_H */
