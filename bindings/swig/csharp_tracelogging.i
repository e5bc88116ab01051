/*
 * bindings/swig/csharp_tracelogging.i - tracelogging.h for C# (included by csharp.i).
 *
 * OpenEtw/TraceLogging*.cs encodes an object's values into a buffer it pins
 * and hands the library an etw_tl_field array on the stack (TlFieldNative):
 * the field array and the UTF-8 event name are raw pointers, so a write
 * marshals nothing. The write's status comes back as a value: the
 * idiomatic layer attaches the library's message only to the statuses that
 * set one (a session's drop sets none).
 */
%ignore etw_tl_field;
OPENETW_POINTER(const etw_tl_field *fields)
OPENETW_POINTER(const char *event_name)
/* set_name's optional provider group: NULL for none. */
OPENETW_POINTER(const etw_guid *group)
OPENETW_IN_BYTES(const void *traits, uint32_t size)
OPENETW_STATUS_VALUE(etw_provider_write_tracelogging)
