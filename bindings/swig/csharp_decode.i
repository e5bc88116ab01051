/*
 * bindings/swig/csharp_decode.i - decode.h for C# (included by openetw.i).
 *
 * The record is the etw_record the callback received (TraceRecord holds its
 * pointer) and the result a pointer the public layer reads through blittable
 * structs (OpenEtw/Interop/DecodeNative.cs) and copies at once
 * (OpenEtw/DecodedFields.cs). NOT_FOUND is an answer, not an error, so the
 * status comes back as a value.
 */
%ignore etw_decoded_event;
%ignore etw_event_property;
OPENETW_POINTER(const etw_record *record)
%typemap(ctype) const etw_decoded_event **out "void *"
%typemap(imtype) const etw_decoded_event **out "out global::System.IntPtr"
%typemap(cstype) const etw_decoded_event **out "out global::System.IntPtr"
%typemap(csin) const etw_decoded_event **out "out $csinput"
%typemap(in) const etw_decoded_event **out %{ $1 = ($1_ltype)$input; %}
OPENETW_STATUS_VALUE(etw_decoder_decode)
