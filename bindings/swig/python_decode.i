/*
 * bindings/swig/python_decode.i - decode.h for Python (included by python.i).
 *
 * Python records are copies (openetw.records.Record): the record's facts as
 * attributes, payload and raw as bytes, extended as (ext_type, linkage,
 * item_size, data) tuples. openetw_decode rebuilds the etw_record those
 * copies came from, decodes it and returns the result as plain Python
 * objects, so no proxy of decoder-owned memory outlives the call
 * (openetw/fields.py turns them into natural values).
 */

%{
/* The etw_record members read back from a Record, by name. */
#define OPENETW_MEMBER(NAME) { #NAME, offsetof(etw_record, NAME), sizeof(((etw_record *)0)->NAME) }
static const struct { const char *name; size_t offset, size; } openetw_record_members[] = {
    OPENETW_MEMBER(kind), OPENETW_MEMBER(present), OPENETW_MEMBER(header_type),
    OPENETW_MEMBER(marker_flags), OPENETW_MEMBER(size), OPENETW_MEMBER(header_size),
    OPENETW_MEMBER(pointer_size), OPENETW_MEMBER(file_index), OPENETW_MEMBER(buffer_index),
    OPENETW_MEMBER(buffer_offset), OPENETW_MEMBER(processor), OPENETW_MEMBER(thread_id),
    OPENETW_MEMBER(process_id), OPENETW_MEMBER(timestamp), OPENETW_MEMBER(timestamp_raw),
    OPENETW_MEMBER(keyword), OPENETW_MEMBER(kernel_time), OPENETW_MEMBER(user_time),
    OPENETW_MEMBER(hook_id), OPENETW_MEMBER(version_word), OPENETW_MEMBER(event_id),
    OPENETW_MEMBER(task), OPENETW_MEMBER(version), OPENETW_MEMBER(event_flags),
    OPENETW_MEMBER(event_property), OPENETW_MEMBER(message_number), OPENETW_MEMBER(message_flags),
    OPENETW_MEMBER(opcode), OPENETW_MEMBER(level), OPENETW_MEMBER(channel),
    OPENETW_MEMBER(message_sequence), OPENETW_MEMBER(component_id), OPENETW_MEMBER(instance_id),
    OPENETW_MEMBER(parent_instance_id),
};
#undef OPENETW_MEMBER

/* An integer attribute of record into the member at `at` (size bytes, little-endian host). */
static int openetw_member_in(PyObject *record, const char *name, void *at, size_t size)
{
    PyObject *value = PyObject_GetAttrString(record, name);
    unsigned long long bits;
    if (!value)
        return -1;
    bits = PyLong_AsUnsignedLongLongMask(value); /* signed members wrap as in C */
    Py_DECREF(value);
    if (bits == (unsigned long long)-1 && PyErr_Occurred())
        return -1;
    switch (size) {
    case 1: *(uint8_t *)at = (uint8_t)bits; break;
    case 2: *(uint16_t *)at = (uint16_t)bits; break;
    case 4: *(uint32_t *)at = (uint32_t)bits; break;
    default: *(uint64_t *)at = (uint64_t)bits; break;
    }
    return 0;
}

/* A uuid.UUID attribute (bytes_le is the Windows layout). */
static int openetw_guid_in(PyObject *record, const char *name, etw_guid *out)
{
    PyObject *value = PyObject_GetAttrString(record, name);
    PyObject *raw = value ? PyObject_GetAttrString(value, "bytes_le") : NULL;
    int ok = raw && PyBytes_Check(raw) && PyBytes_GET_SIZE(raw) == (Py_ssize_t)sizeof *out;
    if (ok)
        memcpy(out, PyBytes_AS_STRING(raw), sizeof *out);
    else if (!PyErr_Occurred())
        PyErr_Format(PyExc_TypeError, "record.%s must be a uuid.UUID", name);
    Py_XDECREF(raw);
    Py_XDECREF(value);
    return ok ? 0 : -1;
}

/* A bytes attribute; *keep owns it until the decode is done. */
static int openetw_bytes_in(PyObject *record, const char *name, const uint8_t **data, Py_ssize_t *size, PyObject **keep)
{
    *keep = PyObject_GetAttrString(record, name);
    if (!*keep)
        return -1;
    if (!PyBytes_Check(*keep)) {
        PyErr_Format(PyExc_TypeError, "record.%s must be bytes", name);
        return -1;
    }
    *data = (const uint8_t *)PyBytes_AS_STRING(*keep);
    *size = PyBytes_GET_SIZE(*keep);
    return 0;
}

static PyObject *openetw_text(const char *text)
{
    return PyUnicode_DecodeUTF8(text ? text : "", text ? (Py_ssize_t)strlen(text) : 0, "replace");
}

static PyObject *openetw_decoded(const etw_decoded_event *e)
{
    PyObject *props = PyList_New(e->property_count);
    uint32_t i;
    for (i = 0; props && i < e->property_count; ++i) {
        const etw_event_property *p = &e->properties[i];
        PyObject *item = Py_BuildValue("(NNNIIIIII)", openetw_text(p->name), openetw_text(p->value),
            PyBytes_FromStringAndSize((const char *)p->data, p->data ? (Py_ssize_t)p->data_size : 0),
            p->parent, p->child_count, p->kind, (unsigned)p->in_type, (unsigned)p->out_type, p->flags);
        if (!item) {
            Py_CLEAR(props);
            break;
        }
        PyList_SET_ITEM(props, i, item);
    }
    if (!props)
        return NULL;
    return Py_BuildValue("(INNNNNNIN)", e->source, openetw_text(e->event_name), openetw_text(e->provider_name),
                         openetw_text(e->task_name), openetw_text(e->opcode_name), openetw_text(e->level_name),
                         openetw_text(e->keywords_name), e->payload_used, props);
}
%}

%ignore etw_decoder_decode; /* records cross as copies: openetw_decode below */
%ignore etw_decoded_event;
%ignore etw_event_property;

%inline %{
/* Decodes an openetw.records.Record with decoder. Returns (source,
   event_name, provider_name, task_name, opcode_name, level_name,
   keywords_name, payload_used, [(name, value, data, parent, child_count,
   kind, in_type, out_type, flags), ...]), or None when no schema describes
   the record; raises the library's error otherwise. */
PyObject *openetw_decode(etw_decoder *decoder, PyObject *record)
{
    etw_record r;
    etw_extended_item *items = NULL;
    PyObject *payload = NULL, *raw = NULL, *extended = NULL, *result = NULL;
    const etw_decoded_event *decoded = NULL;
    Py_ssize_t payload_size = 0, raw_size = 0, n = 0, i;
    etw_status status;
    memset(&r, 0, sizeof r);
    r.struct_size = (uint32_t)sizeof r;
    if (!decoder) {
        PyErr_SetString(PyExc_ValueError, "openetw_decode: no decoder");
        return NULL;
    }
    for (i = 0; i < (Py_ssize_t)(sizeof openetw_record_members / sizeof openetw_record_members[0]); ++i)
        if (openetw_member_in(record, openetw_record_members[i].name,
                              (char *)&r + openetw_record_members[i].offset, openetw_record_members[i].size) < 0)
            goto done;
    if (openetw_guid_in(record, "guid", &r.guid) < 0 || openetw_guid_in(record, "activity_id", &r.activity_id) < 0 ||
        openetw_guid_in(record, "parent_guid", &r.parent_guid) < 0 ||
        openetw_bytes_in(record, "payload", &r.payload, &payload_size, &payload) < 0 ||
        openetw_bytes_in(record, "raw", &r.bytes, &raw_size, &raw) < 0)
        goto done;
    r.payload_size = (uint32_t)payload_size;
    extended = PyObject_GetAttrString(record, "extended");
    if (!extended || !PyTuple_Check(extended)) {
        if (extended)
            PyErr_SetString(PyExc_TypeError, "record.extended must be a tuple");
        goto done;
    }
    n = PyTuple_GET_SIZE(extended);
    items = (etw_extended_item *)calloc((size_t)n + 1, sizeof *items);
    if (!items) {
        PyErr_NoMemory();
        goto done;
    }
    for (i = 0; i < n; ++i) {
        PyObject *item = PyTuple_GET_ITEM(extended, i), *data;
        if (!PyTuple_Check(item) || PyTuple_GET_SIZE(item) != 4 || !PyBytes_Check(PyTuple_GET_ITEM(item, 3))) {
            PyErr_SetString(PyExc_TypeError, "record.extended items must be (ext_type, linkage, item_size, bytes)");
            goto done;
        }
        data = PyTuple_GET_ITEM(item, 3);
        unsigned long ext_type = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(item, 0));
        unsigned long linkage = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(item, 1));
        unsigned long item_size = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(item, 2));
        if (PyErr_Occurred())
            goto done;
        items[i].ext_type = (uint16_t)ext_type;
        items[i].linkage = (uint16_t)linkage;
        items[i].item_size = (uint16_t)item_size;
        items[i].data_size = (uint16_t)PyBytes_GET_SIZE(data);
        items[i].data = (const uint8_t *)PyBytes_AS_STRING(data); /* owned by extended, held until done */
    }
    r.extended = items;
    r.extended_count = (uint32_t)n;
    status = etw_decoder_decode(&decoded, decoder, &r);
    if (status == ETW_ERROR_NOT_FOUND) {
        result = Py_None;
        Py_INCREF(result);
    } else if (status != ETW_OK) {
        openetw_raise(status);
    } else {
        result = openetw_decoded(decoded);
    }
done:
    free(items);
    Py_XDECREF(extended);
    Py_XDECREF(raw);
    Py_XDECREF(payload);
    return result;
}
%}
