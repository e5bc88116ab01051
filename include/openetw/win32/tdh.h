/*
 * openetw/win32/tdh.h - TDH's payload filters (libopenetw-win32):
 * TdhCreatePayloadFilter, TdhAggregatePayloadFilters, TdhDeletePayloadFilter,
 * TdhCleanupPayloadEventFilterDescriptor, for EnableTraceEx2's
 * EVENT_FILTER_TYPE_PAYLOAD filters. Only these of Windows' tdh.h: no event
 * decoding (TdhGetEventInformation and the like).
 *
 * The filters are OpenETW's PAYLOAD filter bytes (openetw/filter.h,
 * etw_payload_filter, docs/FILTERS.md): one etw_payload_filter tied to the
 * event descriptor's Id and Version per TdhCreatePayloadFilter, chained by
 * TdhAggregatePayloadFilters into the one EVENT_FILTER_DESCRIPTOR
 * EnableTraceEx2 takes.
 *
 * Schemas: Windows looks the event up in the provider's manifest and checks
 * each FieldName there (ERROR_NOT_FOUND, ERROR_FILE_NOT_FOUND). These
 * functions have no schema: they never return those statuses and check
 * only the predicates' form; the fields are found when events are written,
 * by name in a TraceLogging event's own metadata (EVENT_DATA_DESCRIPTOR of
 * type EVENT_METADATA). There, a field the event lacks makes its predicate
 * false; an event without metadata (a manifest event) is not filtered.
 * Values are converted by the field's type at that point: integers in
 * decimal or 0x hexadecimal, strings compared case-insensitively (ASCII).
 * PAYLOADFIELD_IS and PAYLOADFIELD_ISNOT (value maps, GUIDs) are refused
 * with ERROR_NOT_SUPPORTED.
 *
 * Memory: TdhCreatePayloadFilter's filter is freed by TdhDeletePayloadFilter;
 * the descriptor TdhAggregatePayloadFilters fills points to memory freed by
 * TdhCleanupPayloadEventFilterDescriptor. Any thread; no shared state.
 */
#ifndef OPENETW_WIN32_TDH_H
#define OPENETW_WIN32_TDH_H

#include "win32base.h"
#include "guiddef.h"
#include "evntprov.h"

OPENETW_WIN32_BEGIN

typedef ULONG TDHSTATUS;
#ifndef TDHAPI
#define TDHAPI TDHSTATUS WINAPI
#endif

/* Predicates one TdhCreatePayloadFilter call takes at most. */
#define MAX_PAYLOAD_PREDICATES 8

typedef enum _PAYLOAD_OPERATOR {
    PAYLOADFIELD_EQ = 0,
    PAYLOADFIELD_NE = 1,
    PAYLOADFIELD_LE = 2,
    PAYLOADFIELD_GT = 3,
    PAYLOADFIELD_LT = 4,
    PAYLOADFIELD_GE = 5,
    PAYLOADFIELD_BETWEEN = 6,    /* "low,high", inclusive */
    PAYLOADFIELD_NOTBETWEEN = 7, /* "low,high" */
    PAYLOADFIELD_MODULO = 8,     /* the field is a multiple of the value (periodic sampling; not 0) */
    PAYLOADFIELD_CONTAINS = 20,
    PAYLOADFIELD_DOESNTCONTAIN = 21,
    PAYLOADFIELD_IS = 30,    /* ERROR_NOT_SUPPORTED here */
    PAYLOADFIELD_ISNOT = 31, /* ERROR_NOT_SUPPORTED here */
    PAYLOADFIELD_INVALID = 32
} PAYLOAD_OPERATOR;

typedef struct _PAYLOAD_FILTER_PREDICATE {
    LPWSTR FieldName; /* the field's name (UTF-16) */
    USHORT CompareOp; /* PAYLOAD_OPERATOR */
    LPWSTR Value;     /* the value, as text (UTF-16) */
} PAYLOAD_FILTER_PREDICATE, *PPAYLOAD_FILTER_PREDICATE;

/* One filter for the event EventDescriptor names (its Id and Version) of
 * ProviderGuid: EventMatchANY TRUE, one predicate suffices; FALSE, all must
 * hold. *PayloadFilter receives it. ERROR_SUCCESS; ERROR_INVALID_PARAMETER
 * for a NULL argument, PayloadPredicateCount 0 or above
 * MAX_PAYLOAD_PREDICATES, a NULL or empty FieldName, a NULL Value, a
 * CompareOp no PAYLOAD_OPERATOR names, BETWEEN/NOTBETWEEN without
 * "low,high" integers, MODULO without one integer other than 0;
 * ERROR_NOT_SUPPORTED for PAYLOADFIELD_IS and PAYLOADFIELD_ISNOT;
 * ERROR_INSUFFICIENT_BUFFER when the filter exceeds
 * MAX_EVENT_FILTER_PAYLOAD_SIZE; ERROR_NOT_ENOUGH_MEMORY. */
TDHAPI TdhCreatePayloadFilter(LPCGUID ProviderGuid, PCEVENT_DESCRIPTOR EventDescriptor, BOOLEAN EventMatchANY,
                              ULONG PayloadPredicateCount, PPAYLOAD_FILTER_PREDICATE PayloadPredicates,
                              PVOID *PayloadFilter);

/* Frees a TdhCreatePayloadFilter filter and sets *PayloadFilter to NULL.
 * ERROR_INVALID_PARAMETER for NULL, *PayloadFilter NULL, or a pointer
 * TdhCreatePayloadFilter did not return. */
TDHAPI TdhDeletePayloadFilter(PVOID *PayloadFilter);

/* Fills *EventFilterDescriptor (Type EVENT_FILTER_TYPE_PAYLOAD) with the
 * PayloadFilterCount filters of PayloadFilterPtrs, all of one provider.
 * EventMatchALLFlags (optional, one per filter): of the filters of one
 * event's Id and Version, the event is written when every TRUE one holds
 * and, if there are FALSE ones, one of those holds. ERROR_SUCCESS;
 * ERROR_INVALID_PARAMETER for a NULL array or descriptor, a count of 0, a
 * pointer TdhCreatePayloadFilter did not return, filters of different
 * providers; ERROR_INSUFFICIENT_BUFFER when they exceed
 * MAX_EVENT_FILTER_PAYLOAD_SIZE together (TdhCreatePayloadFilter's status
 * for the same limit; Windows documents none here);
 * ERROR_NOT_ENOUGH_MEMORY. The filters stay the caller's. */
TDHAPI TdhAggregatePayloadFilters(ULONG PayloadFilterCount, PVOID *PayloadFilterPtrs, PBOOLEAN EventMatchALLFlags,
                                  PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor);

/* Frees what TdhAggregatePayloadFilters put in *EventFilterDescriptor and
 * zeroes it. ERROR_INVALID_PARAMETER for NULL or a descriptor it did not
 * fill (not of Type EVENT_FILTER_TYPE_PAYLOAD). */
TDHAPI TdhCleanupPayloadEventFilterDescriptor(PEVENT_FILTER_DESCRIPTOR EventFilterDescriptor);

OPENETW_WIN32_END

#endif /* OPENETW_WIN32_TDH_H */
