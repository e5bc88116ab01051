/*
 * bindings/swig/csharp_stream.i - collect.h for C# (included by openetw.i);
 * etw_consumer_open_stream needs no typemap of its own.
 *
 * The report is a SafeHandle (CollectReportHandle), a file a blittable
 * struct read by reference (OpenEtw/Interop/CollectNative.cs) whose strings
 * the public layer copies at once (OpenEtw/Collect.cs). The status of
 * etw_collect_stream comes back as a value: the report is filled on a
 * failure too, and the exception carries it.
 */
%ignore etw_collected_file;
OPENETW_STRUCT_REF(etw_collected_file *out, CollectedFileNative)
OPENETW_STATUS_VALUE(etw_collect_stream)
%typemap(ctype) uint64_t *out "uint64_t *"
%typemap(imtype) uint64_t *out "out ulong"
%typemap(cstype) uint64_t *out "out ulong"
%typemap(csin) uint64_t *out "out $csinput"
%typemap(in) uint64_t *out %{ $1 = $input; %}
