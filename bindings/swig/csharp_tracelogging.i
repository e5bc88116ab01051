/*
 * bindings/swig/csharp_tracelogging.i - what OpenEtw/TraceLogging*.cs needs of
 * tracelogging.h beyond csharp.i's field-array, group and traits typemaps
 * (included by csharp.i).
 *
 * TraceLogging.cs encodes an object's values into a buffer it pins and
 * passes an etw_tl_field array on the stack (TlFieldNative) and the event
 * name as UTF-8 it encoded on the stack: both raw pointers, so a write
 * marshals nothing. The write's status comes back as a value: the idiomatic
 * layer attaches the library's message only to the statuses that set one
 * (a session's drop sets none).
 */
OPENETW_POINTER(const char *event_name)
OPENETW_STATUS_VALUE(etw_provider_write_tracelogging)
