/*
 * bindings/swig/python.i - Python typemaps for openetw.i.
 *
 * Failing calls raise openetw.errors.from_status(status, message): the one
 * place where a status becomes an exception. Strings are UTF-8 (lone
 * surrogates pass through so the library, not Python, rejects them), bytes
 * go through the buffer protocol without copies, GUIDs are 16 bytes in the
 * Windows layout (uuid.UUID.bytes_le).
 */

%{
/* Raises openetw.errors.from_status(status, text). */
static void openetw_raise_text(etw_status status, const char *text)
{
    PyObject *message = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
    PyObject *errors = message ? PyImport_ImportModule("openetw.errors") : NULL;
    PyObject *exc = errors ? PyObject_CallMethod(errors, "from_status", "kO",
                                                 (unsigned long)status, message) : NULL;
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    Py_XDECREF(errors);
    Py_XDECREF(message);
}

/* Called right after the failing call, before any other library call on
   this thread, so the thread-local message still belongs to it. */
static void openetw_raise(etw_status status)
{
    openetw_raise_text(status, etw_last_error_message());
}
%}

/* Properties objects are not synchronized: keeping the GIL during calls
   stops two Python threads from racing inside one object. Blocking calls
   (process, stop, flush) opt out with %thread. */
%nothread;

/* etw_provider_enabled_word is for callers that test a word inline, with no
   call; a Python call costs more than etw_provider_is_enabled itself, so
   Provider.is_enabled() is the Python way and the raw pointer is not bound. */
%ignore etw_provider_enabled_word;

/* ---- Status: raise on failure, return None on success ---- */
%typemap(out) etw_status {
    if ($1 != ETW_OK) {
        openetw_raise($1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

%define OPENETW_STATUS_VALUE(FUNC)
%typemap(out) etw_status FUNC "$result = PyLong_FromUnsignedLong((unsigned long)$1);";
%enddef

/* Struct members holding a status (etw_consumer_stats.first_problem,
   etw_buffer_info.status) report a problem; reading one must not raise it. */
OPENETW_STATUS_VALUE(first_problem)
OPENETW_STATUS_VALUE(status)

%define OPENETW_SIZE_QUERY(FUNC, BLOCK)
/* arg1 is BLOCK: SWIG names converted arguments argN. */
%typemap(out) etw_status FUNC {
    if ($1 != ETW_OK && !($1 == ETW_ERROR_MORE_DATA && arg1 == NULL)) {
        openetw_raise($1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}
%enddef

/* ---- Strings in: str (UTF-8, surrogatepass), bytes, or None for NULL ---- */
%typemap(in) const char * (PyObject *encoded = NULL) {
    if ($input == Py_None) {
        $1 = NULL;
    } else {
        char *text;
        Py_ssize_t length;
        if (PyUnicode_Check($input))
            encoded = PyUnicode_AsEncodedString($input, "utf-8", "surrogatepass");
        else if (PyBytes_Check($input))
            encoded = (Py_INCREF($input), $input);
        else
            PyErr_SetString(PyExc_TypeError, "$symname: $1_name must be str, bytes or None");
        if (!encoded || PyBytes_AsStringAndSize(encoded, &text, &length) < 0)
            SWIG_fail;
        if ((size_t)length != strlen(text)) {
            PyErr_SetString(PyExc_ValueError, "$symname: $1_name contains a NUL character");
            SWIG_fail;
        }
        $1 = text;
    }
}
%typemap(freearg) const char * "Py_XDECREF(encoded$argnum);";
%typemap(typecheck) const char * = char *;

/* ---- Handles: Python proxies that own the pointer and free it ---- */
%define OPENETW_HANDLE(TYPE, DESTROY, CSHANDLE)
%nodefaultctor TYPE;
%nodefaultdtor TYPE;
struct TYPE {};
%extend TYPE {
    /* Without the GIL: unregister and close wait for callbacks running on
       other threads, which need the GIL to finish. */
    ~TYPE() { Py_BEGIN_ALLOW_THREADS DESTROY($self); Py_END_ALLOW_THREADS }
}
/* Only the proxy frees: a second way would invite double frees. */
%ignore DESTROY;
%typemap(in, numinputs=0) TYPE **out (TYPE *created = NULL) "$1 = &created;";
%typemap(argout) TYPE **out {
    $result = SWIG_Python_AppendOutput($result,
        SWIG_NewPointerObj(*$1, $descriptor(TYPE *), SWIG_POINTER_OWN));
}
%enddef

/* ---- Bytes: any buffer-protocol object, no copy ---- */
%define OPENETW_IN_BYTES(DATA, SIZE)
%typemap(in) (DATA, SIZE) (Py_buffer view = {0}) {
    if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) < 0)
        SWIG_fail;
    $1 = view.buf;
    $2 = (size_t)view.len;
}
%typemap(freearg) (DATA, SIZE) "if (view$argnum.obj) PyBuffer_Release(&view$argnum);";
%enddef

/* A writable buffer (bytearray, memoryview) or None for a size query; returns the size. */
%define OPENETW_OUT_BYTES(DATA, CAPACITY, OUT_SIZE)
%typemap(in) (DATA, CAPACITY) (Py_buffer view = {0}) {
    if ($input == Py_None) {
        $1 = NULL;
        $2 = 0;
    } else {
        if (PyObject_GetBuffer($input, &view, PyBUF_WRITABLE) < 0)
            SWIG_fail;
        $1 = view.buf;
        $2 = (size_t)view.len;
    }
}
%typemap(freearg) (DATA, CAPACITY) "if (view$argnum.obj) PyBuffer_Release(&view$argnum);";
%typemap(in, numinputs=0) OUT_SIZE (size_t size = 0) "$1 = &size;";
%typemap(argout) OUT_SIZE "$result = SWIG_Python_AppendOutput($result, PyLong_FromSize_t(*$1));";
%enddef

/* ---- GUIDs: 16 bytes, Windows layout (uuid.UUID(bytes_le=...)) ---- */
%typemap(in) const etw_guid * (Py_buffer view = {0}) {
    if (PyObject_GetBuffer($input, &view, PyBUF_SIMPLE) < 0)
        SWIG_fail;
    if (view.len != (Py_ssize_t)sizeof(etw_guid)) {
        PyErr_SetString(PyExc_ValueError, "$symname: a GUID is 16 bytes (uuid.UUID.bytes_le)");
        SWIG_fail;
    }
    $1 = (etw_guid *)view.buf;
}
%typemap(freearg) const etw_guid * "if (view$argnum.obj) PyBuffer_Release(&view$argnum);";
%typemap(in, numinputs=0) etw_guid *out (etw_guid guid) "$1 = &guid;";
%typemap(argout) etw_guid *out {
    $result = SWIG_Python_AppendOutput($result,
        PyBytes_FromStringAndSize((const char *)$1, (Py_ssize_t)sizeof(etw_guid)));
}

/* ---- Records: a new owned struct proxy (SWIG frees C structs with free()) ---- */
%define OPENETW_RECORD_OUT(TYPE, CSTYPE)
%typemap(in, numinputs=0) TYPE *out "$1 = (TYPE *)calloc(1, sizeof(TYPE)); if (!$1) { PyErr_NoMemory(); SWIG_fail; }";
%typemap(argout) TYPE *out {
    $result = SWIG_Python_AppendOutput($result, SWIG_NewPointerObj($1, $descriptor(TYPE *), SWIG_POINTER_OWN));
    $1 = NULL;
}
%typemap(freearg) TYPE *out "free($1);";
%enddef

/* Fixed arrays inside records read as bytes (uint8_t) or a tuple (uint16_t). */
%typemap(out) uint8_t [ANY] "$result = PyBytes_FromStringAndSize((const char *)$1, $1_dim0);";
%typemap(out) uint16_t [ANY] {
    Py_ssize_t i;
    $result = PyTuple_New($1_dim0);
    for (i = 0; $result && i < $1_dim0; ++i)
        PyTuple_SET_ITEM($result, i, PyLong_FromUnsignedLong($1[i]));
}

/* ---- Threads: calls that block or run callbacks release the GIL ----
   Callbacks take it back (PyGILState_Ensure), so a callback on this thread
   or on another one never waits for a thread that waits for it. A Properties
   object passed to these calls must not be used by another thread meanwhile. */
%thread etw_session_start;
%thread etw_session_start_ex;
%thread etw_session_stop;
%thread etw_session_update;
%thread etw_session_flush;
%thread etw_session_flush_to_file;
%thread etw_session_enable_provider;
%thread etw_session_grant; /* may wait for the host of a session in another process */
%thread etw_provider_register;
%thread etw_consumer_open;
%thread etw_consumer_open_session;
%thread etw_consumer_process;
%thread etw_consumer_cancel;
%thread openetw_provider_write;
%thread etw_decoder_load_manifest; /* parsing a large manifest or binary takes a while */
%thread etw_decoder_load_manifest_text;
%thread etw_decoder_load_binary;
%thread etw_decoder_load_binary_image;

/* ---- Extensible out-structs: created with struct_size set, returned as owned proxies ---- */
%define OPENETW_SIZED_OUT(TYPE)
%typemap(in, numinputs=0) TYPE *out {
    $1 = (TYPE *)calloc(1, sizeof(TYPE));
    if (!$1) { PyErr_NoMemory(); SWIG_fail; }
    $1->struct_size = (uint32_t)sizeof(TYPE);
}
%typemap(argout) TYPE *out {
    $result = SWIG_Python_AppendOutput($result, SWIG_NewPointerObj($1, $descriptor(TYPE *), SWIG_POINTER_OWN));
    $1 = NULL;
}
%typemap(freearg) TYPE *out "free($1);";
%enddef
OPENETW_SIZED_OUT(etw_session_options)
OPENETW_SIZED_OUT(etw_session_host_info)
OPENETW_SIZED_OUT(etw_logfile_info)
OPENETW_SIZED_OUT(etw_consumer_stats)
/* Options built in Python start with the right struct_size. */
%extend etw_session_options {
    etw_session_options() {
        etw_session_options *o = (etw_session_options *)calloc(1, sizeof *o);
        if (o) o->struct_size = (uint32_t)sizeof *o;
        return o;
    }
}

%typemap(in, numinputs=0) uint32_t *out (uint32_t value = 0), uint32_t *out_count (uint32_t value = 0),
                          uint32_t *mask (uint32_t value = 0) "$1 = &value;";
%typemap(argout) uint32_t *out, uint32_t *out_count, uint32_t *mask
    "$result = SWIG_Python_AppendOutput($result, PyLong_FromUnsignedLong(*$1));";

/* ---- etw_session_list: a list of Properties handles; returns the count ---- */
%typemap(in) (etw_properties *const *array, uint32_t array_count) (etw_properties **handles = NULL) {
    Py_ssize_t i, n;
    PyObject *seq = PySequence_Fast($input, "$symname: array must be a sequence of etw_properties");
    if (!seq) SWIG_fail;
    n = PySequence_Fast_GET_SIZE(seq);
    handles = (etw_properties **)calloc((size_t)n + 1, sizeof *handles);
    for (i = 0; handles && i < n; ++i) {
        void *p = NULL;
        if (!SWIG_IsOK(SWIG_ConvertPtr(PySequence_Fast_GET_ITEM(seq, i), &p, $descriptor(etw_properties *), 0)) || !p) {
            PyErr_SetString(PyExc_TypeError, "$symname: array must hold etw_properties objects");
            break;
        }
        handles[i] = (etw_properties *)p;
    }
    Py_DECREF(seq); /* the caller's list keeps the objects alive during the call */
    if (!handles) PyErr_NoMemory();
    if (PyErr_Occurred()) SWIG_fail;
    $1 = handles;
    $2 = (uint32_t)n;
}
%typemap(freearg) (etw_properties *const *array, uint32_t array_count) "free(handles$argnum);";
/* ETW_ERROR_MORE_DATA only says the array was short: the count tells by how much. */
%typemap(out) etw_status etw_session_list {
    if ($1 != ETW_OK && $1 != ETW_ERROR_MORE_DATA) {
        openetw_raise($1);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}

/* ---- Paths: a sequence of str or bytes (os.fsencode), as UTF-8 ---- */
%typemap(in) (const char *const *paths, uint32_t path_count) (PyObject *seq = NULL, const char **array = NULL) {
    Py_ssize_t i, n;
    seq = PySequence_Fast($input, "$symname: paths must be a sequence of str or bytes");
    if (!seq) SWIG_fail;
    n = PySequence_Fast_GET_SIZE(seq);
    array = (const char **)calloc((size_t)n + 1, sizeof *array);
    if (!array) { PyErr_NoMemory(); SWIG_fail; }
    for (i = 0; i < n; ++i) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t length = 0;
        const char *text = PyBytes_Check(item) ? PyBytes_AsString(item)
                         : PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &length) : NULL;
        if (PyBytes_Check(item)) length = PyBytes_GET_SIZE(item);
        if (!text) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "$symname: a path must be str or bytes");
            SWIG_fail;
        }
        if ((size_t)length != strlen(text)) {
            PyErr_SetString(PyExc_ValueError, "$symname: a path contains a NUL character");
            SWIG_fail;
        }
        array[i] = text; /* owned by item, which seq keeps alive */
    }
    $1 = ($1_ltype)array;
    $2 = (uint32_t)n;
}
%typemap(freearg) (const char *const *paths, uint32_t path_count) "free((void *)array$argnum); Py_XDECREF(seq$argnum);";

/* ---- Callbacks ----
   Native code calls the trampolines below, on whatever thread it runs, with
   user_data pointing at Python objects the library owns one reference to
   (dropped by openetw_user_data_free, exactly once, with the GIL). The
   trampolines only convert arguments and call: the idiomatic layer catches
   the user's exceptions (to re-raise them from the call that caused them),
   so one escaping here is a bug there, reported by sys.unraisablehook and
   answered with "stop". */
%{
static int32_t openetw_call(PyObject *fn, PyObject *args)
{
    PyObject *result = args ? PyObject_CallObject(fn, args) : NULL;
    int32_t stop = 1;
    Py_XDECREF(args);
    if (result) {
        stop = PyObject_IsTrue(result) != 0;
        Py_DECREF(result);
    }
    if (PyErr_Occurred())
        PyErr_WriteUnraisable(fn);
    return stop;
}

static void openetw_user_data_free(void *user_data)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF((PyObject *)user_data);
    PyGILState_Release(gil);
}

/* user_data: the callable fn(is_enabled, level, match_any, match_all, session_handle). */
static void openetw_enable_trampoline(const etw_provider_enable_info *info, void *user_data)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *fn = (PyObject *)user_data;
    Py_INCREF(fn); /* the callback may unregister its provider, which frees user_data */
    openetw_call(fn, Py_BuildValue("(IIKKK)", info->is_enabled, info->level,
                                   (unsigned long long)info->match_any_keyword,
                                   (unsigned long long)info->match_all_keyword,
                                   (unsigned long long)info->session_handle));
    Py_DECREF(fn);
    PyGILState_Release(gil);
}

/* Consumers: user_data is a tuple of callables (buffer, record, event, loss,
   raw_buffer, event_record), None where absent. Structs go to Python as proxies that do
   not own them; the idiomatic layer copies what it keeps before returning,
   and the bytes they point at are copied here (bytes objects), so nothing
   Python holds can dangle after the callback. */
enum { OPENETW_CB_BUFFER, OPENETW_CB_RECORD, OPENETW_CB_EVENT, OPENETW_CB_LOSS, OPENETW_CB_RAW,
       OPENETW_CB_EVENT_RECORD, OPENETW_CB_COUNT };

static PyObject *openetw_bytes(const void *data, size_t size)
{
    return PyBytes_FromStringAndSize(data ? (const char *)data : "", data ? (Py_ssize_t)size : 0);
}

static int32_t openetw_consumer_call(void *user_data, int which, PyObject *args)
{
    PyObject *fns = (PyObject *)user_data;
    return openetw_call(PyTuple_GET_ITEM(fns, which), args);
}

static PyObject *openetw_extended(const etw_record *r)
{
    uint32_t i;
    PyObject *items = PyTuple_New(r->extended ? r->extended_count : 0);
    for (i = 0; items && r->extended && i < r->extended_count; ++i) {
        const etw_extended_item *x = &r->extended[i];
        PyObject *item = Py_BuildValue("(IIIN)", x->ext_type, x->linkage, x->item_size,
                                       openetw_bytes(x->data, x->data_size));
        if (!item) { Py_CLEAR(items); break; }
        PyTuple_SET_ITEM(items, i, item);
    }
    return items;
}

static int32_t openetw_buffer_trampoline(void *user_data, const etw_buffer_info *b)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int32_t stop = openetw_consumer_call(user_data, OPENETW_CB_BUFFER, Py_BuildValue("(NNN)",
        SWIG_NewPointerObj((void *)b, SWIGTYPE_p_etw_buffer_info, 0),
        openetw_bytes(b->data, b->stored_size),
        b->image == b->data ? (Py_INCREF(Py_None), Py_None) : openetw_bytes(b->image, b->image_size)));
    PyGILState_Release(gil);
    return stop;
}

static int32_t openetw_record_trampoline(void *user_data, const etw_record *r)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int32_t stop = openetw_consumer_call(user_data, OPENETW_CB_RECORD, Py_BuildValue("(NNNN)",
        SWIG_NewPointerObj((void *)r, SWIGTYPE_p_etw_record, 0),
        openetw_bytes(r->payload, r->payload_size), openetw_bytes(r->bytes, r->size),
        openetw_extended(r)));
    PyGILState_Release(gil);
    return stop;
}

static int32_t openetw_event_trampoline(void *user_data, const etw_classic_event *e)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int32_t stop = openetw_consumer_call(user_data, OPENETW_CB_EVENT, Py_BuildValue("(NNNN)",
        SWIG_NewPointerObj((void *)e, SWIGTYPE_p_etw_classic_event, 0),
        openetw_bytes(e->payload, e->payload_size),
        openetw_bytes(e->record ? e->record->bytes : NULL, e->record ? e->record->size : 0),
        e->record ? openetw_extended(e->record) : PyTuple_New(0)));
    PyGILState_Release(gil);
    return stop;
}

/* EVENT_RECORD view: its proxy, the user data, and what the Record copy of
   e->record needs (its proxy, payload, whole bytes, extended items). */
static int32_t openetw_event_record_trampoline(void *user_data, const etw_event_record *e)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    const etw_record *r = e->record;
    int32_t stop = openetw_consumer_call(user_data, OPENETW_CB_EVENT_RECORD, Py_BuildValue("(NNNNNN)",
        SWIG_NewPointerObj((void *)e, SWIGTYPE_p_etw_event_record, 0),
        openetw_bytes(e->user_data, e->user_data_length),
        r ? SWIG_NewPointerObj((void *)r, SWIGTYPE_p_etw_record, 0) : (Py_INCREF(Py_None), Py_None),
        openetw_bytes(r ? r->payload : NULL, r ? r->payload_size : 0),
        openetw_bytes(r ? r->bytes : NULL, r ? r->size : 0),
        r ? openetw_extended(r) : PyTuple_New(0)));
    PyGILState_Release(gil);
    return stop;
}

static int32_t openetw_loss_trampoline(void *user_data, const etw_loss_info *info)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int32_t stop = openetw_consumer_call(user_data, OPENETW_CB_LOSS,
                                         Py_BuildValue("(II)", info->events_lost, info->buffers_lost));
    PyGILState_Release(gil);
    return stop;
}

static int32_t openetw_raw_buffer_trampoline(void *user_data, const uint8_t *data, uint32_t size)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    int32_t stop = openetw_consumer_call(user_data, OPENETW_CB_RAW, Py_BuildValue("(N)", openetw_bytes(data, size)));
    PyGILState_Release(gil);
    return stop;
}
%}

/* etw_provider_register(guid, callback): a callable or None stands for
   (callback, user_data, user_data_free). */
%typemap(in) (etw_provider_enable_callback callback, void *user_data, etw_user_data_free user_data_free)
             (PyObject *owned = NULL) {
    if ($input == Py_None) {
        $1 = NULL; $2 = NULL; $3 = NULL;
    } else if (!PyCallable_Check($input)) {
        PyErr_SetString(PyExc_TypeError, "$symname: callback must be callable or None");
        SWIG_fail;
    } else {
        owned = $input;
        Py_INCREF(owned);
        $1 = openetw_enable_trampoline; $2 = owned; $3 = openetw_user_data_free;
    }
}
/* On success the library owns the reference (freed at unregister); on failure it does not. */
%typemap(argout) (etw_provider_enable_callback callback, void *user_data, etw_user_data_free user_data_free) "owned$argnum = NULL;";
%typemap(freearg) (etw_provider_enable_callback callback, void *user_data, etw_user_data_free user_data_free) "Py_XDECREF(owned$argnum);";

/* Consumer options: (flags, (buffer, record, event, loss, raw_buffer, event_record)). The
   library owns the tuple from the call on, also on failure (it runs
   user_data_free then), so the reference is taken last. */
%typemap(in) const etw_consumer_options *options (etw_consumer_options opts) {
    unsigned int flags = 0;
    PyObject *fns = NULL;
    if (!PyArg_ParseTuple($input, "IO!;$symname: options must be (flags, callables)", &flags, &PyTuple_Type, &fns))
        SWIG_fail;
    if (PyTuple_GET_SIZE(fns) != OPENETW_CB_COUNT) {
        PyErr_SetString(PyExc_ValueError, "$symname: options need 6 callables or None");
        SWIG_fail;
    }
    memset(&opts, 0, sizeof opts);
    opts.struct_size = (uint32_t)sizeof opts;
    opts.flags = flags;
    opts.buffer = PyTuple_GET_ITEM(fns, OPENETW_CB_BUFFER) != Py_None ? openetw_buffer_trampoline : NULL;
    opts.record = PyTuple_GET_ITEM(fns, OPENETW_CB_RECORD) != Py_None ? openetw_record_trampoline : NULL;
    opts.event = PyTuple_GET_ITEM(fns, OPENETW_CB_EVENT) != Py_None ? openetw_event_trampoline : NULL;
    opts.event_record = PyTuple_GET_ITEM(fns, OPENETW_CB_EVENT_RECORD) != Py_None ? openetw_event_record_trampoline : NULL;
    opts.user_data = fns;
    opts.user_data_free = openetw_user_data_free;
    Py_INCREF(fns);
    $1 = &opts;
}
/* Live consumers: True installs the trampoline (calling the options' loss or
   raw_buffer entry), False or None clears it. */
%typemap(in) etw_loss_callback callback "$1 = PyObject_IsTrue($input) ? openetw_loss_trampoline : NULL;";
%typemap(in) etw_raw_buffer_callback callback "$1 = PyObject_IsTrue($input) ? openetw_raw_buffer_trampoline : NULL;";

/* ---- Writing a classic event ---- */
OPENETW_IN_BYTES(const void *payload, size_t payload_size)
%{
/* The write hot path leaves no message in the library: say what happened here. */
static _Thread_local char openetw_write_message[200];
%}
%typemap(out) etw_status openetw_provider_write {
    if ($1 != ETW_OK) {
        openetw_raise_text($1, openetw_write_message);
        SWIG_fail;
    }
    $result = SWIG_Py_Void();
}
%inline %{
/* etw_provider_trace_event of an EVENT_TRACE_HEADER built here: Size is
   48 + payload, the payload gathered from the caller's buffer through one
   MOF_FIELD (no copy). Size is 16 bits, so a larger event is refused here
   with the status the header documents for it. */
etw_status openetw_provider_write(etw_provider *provider, const etw_guid *class_guid, uint8_t type,
                                  uint8_t level, uint16_t version, const void *payload, size_t payload_size)
{
    struct { etw_event_trace_header header; etw_mof_field mof; } event;
    etw_status status;
    memset(&event, 0, sizeof event);
    event.header.Size = ETW_EVENT_TRACE_HEADER_SIZE;
    event.header.Class.Type = type;
    event.header.Class.Level = level;
    event.header.Class.Version = version;
    event.header.Guid = *class_guid;
    event.header.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    if (payload_size > 0xFFFFu - ETW_EVENT_TRACE_HEADER_SIZE) {
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "the payload (%zu bytes) and the 48-byte header pass 0xFFFF, the largest "
                 "EVENT_TRACE_HEADER.Size", payload_size);
        return ETW_ERROR_INVALID_PARAMETER;
    }
    if (payload_size) {
        event.header.Size += ETW_MOF_FIELD_SIZE;
        event.header.Flags |= ETW_WNODE_FLAG_USE_MOF_PTR;
        event.mof.DataPtr = (uint64_t)(uintptr_t)payload;
        event.mof.Length = (uint32_t)payload_size;
    }
    status = etw_provider_trace_event(provider, &event.header);
    switch (status) {
    case ETW_ERROR_MORE_DATA:
        snprintf(openetw_write_message, sizeof openetw_write_message, "the event (%zu bytes) is not "
                 "smaller than a session's buffer size minus 72 bytes", payload_size + 48);
        break;
    case ETW_ERROR_NOT_ENOUGH_MEMORY:
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "a session has no free buffer: the event was dropped (counted in EventsLost)");
        break;
    case ETW_ERROR_LOG_FILE_FULL:
        snprintf(openetw_write_message, sizeof openetw_write_message, "a real-time session's backlog "
                 "is full and no consumer is attached: the event was refused (counted in EventsLost)");
        break;
    default:
        openetw_write_message[0] = '\0';
    }
    return status;
}
%}

/* ---- EVENT_HEADER events and activity ids ----
   Wrapped by the helpers below (scalars and bytes), not as declared. */
%ignore etw_provider_write_event;
%ignore etw_activity_id_control;
OPENETW_IN_BYTES(const void *activity, size_t activity_size)
OPENETW_IN_BYTES(const void *related, size_t related_size)
OPENETW_IN_BYTES(const void *current, size_t current_size)
%typemap(out) etw_status openetw_provider_write_event = etw_status openetw_provider_write;
%typemap(out) etw_status openetw_activity_id_control = etw_status openetw_provider_write;
%inline %{
/* A GUID argument: 16 bytes, or empty for none. */
static int openetw_optional_guid(const void *bytes, size_t size, const char *what, const etw_guid **out)
{
    if (size == 0) {
        *out = NULL;
        return 1;
    }
    if (size != sizeof(etw_guid)) {
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "%s is %zu bytes: a GUID is 16 (uuid.UUID.bytes_le)", what, size);
        return 0;
    }
    *out = (const etw_guid *)bytes;
    return 1;
}

/* etw_provider_write_event with the descriptor's members, the optional
   activity ids as 16 bytes (empty: none) and the payload as one data
   descriptor (not copied). */
etw_status openetw_provider_write_event(etw_provider *provider, uint16_t id, uint8_t version, uint8_t channel,
                                        uint8_t level, uint8_t opcode, uint16_t task, uint64_t keyword,
                                        const void *activity, size_t activity_size, const void *related,
                                        size_t related_size, const void *payload, size_t payload_size)
{
    etw_event_descriptor d;
    etw_event_data_descriptor data;
    const etw_guid *a, *r;
    etw_status status;
    if (!openetw_optional_guid(activity, activity_size, "activity_id", &a) ||
        !openetw_optional_guid(related, related_size, "related_activity_id", &r))
        return ETW_ERROR_INVALID_PARAMETER;
    d.Id = id;
    d.Version = version;
    d.Channel = channel;
    d.Level = level;
    d.Opcode = opcode;
    d.Task = task;
    d.Keyword = keyword;
    data.Ptr = (uint64_t)(uintptr_t)payload;
    data.Size = payload_size > 0xFFFFu ? 0xFFFFu : (uint32_t)payload_size;
    data.Reserved = 0;
    status = etw_provider_write_event(provider, &d, 0, a, r, payload_size ? 1 : 0, &data);
    switch (status) {
    case ETW_ERROR_ARITHMETIC_OVERFLOW:
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "the payload (%zu bytes), the 80-byte header and its items pass 0xFFFF, the largest "
                 "EVENT_HEADER.Size", payload_size);
        break;
    case ETW_ERROR_MORE_DATA:
        snprintf(openetw_write_message, sizeof openetw_write_message, "the event (%zu bytes) is not "
                 "smaller than a session's buffer size minus 72 bytes", payload_size + 80);
        break;
    case ETW_ERROR_NOT_ENOUGH_MEMORY:
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "a session has no free buffer: the event was dropped (counted in EventsLost)");
        break;
    case ETW_ERROR_LOG_FILE_FULL:
        snprintf(openetw_write_message, sizeof openetw_write_message, "a real-time session's backlog "
                 "is full and no consumer is attached: the event was refused (counted in EventsLost)");
        break;
    default:
        openetw_write_message[0] = '\0';
    }
    return status;
}

/* etw_activity_id_control: current is the id given (16 bytes, or empty:
   zero), the id returned comes back as 16 bytes. */
etw_status openetw_activity_id_control(uint32_t code, const void *current, size_t current_size, etw_guid *out)
{
    etw_status status;
    memset(out, 0, sizeof *out);
    if (current_size != 0 && current_size != sizeof(etw_guid)) {
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "the activity id is %zu bytes: a GUID is 16 (uuid.UUID.bytes_le)", current_size);
        return ETW_ERROR_INVALID_PARAMETER;
    }
    if (current_size)
        memcpy(out, current, sizeof *out);
    status = etw_activity_id_control(code, out);
    if (status != ETW_OK)
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "activity id control code %u is none of ETW_ACTIVITY_CTRL_GET_ID..CREATE_SET_ID", code);
    else
        openetw_write_message[0] = '\0';
    return status;
}
%}

/* ---- TraceLogging (tracelogging.h) ----
   openetw/tracelogging.py packs the fields; these helpers unpack them into
   etw_tl_field entries pointing into the two buffers (no copy). */
%ignore etw_provider_write_tracelogging;
%ignore etw_provider_set_traits;
%ignore etw_provider_set_name;
%ignore etw_provider_guid_from_name;
%ignore etw_tl_field;
OPENETW_IN_BYTES(const void *layout, size_t layout_size)
OPENETW_IN_BYTES(const void *values, size_t values_size)
OPENETW_IN_BYTES(const void *traits, size_t traits_size)
OPENETW_IN_BYTES(const void *group, size_t group_size)
%typemap(out) etw_status openetw_provider_write_tracelogging = etw_status openetw_provider_write;
%typemap(out) etw_status openetw_provider_set_traits = etw_status openetw_provider_write;
%typemap(out) etw_status openetw_provider_set_name = etw_status openetw_provider_write;
%typemap(out) etw_status openetw_provider_guid_from_name = etw_status openetw_provider_write;
%inline %{
/* A failure's text: the library's sentence for what it checked, fixed
   text for what a session did (the write path leaves no message then). */
static etw_status openetw_tl_status(etw_status status)
{
    switch (status) {
    case ETW_OK:
        openetw_write_message[0] = '\0';
        break;
    case ETW_ERROR_MORE_DATA:
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "the event is not smaller than a session's buffer size minus 72 bytes");
        break;
    case ETW_ERROR_NOT_ENOUGH_MEMORY:
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "a session has no free buffer: the event was dropped (counted in EventsLost)");
        break;
    case ETW_ERROR_LOG_FILE_FULL:
        snprintf(openetw_write_message, sizeof openetw_write_message, "a real-time session's backlog "
                 "is full and no consumer is attached: the event was refused (counted in EventsLost)");
        break;
    default:
        snprintf(openetw_write_message, sizeof openetw_write_message, "%s", etw_last_error_message());
    }
    return status;
}

/* etw_provider_write_tracelogging. layout: per field, its UTF-8 name and a
   NUL, then in-type, out-type (1 byte each) and the value's size (UINT32
   little-endian; a struct's member count); values: the fields' bytes one
   after another (a struct has none). */
etw_status openetw_provider_write_tracelogging(etw_provider *provider, const char *event_name, uint8_t level,
                                               uint64_t keyword, uint8_t opcode, uint8_t channel,
                                               const void *activity, size_t activity_size, const void *related,
                                               size_t related_size, const void *layout, size_t layout_size,
                                               const void *values, size_t values_size)
{
    etw_tl_field fields[ETW_TL_MAX_FIELDS];
    etw_event_descriptor d = {0, 0, 0, 0, 0, 0, 0};
    const etw_guid *a, *r;
    const uint8_t *l = (const uint8_t *)layout, *v = (const uint8_t *)values;
    size_t at = 0, used = 0;
    uint32_t n = 0;
    if (!openetw_optional_guid(activity, activity_size, "activity_id", &a) ||
        !openetw_optional_guid(related, related_size, "related_activity_id", &r))
        return ETW_ERROR_INVALID_PARAMETER;
    while (at < layout_size) {
        const uint8_t *nul = (const uint8_t *)memchr(l + at, 0, layout_size - at);
        uint32_t size;
        if (n == ETW_TL_MAX_FIELDS) {
            snprintf(openetw_write_message, sizeof openetw_write_message,
                     "an event has at most %u fields (ETW_TL_MAX_FIELDS)", ETW_TL_MAX_FIELDS);
            return ETW_ERROR_INVALID_PARAMETER;
        }
        if (!nul || (size_t)(nul - l) + 7 > layout_size) {
            snprintf(openetw_write_message, sizeof openetw_write_message, "the field layout is truncated");
            return ETW_ERROR_INVALID_PARAMETER;
        }
        fields[n].name = (const char *)(l + at);
        at = (size_t)(nul - l) + 1;
        fields[n].in_type = l[at];
        fields[n].out_type = l[at + 1];
        fields[n].reserved = 0;
        size = (uint32_t)l[at + 2] | (uint32_t)l[at + 3] << 8 | (uint32_t)l[at + 4] << 16 | (uint32_t)l[at + 5] << 24;
        at += 6;
        if (fields[n].in_type == ETW_TL_IN_STRUCT) { /* size: the member count; no bytes */
            fields[n].data = NULL;
            fields[n].size = size;
            ++n;
            continue;
        }
        if (size > values_size - used) {
            snprintf(openetw_write_message, sizeof openetw_write_message, "the field values are truncated");
            return ETW_ERROR_INVALID_PARAMETER;
        }
        fields[n].data = v + used;
        fields[n].size = size;
        used += size;
        ++n;
    }
    d.Level = level;
    d.Keyword = keyword;
    d.Opcode = opcode;
    d.Channel = channel;
    return openetw_tl_status(etw_provider_write_tracelogging(provider, event_name, &d, a, r, n, fields));
}

etw_status openetw_provider_set_traits(etw_provider *provider, const void *traits, size_t traits_size)
{
    if (traits_size > 0xFFFFu) {
        snprintf(openetw_write_message, sizeof openetw_write_message,
                 "traits of %zu bytes: at most 65535", traits_size);
        return ETW_ERROR_INVALID_PARAMETER;
    }
    return openetw_tl_status(etw_provider_set_traits(provider, traits, (uint32_t)traits_size));
}

/* group: 16 bytes, or empty for none. */
etw_status openetw_provider_set_name(etw_provider *provider, const char *name, const void *group, size_t group_size)
{
    const etw_guid *g;
    if (!openetw_optional_guid(group, group_size, "group", &g))
        return ETW_ERROR_INVALID_PARAMETER;
    return openetw_tl_status(etw_provider_set_name(provider, name, g));
}

etw_status openetw_provider_guid_from_name(const char *name, etw_guid *out)
{
    memset(out, 0, sizeof *out);
    return openetw_tl_status(etw_provider_guid_from_name(out, name));
}
%}


/* ---- Filters at the source, enable parameters and the provider listing ---- */
%include "python_filters.i"
