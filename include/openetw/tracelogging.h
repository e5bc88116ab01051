/*
 * openetw/tracelogging.h - TraceLogging: self-describing EVENT_HEADER events
 * whose field names and types travel in the event itself, encoded as
 * Windows' TraceLoggingProvider.h encodes them (the EVENT_SCHEMA_TL and
 * PROV_TRAITS extended items of the record), so every TraceLogging reader
 * (this library's decoder, etwdump, TDH, TraceEvent) shows them.
 *
 * Three ways to write one:
 * - etw_provider_write_tracelogging: a runtime array of etw_tl_field, for
 *   every language; it encodes the metadata in a bounded stack buffer (no
 *   allocation) and writes through etw_provider_write_event.
 * - ETW_TRACELOGGING_WRITE: C99 macros close to TraceLoggingWrite.
 * - openetw/tracelogging.hpp: a C++ variadic wrapper that deduces the types.
 * etw_provider_write_event with data descriptors of type
 * ETW_EVENT_DATA_DESCRIPTOR_TYPE_EVENT_METADATA / _PROVIDER_METADATA
 * (provider.h) takes metadata the caller encoded, as EventWrite does.
 *
 * A TraceLogging provider is named: etw_provider_set_name (or
 * etw_provider_set_traits with a PROV_TRAITS blob) gives the name that every
 * event of the provider carries; etw_provider_guid_from_name derives the
 * provider GUID from the name as TraceLogging and .NET EventSource do.
 *
 * Threads: etw_provider_write_tracelogging and the macros may be called from
 * any number of threads at once, as etw_provider_write_event: no lock, no
 * allocation; they set the thread's last error message only when they fail.
 * etw_provider_set_traits/_name may run concurrently with writes (events
 * written meanwhile carry the traits or not).
 */
#ifndef OPENETW_TRACELOGGING_H
#define OPENETW_TRACELOGGING_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "records.h"
#include "provider.h"

ETW_BEGIN_DECLS

/* Field in-types: how the bytes are laid out (TraceLogging's TlgIn_t values). */
#define ETW_TL_IN_UNICODESTRING 1u      /* UTF-16LE; written NUL-terminated */
#define ETW_TL_IN_ANSISTRING 2u         /* 8-bit (UTF-8 with ETW_TL_OUT_UTF8); written NUL-terminated */
#define ETW_TL_IN_INT8 3u
#define ETW_TL_IN_UINT8 4u
#define ETW_TL_IN_INT16 5u
#define ETW_TL_IN_UINT16 6u
#define ETW_TL_IN_INT32 7u
#define ETW_TL_IN_UINT32 8u
#define ETW_TL_IN_INT64 9u
#define ETW_TL_IN_UINT64 10u
#define ETW_TL_IN_FLOAT 11u
#define ETW_TL_IN_DOUBLE 12u
#define ETW_TL_IN_BOOL32 13u            /* 4 bytes, 0 or not */
#define ETW_TL_IN_BINARY 14u            /* bytes; written after a UINT16 byte count */
#define ETW_TL_IN_GUID 15u              /* 16 bytes, etw_guid's layout */
#define ETW_TL_IN_FILETIME 17u          /* 8 bytes, 100 ns since 1601 */
#define ETW_TL_IN_SYSTEMTIME 18u        /* 16 bytes, SYSTEMTIME */
#define ETW_TL_IN_SID 19u               /* 8 + 4 * SubAuthorityCount bytes */
#define ETW_TL_IN_HEXINT32 20u
#define ETW_TL_IN_HEXINT64 21u
#define ETW_TL_IN_COUNTEDSTRING 22u     /* UTF-16LE; written after a UINT16 byte count */
#define ETW_TL_IN_COUNTEDANSISTRING 23u /* 8-bit; written after a UINT16 byte count */
#define ETW_TL_IN_STRUCT 24u            /* a struct: no data, size = its member count (1..127), the
                                           fields after it are its members (structs nest 32 deep) */
#define ETW_TL_IN_COUNTEDBINARY 25u     /* bytes; written after a UINT16 byte count */
/* A pointer: a hex integer of the writer's pointer size (TlgInPOINTER). */
#define ETW_TL_IN_POINTER (sizeof(void *) == 8 ? ETW_TL_IN_HEXINT64 : ETW_TL_IN_HEXINT32)
/* OR'ed into a fixed-size in-type (3..13, 15, 17, 18, 20, 21): the field is an
   array; data holds the elements, and the record gets a UINT16 element count
   first (TlgInVcount). */
#define ETW_TL_IN_ARRAY 0x40u

/* Field out-types: how a reader formats the value (TlgOut_t values); 0 = the
   in-type's default. */
#define ETW_TL_OUT_DEFAULT 0u
#define ETW_TL_OUT_NOPRINT 1u
#define ETW_TL_OUT_STRING 2u       /* an 8/16-bit integer shown as a character */
#define ETW_TL_OUT_BOOLEAN 3u      /* UINT8 shown as a boolean */
#define ETW_TL_OUT_HEX 4u
#define ETW_TL_OUT_PID 5u
#define ETW_TL_OUT_TID 6u
#define ETW_TL_OUT_PORT 7u         /* UINT16 in network byte order */
#define ETW_TL_OUT_IPV4 8u         /* UINT32 */
#define ETW_TL_OUT_IPV6 9u         /* 16-byte BINARY */
#define ETW_TL_OUT_SOCKETADDRESS 10u
#define ETW_TL_OUT_XML 11u
#define ETW_TL_OUT_JSON 12u
#define ETW_TL_OUT_WIN32ERROR 13u
#define ETW_TL_OUT_NTSTATUS 14u
#define ETW_TL_OUT_HRESULT 15u
#define ETW_TL_OUT_FILETIME 16u
#define ETW_TL_OUT_SIGNED 17u
#define ETW_TL_OUT_UNSIGNED 18u
#define ETW_TL_OUT_DATETIME_CULTURE_INSENSITIVE 33u
#define ETW_TL_OUT_UTF8 35u        /* ANSISTRING / COUNTEDANSISTRING hold UTF-8 */
#define ETW_TL_OUT_PKCS7_WITH_TYPE_INFO 36u
#define ETW_TL_OUT_CODE_POINTER 37u
#define ETW_TL_OUT_DATETIME_UTC 38u

/* etw_tl_field.size for a string field: the string is NUL-terminated and the
   library measures it; NULL data is then an empty string. */
#define ETW_TL_NUL_TERMINATED 0xFFFFFFFFu

/* Limits of etw_provider_write_tracelogging. */
#define ETW_TL_MAX_FIELDS 128u          /* fields per event */
#define ETW_TL_MAX_METADATA_SIZE 4096u  /* encoded event metadata: 3 + name + per field name + 3 bytes */
/* TraceLogging's default channel (WINEVENT_CHANNEL_TRACELOGGING): readers
   before Windows 10 know TraceLogging events by it. */
#define ETW_TL_CHANNEL 11u

/**
 * One field of a TraceLogging event. name: UTF-8, NUL-terminated, not NULL.
 * data/size: the value's bytes, as the in-type says: a scalar's own bytes
 * (size = its width); an array's elements (size = a multiple of the element
 * width, at most 65535 elements); a string's characters without the NUL
 * (bytes for 8-bit strings, size even for UTF-16) or ETW_TL_NUL_TERMINATED;
 * binary bytes (at most 65535). data may be NULL only when size is 0 or
 * ETW_TL_NUL_TERMINATED (an empty string). The
 * caller keeps the bytes; nothing is kept after the call.
 */
typedef struct etw_tl_field {
    const char *name;
    const void *data;
    uint32_t size;
    uint8_t in_type;  /* ETW_TL_IN_*, | ETW_TL_IN_ARRAY for an array */
    uint8_t out_type; /* ETW_TL_OUT_* */
    uint16_t reserved; /* 0 */
} etw_tl_field;

/**
 * Writes a TraceLogging event named event_name (UTF-8) with the fields in
 * order: the record's EVENT_SCHEMA_TL item holds the event metadata (name,
 * each field's name, in-type and out-type, as TraceLoggingProvider.h encodes
 * them), its payload the fields' values (with the count prefixes and NULs
 * the in-types ask for), and, when the provider has traits
 * (etw_provider_set_name), a PROV_TRAITS item. descriptor: the event's
 * EVENT_DESCRIPTOR as given (Channel ETW_TL_CHANNEL is what TraceLogging
 * uses); NULL for {Id 0, Version 0, Channel 11, Level 5 (verbose), Opcode 0,
 * Task 0, Keyword 0}. activity_id and related_activity_id as for
 * etw_provider_write_event.
 * When no session enables the provider, returns ETW_OK at once and checks
 * nothing (as etw_provider_write_event). Otherwise:
 * ETW_OK; ETW_ERROR_INVALID_PARAMETER (NULL provider or event_name, fields
 * NULL with a count, more than ETW_TL_MAX_FIELDS fields, a field with a NULL
 * name, an in-type that is not one of ETW_TL_IN_* (or an array of a type
 * that is not fixed-size), an out-type that is not one of ETW_TL_OUT_*, a
 * non-zero reserved, a size that does not fit the in-type, data NULL with a
 * size, a string holding a NUL, more than 65535 bytes or elements where a
 * UINT16 counts them, a struct with data, an out-type or a member count
 * outside 1..127, structs nested deeper than 32 or with fewer fields after
 * them than their members); ETW_ERROR_ARITHMETIC_OVERFLOW (the metadata above
 * ETW_TL_MAX_METADATA_SIZE, or the record above 0xFFFF bytes); and
 * etw_provider_write_event's per-session statuses. On failure the thread's
 * last error message names the field and what was wrong.
 * Any thread; no lock, no allocation.
 */
ETW_API etw_status etw_provider_write_tracelogging(etw_provider *provider, const char *event_name,
                                                   const etw_event_descriptor *descriptor,
                                                   const etw_guid *activity_id, const etw_guid *related_activity_id,
                                                   uint32_t field_count, const etw_tl_field *fields);

/**
 * Sets the provider's traits (EventSetInformation with
 * EventProviderSetTraits): a blob {UINT16 TraitsSize (the blob's size),
 * NUL-terminated UTF-8 provider name, traits: each {UINT16 TraitSize, UINT8
 * TraitType, data}} that every EVENT_HEADER event of the provider then
 * carries as its PROV_TRAITS extended item (ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS),
 * instead of a PROVIDER_METADATA data descriptor's. The library copies it.
 * Traits are set once per registration. ETW_OK; ETW_ERROR_INVALID_PARAMETER
 * (NULL provider or traits, size below 3 or above 65535, TraitsSize not
 * size, no NUL in the name, a trait overrunning the blob or shorter than its
 * 3-byte header); ETW_ERROR_ALREADY_EXISTS (the provider has traits).
 * Any thread.
 */
ETW_API etw_status etw_provider_set_traits(etw_provider *provider, const void *traits, uint32_t size);

/* The provider group trait type (EtwProviderTraitTypeGroup): data = the group GUID. */
#define ETW_PROVIDER_TRAIT_TYPE_GROUP 1u

/**
 * Sets the provider's traits to its name (UTF-8) and, when group is not
 * NULL, a provider group trait with that GUID: what TraceLoggingRegister
 * sets for a provider defined with a name (and TraceLoggingOptionGroup).
 * Statuses as etw_provider_set_traits, and ETW_ERROR_INVALID_PARAMETER for a
 * NULL name or a name too long for the 65535-byte blob.
 */
ETW_API etw_status etw_provider_set_name(etw_provider *provider, const char *name, const etw_guid *group);

/**
 * *out = the provider GUID TraceLogging and .NET EventSource derive from a
 * provider name: SHA-1 over the namespace 482C2DB2-C390-47C8-87F8-1A15BFC130FB
 * (its bytes in order) followed by the name upper-cased as UTF-16BE (ASCII
 * and Latin-1 letters upper-cased as ToUpperInvariant does; other characters
 * hashed as given), the first 16 bytes taken as a GUID with the
 * version nibble set to 5 ("MyCompany.MyComponent" gives
 * ce5fa4ea-ab00-5402-8b76-9f76ac858fb5). ETW_OK; ETW_ERROR_INVALID_PARAMETER
 * (NULL out or name); ETW_ERROR_NO_UNICODE_TRANSLATION (name is not UTF-8).
 * Any thread.
 */
ETW_API etw_status etw_provider_guid_from_name(etw_guid *out, const char *name);

/* ---- C99 macros close to TraceLoggingWrite ----
 *
 *   ETW_TRACELOGGING_WRITE(provider, "OrderShipped", ETW_TL_LEVEL(4),
 *                          ETW_TL_INT32("order_id", id), ETW_TL_STRING("customer", s));
 *
 * is an expression giving etw_provider_write_tracelogging's status. It
 * evaluates provider twice (pass a variable) and the field arguments only
 * when some session enables the provider. Field values are copied into
 * compound literals, so any expression of the type may be given. Options
 * (ETW_TL_LEVEL, _KEYWORD, _OPCODE, _CHANNEL, _ACTIVITY_ID,
 * _RELATED_ACTIVITY_ID) may appear anywhere among the fields; defaults as a
 * NULL descriptor. C only (compound literals): C++ uses tracelogging.hpp,
 * and a C++ translation unit does not see them.
 */
#if !defined(SWIG) && !defined(__cplusplus)
#define ETW_TL__FIELD(name, ptr, size, in, out) ((etw_tl_field){(name), (ptr), (uint32_t)(size), (uint8_t)(in), (uint8_t)(out), 0})
#define ETW_TL__VALUE(name, type, value, in, out) ETW_TL__FIELD((name), &(type){(value)}, sizeof(type), (in), (out))

#define ETW_TL_INT8(name, v) ETW_TL__VALUE(name, int8_t, v, ETW_TL_IN_INT8, 0)
#define ETW_TL_UINT8(name, v) ETW_TL__VALUE(name, uint8_t, v, ETW_TL_IN_UINT8, 0)
#define ETW_TL_INT16(name, v) ETW_TL__VALUE(name, int16_t, v, ETW_TL_IN_INT16, 0)
#define ETW_TL_UINT16(name, v) ETW_TL__VALUE(name, uint16_t, v, ETW_TL_IN_UINT16, 0)
#define ETW_TL_INT32(name, v) ETW_TL__VALUE(name, int32_t, v, ETW_TL_IN_INT32, 0)
#define ETW_TL_UINT32(name, v) ETW_TL__VALUE(name, uint32_t, v, ETW_TL_IN_UINT32, 0)
#define ETW_TL_INT64(name, v) ETW_TL__VALUE(name, int64_t, v, ETW_TL_IN_INT64, 0)
#define ETW_TL_UINT64(name, v) ETW_TL__VALUE(name, uint64_t, v, ETW_TL_IN_UINT64, 0)
#define ETW_TL_HEX32(name, v) ETW_TL__VALUE(name, uint32_t, v, ETW_TL_IN_HEXINT32, 0)
#define ETW_TL_HEX64(name, v) ETW_TL__VALUE(name, uint64_t, v, ETW_TL_IN_HEXINT64, 0)
#define ETW_TL_FLOAT(name, v) ETW_TL__VALUE(name, float, v, ETW_TL_IN_FLOAT, 0)
#define ETW_TL_DOUBLE(name, v) ETW_TL__VALUE(name, double, v, ETW_TL_IN_DOUBLE, 0)
#define ETW_TL_BOOL(name, v) ETW_TL__VALUE(name, int32_t, (v) ? 1 : 0, ETW_TL_IN_BOOL32, 0)
/* (An array of one: a struct value initializes its element.) */
#define ETW_TL_GUID(name, g) ETW_TL__FIELD(name, (etw_guid[1]){g}, sizeof(etw_guid), ETW_TL_IN_GUID, 0)
#define ETW_TL_FILETIME(name, v) ETW_TL__VALUE(name, uint64_t, v, ETW_TL_IN_FILETIME, 0)
#define ETW_TL_POINTER(name, p) ETW_TL__VALUE(name, uintptr_t, (uintptr_t)(p), ETW_TL_IN_POINTER, 0)
#define ETW_TL_PID(name, v) ETW_TL__VALUE(name, uint32_t, v, ETW_TL_IN_UINT32, ETW_TL_OUT_PID)
#define ETW_TL_TID(name, v) ETW_TL__VALUE(name, uint32_t, v, ETW_TL_IN_UINT32, ETW_TL_OUT_TID)
#define ETW_TL_IPV4(name, v) ETW_TL__VALUE(name, uint32_t, v, ETW_TL_IN_UINT32, ETW_TL_OUT_IPV4)
#define ETW_TL_WIN32ERROR(name, v) ETW_TL__VALUE(name, uint32_t, v, ETW_TL_IN_UINT32, ETW_TL_OUT_WIN32ERROR)
#define ETW_TL_HRESULT(name, v) ETW_TL__VALUE(name, int32_t, v, ETW_TL_IN_INT32, ETW_TL_OUT_HRESULT)
/* A NUL-terminated UTF-8 string (NULL writes an empty one). */
#define ETW_TL_STRING(name, s) ETW_TL__FIELD(name, (s), ETW_TL_NUL_TERMINATED, ETW_TL_IN_ANSISTRING, ETW_TL_OUT_UTF8)
/* UTF-8 bytes of a given length (no NUL among them). */
#define ETW_TL_STRING_N(name, s, len) ETW_TL__FIELD(name, (s), (len), ETW_TL_IN_COUNTEDANSISTRING, ETW_TL_OUT_UTF8)
/* A NUL-terminated UTF-16 string (const uint16_t *). */
#define ETW_TL_WSTRING(name, s) ETW_TL__FIELD(name, (s), ETW_TL_NUL_TERMINATED, ETW_TL_IN_UNICODESTRING, 0)
#define ETW_TL_BINARY(name, p, size) ETW_TL__FIELD(name, (p), (size), ETW_TL_IN_BINARY, 0)
/* A struct whose members are the next `members` fields. */
#define ETW_TL_STRUCT(name, members) ETW_TL__FIELD(name, NULL, (members), ETW_TL_IN_STRUCT, 0)
/* An array of count elements of a fixed-size in-type, e.g.
   ETW_TL_ARRAY("ids", ids, 3, ETW_TL_IN_INT32). */
#define ETW_TL_ARRAY(name, p, count, in) ETW_TL__FIELD(name, (p), (count) * sizeof *(p), (in) | ETW_TL_IN_ARRAY, 0)
/* Any field: an in-type, an out-type and the bytes. */
#define ETW_TL_FIELD(name, p, size, in, out) ETW_TL__FIELD(name, (p), (size), (in), (out))

/* Options: pseudo-fields with a NULL name, taken out before the write. */
#define ETW_TL__OPT_LEVEL 0xF1u
#define ETW_TL__OPT_KEYWORD 0xF2u
#define ETW_TL__OPT_OPCODE 0xF3u
#define ETW_TL__OPT_CHANNEL 0xF4u
#define ETW_TL__OPT_ACTIVITY 0xF5u
#define ETW_TL__OPT_RELATED 0xF6u
#define ETW_TL__OPT_END 0xFFu
#define ETW_TL_LEVEL(level) ETW_TL__FIELD(NULL, NULL, (level), ETW_TL__OPT_LEVEL, 0)
#define ETW_TL_KEYWORD(keyword) ETW_TL__FIELD(NULL, &(uint64_t){(keyword)}, 8, ETW_TL__OPT_KEYWORD, 0)
#define ETW_TL_OPCODE(opcode) ETW_TL__FIELD(NULL, NULL, (opcode), ETW_TL__OPT_OPCODE, 0)
#define ETW_TL_CHANNEL_OPT(channel) ETW_TL__FIELD(NULL, NULL, (channel), ETW_TL__OPT_CHANNEL, 0)
#define ETW_TL_ACTIVITY_ID(guid_ptr) ETW_TL__FIELD(NULL, (guid_ptr), 16, ETW_TL__OPT_ACTIVITY, 0)
#define ETW_TL_RELATED_ACTIVITY_ID(guid_ptr) ETW_TL__FIELD(NULL, (guid_ptr), 16, ETW_TL__OPT_RELATED, 0)

#define ETW_TL__NAME(...) ETW_TL__NAME_(__VA_ARGS__, 0)
#define ETW_TL__NAME_(name, ...) (name)
#define ETW_TL__REST(...) ETW_TL__REST_(__VA_ARGS__, ETW_TL__FIELD(NULL, NULL, 0, ETW_TL__OPT_END, 0))
#define ETW_TL__REST_(name, ...) __VA_ARGS__

#define ETW_TRACELOGGING_WRITE(provider, ...)                                                                        \
    ((etw_provider_enabled_word(provider) && *etw_provider_enabled_word(provider))                                  \
         ? etw_tl_write_args_((provider), ETW_TL__NAME(__VA_ARGS__), (etw_tl_field[]){ETW_TL__REST(__VA_ARGS__)})  \
         : (etw_status)(provider ? ETW_OK : ETW_ERROR_INVALID_PARAMETER))

/* The macro's helper: options into the descriptor, fields compacted in place,
   up to the end marker. */
static inline etw_status etw_tl_write_args_(etw_provider *provider, const char *event_name, etw_tl_field *f)
{
    etw_event_descriptor d = {0, 0, ETW_TL_CHANNEL, 5, 0, 0, 0};
    const etw_guid *activity = NULL, *related = NULL;
    uint32_t i, n = 0;
    for (i = 0; f[i].name != NULL || f[i].in_type != ETW_TL__OPT_END; ++i) {
        if (f[i].name == NULL && f[i].in_type >= ETW_TL__OPT_LEVEL && f[i].in_type <= ETW_TL__OPT_RELATED) {
            switch (f[i].in_type) {
            case ETW_TL__OPT_LEVEL: d.Level = (uint8_t)f[i].size; break;
            case ETW_TL__OPT_KEYWORD: d.Keyword = *(const uint64_t *)f[i].data; break;
            case ETW_TL__OPT_OPCODE: d.Opcode = (uint8_t)f[i].size; break;
            case ETW_TL__OPT_CHANNEL: d.Channel = (uint8_t)f[i].size; break;
            case ETW_TL__OPT_ACTIVITY: activity = (const etw_guid *)f[i].data; break;
            default: related = (const etw_guid *)f[i].data; break;
            }
            continue;
        }
        f[n++] = f[i];
    }
    return etw_provider_write_tracelogging(provider, event_name, &d, activity, related, n, f);
}
#endif /* !SWIG && !__cplusplus */

ETW_END_DECLS

#endif /* OPENETW_TRACELOGGING_H */
