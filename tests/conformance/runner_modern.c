/* The modern-provider verbs of the C conformance runner (tests/conformance/README.md,
 * "Modern providers"): enable_ex (enable properties and filters at the source),
 * write_tl (TraceLogging), expect_tl (decoded fields), expect_items (extended items). */
#define _POSIX_C_SOURCE 200809L /* geteuid under -std=c99 */
#include <openetw/constants.h>
#include <openetw/consumer.h>
#include <openetw/decode.h>
#include <openetw/provider.h>
#include <openetw/session.h>
#include <openetw/tracelogging.h>
#include "runner.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef _WIN32
#include <unistd.h>
#endif

#define MAX_TL_FIELDS 32
/* The decoder reports TDH's out-types (tdh.h), which differ from TraceLogging's below 19. */
#define TDH_OUTTYPE_NULL 0u
#define TDH_OUTTYPE_BOOLEAN 13u
#define TDH_OUTTYPE_UTF8 35u
#define FIELD_SEPARATOR '\x1f' /* between a record's canonical fields: values may hold commas */

/* The field types of the scenario, each with the in-type it writes and decodes as. */
enum tl_type { TL_I32, TL_U32, TL_I64, TL_U64, TL_F64, TL_BOOL, TL_STR, TL_TYPES };
static const struct {
    const char *name;
    uint8_t in_type, out_type;
} tl_types[TL_TYPES] = {
    {"i32", ETW_TL_IN_INT32, 0},
    {"u32", ETW_TL_IN_UINT32, 0},
    {"i64", ETW_TL_IN_INT64, 0},
    {"u64", ETW_TL_IN_UINT64, 0},
    {"f64", ETW_TL_IN_DOUBLE, 0},
    {"bool", ETW_TL_IN_BOOL32, 0},
    {"str", ETW_TL_IN_ANSISTRING, ETW_TL_OUT_UTF8},
};

struct tl_value {
    char name[64];
    enum tl_type type;
    union {
        int32_t i32;
        uint32_t u32;
        int64_t i64;
        uint64_t u64;
        double f64;
    } v;
    const char *text;    /* a str's value, within the parsed copy of fields= */
    char canonical[400]; /* name (63) : type = value (255) */
};

static etw_decoder *decoder; /* created at the first record that needs it */

/* ---- fields="name:type=value,..." ---- */

/* The canonical text of a value, the same for the scenario's and the decoded one. */
static void canonical(struct tl_value *f)
{
    char value[256];
    switch (f->type) {
    case TL_I32:
        snprintf(value, sizeof value, "%ld", (long)f->v.i32);
        break;
    case TL_U32:
        snprintf(value, sizeof value, "%lu", (unsigned long)f->v.u32);
        break;
    case TL_I64:
        snprintf(value, sizeof value, "%lld", (long long)f->v.i64);
        break;
    case TL_U64:
        snprintf(value, sizeof value, "%llu", (unsigned long long)f->v.u64);
        break;
    case TL_F64:
        snprintf(value, sizeof value, "%.17g", f->v.f64);
        break;
    case TL_BOOL:
        snprintf(value, sizeof value, "%d", f->v.i32 != 0);
        break;
    default:
        snprintf(value, sizeof value, "%s", f->text);
        break;
    }
    snprintf(f->canonical, sizeof f->canonical, "%s:%s=%s", f->name, tl_types[f->type].name, value);
}

static int parse_value(struct tl_value *f, char *text)
{
    char *end = NULL;
    errno = 0;
    f->text = text;
    switch (f->type) {
    case TL_I32:
    case TL_I64: {
        long long v = strtoll(text, &end, 10);
        if (f->type == TL_I32 && (v < INT32_MIN || v > INT32_MAX))
            errno = ERANGE;
        if (f->type == TL_I32)
            f->v.i32 = (int32_t)v;
        else
            f->v.i64 = v;
        break;
    }
    case TL_U32:
    case TL_U64: {
        unsigned long long v = strtoull(text, &end, 10);
        if (text[0] == '-' || (f->type == TL_U32 && v > UINT32_MAX))
            errno = ERANGE;
        if (f->type == TL_U32)
            f->v.u32 = (uint32_t)v;
        else
            f->v.u64 = v;
        break;
    }
    case TL_F64:
        f->v.f64 = strtod(text, &end);
        break;
    case TL_STR:
        if (strlen(text) > 255)
            return fail("field %s: a str value is at most 255 bytes here", f->name, 0);
        return 1;
    case TL_BOOL:
        if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
            return fail("field %s: a bool is 0 or 1, not %s", f->name, text);
        f->v.i32 = text[0] == '1';
        return 1;
    default:
        return 1;
    }
    if (end == text || *end || errno)
        return fail("field %s: bad value %s", f->name, text);
    return 1;
}

/* Parses fields= (spec is modified: the str values point into it). */
static int parse_tl_fields(char *spec, struct tl_value *out, int *count)
{
    char *item = spec;
    *count = 0;
    while (*spec && item) {
        char *next = strchr(item, ','), *colon, *eq;
        struct tl_value *f = &out[*count];
        int t;
        if (next)
            *next++ = 0;
        if (*count == MAX_TL_FIELDS)
            return fail("more than 32 fields", 0, 0);
        colon = strchr(item, ':');
        eq = colon ? strchr(colon, '=') : NULL;
        if (!eq || colon == item || (size_t)(colon - item) >= sizeof f->name)
            return fail("field \"%s\" is not name:type=value", item, 0);
        memset(f, 0, sizeof *f);
        memcpy(f->name, item, (size_t)(colon - item));
        *eq = 0;
        for (t = 0; t < TL_TYPES && strcmp(tl_types[t].name, colon + 1) != 0; ++t) {
        }
        if (t == TL_TYPES)
            return fail("field %s: unknown type %s", f->name, colon + 1);
        f->type = (enum tl_type)t;
        if (!parse_value(f, eq + 1))
            return 0;
        canonical(f);
        ++*count;
        item = next;
    }
    return 1;
}

/* ---- Record facts, kept by the record callback ---- */

/* The scenario type of a decoded in-type and out-type, TL_TYPES when it has none. A
   bool is TraceLogging's BOOL32 or EventSource's UINT8 shown as a boolean; a str any
   string in-type (8-bit ones holding UTF-8), the bindings' idiomatic writers differing. */
static enum tl_type decoded_type(const etw_event_property *p)
{
    int t;
    if (p->kind != ETW_PROPERTY_KIND_VALUE || p->parent != ETW_PROPERTY_NO_PARENT)
        return TL_TYPES;
    if (p->in_type == ETW_TL_IN_UINT8 && p->out_type == TDH_OUTTYPE_BOOLEAN)
        return TL_BOOL;
    if (p->in_type == ETW_TL_IN_UNICODESTRING || p->in_type == ETW_TL_IN_COUNTEDSTRING)
        return TL_STR;
    if (p->in_type == ETW_TL_IN_ANSISTRING || p->in_type == ETW_TL_IN_COUNTEDANSISTRING)
        return p->out_type == TDH_OUTTYPE_UTF8 ? TL_STR : TL_TYPES;
    for (t = 0; t < TL_STR && tl_types[t].in_type != p->in_type; ++t) {
    }
    return t < TL_STR && p->out_type == TDH_OUTTYPE_NULL ? (enum tl_type)t : TL_TYPES;
}

/* The canonical text of a decoded property; a type the scenario has no name for never matches. */
static void decoded_field(const etw_event_property *p, char *out, size_t cap)
{
    struct tl_value f;
    memset(&f, 0, sizeof f);
    snprintf(f.name, sizeof f.name, "%s", p->name);
    f.type = decoded_type(p);
    if (f.type == TL_STR && strlen(p->value) <= 255) {
        f.text = p->value; /* the decoder's UTF-8 text of the string */
    } else if (f.type == TL_BOOL && p->data_size == 1) {
        f.v.i32 = p->data[0];
    } else if (f.type != TL_TYPES && f.type != TL_STR && (p->data_size == 4 || p->data_size == 8)) {
        memcpy(&f.v, p->data, p->data_size); /* little-endian, as the union reads it here */
    } else {
        snprintf(out, cap, "%s:in%u/out%u/kind%u/%u bytes=%s", p->name, (unsigned)p->in_type, (unsigned)p->out_type,
                 (unsigned)p->kind, (unsigned)p->data_size, p->value);
        return;
    }
    canonical(&f);
    snprintf(out, cap, "%s", f.canonical);
}

static int decode_tl(struct record_facts *out, const etw_record *record)
{
    const etw_decoded_event *event = NULL;
    size_t cap = 64, len = 0;
    uint32_t i;
    if (!decoder && etw_decoder_create(&decoder) != ETW_OK)
        return 0;
    if (etw_decoder_decode(&event, decoder, record) != ETW_OK || event->source != ETW_DECODE_SOURCE_TRACELOGGING)
        return 1; /* not a TraceLogging event this decoder reads: expect_tl never counts it */
    out->tl_name = malloc(strlen(event->event_name) + 1);
    out->tl_fields = malloc(cap);
    if (!out->tl_name || !out->tl_fields)
        return 0;
    strcpy(out->tl_name, event->event_name);
    out->tl_fields[0] = 0;
    for (i = 0; i < event->property_count; ++i) {
        char one[512];
        size_t n;
        decoded_field(&event->properties[i], one, sizeof one);
        n = strlen(one);
        while (len + n + 2 > cap) {
            char *grown = realloc(out->tl_fields, cap *= 2);
            if (!grown)
                return 0;
            out->tl_fields = grown;
        }
        if (i > 0)
            out->tl_fields[len++] = FIELD_SEPARATOR;
        memcpy(out->tl_fields + len, one, n + 1);
        len += n;
    }
    return 1;
}

/* A 64-bit key item: 1 when it holds a nonzero value, 2 otherwise. */
static uint8_t key_item(const etw_extended_item *item)
{
    uint64_t v = 0;
    if (item->data_size != 8)
        return 2;
    memcpy(&v, item->data, 8);
    return v ? 1 : 2;
}

int record_facts_collect(struct record_facts *out, const etw_record *record)
{
    uint32_t i;
    int tl = 0;
    memset(out, 0, sizeof *out);
    for (i = 0; i < record->extended_count; ++i) {
        const etw_extended_item *item = &record->extended[i];
        uint32_t n = 0, len = 0;
        etw_status st;
        switch (item->ext_type) {
        case ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE64:
        case ETW_EVENT_HEADER_EXT_TYPE_STACK_TRACE32:
            st = etw_extended_item_stack(item, NULL, NULL, 0, &n);
            out->stack = (st == ETW_OK || st == ETW_ERROR_MORE_DATA) && n > 0 ? 1 : 2;
            break;
        case ETW_EVENT_HEADER_EXT_TYPE_SID:
            if (etw_extended_item_sid_string(item, out->sid, sizeof out->sid, &len) != ETW_OK)
                snprintf(out->sid, sizeof out->sid, "(no SID: %s)", etw_last_error_message());
            break;
        case ETW_EVENT_HEADER_EXT_TYPE_TS_ID:
            out->ts_id = 1;
            break;
        case ETW_EVENT_HEADER_EXT_TYPE_PROCESS_START_KEY:
            out->process_start_key = key_item(item);
            break;
        case ETW_EVENT_HEADER_EXT_TYPE_EVENT_KEY:
            out->event_key = key_item(item);
            break;
        case ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL:
            tl = 1;
            break;
        default:
            break;
        }
    }
    return tl ? decode_tl(out, record) : 1;
}

void record_facts_free(struct record_facts *f)
{
    free(f->tl_name);
    free(f->tl_fields);
    memset(f, 0, sizeof *f);
}

void modern_cleanup(void)
{
    etw_decoder_destroy(decoder);
    decoder = NULL;
}

/* ---- enable_ex ---- */

#define MAX_LIST 128

/* "3,5" (decimal, each at most max) into values; "" is no value. */
static int parse_list(const struct token *t, unsigned long long max, unsigned long long *values, int *count)
{
    const char *p = t->value;
    *count = 0;
    while (*p) {
        char *end;
        unsigned long long v;
        if (*count == MAX_LIST)
            return fail("%s: more than 128 values", t->key, 0);
        errno = 0;
        v = strtoull(p, &end, 10);
        if (end == p || (*end && *end != ',') || errno || v > max || *p == '-')
            return fail("%s=\"%s\" is no list of decimal ids", t->key, t->value);
        values[(*count)++] = v;
        p = *end ? end + 1 : end;
    }
    return 1;
}

/* An EVENT_FILTER_EVENT_ID (EVENT_ID and STACKWALK filters): FilterIn, Reserved, Count, the ids. */
static int event_id_filter(const struct token *t, uint8_t filter_in, unsigned char *buf, uint32_t *size)
{
    unsigned long long ids[MAX_LIST];
    int n, i;
    if (!parse_list(t, 0xFFFF, ids, &n))
        return 0;
    buf[0] = filter_in;
    buf[1] = 0;
    buf[2] = (unsigned char)(n & 0xFF);
    buf[3] = (unsigned char)(n >> 8);
    for (i = 0; i < n; ++i) {
        buf[4 + 2 * i] = (unsigned char)(ids[i] & 0xFF);
        buf[5 + 2 * i] = (unsigned char)(ids[i] >> 8);
    }
    *size = 4u + 2u * (uint32_t)n;
    return 1;
}

static int pid_filter(const struct token *t, unsigned char *buf, uint32_t *size)
{
    unsigned long long pids[MAX_LIST];
    int n, i;
    if (strcmp(t->value, "self") == 0) {
        pids[0] = runner_process_id();
        n = 1;
    } else if (!parse_list(t, 0xFFFFFFFFu, pids, &n)) {
        return 0;
    }
    for (i = 0; i < n; ++i) {
        uint32_t pid = (uint32_t)pids[i];
        memcpy(buf + 4 * i, &pid, 4);
    }
    *size = 4u * (uint32_t)n;
    return 1;
}

/* EVENT_FILTER_EVENT_NAME: keywords 0 and level 0 (every event), FilterIn, NameCount, the names. */
static int name_filter(const struct token *t, uint8_t filter_in, unsigned char *buf, size_t cap, uint32_t *size)
{
    const char *p = t->value;
    size_t at = 20;
    unsigned count = 0;
    memset(buf, 0, 20);
    while (*p) {
        size_t n = strcspn(p, ",");
        if (at + n + 1 > cap)
            return fail("filter_event_names is too long", 0, 0);
        memcpy(buf + at, p, n);
        buf[at + n] = 0;
        at += n + 1;
        ++count;
        p += n + (p[n] == ',');
    }
    buf[17] = filter_in;
    buf[18] = (unsigned char)(count & 0xFF);
    buf[19] = (unsigned char)(count >> 8);
    *size = (uint32_t)at;
    return 1;
}

/* filter_raw="TYPE:HEX": a descriptor of any type with any bytes. */
static int raw_filter(const struct token *t, uint32_t *type, unsigned char *buf, size_t cap, uint32_t *size)
{
    char *end;
    const char *hex;
    unsigned long long v;
    size_t n = 0;
    errno = 0;
    v = strtoull(t->value, &end, 0);
    if (end == t->value || *end != ':' || errno || v > 0xFFFFFFFFu)
        return fail("filter_raw=\"%s\" is not TYPE:HEX", t->value, 0);
    *type = (uint32_t)v;
    for (hex = end + 1; *hex; hex += 2) {
        unsigned byte;
        if (!hex[1] || sscanf(hex, "%2x", &byte) != 1 || n == cap)
            return fail("filter_raw=\"%s\": bad hex bytes", t->value, 0);
        buf[n++] = (unsigned char)byte;
    }
    *size = (uint32_t)n;
    return 1;
}

static int enable_ex(struct line *l)
{
    static unsigned char ids[4 + 2 * MAX_LIST], pids[4 * MAX_LIST], exe[4096], names[4200], stack[4 + 2 * MAX_LIST],
        raw[4096];
    struct token *g = field(l, "guid"), *t;
    etw_event_filter_descriptor filters[6];
    etw_enable_parameters params;
    etw_guid guid;
    unsigned long long level = 0, any = 0, all = 0, properties = 0, include = 1;
    uint32_t n = 0;
    if (!runner_session())
        return fail("no session", 0, 0);
    if (!g)
        return fail("missing field guid", 0, 0);
    if (!parse_guid(g->value, &guid) || !optional_number(l, "level", &level) || !optional_number(l, "any", &any) ||
        !optional_number(l, "all", &all) || !optional_number(l, "properties", &properties) ||
        !optional_number(l, "filter_include", &include))
        return 0;
    memset(filters, 0, sizeof filters);
    if ((t = field(l, "filter_event_ids")) != NULL) {
        if (!event_id_filter(t, (uint8_t)(include != 0), ids, &filters[n].Size))
            return 0;
        filters[n].Ptr = (uint64_t)(uintptr_t)ids;
        filters[n++].Type = ETW_EVENT_FILTER_TYPE_EVENT_ID;
    }
    if ((t = field(l, "filter_pid")) != NULL) {
        if (!pid_filter(t, pids, &filters[n].Size))
            return 0;
        filters[n].Ptr = (uint64_t)(uintptr_t)pids;
        filters[n++].Type = ETW_EVENT_FILTER_TYPE_PID;
    }
    if ((t = field(l, "filter_exe")) != NULL) {
        if ((filters[n].Size = (uint32_t)utf16le(t->value, exe, sizeof exe)) == 0)
            return fail("filter_exe is too long", 0, 0);
        filters[n].Ptr = (uint64_t)(uintptr_t)exe;
        filters[n++].Type = ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME;
    }
    if ((t = field(l, "filter_event_names")) != NULL) {
        if (!name_filter(t, (uint8_t)(include != 0), names, sizeof names, &filters[n].Size))
            return 0;
        filters[n].Ptr = (uint64_t)(uintptr_t)names;
        filters[n++].Type = ETW_EVENT_FILTER_TYPE_EVENT_NAME;
    }
    if ((t = field(l, "filter_stackwalk_ids")) != NULL) {
        if (!event_id_filter(t, 1, stack, &filters[n].Size))
            return 0;
        filters[n].Ptr = (uint64_t)(uintptr_t)stack;
        filters[n++].Type = ETW_EVENT_FILTER_TYPE_STACKWALK;
    }
    if ((t = field(l, "filter_raw")) != NULL) {
        if (!raw_filter(t, &filters[n].Type, raw, sizeof raw, &filters[n].Size))
            return 0;
        filters[n++].Ptr = (uint64_t)(uintptr_t)raw;
    }
    memset(&params, 0, sizeof params);
    params.struct_size = sizeof params;
    params.enable_property = (uint32_t)properties;
    params.match_any_keyword = any;
    params.match_all_keyword = all;
    params.level = (uint8_t)level;
    params.filter_count = n;
    params.filters = n ? filters : NULL;
    return expect(l,
                  etw_session_enable_provider_ex(runner_session(), &guid, ETW_CONTROL_CODE_ENABLE_PROVIDER, &params));
}

/* ---- write_tl, expect_tl ---- */

static int write_tl(struct line *l)
{
    struct token *name, *fields = field(l, "fields");
    struct tl_value values[MAX_TL_FIELDS];
    etw_tl_field tl[MAX_TL_FIELDS];
    etw_event_descriptor d;
    unsigned long long count = 1, level = 0, keyword = 0, opcode = 0, i;
    char *copy;
    int n = 0, k, ok = 1;
    if (!runner_provider())
        return fail("no provider", 0, 0);
    if (!need(l, "name", &name) || !optional_number(l, "count", &count) || !optional_number(l, "level", &level) ||
        !optional_number(l, "keyword", &keyword) || !optional_number(l, "opcode", &opcode))
        return 0;
    copy = malloc(fields ? strlen(fields->value) + 1 : 1);
    if (!copy)
        return fail("out of memory", 0, 0);
    strcpy(copy, fields ? fields->value : "");
    ok = parse_tl_fields(copy, values, &n);
    for (k = 0; ok && k < n; ++k) {
        const struct tl_value *v = &values[k];
        tl[k].name = v->name;
        tl[k].data = v->type == TL_STR ? (const void *)v->text : (const void *)&v->v;
        tl[k].size = v->type == TL_STR                                                ? (uint32_t)strlen(v->text)
                     : (v->type == TL_I32 || v->type == TL_U32 || v->type == TL_BOOL) ? 4u
                                                                                      : 8u;
        tl[k].in_type = tl_types[v->type].in_type;
        tl[k].out_type = tl_types[v->type].out_type;
        tl[k].reserved = 0;
    }
    memset(&d, 0, sizeof d);
    d.Channel = ETW_TL_CHANNEL;
    d.Level = (uint8_t)level;
    d.Opcode = (uint8_t)opcode;
    d.Keyword = keyword;
    for (i = 0; ok && i < count; ++i)
        ok = expect(l, etw_provider_write_tracelogging(runner_provider(), name->value, &d, NULL, NULL, (uint32_t)n,
                                                       n ? tl : NULL));
    free(copy);
    return ok;
}

static int expect_tl(struct line *l)
{
    struct token *count, *name, *fields = field(l, "fields");
    struct tl_value values[MAX_TL_FIELDS];
    unsigned long long want, got = 0;
    char *copy, *joined;
    size_t i, len = 0;
    int n = 0, k, ok;
    if (!need(l, "count", &count) || !number(count, &want) || !need(l, "name", &name))
        return 0;
    copy = malloc(fields ? strlen(fields->value) + 1 : 1);
    joined = malloc(fields ? MAX_TL_FIELDS * sizeof values[0].canonical : 1);
    if (!copy || !joined) {
        free(copy);
        free(joined);
        return fail("out of memory", 0, 0);
    }
    strcpy(copy, fields ? fields->value : "");
    joined[0] = 0;
    ok = parse_tl_fields(copy, values, &n);
    for (k = 0; ok && k < n; ++k) {
        size_t m = strlen(values[k].canonical);
        if (k > 0)
            joined[len++] = FIELD_SEPARATOR;
        memcpy(joined + len, values[k].canonical, m + 1);
        len += m;
    }
    for (i = 0; ok && i < runner_record_count(); ++i) {
        const struct record_facts *f = runner_record_facts(i, NULL);
        got += f->tl_name && strcmp(f->tl_name, name->value) == 0 && (!fields || strcmp(f->tl_fields, joined) == 0);
    }
    free(copy);
    free(joined);
    return ok && compare("the number of matching TraceLogging records", got, want);
}

/* ---- expect_items ---- */

/* Whether a record's SID text is the runner's: the POSIX user's form
 * exactly; on Windows, whose builds write no token SID yet (the item there
 * is S-1-22-1-0, see tests/conformance/README.md), any SID text. */
static int sid_is_self(const char *sid, const char *self_sid)
{
#ifdef _WIN32
    return strncmp(sid, self_sid, strlen(self_sid)) == 0;
#else
    return strcmp(sid, self_sid) == 0;
#endif
}

static int expect_items(struct line *l)
{
    static const char *keys[] = {"stack", "ts_id", "process_start_key", "event_key"};
    struct token *count, *event_id = field(l, "event_id"), *sid = field(l, "sid");
    unsigned long long want, got = 0, id = 0, wants[4];
    int given[4], k;
    char self_sid[64];
    size_t i;
    if (!need(l, "count", &count) || !number(count, &want) || (event_id && !number(event_id, &id)))
        return 0;
    for (k = 0; k < 4; ++k) {
        struct token *t = field(l, keys[k]);
        given[k] = t != NULL;
        if (t && !number(t, &wants[k]))
            return 0;
        if (t && wants[k] > 1)
            return fail("%s=%s is not 0 or 1", keys[k], t->value);
    }
#ifdef _WIN32
    snprintf(self_sid, sizeof self_sid, "S-1-");
#else
    snprintf(self_sid, sizeof self_sid, "S-1-22-1-%lu", (unsigned long)geteuid());
#endif
    if (sid && strcmp(sid->value, "self") != 0 && strcmp(sid->value, "0") != 0)
        return fail("sid=%s is not self or 0", sid->value, 0);
    for (i = 0; i < runner_record_count(); ++i) {
        uint16_t record_id = 0;
        const struct record_facts *f = runner_record_facts(i, &record_id);
        /* each item: 0 none, 1 present and filled, 2 present but empty (matches neither) */
        const uint8_t states[4] = {f->stack, f->ts_id, f->process_start_key, f->event_key};
        int match = !event_id || record_id == id;
        for (k = 0; k < 4; ++k)
            if (given[k])
                match = match && (wants[k] ? states[k] == 1 : states[k] == 0);
        if (sid)
            match = match && (sid->value[0] == '0' ? f->sid[0] == 0 : sid_is_self(f->sid, self_sid));
        got += (unsigned long long)match;
    }
    return compare("the number of matching records", got, want);
}

int modern_step(struct line *l, const char *verb, int *ok)
{
    if (strcmp(verb, "enable_ex") == 0)
        *ok = enable_ex(l);
    else if (strcmp(verb, "write_tl") == 0)
        *ok = write_tl(l);
    else if (strcmp(verb, "expect_tl") == 0)
        *ok = expect_tl(l);
    else if (strcmp(verb, "expect_items") == 0)
        *ok = expect_items(l);
    else
        return 0;
    return 1;
}
