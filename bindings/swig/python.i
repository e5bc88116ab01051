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
/* Called right after the failing call, before any other library call on
   this thread, so the thread-local message still belongs to it. */
static void openetw_raise(etw_status status)
{
    const char *text = etw_last_error_message();
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
%}

/* Properties objects are not synchronized: keeping the GIL during calls
   stops two Python threads from racing inside one object. Blocking calls
   (process, stop, flush) opt out with %thread. */
%nothread;

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
    ~TYPE() { DESTROY($self); }
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
