/* C conformance runner: executes tests/conformance/scenario.txt through the C
 * API (format and verbs: tests/conformance/README.md).
 * usage: runner scenario.txt
 * Build: cc -std=c99 -I<dir with constants.inc> runner.c $(pkg-config --cflags --libs openetw),
 * where constants.inc lists C(ETW_NAME) for each integer macro of the headers
 * (scripts/bindings-tests.sh generates it), so names resolve through the headers. */
#include <openetw/status.h>
#include <openetw/constants.h>
#include <openetw/records.h>
#include <openetw/properties.h>
#include <openetw/version.h>
#include <openetw/session.h>
#include <openetw/provider.h>
#include <openetw/consumer.h>
#include "runner.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct constant {
    const char *name;
    unsigned long long value;
};
static const struct constant constants[] = {
#define C(name) {#name, (unsigned long long)(name)},
#include "constants.inc"
#undef C
};

/* The binding's own layout of each record member: offsetof with the dotted name. */
#define F(member)                                                                                                      \
    {                                                                                                                  \
#member, offsetof(etw_event_trace_properties, member), sizeof(((etw_event_trace_properties *)0)->member)       \
    }
struct layout_field {
    const char *name;
    size_t at, size;
};
static const struct layout_field record_fields[] = {
    F(Wnode.BufferSize), F(Wnode.ProviderId),  F(Wnode.HistoricalContext),
    F(Wnode.TimeStamp),  F(Wnode.Guid),        F(Wnode.ClientContext),
    F(Wnode.Flags),      F(BufferSize),        F(MinimumBuffers),
    F(MaximumBuffers),   F(MaximumFileSize),   F(LogFileMode),
    F(FlushTimer),       F(EnableFlags),       F(AgeLimit),
    F(NumberOfBuffers),  F(FreeBuffers),       F(EventsLost),
    F(BuffersWritten),   F(LogBuffersLost),    F(RealTimeBuffersLost),
    F(LoggerThreadId),   F(LogFileNameOffset), F(LoggerNameOffset),
};
#undef F

#define MAX_FIELDS 64
#define MAX_CASES 256

struct named_block {
    char name[128];
    unsigned char *data;
    size_t size;
};

static struct {
    struct layout_field fields[MAX_FIELDS];
    int nfields;
    struct named_block blocks[MAX_CASES];
    int nblocks;
    etw_properties *props, *original;
    unsigned char *block;
    size_t block_size;
    char case_name[128];
    char failure[2048];
} S;

int fail(const char *fmt, const char *a, const char *b)
{
    snprintf(S.failure, sizeof S.failure, fmt, a ? a : "", b ? b : "");
    return 0;
}

/* ---- Tokens ---- */

static int tokenize(const char *s, struct line *out)
{
    out->n = 0;
    while (*s) {
        struct token *t;
        const char *eq = s;
        size_t cap = 64, len = 0;
        if (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
            ++s;
            continue;
        }
        if (*s == '#')
            break;
        if (out->n == MAX_TOKENS)
            return fail("too many fields", 0, 0);
        t = &out->t[out->n++];
        memset(t, 0, sizeof *t);
        while (*eq && (*eq == '_' || *eq == '.' || (*eq >= 'a' && *eq <= 'z') || (*eq >= 'A' && *eq <= 'Z') ||
                       (*eq >= '0' && *eq <= '9')))
            ++eq;
        if (*eq == '=' && eq > s && (size_t)(eq - s) < sizeof t->key && !(*s >= '0' && *s <= '9')) {
            memcpy(t->key, s, (size_t)(eq - s));
            s = eq + 1;
        }
        t->value = malloc(cap);
        if (!t->value)
            return fail("out of memory", 0, 0);
        if (*s == '"') {
            t->quoted = 1;
            for (++s; *s && *s != '"'; ++s) {
                if (*s == '\\' && s[1])
                    ++s;
                if (len + 2 > cap && !(t->value = realloc(t->value, cap *= 2)))
                    return fail("out of memory", 0, 0);
                t->value[len++] = *s;
            }
            if (*s != '"')
                return fail("unterminated string", 0, 0);
            ++s;
            t->value[len] = 0;
            if (!(t->value = expand_placeholders(t->value)))
                return fail("out of memory", 0, 0);
            if (*s == '*') {
                char *end;
                unsigned long count = strtoul(s + 1, &end, 10), i;
                char *repeated = malloc(len * count + 1);
                if (!repeated)
                    return fail("out of memory", 0, 0);
                for (i = 0; i < count; ++i)
                    memcpy(repeated + i * len, t->value, len);
                repeated[len * count] = 0;
                free(t->value);
                t->value = repeated;
                s = end;
            }
        } else {
            while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
                if (len + 2 > cap && !(t->value = realloc(t->value, cap *= 2)))
                    return fail("out of memory", 0, 0);
                t->value[len++] = *s++;
            }
            t->value[len] = 0;
        }
    }
    return 1;
}

static void free_line(struct line *l)
{
    int i;
    for (i = 0; i < l->n; ++i)
        free(l->t[i].value);
    l->n = 0;
}

/* The field `key` of the line, marked used (unused fields fail the step). */
struct token *field(struct line *l, const char *key)
{
    int i;
    for (i = 1; i < l->n; ++i)
        if (strcmp(l->t[i].key, key) == 0) {
            l->t[i].used = 1;
            return &l->t[i];
        }
    return NULL;
}

int need(struct line *l, const char *key, struct token **out)
{
    *out = field(l, key);
    return *out ? 1 : fail("missing field %s", key, 0);
}

/* An integer, or ETW_* constants joined with '|'. */
int number(const struct token *t, unsigned long long *out)
{
    const char *p = t->value;
    if (t->quoted)
        return fail("expected a number, got \"%s\"", t->value, 0);
    *out = 0;
    while (*p) {
        char part[128];
        size_t n = strcspn(p, "|");
        if (n == 0 || n >= sizeof part)
            return fail("bad number %s", t->value, 0);
        memcpy(part, p, n);
        part[n] = 0;
        if (strncmp(part, "ETW_", 4) == 0 || strncmp(part, "OPENETW_", 8) == 0) {
            size_t i, count = sizeof constants / sizeof constants[0];
            for (i = 0; i < count && strcmp(constants[i].name, part) != 0; ++i) {
            }
            if (i == count)
                return fail("the headers have no constant %s", part, 0);
            *out |= constants[i].value;
        } else {
            char *end;
            *out |= part[0] == '-' ? (unsigned long long)strtoll(part, &end, 0) : strtoull(part, &end, 0);
            if (*end)
                return fail("bad number %s", part, 0);
        }
        p += n + (p[n] == '|');
    }
    return 1;
}

int parse_guid(const char *text, etw_guid *g)
{
    unsigned d1, d2, d3, b[8];
    int i, used = 0;
    if (sscanf(text, "{%8x-%4x-%4x-%2x%2x-%2x%2x%2x%2x%2x%2x}%n", &d1, &d2, &d3, &b[0], &b[1], &b[2], &b[3], &b[4],
               &b[5], &b[6], &b[7], &used) != 11 ||
        text[used] != 0)
        return fail("%s is not a GUID", text, 0);
    g->Data1 = d1;
    g->Data2 = (uint16_t)d2;
    g->Data3 = (uint16_t)d3;
    for (i = 0; i < 8; ++i)
        g->Data4[i] = (uint8_t)b[i];
    return 1;
}

/* UTF-8 to UTF-16LE bytes plus a NUL character; returns the byte count or 0. */
size_t utf16le(const char *s, unsigned char *out, size_t cap)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (1) {
        unsigned long c = *p;
        int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
        int k;
        if (c == 0)
            break;
        c &= extra ? (0x3Fu >> extra) : 0x7Fu;
        for (k = 0, ++p; k < extra; ++k, ++p)
            c = (c << 6) | (*p & 0x3Fu);
        if (c >= 0x10000) {
            unsigned long v = c - 0x10000, hi = 0xD800 + (v >> 10), lo = 0xDC00 + (v & 0x3FF);
            if (n + 4 > cap)
                return 0;
            out[n++] = hi & 0xFF;
            out[n++] = (unsigned char)(hi >> 8);
            out[n++] = lo & 0xFF;
            out[n++] = (unsigned char)(lo >> 8);
        } else {
            if (n + 2 > cap)
                return 0;
            out[n++] = c & 0xFF;
            out[n++] = (unsigned char)(c >> 8);
        }
    }
    if (n + 2 > cap)
        return 0;
    out[n++] = 0;
    out[n++] = 0;
    return n;
}

/* ---- The block ---- */

static const struct layout_field *block_field(const char *name)
{
    int i;
    for (i = 0; i < S.nfields; ++i)
        if (strcmp(S.fields[i].name, name) == 0)
            return &S.fields[i];
    fail("unknown field %s", name, 0);
    return NULL;
}

static int in_block(size_t at, size_t size)
{
    char where[64];
    if (at + size <= S.block_size)
        return 1;
    snprintf(where, sizeof where, "%lu", (unsigned long)at);
    return fail("offset %s is past the block", where, 0);
}

static unsigned long long read_le(size_t at, size_t size)
{
    unsigned long long v = 0;
    while (size--)
        v = (v << 8) | S.block[at + size];
    return v;
}

/* A field's bytes as the block stores them: little-endian integers, Windows GUIDs. */
static int field_bytes(const struct layout_field *f, const struct token *value, unsigned char *out)
{
    size_t i;
    if (f->size == 16) {
        etw_guid g;
        if (!parse_guid(value->value, &g))
            return 0;
        memcpy(out, &g, 16); /* etw_guid has the Windows layout */
    } else {
        unsigned long long v;
        if (!number(value, &v))
            return 0;
        for (i = 0; i < f->size; ++i)
            out[i] = (unsigned char)(v >> (8 * i));
    }
    return 1;
}

static void set_block(const unsigned char *data, size_t size)
{
    free(S.block);
    S.block = calloc(size ? size : 1, 1);
    if (S.block && data)
        memcpy(S.block, data, size);
    S.block_size = size;
}

/* ---- Statuses ---- */

/* Compares a call's status (and message) with the step's status= and message=. */
int expect(struct line *l, etw_status got)
{
    const char *message = etw_last_error_message(); /* read first: the next call resets it */
    char saved[1024];
    struct token *want = field(l, "status"), *want_message = field(l, "message");
    const char *want_name = want ? want->value : "ETW_OK";
    snprintf(saved, sizeof saved, "%s", message);
    if (strcmp(etw_status_name(got), want_name) != 0) {
        snprintf(S.failure, sizeof S.failure, "status %s (%s), expected %s", etw_status_name(got), saved, want_name);
        return 0;
    }
    if (want_message && !strstr(saved, want_message->value))
        return fail("message \"%s\" lacks \"%s\"", saved, want_message->value);
    return 1;
}

static int have_props(void) { return S.props ? 1 : fail("no properties object", 0, 0); }
etw_properties *runner_props(void) { return S.props; }

/* ---- Members ---- */

typedef etw_status (*set_u32_fn)(etw_properties *, uint32_t);
typedef uint32_t (*get_u32_fn)(const etw_properties *);
static const struct {
    const char *name;
    set_u32_fn set;
    get_u32_fn get;
} u32_members[] = {
    {"buffer_size", etw_properties_set_buffer_size, etw_properties_buffer_size},
    {"minimum_buffers", etw_properties_set_minimum_buffers, etw_properties_minimum_buffers},
    {"maximum_buffers", etw_properties_set_maximum_buffers, etw_properties_maximum_buffers},
    {"maximum_file_size", etw_properties_set_maximum_file_size, etw_properties_maximum_file_size},
    {"log_file_mode", etw_properties_set_log_file_mode, etw_properties_log_file_mode},
    {"flush_timer", etw_properties_set_flush_timer, etw_properties_flush_timer},
    {"enable_flags", etw_properties_set_enable_flags, etw_properties_enable_flags},
    {"clock_type", etw_properties_set_clock_type, etw_properties_clock_type},
    {"number_of_buffers", NULL, etw_properties_number_of_buffers},
    {"free_buffers", NULL, etw_properties_free_buffers},
    {"events_lost", NULL, etw_properties_events_lost},
    {"buffers_written", NULL, etw_properties_buffers_written},
    {"log_buffers_lost", NULL, etw_properties_log_buffers_lost},
    {"real_time_buffers_lost", NULL, etw_properties_real_time_buffers_lost},
};

static int member_index(const char *name)
{
    int i;
    for (i = 0; i < (int)(sizeof u32_members / sizeof u32_members[0]); ++i)
        if (strcmp(u32_members[i].name, name) == 0)
            return i;
    return -1;
}

static int set_member(struct line *l, struct token *t)
{
    int i = member_index(t->key);
    unsigned long long v = 0;
    etw_guid g;
    if (strcmp(t->key, "session_name") == 0)
        return expect(l, etw_properties_set_session_name(S.props, t->value));
    if (strcmp(t->key, "log_file_name") == 0)
        return expect(l, etw_properties_set_log_file_name(S.props, t->value));
    if (strcmp(t->key, "guid") == 0)
        return parse_guid(t->value, &g) && expect(l, etw_properties_set_guid(S.props, &g));
    if (strcmp(t->key, "flush_threshold") == 0)
        return number(t, &v) && expect(l, etw_properties_set_flush_threshold(S.props, (int32_t)v));
    if (i >= 0 && u32_members[i].set)
        return number(t, &v) && expect(l, u32_members[i].set(S.props, (uint32_t)v));
    return fail("unknown member %s", t->key, 0);
}

static int get_member(struct token *t)
{
    int i = member_index(t->key);
    unsigned long long got, want;
    char a[64], b[64];
    if (strcmp(t->key, "session_name") == 0 || strcmp(t->key, "log_file_name") == 0) {
        const char *value =
            t->key[0] == 's' ? etw_properties_session_name(S.props) : etw_properties_log_file_name(S.props);
        return strcmp(value, t->value) == 0 ? 1 : fail("%s differs: \"%s\"", t->key, value);
    }
    if (strcmp(t->key, "guid") == 0) {
        etw_guid g, w;
        return parse_guid(t->value, &w) && etw_properties_get_guid(&g, S.props) == ETW_OK &&
               (memcmp(&g, &w, sizeof g) == 0 ? 1 : fail("guid differs", 0, 0));
    }
    if (!number(t, &want))
        return 0;
    if (strcmp(t->key, "flush_threshold") == 0)
        got = (unsigned long long)(long long)etw_properties_flush_threshold(S.props);
    else if (strcmp(t->key, "logger_thread_id") == 0)
        got = etw_properties_logger_thread_id(S.props);
    else if (strcmp(t->key, "historical_context") == 0)
        got = etw_properties_historical_context(S.props);
    else if (i >= 0)
        got = u32_members[i].get(S.props);
    else
        return fail("unknown member %s", t->key, 0);
    if (got == want)
        return 1;
    snprintf(a, sizeof a, "%llu", got);
    snprintf(b, sizeof b, "%llu", want);
    snprintf(S.failure, sizeof S.failure, "%s is %s, expected %s", t->key, a, b);
    return 0;
}

/* ---- Verbs ---- */

static int export_block(struct line *l)
{
    struct token *t;
    unsigned long long want;
    size_t size = 0, written = 0;
    unsigned char *short_buffer;
    etw_event_trace_properties record;
    etw_status status;
    if (!have_props() || !need(l, "size", &t) || !number(t, &want))
        return 0;
    if (etw_properties_export(NULL, 0, &size, S.props) != ETW_ERROR_MORE_DATA || size != want)
        return fail("the size query disagrees with size=%s", t->value, 0);
    short_buffer = malloc(size - 1);
    status = etw_properties_export(short_buffer, size - 1, &written, S.props);
    free(short_buffer);
    if (status != ETW_ERROR_MORE_DATA)
        return fail("a buffer one byte short was accepted", 0, 0);
    set_block(NULL, size);
    if (!S.block || !expect(l, etw_properties_export(S.block, size, &written, S.props)))
        return 0;
    if (etw_properties_get_record(&record, S.props) != ETW_OK || memcmp(&record, S.block, sizeof record) != 0)
        return fail("the block's fixed part differs from etw_properties_get_record", 0, 0);
    if (S.nblocks < MAX_CASES) {
        struct named_block *b = &S.blocks[S.nblocks++];
        snprintf(b->name, sizeof b->name, "%s", S.case_name);
        b->data = malloc(size);
        if (b->data)
            memcpy(b->data, S.block, size);
        b->size = size;
    }
    return 1;
}

static int step(struct line *l)
{
    const char *verb = l->t[0].value;
    struct token *t, *u;
    unsigned long long a, b;
    int i, ok = 1;
    if (strcmp(verb, "layout") == 0) {
        ok = need(l, "pointer_size", &t) && number(t, &a) && need(l, "record_size", &u) && number(u, &b);
        if (ok && (a != sizeof(void *) || b != sizeof(etw_event_trace_properties)))
            ok = fail("the scenario describes another layout", 0, 0);
    } else if (strcmp(verb, "field") == 0) {
        struct token *name;
        ok = need(l, "name", &name) && need(l, "at", &t) && number(t, &a) && need(l, "size", &u) && number(u, &b);
        for (i = 0; ok && i < (int)(sizeof record_fields / sizeof record_fields[0]); ++i)
            if (strcmp(record_fields[i].name, name->value) == 0)
                break;
        if (ok && i == (int)(sizeof record_fields / sizeof record_fields[0]))
            ok = fail("the record has no member %s", name->value, 0);
        else if (ok && (record_fields[i].at != a || record_fields[i].size != b))
            ok = fail("field %s is elsewhere in the binding", name->value, 0);
        else if (ok && S.nfields < MAX_FIELDS)
            S.fields[S.nfields++] = record_fields[i];
    } else if (strcmp(verb, "case") == 0) {
        etw_properties_destroy(S.props);
        etw_properties_destroy(S.original);
        S.props = S.original = NULL;
        set_block(NULL, 0);
        l->t[1].used = 1;
    } else if (strcmp(verb, "create") == 0) {
        etw_properties *created = NULL;
        ok = need(l, "name", &t) && expect(l, etw_properties_create(&created, t->value));
        if (created) {
            etw_properties_destroy(S.props);
            S.props = created;
        }
    } else if (strcmp(verb, "set") == 0 || strcmp(verb, "get") == 0) {
        ok = have_props();
        field(l, "status");
        field(l, "message");
        for (i = 1; ok && i < l->n; ++i) {
            if (strcmp(l->t[i].key, "status") == 0 || strcmp(l->t[i].key, "message") == 0)
                continue;
            l->t[i].used = 1;
            ok = verb[0] == 's' ? set_member(l, &l->t[i]) : get_member(&l->t[i]);
        }
    } else if (strcmp(verb, "clone") == 0) {
        etw_properties *copy = NULL;
        ok = have_props() && expect(l, etw_properties_clone(&copy, S.props));
        if (ok) {
            etw_properties_destroy(S.original);
            S.original = S.props;
            S.props = copy;
        }
    } else if (strcmp(verb, "original") == 0) {
        ok = S.original ? 1 : fail("no original", 0, 0);
        if (ok) {
            etw_properties_destroy(S.props);
            S.props = S.original;
            S.original = NULL;
        }
    } else if (strcmp(verb, "validate") == 0) {
        ok = have_props() && expect(l, etw_properties_validate(S.props));
    } else if (strcmp(verb, "export") == 0) {
        ok = export_block(l);
    } else if (strcmp(verb, "import") == 0) {
        etw_properties *imported = NULL;
        ok = expect(l, etw_properties_import(&imported, S.block, S.block_size));
        if (imported) {
            etw_properties_destroy(S.props);
            S.props = imported;
        }
    } else if (strcmp(verb, "roundtrip") == 0) {
        etw_properties *back = NULL;
        size_t size = 0;
        unsigned char *again = malloc(S.block_size ? S.block_size : 1);
        ok = again && etw_properties_import(&back, S.block, S.block_size) == ETW_OK &&
             etw_properties_export(again, S.block_size, &size, back) == ETW_OK && size == S.block_size &&
             memcmp(again, S.block, size) == 0;
        if (!ok)
            fail("the block changed in an import/export round trip (%s)", etw_last_error_message(), 0);
        etw_properties_destroy(back);
        free(again);
    } else if (strcmp(verb, "expect") == 0 || strcmp(verb, "poke") == 0) {
        const struct layout_field *f;
        unsigned char bytes[16];
        ok = need(l, "field", &t) && (f = block_field(t->value)) != NULL && need(l, "value", &u) &&
             field_bytes(f, u, bytes) && in_block(f->at, f->size);
        if (ok && verb[0] == 'p')
            memcpy(S.block + f->at, bytes, f->size);
        else if (ok && memcmp(S.block + f->at, bytes, f->size) != 0)
            ok = fail("field %s differs from %s", t->value, u->value);
    } else if (strcmp(verb, "expect_text") == 0 || strcmp(verb, "poke_text") == 0) {
        unsigned char *text = NULL;
        size_t n = 0;
        const struct layout_field *f;
        ok = need(l, "at", &t) && need(l, "text", &u);
        /* at= is a number, or the name of a field that holds the offset */
        if (ok && !t->quoted && (t->value[0] < '0' || t->value[0] > '9'))
            ok = (f = block_field(t->value)) != NULL && in_block(f->at, f->size) && ((a = read_le(f->at, f->size)), 1);
        else if (ok)
            ok = number(t, &a);
        if (ok) {
            text = malloc(4 * strlen(u->value) + 2);
            ok = text && (n = utf16le(u->value, text, 4 * strlen(u->value) + 2)) > 0 && in_block((size_t)a, n);
        }
        if (ok && verb[0] == 'p')
            memcpy(S.block + a, text, n);
        else if (ok && memcmp(S.block + a, text, n) != 0)
            ok = fail("the text at %s is not \"%s\"", t->value, u->value);
        free(text);
    } else if (strcmp(verb, "block") == 0) {
        ok = need(l, "size", &t) && number(t, &a);
        if (ok)
            set_block(NULL, (size_t)a);
    } else if (strcmp(verb, "load") == 0) {
        ok = need(l, "block", &t);
        for (i = S.nblocks - 1; ok && i >= 0 && strcmp(S.blocks[i].name, t->value) != 0; --i) {
        }
        if (ok && i < 0)
            ok = fail("case %s exported no block", t->value, 0);
        if (ok)
            set_block(S.blocks[i].data, S.blocks[i].size);
    } else if (strcmp(verb, "resize") == 0) {
        ok = need(l, "size", &t) && number(t, &a);
        if (ok) {
            unsigned char *old = S.block;
            size_t old_size = S.block_size;
            S.block = NULL;
            set_block(NULL, (size_t)a);
            memcpy(S.block, old, old_size < a ? old_size : (size_t)a);
            free(old);
        }
    } else if (strcmp(verb, "poke_u16") == 0) {
        ok = need(l, "at", &t) && number(t, &a) && need(l, "value", &u) && number(u, &b) && in_block((size_t)a, 2);
        if (ok) {
            S.block[a] = (unsigned char)(b & 0xFF);
            S.block[a + 1] = (unsigned char)(b >> 8);
        }
    } else if (!session_step(l, verb, &ok) && !modern_step(l, verb, &ok)) {
        return fail("unknown verb %s", verb, 0);
    }
    for (i = 1; ok && i < l->n; ++i)
        if (!l->t[i].used)
            ok = fail("unknown field %s", l->t[i].key[0] ? l->t[i].key : l->t[i].value, 0);
    return ok;
}

int main(int argc, char **argv)
{
    static char text[1 << 16];
    FILE *file = fopen(argc > 1 ? argv[1] : "scenario.txt", "r");
    int number_ = 0, cases = 0, failed = 0, case_failed = 0, i;
    if (!file) {
        printf("FAIL (setup): cannot open the scenario\n");
        return 1;
    }
    while (fgets(text, sizeof text, file)) {
        struct line l;
        ++number_;
        if (!tokenize(text, &l)) {
            l.n = 0; /* the failure is reported below */
        } else if (l.n == 0) {
            continue;
        } else if (strcmp(l.t[0].value, "case") == 0) {
            session_reset();
            if (S.case_name[0] && !case_failed)
                printf("ok %s\n", S.case_name);
            cases += S.case_name[0] != 0;
            failed += case_failed;
            case_failed = 0;
            snprintf(S.case_name, sizeof S.case_name, "%s", l.n > 1 ? l.t[1].value : "");
        } else if (case_failed) {
            free_line(&l);
            continue;
        }
        if (l.n == 0 || !step(&l)) {
            printf("FAIL %s line %d: %s\n", S.case_name[0] ? S.case_name : "(setup)", number_, S.failure);
            if (!S.case_name[0])
                return 1;
            case_failed = 1;
        }
        free_line(&l);
    }
    fclose(file);
    session_reset();
    session_cleanup();
    modern_cleanup();
    if (S.case_name[0] && !case_failed)
        printf("ok %s\n", S.case_name);
    cases += S.case_name[0] != 0;
    failed += case_failed;
    etw_properties_destroy(S.props);
    etw_properties_destroy(S.original);
    free(S.block);
    for (i = 0; i < S.nblocks; ++i)
        free(S.blocks[i].data);
    printf("%d cases passed", cases - failed);
    if (failed)
        printf(", %d FAILED", failed);
    printf("\n");
    return failed || cases == 0 ? 1 : 0;
}
