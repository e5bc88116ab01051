/*
 * bindings/swig/csharp.i - C# typemaps for openetw.i.
 *
 * The generated classes (OpenEtw.Interop.NativeMethods and its PINVOKE
 * class) are internal; the public API is the handwritten layer in
 * bindings/csharp/OpenEtw. A failing etw_status throws
 * OpenEtw.OpenEtwException.FromStatus in the csout typemap below: the one
 * place where a status becomes an exception, so the methods return void.
 * Handles are SafeHandles, records are blittable structs, GUIDs are
 * System.Guid (same layout), bytes are ref byte (pinned by the marshaller,
 * from a Span), size_t is nuint, strings are UTF-8 both ways.
 */
%pragma(csharp) moduleclassmodifiers="internal static class"
%pragma(csharp) imclassclassmodifiers="internal class"

/* #define constants as C# const, so enums in the public layer can use them. */
%csconst(1);

/* ---- Status ---- */
%typemap(cstype, out="void") etw_status "uint"
%typemap(csout, excode=SWIGEXCODE) etw_status {
    uint status = $imcall;$excode
    if (status != 0)
      throw global::OpenEtw.OpenEtwException.FromStatus(status);
  }

%define OPENETW_STATUS_VALUE(FUNC)
%typemap(cstype, out="uint") etw_status FUNC "uint"
%typemap(csout, excode=SWIGEXCODE) etw_status FUNC {
    uint status = $imcall;$excode
    return status;
  }
%enddef

%define OPENETW_SIZE_QUERY(FUNC, BLOCK)
%typemap(csout, excode=SWIGEXCODE) etw_status FUNC {
    uint status = $imcall;$excode
    if (status != 0 && !(status == ETW_ERROR_MORE_DATA
                         && global::System.Runtime.CompilerServices.Unsafe.IsNullRef(ref BLOCK)))
      throw global::OpenEtw.OpenEtwException.FromStatus(status);
  }
%enddef

/* ---- size_t is pointer-sized (SWIG's default would be uint) ---- */
%typemap(ctype) size_t "size_t"
%typemap(imtype) size_t "nuint"
%typemap(cstype) size_t "nuint"
%typemap(csin) size_t "$csinput"
%typemap(in) size_t %{ $1 = $input; %}
%typemap(out) size_t %{ $result = $1; %}
%typemap(csout, excode=SWIGEXCODE) size_t {
    nuint ret = $imcall;$excode
    return ret;
  }

/* ---- Strings: UTF-8 in; static or object-owned text out, copied at once ---- */
%typemap(ctype, out="const char *") const char * "const char *"
%typemap(imtype,
         inattributes="[global::System.Runtime.InteropServices.MarshalAs(global::System.Runtime.InteropServices.UnmanagedType.LPUTF8Str)]",
         out="global::System.IntPtr") const char * "string"
%typemap(cstype, out="string") const char * "string"
%typemap(csin) const char * "$csinput"
%typemap(in) const char * %{ $1 = ($1_ltype)$input; %}
%typemap(out) const char * %{ $result = $1; %}
%typemap(csout, excode=SWIGEXCODE) const char * {
    string ret = global::System.Runtime.InteropServices.Marshal.PtrToStringUTF8($imcall) ?? "";$excode
    return ret;
  }

/* ---- Handles: SafeHandle subclasses in OpenEtw.Interop ---- */
%define OPENETW_HANDLE(TYPE, DESTROY, CSHANDLE)
%typemap(ctype) TYPE *, const TYPE * "void *"
%typemap(imtype) TYPE *, const TYPE * "global::OpenEtw.Interop.CSHANDLE"
%typemap(cstype) TYPE *, const TYPE * "global::OpenEtw.Interop.CSHANDLE"
%typemap(csin) TYPE *, const TYPE * "$csinput"
%typemap(in) TYPE *, const TYPE * %{ $1 = ($1_ltype)$input; %}
%typemap(ctype) TYPE **out "void *"
%typemap(imtype) TYPE **out "out global::OpenEtw.Interop.CSHANDLE"
%typemap(cstype) TYPE **out "out global::OpenEtw.Interop.CSHANDLE"
%typemap(csin) TYPE **out "out $csinput"
%typemap(in) TYPE **out %{ $1 = ($1_ltype)$input; %}
/* The SafeHandle calls DESTROY directly (a handle being released cannot be marshalled). */
%ignore DESTROY;
%enddef

/* ---- Bytes: ref byte from MemoryMarshal.GetReference(span); a null ref is NULL ---- */
%define OPENETW_IN_BYTES(DATA, SIZE)
%typemap(ctype) DATA "const void *"
%typemap(imtype) DATA "ref byte"
%typemap(cstype) DATA "ref byte"
%typemap(csin) DATA "ref $csinput"
%typemap(in) DATA %{ $1 = ($1_ltype)$input; %}
%enddef
OPENETW_IN_BYTES(const void *traits, uint32_t size)

%define OPENETW_OUT_BYTES(DATA, CAPACITY, OUT_SIZE)
%typemap(ctype) DATA "void *"
%typemap(imtype) DATA "ref byte"
%typemap(cstype) DATA "ref byte"
%typemap(csin) DATA "ref $csinput"
%typemap(in) DATA %{ $1 = ($1_ltype)$input; %}
%typemap(ctype) OUT_SIZE "size_t *"
%typemap(imtype) OUT_SIZE "out nuint"
%typemap(cstype) OUT_SIZE "out nuint"
%typemap(csin) OUT_SIZE "out $csinput"
%typemap(in) OUT_SIZE %{ $1 = $input; %}
%enddef

/* ---- GUIDs: System.Guid has the Windows layout ---- */
%typemap(ctype) const etw_guid * "const void *"
%typemap(imtype) const etw_guid * "ref global::System.Guid"
%typemap(cstype) const etw_guid * "global::System.Guid"
%typemap(csin) const etw_guid * "ref $csinput"
%typemap(in) const etw_guid * %{ $1 = ($1_ltype)$input; %}
%typemap(ctype) etw_guid *out "void *"
%typemap(imtype) etw_guid *out "out global::System.Guid"
%typemap(cstype) etw_guid *out "out global::System.Guid"
%typemap(csin) etw_guid *out "out $csinput"
%typemap(in) etw_guid *out %{ $1 = ($1_ltype)$input; %}

/* ---- Records: blittable structs written in OpenEtw (Records.cs) ---- */
%define OPENETW_RECORD_OUT(TYPE, CSTYPE)
%typemap(ctype) TYPE *out "void *"
%typemap(imtype) TYPE *out "out global::OpenEtw.CSTYPE"
%typemap(cstype) TYPE *out "out global::OpenEtw.CSTYPE"
%typemap(csin) TYPE *out "out $csinput"
%typemap(in) TYPE *out %{ $1 = ($1_ltype)$input; %}
%enddef
%ignore etw_guid;
%ignore etw_wnode_header;
%ignore etw_event_trace_properties;
%ignore etw_event_class;
%ignore etw_event_trace_header;
%ignore etw_mof_field;
%ignore etw_systemtime;
%ignore etw_time_zone_information;
%ignore etw_trace_logfile_header64;
%ignore etw_trace_logfile_header32;

/* ---- Sessions, providers and consumers ----
 * The option and view structs are blittable C# structs (OpenEtw/Interop/NativeStructs.cs):
 * callbacks read the views through pointers, so SWIG's proxy classes are not wanted. */
%ignore etw_session_options;
%ignore etw_session_host_info;
%ignore etw_provider_enable_info;
%ignore etw_extended_item;
%ignore etw_record;
%ignore etw_classic_event;
%ignore etw_buffer_info;
%ignore etw_consumer_options;
%ignore etw_logfile_info;
%ignore etw_consumer_stats;
%ignore etw_loss_info;
%ignore etw_classic_event_id;

/* etw_session_set_stack_tracing's events: an array of blittable structs, pinned for the call. */
%typemap(ctype) const etw_classic_event_id *events "const void *"
%typemap(imtype) const etw_classic_event_id *events "global::OpenEtw.Interop.ClassicEventIdNative[]"
%typemap(cstype) const etw_classic_event_id *events "global::OpenEtw.Interop.ClassicEventIdNative[]"
%typemap(csin) const etw_classic_event_id *events "$csinput"
%typemap(in) const etw_classic_event_id *events %{ $1 = ($1_ltype)$input; %}
/* etw_stack_events_parse fills one: the marshaller copies the structs back. */
%typemap(ctype) etw_classic_event_id *events "void *"
%typemap(imtype) etw_classic_event_id *events "[global::System.Runtime.InteropServices.Out] global::OpenEtw.Interop.ClassicEventIdNative[]"
%typemap(cstype) etw_classic_event_id *events "global::OpenEtw.Interop.ClassicEventIdNative[]"
%typemap(csin) etw_classic_event_id *events "$csinput"
%typemap(in) etw_classic_event_id *events %{ $1 = ($1_ltype)$input; %}

/* The provider listing (etw_provider_list, etw_provider_query): arrays the caller
   allocates, copied back by the marshaller (NativeStructs.cs), and two counts. */
%ignore etw_provider_process;
%ignore etw_provider_session;
%typemap(ctype) etw_guid *guids "void *"
%typemap(imtype) etw_guid *guids "[global::System.Runtime.InteropServices.Out] global::System.Guid[]"
%typemap(cstype) etw_guid *guids "global::System.Guid[]"
%typemap(csin) etw_guid *guids "$csinput"
%typemap(in) etw_guid *guids %{ $1 = ($1_ltype)$input; %}
%typemap(ctype) etw_provider_process *processes "void *"
%typemap(imtype) etw_provider_process *processes "[global::System.Runtime.InteropServices.Out] global::OpenEtw.Interop.ProviderProcessNative[]"
%typemap(cstype) etw_provider_process *processes "global::OpenEtw.Interop.ProviderProcessNative[]"
%typemap(csin) etw_provider_process *processes "$csinput"
%typemap(in) etw_provider_process *processes %{ $1 = ($1_ltype)$input; %}
%typemap(ctype) etw_provider_session *sessions "void *"
%typemap(imtype) etw_provider_session *sessions "[global::System.Runtime.InteropServices.Out] global::OpenEtw.Interop.ProviderSessionNative[]"
%typemap(cstype) etw_provider_session *sessions "global::OpenEtw.Interop.ProviderSessionNative[]"
%typemap(csin) etw_provider_session *sessions "$csinput"
%typemap(in) etw_provider_session *sessions %{ $1 = ($1_ltype)$input; %}
%typemap(ctype) uint32_t *out_process_count, uint32_t *out_session_count "uint32_t *"
%typemap(imtype) uint32_t *out_process_count, uint32_t *out_session_count "out uint"
%typemap(cstype) uint32_t *out_process_count, uint32_t *out_session_count "out uint"
%typemap(csin) uint32_t *out_process_count, uint32_t *out_session_count "out $csinput"
%typemap(in) uint32_t *out_process_count, uint32_t *out_session_count %{ $1 = $input; %}

/* A struct passed by reference: pinned by the marshaller, struct_size set by the caller. */
%define OPENETW_STRUCT_REF(DECL, CSTYPE)
%typemap(ctype) DECL "void *"
%typemap(imtype) DECL "ref global::OpenEtw.Interop.CSTYPE"
%typemap(cstype) DECL "ref global::OpenEtw.Interop.CSTYPE"
%typemap(csin) DECL "ref $csinput"
%typemap(in) DECL %{ $1 = ($1_ltype)$input; %}
%enddef
OPENETW_STRUCT_REF(const etw_session_options *options, SessionOptionsNative)
OPENETW_STRUCT_REF(etw_session_options *out, SessionOptionsNative)
OPENETW_STRUCT_REF(etw_session_host_info *out, SessionHostInfoNative)
OPENETW_STRUCT_REF(const etw_consumer_options *options, ConsumerOptionsNative)
OPENETW_STRUCT_REF(etw_logfile_info *out, LogfileInfoNative)
OPENETW_STRUCT_REF(etw_consumer_stats *out, ConsumerStatsNative)

/* Enable parameters and filters (filter.h): blittable structs (NativeStructs.cs); the
   filter payloads are bytes the caller pins. */
%ignore etw_enable_parameters;
%ignore etw_event_filter_descriptor;
%ignore etw_event_filter_event_id;
%ignore etw_event_filter_event_name;
%ignore etw_payload_filter;
%ignore etw_payload_filter_predicate;
OPENETW_STRUCT_REF(const etw_enable_parameters *params, EnableParametersNative)
/* filter.h's constants (filter types, limits, EVENT_ENABLE_PROPERTY_*) for EventFilters.cs;
   its structs are ignored above. SWIG reads a file once, so openetw.i's own %include of
   export.h (and of filter.h, should it gain one) add nothing twice. */
%include "openetw/export.h"
%include "openetw/filter.h"

/* EVENT_HEADER events: the descriptor by reference (a blittable struct, NativeStructs.cs);
   the optional activity ids and the data descriptor array as pointers the caller pins
   (Provider.WriteEvent); etw_activity_id_control's id read and written in place. */
%ignore etw_event_descriptor;
%ignore etw_event_data_descriptor;
OPENETW_STRUCT_REF(const etw_event_descriptor *descriptor, EventDescriptorNative)
%typemap(ctype) etw_guid *activity_id "void *"
%typemap(imtype) etw_guid *activity_id "ref global::System.Guid"
%typemap(cstype) etw_guid *activity_id "ref global::System.Guid"
%typemap(csin) etw_guid *activity_id "ref $csinput"
%typemap(in) etw_guid *activity_id %{ $1 = ($1_ltype)$input; %}

/* The event header is followed in memory by its payload or MOF_FIELD array: the caller
   passes the first member of a larger struct (Provider.cs). */
%typemap(ctype) etw_event_trace_header *header "void *"
%typemap(imtype) etw_event_trace_header *header "ref global::OpenEtw.EventTraceHeader"
%typemap(cstype) etw_event_trace_header *header "ref global::OpenEtw.EventTraceHeader"
%typemap(csin) etw_event_trace_header *header "ref $csinput"
%typemap(in) etw_event_trace_header *header %{ $1 = ($1_ltype)$input; %}

/* uint32_t out-parameters (etw_enable_flags_parse's mask too). */
%typemap(ctype) uint32_t *out, uint32_t *out_count, uint32_t *mask "uint32_t *"
%typemap(imtype) uint32_t *out, uint32_t *out_count, uint32_t *mask "out uint"
%typemap(cstype) uint32_t *out, uint32_t *out_count, uint32_t *mask "out uint"
%typemap(csin) uint32_t *out, uint32_t *out_count, uint32_t *mask "out $csinput"
%typemap(in) uint32_t *out, uint32_t *out_count, uint32_t *mask %{ $1 = $input; %}

/* QueryAllTraces' array of properties: raw pointers the caller keeps alive (Session.List). */
%typemap(ctype) etw_properties *const *array "void *"
%typemap(imtype) etw_properties *const *array "global::System.IntPtr[]"
%typemap(cstype) etw_properties *const *array "global::System.IntPtr[]"
%typemap(csin) etw_properties *const *array "$csinput"
%typemap(in) etw_properties *const *array %{ $1 = ($1_ltype)$input; %}

/* File paths: UTF-8 copies the caller allocates and frees (Consumer.Open); the classic
   marshaller has no UTF-8 array element type. */
%typemap(ctype) const char *const *paths "void *"
%typemap(imtype) const char *const *paths "global::System.IntPtr[]"
%typemap(cstype) const char *const *paths "global::System.IntPtr[]"
%typemap(csin) const char *const *paths "$csinput"
%typemap(in) const char *const *paths %{ $1 = ($1_ltype)$input; %}

/* Callbacks are [UnmanagedCallersOnly] function pointers and user_data a GCHandle, both
   passed as IntPtr (OpenEtw/Interop/*Callbacks.cs); the C types stay in the glue. */
%define OPENETW_POINTER(DECL)
%typemap(ctype) DECL "$1_ltype"
%typemap(imtype) DECL "global::System.IntPtr"
%typemap(cstype) DECL "global::System.IntPtr"
%typemap(csin) DECL "$csinput"
%typemap(in) DECL %{ $1 = $input; %}
%enddef
OPENETW_POINTER(etw_provider_enable_callback)
OPENETW_POINTER(etw_user_data_free)
OPENETW_POINTER(etw_loss_callback)
OPENETW_POINTER(etw_raw_buffer_callback)
OPENETW_POINTER(void *user_data)
OPENETW_POINTER(const etw_guid *activity_id)
OPENETW_POINTER(const etw_guid *related_activity_id)
OPENETW_POINTER(const etw_event_data_descriptor *data)
/* TraceLogging (tracelogging.h): the field array and the group GUID as pointers the caller
   pins, the traits blob as bytes; etw_tl_field gets no proxy class. */
%ignore etw_tl_field;
OPENETW_POINTER(const etw_tl_field *fields)
OPENETW_POINTER(const etw_guid *group)

/* TraceLogging writing (tracelogging.h): its own file. */
%include "csharp_tracelogging.i"

/* The provider's enabled word comes back as an IntPtr that Provider.EnabledHint reads inline. */
%typemap(ctype) const volatile uint32_t * "const void *"
%typemap(imtype) const volatile uint32_t * "global::System.IntPtr"
%typemap(cstype) const volatile uint32_t * "global::System.IntPtr"
%typemap(out) const volatile uint32_t * %{ $result = (const void *)$1; %}
%typemap(csout, excode=SWIGEXCODE) const volatile uint32_t * {
    global::System.IntPtr ret = $imcall;$excode
    return ret;
  }

/* Statuses the idiomatic layer inspects before deciding what to throw: the write hot path
   sets no message (a stale one must not be attached), QueryAllTraces answers MORE_DATA by
   design, and a cancelled process may hide a callback's exception. */
OPENETW_STATUS_VALUE(etw_provider_trace_event)
OPENETW_STATUS_VALUE(etw_provider_write_event)
OPENETW_STATUS_VALUE(etw_session_list)
/* The provider listing: ETW_ERROR_MORE_DATA gives the counts, not an exception. */
OPENETW_STATUS_VALUE(etw_provider_list)
OPENETW_STATUS_VALUE(etw_provider_query)
OPENETW_STATUS_VALUE(etw_consumer_process)
