/*
 * bindings/swig/openetw.i - the one SWIG interface of OpenETW.
 *
 * It reads only the public headers. What differs per language (handles,
 * strings, buffers, GUIDs, and turning a failing etw_status into an
 * exception, in one typemap) lives in python.i and csharp.i; this file only
 * says which C declarations play which role, so a new header is bound by
 * adding its %include and one line per handle or buffer below.
 */
#if defined(SWIGPYTHON)
/* Generated module openetw._native over the extension openetw._openetw
   (swig -interface _openetw); the idiomatic package wraps it. */
%module(package="openetw", threads="1") _native
#elif defined(SWIGCSHARP)
/* Internal class OpenEtw.Interop.NativeMethods; the public API is handwritten. */
%module NativeMethods
#else
%module openetw
#endif

/* The headers bound below, one by one: a header joins here when it is bound. */
%{
#include <openetw/status.h>
#include <openetw/constants.h>
#include <openetw/records.h>
#include <openetw/properties.h>
#include <openetw/version.h>
#include <openetw/session.h>
#include <openetw/provider.h>
#include <openetw/tracelogging.h>
#include <openetw/consumer.h>
#include <openetw/decode.h>
#include <openetw/collect.h>
%}

%include <stdint.i>

#if defined(SWIGPYTHON)
%include "python.i"
#elif defined(SWIGCSHARP)
%include "csharp.i"
#else
#error "OpenETW binds Python and C# through SWIG (Rust uses bindgen)"
#endif

/* ---- Roles of the declarations (macros defined per language) ---- */

/* Opaque handles: TYPE **out creates, destroy frees. */
OPENETW_HANDLE(etw_properties, etw_properties_destroy, PropertiesHandle)
OPENETW_HANDLE(etw_session, etw_session_close, SessionHandle)
OPENETW_HANDLE(etw_provider, etw_provider_unregister, ProviderHandle)
OPENETW_HANDLE(etw_consumer, etw_consumer_close, ConsumerHandle)
OPENETW_HANDLE(etw_decoder, etw_decoder_destroy, DecoderHandle)
OPENETW_HANDLE(etw_collect_report, etw_collect_report_destroy, CollectReportHandle)

/* Caller-provided input bytes and output buffers. */
OPENETW_IN_BYTES(const void *block, size_t block_size)
/* A manifest's text and a provider binary's image (decode.h), read during the call. */
OPENETW_IN_BYTES(const char *text, size_t size)
OPENETW_IN_BYTES(const void *image, size_t size)
OPENETW_OUT_BYTES(void *out_block, size_t block_size, size_t *out_size)
/* A size query (NULL out_block) answers ETW_ERROR_MORE_DATA by design: not an error. */
OPENETW_SIZE_QUERY(etw_properties_export, out_block)

/* Windows-layout records copied out by value. */
OPENETW_RECORD_OUT(etw_event_trace_properties, EventTraceProperties)

/* Returns a status as a value instead of raising it. */
OPENETW_STATUS_VALUE(etw_last_error_status)

/* etw_enable_flags_parse's out mask is a uint32_t out-parameter (python.i,
   csharp.i): the kernel-trace objects take flag names through it.
   etw_enable_flags_format fills a caller's text buffer, which the generated
   layers have no form for; the languages name flags with their own enums. */
%ignore etw_enable_flags_format;
/* The readers of extended items take the C view of an item, which the
   languages hold in their own form (Python tuples, C# ExtendedItem spans):
   openetw.extended and OpenEtw.ExtendedItems read the same bytes. */
%ignore etw_extended_item_stack;
%ignore etw_extended_item_sid_string;

/* Streams, per language: a consumer with its credentials file (consumer.h) and a
   stream rebuilt as files (collect.h). Before the headers, so that features such as
   Python's %thread reach their declarations. */
#if defined(SWIGPYTHON)
%include "python_stream.i"
#elif defined(SWIGCSHARP)
%include "csharp_stream.i"
#endif

/* ---- The public headers, and nothing else ---- */
%include "openetw/export.h"
%include "openetw/status.h"
%include "openetw/constants.h"
%include "openetw/records.h"
%include "openetw/properties.h"
%include "openetw/version.h"
/* Callbacks (enable, buffer, record, event, loss, raw buffer) cross into the
   language in python.i and csharp.i: each keeps its callables alive, holds
   the GIL or a GCHandle, and turns an exception into a stop. */
%include "openetw/session.h"
%include "openetw/provider.h"
%include "openetw/tracelogging.h"
%include "openetw/consumer.h"
/* Decoding takes a delivered record, which each language holds in its own
   form: python_decode.i and csharp_decode.i rebuild the etw_record. */
#if defined(SWIGPYTHON)
%include "python_decode.i"
#elif defined(SWIGCSHARP)
%include "csharp_decode.i"
#endif
%include "openetw/decode.h"
/* A stream rebuilt as files (its roles: *_stream.i, above). */
%include "openetw/collect.h"
