/*
 * openetw/decode.h - decode events: names, fields and formatted values.
 *
 * The role of Windows' TDH (TdhGetEventInformation + TdhFormatProperty), on
 * any OS and without Windows: an etw_decoder takes a record delivered by a
 * consumer (etw_record) and, when it knows the event's schema, gives the
 * event's name, its provider's name, its task/opcode/level/keyword names
 * where the schema has them, and its properties in payload order, each with
 * its name, TDH in-type and out-type, bytes and a formatted text.
 *
 * Schemas. TraceLogging (self-describing) events carry theirs in the record
 * and need no setup; the classic kernel (MOF) classes are built in;
 * manifest-based events need their provider's instrumentation manifest,
 * loaded with etw_decoder_load_manifest, or the provider's binary that
 * carries it compiled (etw_decoder_load_binary); WPP messages (TraceMessage
 * records) need their TMF files (etw_decoder_load_tmf). See
 * docs/DECODING.md for what each source supports.
 *
 * Properties. A flat array in payload order, forming a tree: an array
 * property (ETW_PROPERTY_KIND_ARRAY) is followed by its child_count elements
 * (each named like the array), a struct property by its members; `parent`
 * is the index of the enclosing array or struct. Arrays of 8- or 16-bit
 * characters whose out-type is STRING are one string value, as TDH shows
 * them.
 *
 * Formatting (etw_event_property.value), as TdhFormatProperty, except where
 * noted: integers in decimal; hex in-types, pointers and hex out-types as
 * 0x%X; Win32 error, NTSTATUS and HRESULT as 0x%08X; booleans true/false;
 * GUIDs {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}; SIDs S-1-...; strings in
 * UTF-8 (8-bit strings that are not valid UTF-8 are read as Latin-1);
 * binary as 0x followed by upper-case hex; FILETIME as ISO 8601 UTC with
 * 100 ns digits (2024-01-02T03:04:05.1234567Z) and SYSTEMTIME as ISO 8601
 * with milliseconds and no zone, instead of TDH's locale-dependent text;
 * IPv4 dotted; ports in network order; floats with 9 and doubles with 17
 * significant digits. Values named by a value map show the name, bit maps
 * the names joined by '|'.
 *
 * Threads. A decoder is used by one thread at a time (decode, load and
 * destroy must not race); several decoders may run in parallel.
 */
#ifndef OPENETW_DECODE_H
#define OPENETW_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include "export.h"
#include "status.h"
#include "consumer.h"

ETW_BEGIN_DECLS

/** Opaque event decoder: its schema sources and the last decoded event. */
typedef struct etw_decoder etw_decoder;

/* ---- etw_decoded_event.source ---- */
#define ETW_DECODE_SOURCE_TRACELOGGING 1u /* metadata carried by the event */
#define ETW_DECODE_SOURCE_KERNEL       2u /* a classic kernel (MOF) class */
#define ETW_DECODE_SOURCE_MANIFEST     3u /* an instrumentation manifest or a binary's WEVT_TEMPLATE */
#define ETW_DECODE_SOURCE_WPP          4u /* a WPP message described by a loaded TMF file */

/* ---- etw_event_property.kind ---- */
#define ETW_PROPERTY_KIND_VALUE  0u
#define ETW_PROPERTY_KIND_ARRAY  1u
#define ETW_PROPERTY_KIND_STRUCT 2u

/* ---- etw_event_property.flags ---- */
#define ETW_PROPERTY_JSON_NUMBER 0x1u /* value is a JSON number as it stands */
#define ETW_PROPERTY_JSON_BOOL   0x2u /* value is true or false */

/** etw_event_property.parent of top-level properties. */
#define ETW_PROPERTY_NO_PARENT 0xFFFFFFFFu

/** One property (value, array or struct) of a decoded event. */
typedef struct etw_event_property {
    const char *name;        /* UTF-8 */
    const char *value;       /* formatted text of a VALUE; "" for arrays and structs */
    const uint8_t *data;     /* its bytes in the record's payload (no count prefix or terminator) */
    uint32_t data_size;
    uint32_t parent;         /* index of the enclosing array or struct, or ETW_PROPERTY_NO_PARENT */
    uint32_t child_count;    /* elements of an array, members of a struct, 0 for values */
    uint32_t kind;           /* ETW_PROPERTY_KIND_* */
    uint16_t in_type;        /* TDH_INTYPE_* (tdh.h values) */
    uint16_t out_type;       /* TDH_OUTTYPE_* */
    uint32_t flags;          /* ETW_PROPERTY_JSON_* */
} etw_event_property;

/**
 * A decoded event. Names the schema does not have are "". Owned by the
 * decoder: valid until the next etw_decoder_decode, etw_decoder_load_manifest
 * (_text), etw_decoder_load_binary (_image), etw_decoder_load_tmf (_text)
 * or etw_decoder_destroy on the
 * same decoder; the data pointers are borrowed from the record.
 */
typedef struct etw_decoded_event {
    uint32_t struct_size;          /* sizeof(etw_decoded_event) of the library */
    uint32_t source;               /* ETW_DECODE_SOURCE_* */
    const char *event_name;
    const char *provider_name;
    const char *task_name;
    const char *opcode_name;
    const char *level_name;
    const char *keywords_name;
    const etw_event_property *properties;
    uint32_t property_count;
    uint32_t payload_used;         /* payload bytes the properties cover; the rest is newer data */
} etw_decoded_event;

/**
 * Creates a decoder with no source but the events' own TraceLogging
 * metadata. *out receives it; free it with etw_decoder_destroy.
 * ETW_ERROR_INVALID_PARAMETER (out NULL), ETW_ERROR_OUTOFMEMORY.
 */
ETW_API etw_status etw_decoder_create(etw_decoder **out);

/** Frees a decoder and its last decoded event. NULL is accepted. */
ETW_API void etw_decoder_destroy(etw_decoder *decoder);

/**
 * Decodes record (from a record callback, still borrowed) and points *out at
 * the result. The record must outlive the use of the result's data.
 * Returns ETW_OK; ETW_ERROR_NOT_FOUND when no schema describes the record
 * (*out NULL; cheap: no allocation); ETW_ERROR_INVALID_DATA when the
 * event's TraceLogging metadata is malformed or its payload does not match
 * its schema (*out NULL; the message names the field and payload offset);
 * ETW_ERROR_INVALID_PARAMETER (NULL argument, record->struct_size too
 * small); ETW_ERROR_OUTOFMEMORY.
 */
ETW_API etw_status etw_decoder_decode(const etw_decoded_event **out, etw_decoder *decoder,
                                      const etw_record *record);

/**
 * Loads an instrumentation manifest (the .man XML a provider ships; UTF-8,
 * or UTF-16 with a BOM) from the file at path (UTF-8): every event of its
 * providers then decodes, found by provider GUID, event id and version.
 * Classic records (EVENT_TRACE_HEADER, as etw_provider_trace_event writes
 * them: no event id) are found by provider GUID, Class.Type as the opcode
 * and Class.Version, when exactly one event of the manifest has them.
 * Several manifests may be loaded; an event already known (same provider,
 * id and version) is replaced by the later one. All or nothing: on failure
 * the decoder keeps the schemas it had.
 * Returns ETW_OK; ETW_ERROR_INVALID_DATA when the XML is not well formed or
 * the manifest is inconsistent (an unknown inType or outType, a count or
 * length naming no earlier integer field, a missing template, map, task,
 * opcode, level, keyword or string, elements nested deeper than 64 levels,
 * a document over 64 MiB): the message names the file and the line;
 * ETW_ERROR_NO_UNICODE_TRANSLATION (invalid UTF-8 or UTF-16);
 * ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_ACCESS_DENIED, ETW_ERROR_READ_FAULT;
 * ETW_ERROR_INVALID_PARAMETER (NULL argument); ETW_ERROR_OUTOFMEMORY.
 * Invalidates the event last returned by etw_decoder_decode. Same thread
 * rule as decoding: not concurrently with another call on this decoder.
 */
ETW_API etw_status etw_decoder_load_manifest(etw_decoder *decoder, const char *path);

/**
 * As etw_decoder_load_manifest, from size bytes at text (copied as needed;
 * the caller keeps ownership). Messages name the document "(memory)".
 */
ETW_API etw_status etw_decoder_load_manifest_text(etw_decoder *decoder, const char *text, size_t size);

/**
 * Loads the instrumentation manifest compiled into a provider's binary (a
 * Windows PE DLL, EXE or SYS, 32- or 64-bit, of any machine) at path
 * (UTF-8), as Windows finds it through the provider's registered resource
 * file: the WEVT_TEMPLATE resource, with the display names of levels,
 * tasks, opcodes, keywords and map values from the binary's MESSAGETABLE
 * resource (English first) when it has them, else the names compiled in.
 * Its events then decode as a loaded manifest's (same matching rules, same
 * replacement of known events; all or nothing). Events are named
 * "Task/Opcode", else "Task" or "Opcode" (a binary keeps no event symbol).
 * Returns ETW_OK; ETW_ERROR_NOT_FOUND when the binary has no WEVT_TEMPLATE
 * resource; ETW_ERROR_INVALID_DATA when the file is not a PE image or its
 * headers, resource directory (including loops), message table or
 * WEVT_TEMPLATE are damaged or inconsistent (a bad signature, size, count
 * or offset, a template item naming no earlier integer field as its count
 * or length, a missing map, level, task, opcode or template, a file over
 * 1 GiB): the message names the file, the part and the offset;
 * ETW_ERROR_FILE_NOT_FOUND, ETW_ERROR_ACCESS_DENIED, ETW_ERROR_READ_FAULT;
 * ETW_ERROR_INVALID_PARAMETER (NULL argument); ETW_ERROR_OUTOFMEMORY.
 * Invalidates the event last returned by etw_decoder_decode (on success).
 * Same thread rule as decoding: not concurrently with another call on this
 * decoder.
 */
ETW_API etw_status etw_decoder_load_binary(etw_decoder *decoder, const char *path);

/**
 * As etw_decoder_load_binary, from the size bytes of a PE file at image
 * (read during the call; the caller keeps ownership). Messages name the
 * image "(memory)".
 */
ETW_API etw_status etw_decoder_load_binary_image(etw_decoder *decoder, const void *image, size_t size);

/**
 * Loads WPP trace message format (TMF) files, as TraceFmt's -p: path (UTF-8)
 * is one TMF file, or a directory whose *.tmf files (not its
 * subdirectories) are all read. Each `#typev` message of a TMF then decodes
 * when a message record (ETW_RECORD_KIND_MESSAGE) carries its message GUID
 * and number (records with a component id instead of a GUID stay
 * undecoded): source ETW_DECODE_SOURCE_WPP, event_name the message's name
 * (its source file and line, "driver_c123"), provider_name the module of
 * the GUID line, task_name, level_name and keywords_name the FUNC=, LEVEL=
 * and FLAGS= of the #typev trailer; the properties are the arguments in
 * number order (%10, %11, ...; named as the TMF's argument list names them,
 * typed by their Item type: see docs/DECODING.md), then the string
 * properties TDH gives WPP events: "FormattedString" (the format string with
 * the arguments substituted, as TraceFmt prints a message after its prefix;
 * `%0` is left out), "GuidName" (the module), "GuidTypeName" (the message
 * name), and "FunctionName", "FlagsName", "LevelName" when the trailer has
 * FUNC=, FLAGS=, LEVEL=.
 * Several loads add up; a message already known (same GUID and number) is
 * replaced. All or nothing: on failure the decoder keeps what it had.
 * Returns ETW_OK; ETW_ERROR_INVALID_DATA when a line is not of the TMF
 * format (an unknown directive or Item type, a bad GUID line, message or
 * argument number, a format string without its closing quote or naming an
 * argument the list does not declare, a message or argument defined twice,
 * a file over 64 MiB): the message names the file and the line;
 * ETW_ERROR_NO_UNICODE_TRANSLATION (UTF-16 text of an odd size);
 * ETW_ERROR_FILE_NOT_FOUND (also a directory without .tmf files),
 * ETW_ERROR_ACCESS_DENIED, ETW_ERROR_READ_FAULT; ETW_ERROR_INVALID_PARAMETER
 * (NULL argument); ETW_ERROR_OUTOFMEMORY. TMF text is read as UTF-8 when it
 * is valid UTF-8, else as Latin-1 (TracePDB writes the ANSI code page), or
 * as UTF-16LE after a BOM.
 * Invalidates the event last returned by etw_decoder_decode (on success).
 * Same thread rule as decoding: not concurrently with another call on this
 * decoder.
 */
ETW_API etw_status etw_decoder_load_tmf(etw_decoder *decoder, const char *path);

/**
 * As etw_decoder_load_tmf, from the size bytes of one TMF file's text at
 * text (read during the call; the caller keeps ownership). Messages name
 * the text "(memory)".
 */
ETW_API etw_status etw_decoder_load_tmf_text(etw_decoder *decoder, const char *text, size_t size);

ETW_END_DECLS

#endif /* OPENETW_DECODE_H */
