/*
 * bindings/swig/python_stream.i - streams for Python (included by openetw.i):
 * etw_consumer_open_stream and collect.h.
 *
 * etw_collect_stream releases the GIL (it reads the network and writes
 * files) and returns its status as a value: the report is filled on a
 * failure too, so openetw/stream.py raises with the report attached.
 * etw_collected_file comes back as an owned proxy whose strings the
 * package copies at once (they belong to the report).
 */
%thread etw_consumer_open_stream;
%thread etw_collect_stream;
OPENETW_STATUS_VALUE(etw_collect_stream)
OPENETW_SIZED_OUT(etw_collected_file)
%typemap(in, numinputs=0) uint64_t *out (uint64_t value = 0) "$1 = &value;";
%typemap(argout) uint64_t *out "$result = SWIG_Python_AppendOutput($result, PyLong_FromUnsignedLongLong(*$1));";
