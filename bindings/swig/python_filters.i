/*
 * bindings/swig/python_filters.i - Python typemaps for filters at the source,
 * enable parameters (filter.h) and the provider listing (provider.h).
 * Included by python.i, before the headers.
 *
 * openetw/filters.py packs each filter's payload as Windows lays it out; a
 * filter crosses as a (type, payload bytes) tuple and the array of
 * EVENT_FILTER_DESCRIPTORs is built here, pointing into the caller's bytes
 * (no copy: the library copies what it keeps). Every limit (counts, sizes,
 * a type given twice) is the library's to check, so its status and message
 * are what Python raises.
 */

/* filter.h's constants (filter types, limits, EVENT_ENABLE_PROPERTY_*,
   PAYLOADFIELD_*); its structs travel as the bytes filters.py packs, so they
   are not bound. SWIG reads a file once: openetw.i's own %include of
   export.h (and of filter.h, should it gain one) adds nothing twice. */
%ignore etw_event_filter_descriptor;
%ignore etw_event_filter_event_id;
%ignore etw_event_filter_event_name;
%ignore etw_payload_filter;
%ignore etw_payload_filter_predicate;
%ignore etw_enable_parameters;
%include "openetw/export.h"
%include "openetw/filter.h"

/* ---- Filters in: a sequence of (type, payload) tuples, or None for none ---- */
%typemap(in) (const etw_event_filter_descriptor *filters, uint32_t filter_count)
             (etw_event_filter_descriptor *descs = NULL, Py_buffer *views = NULL, Py_ssize_t held = 0) {
    Py_ssize_t i, n = 0;
    PyObject *seq = NULL;
    if ($input != Py_None) {
        seq = PySequence_Fast($input, "$symname: filters must be a sequence of (type, payload) tuples");
        if (!seq) SWIG_fail;
        n = PySequence_Fast_GET_SIZE(seq);
    }
    /* One more than asked, so that an empty list still gets a non-NULL array. */
    descs = (etw_event_filter_descriptor *)calloc((size_t)n + 1, sizeof *descs);
    views = (Py_buffer *)calloc((size_t)n + 1, sizeof *views);
    if (!descs || !views) {
        Py_XDECREF(seq);
        PyErr_NoMemory();
        SWIG_fail;
    }
    for (i = 0; i < n; ++i) {
        unsigned long type = 0;
        PyObject *payload = NULL;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "kO;$symname: a filter is (type, payload bytes)",
                              &type, &payload) ||
            PyObject_GetBuffer(payload, &views[i], PyBUF_SIMPLE) < 0)
            break;
        held = i + 1;
        if (type > 0xFFFFFFFFul || (unsigned long long)views[i].len > 0xFFFFFFFFull) {
            PyErr_SetString(PyExc_OverflowError, "$symname: a filter's type and size are 32-bit");
            break;
        }
        descs[i].Type = (uint32_t)type;
        descs[i].Size = (uint32_t)views[i].len;
        descs[i].Ptr = (uint64_t)(uintptr_t)views[i].buf;
    }
    Py_XDECREF(seq); /* the caller's list keeps the payloads alive during the call */
    if (PyErr_Occurred()) SWIG_fail;
    $1 = descs;
    $2 = (uint32_t)n;
}
%typemap(freearg) (const etw_event_filter_descriptor *filters, uint32_t filter_count) {
    Py_ssize_t k;
    for (k = 0; views$argnum && k < held$argnum; ++k)
        PyBuffer_Release(&views$argnum[k]);
    free(views$argnum);
    free(descs$argnum);
}

/* The raw forms take pointers Python cannot build: the helpers below take
   the parameters as values and the filters through the typemap above. */
%ignore etw_session_enable_provider_ex;
%ignore etw_provider_list;
%ignore etw_provider_query;
%thread openetw_session_enable_provider_ex; /* runs enable callbacks, as etw_session_enable_provider */
%thread openetw_session_start_filtered;
/* The started session, as OPENETW_HANDLE (openetw.i) returns handles: the
   helper is declared before that macro runs, so the typemap is applied here. */
%typemap(in, numinputs=0) etw_session **started (etw_session *created = NULL) "$1 = &created;";
%typemap(argout) etw_session **started {
    $result = SWIG_Python_AppendOutput($result,
        SWIG_NewPointerObj(*$1, $descriptor(etw_session *), SWIG_POINTER_OWN));
}
%inline %{
/* etw_session_enable_provider_ex with its etw_enable_parameters given member by member. */
etw_status openetw_session_enable_provider_ex(etw_session *session, const etw_guid *provider_guid,
                                              uint32_t control_code, uint8_t level, uint64_t match_any_keyword,
                                              uint64_t match_all_keyword, uint32_t enable_property,
                                              const etw_event_filter_descriptor *filters, uint32_t filter_count)
{
    etw_enable_parameters params;
    memset(&params, 0, sizeof params);
    params.struct_size = (uint32_t)sizeof params;
    params.enable_property = enable_property;
    params.match_any_keyword = match_any_keyword;
    params.match_all_keyword = match_all_keyword;
    params.level = level;
    params.filter_count = filter_count;
    params.filters = filters;
    return etw_session_enable_provider_ex(session, provider_guid, control_code, &params);
}

/* etw_session_start_ex with the session's own filters (etw_session_options.filters)
   set on a copy of options (NULL: defaults). */
etw_status openetw_session_start_filtered(etw_session **started, etw_properties *props, const etw_session_options *options,
                                          const etw_event_filter_descriptor *filters, uint32_t filter_count)
{
    etw_session_options o;
    memset(&o, 0, sizeof o);
    if (options)
        o = *options;
    o.struct_size = (uint32_t)sizeof o;
    o.filter_count = filter_count;
    o.filters = filters;
    return etw_session_start_ex(started, props, &o);
}
%}

/* ---- The provider listing: Python lists, sized by asking again on MORE_DATA ---- */
%inline %{
/* etw_provider_list: a list of 16-byte GUIDs (Windows layout). NULL with the
   exception set on failure. */
PyObject *openetw_provider_list(void)
{
    etw_guid *guids = NULL;
    uint32_t capacity = 0, count = 0, i;
    etw_status status;
    PyObject *list;
    for (;;) {
        Py_BEGIN_ALLOW_THREADS
        status = etw_provider_list(guids, capacity, &count);
        Py_END_ALLOW_THREADS
        if (status != ETW_ERROR_MORE_DATA)
            break;
        free(guids);
        capacity = count + 8; /* room for providers registered meanwhile */
        guids = (etw_guid *)calloc(capacity, sizeof *guids);
        if (!guids)
            return PyErr_NoMemory();
    }
    if (status != ETW_OK) {
        free(guids);
        openetw_raise(status);
        return NULL;
    }
    list = PyList_New(count);
    for (i = 0; list && i < count; ++i) {
        PyObject *g = PyBytes_FromStringAndSize((const char *)&guids[i], (Py_ssize_t)sizeof(etw_guid));
        if (!g) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, i, g);
    }
    free(guids);
    return list;
}

/* A NUL-terminated name in a fixed array (not trusted to hold the NUL). */
static PyObject *openetw_session_name(const char *name, size_t capacity)
{
    const char *nul = (const char *)memchr(name, 0, capacity);
    return PyUnicode_DecodeUTF8(name, nul ? (Py_ssize_t)(nul - name) : (Py_ssize_t)capacity, "replace");
}

/* etw_provider_query: ([(process_id, registrations)], [(session_handle, session_name,
   level, match_any_keyword, match_all_keyword, enable_property, filter_count)]).
   NULL with the exception set on failure (ETW_ERROR_WMI_GUID_NOT_FOUND for an
   unknown GUID). */
PyObject *openetw_provider_query(const etw_guid *guid)
{
    etw_provider_process *processes = NULL;
    etw_provider_session *sessions = NULL;
    uint32_t pcap = 0, scap = 0, pcount = 0, scount = 0, i;
    etw_status status;
    PyObject *plist = NULL, *slist = NULL;
    for (;;) {
        Py_BEGIN_ALLOW_THREADS
        status = etw_provider_query(guid, processes, pcap, &pcount, sessions, scap, &scount);
        Py_END_ALLOW_THREADS
        if (status != ETW_ERROR_MORE_DATA)
            break;
        free(processes);
        free(sessions);
        pcap = pcount + 4;
        scap = scount + 4;
        processes = (etw_provider_process *)calloc(pcap, sizeof *processes);
        sessions = (etw_provider_session *)calloc(scap, sizeof *sessions);
        if (!processes || !sessions) {
            free(processes);
            free(sessions);
            return PyErr_NoMemory();
        }
    }
    if (status != ETW_OK) {
        free(processes);
        free(sessions);
        openetw_raise(status);
        return NULL;
    }
    plist = PyList_New(pcount);
    slist = PyList_New(scount);
    for (i = 0; plist && i < pcount; ++i) {
        PyObject *p = Py_BuildValue("(kk)", (unsigned long)processes[i].process_id,
                                    (unsigned long)processes[i].registrations);
        if (!p) {
            Py_CLEAR(plist);
            break;
        }
        PyList_SET_ITEM(plist, i, p);
    }
    for (i = 0; slist && i < scount; ++i) {
        const etw_provider_session *s = &sessions[i];
        PyObject *t = Py_BuildValue("(KNkKKkk)", (unsigned long long)s->session_handle,
                                    openetw_session_name(s->session_name, sizeof s->session_name),
                                    (unsigned long)s->level, (unsigned long long)s->match_any_keyword,
                                    (unsigned long long)s->match_all_keyword, (unsigned long)s->enable_property,
                                    (unsigned long)s->filter_count);
        if (!t) {
            Py_CLEAR(slist);
            break;
        }
        PyList_SET_ITEM(slist, i, t);
    }
    free(processes);
    free(sessions);
    if (!plist || !slist) {
        Py_XDECREF(plist);
        Py_XDECREF(slist);
        return NULL;
    }
    return Py_BuildValue("(NN)", plist, slist);
}
%}
