/* The session, provider and consumer verbs of the C conformance runner
 * (tests/conformance/README.md, "Sessions, providers, events and records"). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp under -std=c99 */
#include <openetw/constants.h>
#include <openetw/consumer.h>
#include <openetw/provider.h>
#include <openetw/session.h>
#include "runner.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <direct.h>
#include <process.h>
#include <windows.h>
#define runner_pid() ((unsigned long)_getpid())
#define remove_dir(path) _rmdir(path)
#else
#include <unistd.h>
#define runner_pid() ((unsigned long)getpid())
#define remove_dir(path) rmdir(path)
#endif

struct enable_note {
    uint32_t is_enabled, level;
    uint64_t any, all;
};

struct copied_record {
    uint32_t kind, process_id;
    uint8_t opcode, level, channel;
    uint16_t version, event_id, task;
    uint64_t keyword;
    etw_guid activity_id, related; /* related: zero without a RELATED_ACTIVITYID item */
    int64_t timestamp;
    etw_guid guid;
    unsigned char *payload;
    uint32_t payload_size;
    struct record_facts facts; /* runner_modern.c's: TraceLogging fields, extended items */
};

struct collected {
    struct copied_record *records;
    size_t count, cap;
    unsigned long long stop_after;
    uint64_t event_callbacks, buffer_callbacks;
    int out_of_memory;
};

static struct {
    char tmp[512];
    char **files; /* expanded strings under tmp: removed at the end */
    size_t nfiles;
    etw_session *session;
    etw_provider *provider;
    etw_guid provider_guid;
    struct enable_note *notes;
    size_t nnotes;
    struct collected v; /* the records of the last process or live_join */
    etw_consumer_stats stats;
    etw_logfile_info header;
    char logger_name[512], log_file_name[1024];
    int have_header;
    /* live_start .. live_join */
    etw_consumer *live;
    struct collected live_v;
    pthread_t live_thread;
    int live_running;
    etw_status live_status;
} R;

/* ---- Placeholders and the temporary folder ---- */

static const char *tmp_dir(void)
{
    if (R.tmp[0])
        return R.tmp;
#ifdef _WIN32
    {
        char base[MAX_PATH];
        DWORD n = GetTempPathA(sizeof base, base);
        if (n == 0 || n >= sizeof base)
            snprintf(base, sizeof base, ".\\");
        snprintf(R.tmp, sizeof R.tmp, "%sopenetw-conformance-%lu", base, runner_pid());
        _mkdir(R.tmp);
    }
#else
    {
        const char *base = getenv("TMPDIR");
        snprintf(R.tmp, sizeof R.tmp, "%s/openetw-conformance-XXXXXX", base && *base ? base : "/tmp");
        if (!mkdtemp(R.tmp))
            snprintf(R.tmp, sizeof R.tmp, "/tmp");
    }
#endif
    return R.tmp;
}

static char *replace_all(char *s, const char *from, const char *to)
{
    char *at;
    size_t from_len = strlen(from), to_len = strlen(to);
    while (s && (at = strstr(s, from)) != NULL) {
        size_t head = (size_t)(at - s), len = strlen(s);
        char *out = malloc(len - from_len + to_len + 1);
        if (out) {
            memcpy(out, s, head);
            memcpy(out + head, to, to_len);
            memcpy(out + head + to_len, at + from_len, len - head - from_len + 1);
        }
        free(s);
        s = out;
    }
    return s;
}

char *expand_placeholders(char *value)
{
    char pid[32];
    int has_tmp = strstr(value, "{tmp}") != NULL;
    snprintf(pid, sizeof pid, "%lu", runner_pid());
    if (has_tmp)
        value = replace_all(value, "{tmp}", tmp_dir());
#ifdef _WIN32
    if (value && has_tmp) { /* a Windows path, as the library stores it */
        char *c;
        for (c = value; *c; ++c)
            if (*c == '/')
                *c = '\\';
    }
#endif
    value = replace_all(value, "{pid}", pid);
    if (value && has_tmp) { /* remember it: it may name a file to remove */
        char **grown = realloc(R.files, (R.nfiles + 1) * sizeof *grown);
        char *copy = malloc(strlen(value) + 1);
        if (grown && copy) {
            R.files = grown;
            strcpy(copy, value);
            R.files[R.nfiles++] = copy;
        } else {
            if (grown)
                R.files = grown;
            free(copy);
        }
    }
    return value;
}

void session_cleanup(void)
{
    size_t i;
    for (i = 0; i < R.nfiles; ++i) {
        remove(R.files[i]);
        free(R.files[i]);
    }
    free(R.files);
    R.files = NULL;
    R.nfiles = 0;
    if (R.tmp[0] && strcmp(R.tmp, "/tmp") != 0)
        remove_dir(R.tmp);
}

/* ---- Records ---- */

static void clear_records(struct collected *c)
{
    size_t i;
    for (i = 0; i < c->count; ++i) {
        free(c->records[i].payload);
        record_facts_free(&c->records[i].facts);
    }
    free(c->records);
    memset(c, 0, sizeof *c);
}

static int32_t on_buffer(void *user_data, const etw_buffer_info *buffer)
{
    (void)buffer;
    ((struct collected *)user_data)->buffer_callbacks++;
    return 0;
}

static int32_t on_event(void *user_data, const etw_classic_event *event)
{
    (void)event;
    ((struct collected *)user_data)->event_callbacks++;
    return 0;
}

static int32_t on_record(void *user_data, const etw_record *record)
{
    struct collected *c = user_data;
    struct copied_record *r;
    if (c->count == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        struct copied_record *grown = realloc(c->records, cap * sizeof *grown);
        if (!grown) {
            c->out_of_memory = 1;
            return 1;
        }
        c->records = grown;
        c->cap = cap;
    }
    r = &c->records[c->count++];
    r->kind = record->kind;
    r->process_id = record->process_id;
    r->opcode = record->opcode;
    r->level = record->level;
    r->version = record->version;
    r->timestamp = record->timestamp;
    r->guid = record->guid;
    r->event_id = record->event_id;
    r->task = record->task;
    r->channel = record->channel;
    r->keyword = record->keyword;
    r->activity_id = record->activity_id;
    memset(&r->related, 0, sizeof r->related);
    {
        uint32_t i;
        for (i = 0; i < record->extended_count; ++i)
            if (record->extended[i].ext_type == ETW_EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID &&
                record->extended[i].data_size == sizeof r->related)
                memcpy(&r->related, record->extended[i].data, sizeof r->related);
    }
    r->payload_size = record->payload_size;
    r->payload = malloc(record->payload_size ? record->payload_size : 1);
    if (!record_facts_collect(&r->facts, record) || !r->payload) {
        c->out_of_memory = 1;
        return 1;
    }
    if (record->payload_size)
        memcpy(r->payload, record->payload, record->payload_size);
    /* A non-zero return asks the consumer to stop: the Nth call does. */
    return c->stop_after && c->count >= c->stop_after ? 1 : 0;
}

static etw_consumer_options consumer_options(struct collected *c, uint32_t flags)
{
    etw_consumer_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = flags;
    o.buffer = on_buffer;
    o.record = on_record;
    o.event = on_event;
    o.user_data = c;
    return o;
}

/* Keeps what expect_stats and expect_header check of a consumer about to close. */
static void keep_consumer_facts(etw_consumer *consumer)
{
    uint32_t files = 0;
    memset(&R.stats, 0, sizeof R.stats);
    R.stats.struct_size = sizeof R.stats;
    etw_consumer_get_stats(&R.stats, consumer);
    R.have_header = 0;
    memset(&R.header, 0, sizeof R.header);
    R.header.struct_size = sizeof R.header;
    if (etw_consumer_file_count(&files, consumer) == ETW_OK && files > 0 &&
        etw_consumer_logfile_header(&R.header, consumer, 0) == ETW_OK) {
        R.have_header = 1;
        snprintf(R.logger_name, sizeof R.logger_name, "%s", R.header.logger_name ? R.header.logger_name : "");
        snprintf(R.log_file_name, sizeof R.log_file_name, "%s", R.header.log_file_name ? R.header.log_file_name : "");
    }
}

static int process_file(struct line *l)
{
    struct token *file, *order = field(l, "order"), *stop = field(l, "stop_after");
    const char *paths[1];
    uint32_t flags = ETW_CONSUMER_ORDER_TIME;
    etw_consumer *consumer = NULL;
    etw_consumer_options options;
    etw_status status;
    int ok;
    if (!need(l, "file", &file))
        return 0;
    if (order && strcmp(order->value, "file") == 0)
        flags = ETW_CONSUMER_ORDER_FILE;
    else if (order && strcmp(order->value, "time") != 0)
        return fail("order=%s is not time or file", order->value, 0);
    clear_records(&R.v);
    if (stop && !number(stop, &R.v.stop_after))
        return 0;
    options = consumer_options(&R.v, flags);
    paths[0] = file->value;
    status = etw_consumer_open(&consumer, paths, 1, &options);
    if (status != ETW_OK)
        return expect(l, status);
    status = etw_consumer_process(consumer);
    ok = expect(l, status);
    keep_consumer_facts(consumer);
    etw_consumer_close(consumer);
    if (ok && R.v.out_of_memory)
        ok = fail("out of memory copying records", 0, 0);
    return ok;
}

static void *live_main(void *arg)
{
    (void)arg;
    R.live_status = etw_consumer_process(R.live);
    return NULL;
}

static int live_start(struct line *l)
{
    struct token *name;
    etw_consumer_options options;
    etw_status status;
    if (!need(l, "name", &name))
        return 0;
    if (R.live_running)
        return fail("a live consumer is already running", 0, 0);
    clear_records(&R.live_v);
    options = consumer_options(&R.live_v, 0);
    status = etw_consumer_open_session(&R.live, name->value, &options);
    if (status != ETW_OK)
        return expect(l, status);
    if (!expect(l, status))
        return 0;
    if (pthread_create(&R.live_thread, NULL, live_main, NULL) != 0) {
        etw_consumer_close(R.live);
        R.live = NULL;
        return fail("cannot start a thread", 0, 0);
    }
    R.live_running = 1;
    return 1;
}

static void live_stop(int cancel)
{
    if (!R.live_running)
        return;
    if (cancel)
        etw_consumer_cancel(R.live);
    pthread_join(R.live_thread, NULL);
    R.live_running = 0;
}

static int live_join(struct line *l)
{
    int ok;
    if (!R.live_running)
        return fail("no live consumer is running", 0, 0);
    live_stop(0);
    ok = expect(l, R.live_status);
    keep_consumer_facts(R.live);
    etw_consumer_close(R.live);
    R.live = NULL;
    clear_records(&R.v);
    R.v = R.live_v;
    memset(&R.live_v, 0, sizeof R.live_v);
    return ok;
}

/* ---- Providers ---- */

static void on_enable(const etw_provider_enable_info *info, void *user_data)
{
    struct enable_note *grown = realloc(R.notes, (R.nnotes + 1) * sizeof *grown);
    (void)user_data;
    if (!grown)
        return;
    R.notes = grown;
    R.notes[R.nnotes].is_enabled = info->is_enabled;
    R.notes[R.nnotes].level = info->level;
    R.notes[R.nnotes].any = info->match_any_keyword;
    R.notes[R.nnotes].all = info->match_all_keyword;
    R.nnotes++;
}

/* An optional number field: *out keeps its default when the field is absent. */
int optional_number(struct line *l, const char *key, unsigned long long *out)
{
    struct token *t = field(l, key);
    return t ? number(t, out) : 1;
}

int compare(const char *what, unsigned long long got, unsigned long long want)
{
    char a[64], b[64];
    if (got == want)
        return 1;
    snprintf(a, sizeof a, "%s is %llu", what, got);
    snprintf(b, sizeof b, "%llu", want);
    return fail("%s, expected %s", a, b);
}

static int expect_callback(struct line *l)
{
    static const char *keys[] = {"is_enabled", "level", "any", "all"};
    struct token *count;
    unsigned long long want;
    int i;
    if (!need(l, "count", &count) || !number(count, &want) || !compare("the callback count", R.nnotes, want))
        return 0;
    for (i = 0; i < 4; ++i) {
        struct token *t = field(l, keys[i]);
        const struct enable_note *last = R.nnotes ? &R.notes[R.nnotes - 1] : NULL;
        unsigned long long got;
        if (!t)
            continue;
        if (!last)
            return fail("no callback ran", 0, 0);
        got = i == 0 ? last->is_enabled : i == 1 ? last->level : i == 2 ? last->any : last->all;
        if (!number(t, &want) || !compare(keys[i], got, want))
            return 0;
    }
    return 1;
}

/* The payload is gathered through one MOF field, as the other runners'
   bindings do, so a total above 0xFFFF reaches the library unwrapped. */
static int write_events(struct line *l)
{
    struct token *g = field(l, "guid"), *payload = field(l, "payload");
    unsigned long long count = 1, type = 0, level = 0, version = 0, i;
    size_t payload_size = payload ? strlen(payload->value) : 0;
    struct {
        etw_event_trace_header header;
        etw_mof_field mof;
    } event;
    etw_guid guid = R.provider_guid;
    int ok = 1;
    if (!R.provider)
        return fail("no provider", 0, 0);
    if (!optional_number(l, "count", &count) || !optional_number(l, "type", &type) ||
        !optional_number(l, "level", &level) || !optional_number(l, "version", &version) ||
        (g && !parse_guid(g->value, &guid)))
        return 0;
    for (i = 0; ok && i < count; ++i) {
        memset(&event, 0, sizeof event);
        event.header.Size = (uint16_t)sizeof event;
        event.header.Flags = ETW_WNODE_FLAG_TRACED_GUID | ETW_WNODE_FLAG_USE_MOF_PTR;
        event.header.Guid = guid;
        event.header.Class.Type = (uint8_t)type;
        event.header.Class.Level = (uint8_t)level;
        event.header.Class.Version = (uint16_t)version;
        event.mof.DataPtr = (uint64_t)(uintptr_t)(payload ? payload->value : "");
        event.mof.Length = (uint32_t)payload_size;
        ok = expect(l, etw_provider_trace_event(R.provider, &event.header));
    }
    return ok;
}

/* EVENT_HEADER events: the descriptor's members, the activity ids, the
   payload as one data descriptor. */
static int write_header_events(struct line *l)
{
    struct token *payload = field(l, "payload"), *activity = field(l, "activity"), *related = field(l, "related");
    unsigned long long count = 1, id = 0, version = 0, channel = 0, level = 0, opcode = 0, task = 0, keyword = 0, i;
    etw_event_descriptor d;
    etw_event_data_descriptor data;
    etw_guid a, r;
    int ok = 1;
    if (!R.provider)
        return fail("no provider", 0, 0);
    if (!optional_number(l, "count", &count) || !optional_number(l, "id", &id) ||
        !optional_number(l, "version", &version) || !optional_number(l, "channel", &channel) ||
        !optional_number(l, "level", &level) || !optional_number(l, "opcode", &opcode) ||
        !optional_number(l, "task", &task) || !optional_number(l, "keyword", &keyword) ||
        (activity && !parse_guid(activity->value, &a)) || (related && !parse_guid(related->value, &r)))
        return 0;
    d.Id = (uint16_t)id;
    d.Version = (uint8_t)version;
    d.Channel = (uint8_t)channel;
    d.Level = (uint8_t)level;
    d.Opcode = (uint8_t)opcode;
    d.Task = (uint16_t)task;
    d.Keyword = keyword;
    data.Ptr = (uint64_t)(uintptr_t)(payload ? payload->value : "");
    data.Size = (uint32_t)(payload ? strlen(payload->value) : 0);
    data.Reserved = 0;
    for (i = 0; ok && i < count; ++i)
        ok = expect(l, etw_provider_write_event(R.provider, &d, 0, activity ? &a : NULL, related ? &r : NULL,
                                                data.Size ? 1 : 0, &data));
    return ok;
}

/* ---- Expectations on the records read ---- */

static int record_matches(struct line *l, const struct copied_record *r)
{
    static const char *numeric[] = {"kind", "opcode", "level", "version", "event_id", "task", "channel", "keyword"};
    static const char *guids[] = {"guid", "activity", "related"};
    const unsigned long long values[] = {r->kind,     r->opcode, r->level,   r->version,
                                         r->event_id, r->task,   r->channel, r->keyword};
    const etw_guid *guid_values[] = {&r->guid, &r->activity_id, &r->related};
    struct token *t;
    int i;
    for (i = 0; i < 8; ++i) {
        unsigned long long want;
        if (!(t = field(l, numeric[i])))
            continue;
        if (!number(t, &want))
            return -1;
        if (values[i] != want)
            return 0;
    }
    for (i = 0; i < 3; ++i) {
        etw_guid g;
        if (!(t = field(l, guids[i])))
            continue;
        if (!parse_guid(t->value, &g))
            return -1;
        if (memcmp(&g, guid_values[i], sizeof g) != 0)
            return 0;
    }
    if ((t = field(l, "payload")) != NULL &&
        (strlen(t->value) != r->payload_size || memcmp(t->value, r->payload, r->payload_size) != 0))
        return 0;
    if ((t = field(l, "process_id")) != NULL) {
        unsigned long long want;
        if (strcmp(t->value, "self") == 0)
            want = runner_pid();
        else if (!number(t, &want))
            return -1;
        if (r->process_id != want)
            return 0;
    }
    return 1;
}

static int expect_records(struct line *l)
{
    struct token *count;
    unsigned long long want, got = 0;
    size_t i;
    static const char *filters[] = {"kind",    "opcode", "level",    "version", "event_id", "task",      "channel",
                                    "keyword", "guid",   "activity", "related", "payload",  "process_id"};
    if (!need(l, "count", &count) || !number(count, &want))
        return 0;
    for (i = 0; i < sizeof filters / sizeof filters[0]; ++i)
        field(l, filters[i]); /* known, even unmatched */
    for (i = 0; i < R.v.count; ++i) {
        int m = record_matches(l, &R.v.records[i]);
        if (m < 0)
            return 0;
        got += (unsigned long long)m;
    }
    return compare("the number of matching records", got, want);
}

static int expect_stats(struct line *l)
{
    static const char *keys[] = {"records",     "buffers",         "corrupt_records", "corrupt_buffers",
                                 "events_lost", "event_callbacks", "buffer_callbacks"};
    const unsigned long long got[] = {R.stats.records,         R.stats.buffers,     R.stats.corrupt_records,
                                      R.stats.corrupt_buffers, R.stats.events_lost, R.v.event_callbacks,
                                      R.v.buffer_callbacks};
    int i;
    for (i = 0; i < 7; ++i) {
        struct token *t = field(l, keys[i]);
        unsigned long long want;
        if (t && (!number(t, &want) || !compare(keys[i], got[i], want)))
            return 0;
    }
    return 1;
}

static int expect_header(struct line *l)
{
    static const char *keys[] = {"events_lost", "buffers_written", "buffer_size", "log_file_mode", "pointer_size"};
    const etw_trace_logfile_header64 *h = &R.header.header;
    const unsigned long long got[] = {h->EventsLost, h->BuffersWritten, h->BufferSize, h->LogFileMode, h->PointerSize};
    struct token *t;
    int i;
    if (!R.have_header)
        return fail("no logfile header was read", 0, 0);
    if ((t = field(l, "logger_name")) && strcmp(t->value, R.logger_name) != 0)
        return fail("logger_name is \"%s\", expected \"%s\"", R.logger_name, t->value);
    if ((t = field(l, "log_file_name")) && strcmp(t->value, R.log_file_name) != 0)
        return fail("log_file_name is \"%s\", expected \"%s\"", R.log_file_name, t->value);
    for (i = 0; i < 5; ++i) {
        unsigned long long want;
        if ((t = field(l, keys[i])) && (!number(t, &want) || !compare(keys[i], got[i], want)))
            return 0;
    }
    return 1;
}

static int expect_ordered(void)
{
    size_t i;
    for (i = 1; i < R.v.count; ++i)
        if (R.v.records[i].timestamp < R.v.records[i - 1].timestamp)
            return fail("a record's timestamp is earlier than the one before it", 0, 0);
    return 1;
}

/* ---- Sessions ---- */

static int have_session(void) { return R.session ? 1 : fail("no session", 0, 0); }
etw_session *runner_session(void) { return R.session; }
etw_provider *runner_provider(void) { return R.provider; }
unsigned long runner_process_id(void) { return runner_pid(); }
size_t runner_record_count(void) { return R.v.count; }

const struct record_facts *runner_record_facts(size_t index, uint16_t *event_id)
{
    if (event_id)
        *event_id = R.v.records[index].event_id;
    return &R.v.records[index].facts;
}

static int write_file(struct line *l)
{
    struct token *path, *text;
    FILE *f;
    size_t n;
    if (!need(l, "path", &path) || !need(l, "text", &text))
        return 0;
    f = fopen(path->value, "wb");
    if (!f)
        return fail("cannot write %s", path->value, 0);
    n = fwrite(text->value, 1, strlen(text->value), f);
    return fclose(f) == 0 && n == strlen(text->value) ? 1 : fail("cannot write %s", path->value, 0);
}

static int enable(struct line *l, uint32_t code)
{
    struct token *g;
    etw_guid guid;
    unsigned long long level = 0, any = 0, all = 0;
    if (!have_session() || !need(l, "guid", &g) || !parse_guid(g->value, &guid))
        return 0;
    if (code == ETW_CONTROL_CODE_ENABLE_PROVIDER &&
        (!optional_number(l, "level", &level) || !optional_number(l, "any", &any) || !optional_number(l, "all", &all)))
        return 0;
    return expect(l, etw_session_enable_provider(R.session, &guid, code, (uint8_t)level, any, all));
}

void session_reset(void)
{
    if (R.live_running)
        live_stop(1);
    if (R.live)
        etw_consumer_close(R.live);
    R.live = NULL;
    if (R.session) {
        etw_session_stop(R.session, NULL);
        etw_session_close(R.session);
        R.session = NULL;
    }
    etw_provider_unregister(R.provider);
    R.provider = NULL;
    free(R.notes);
    R.notes = NULL;
    R.nnotes = 0;
    clear_records(&R.v);
    clear_records(&R.live_v);
    R.have_header = 0;
}

/* start flags=: ETW_SESSION_* start options only, as the other runners map
   each bit to their binding's option. */
static int start_flags(const struct token *t, uint32_t *out)
{
    const unsigned long long known = ETW_SESSION_LOSSLESS | ETW_SESSION_REPLACE_ORPHAN | ETW_SESSION_TAKE_OVER_ORPHAN;
    unsigned long long flags;
    if (!number(t, &flags))
        return 0;
    if (flags & ~known)
        return fail("flags=%s has bits that are no start option", t->value, 0);
    *out = (uint32_t)flags;
    return 1;
}

static int start(struct line *l, etw_properties *p, etw_session **started)
{
    struct token *flags = field(l, "flags");
    etw_session_options options;
    if (!p)
        return fail("no properties object", 0, 0);
    if (!flags)
        return expect(l, etw_session_start(started, p));
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    return start_flags(flags, &options.flags) && expect(l, etw_session_start_ex(started, p, &options));
}

int session_step(struct line *l, const char *verb, int *ok)
{
    struct token *t;
    etw_properties *p = runner_props();
    if (strcmp(verb, "start") == 0) {
        etw_session *started = NULL;
        *ok = start(l, p, &started);
        if (started) {
            etw_session_close(R.session);
            R.session = started;
        }
    } else if (strcmp(verb, "open") == 0) {
        etw_session *opened = NULL;
        *ok = need(l, "name", &t) && expect(l, etw_session_open(&opened, t->value));
        if (opened) {
            etw_session_close(R.session);
            R.session = opened;
        }
    } else if (strcmp(verb, "query") == 0 || strcmp(verb, "flush") == 0 || strcmp(verb, "stop") == 0) {
        etw_status (*call)(etw_session *, etw_properties *) = verb[0] == 'q'   ? etw_session_query
                                                              : verb[0] == 'f' ? etw_session_flush
                                                                               : etw_session_stop;
        *ok = have_session() && (p ? 1 : fail("no properties object", 0, 0)) && expect(l, call(R.session, p));
    } else if (strcmp(verb, "grant") == 0) {
        struct token *u;
        unsigned long long uid, rights;
        *ok = have_session() && need(l, "uid", &t) && number(t, &uid) && need(l, "rights", &u) && number(u, &rights) &&
              expect(l, etw_session_grant(R.session, (uint32_t)uid, (uint32_t)rights));
    } else if (strcmp(verb, "flush_to_file") == 0) {
        *ok = have_session() && need(l, "path", &t) && expect(l, etw_session_flush_to_file(R.session, t->value, p));
    } else if (strcmp(verb, "register") == 0) {
        etw_provider *registered = NULL;
        *ok = need(l, "guid", &t) && parse_guid(t->value, &R.provider_guid) &&
              expect(l, etw_provider_register(&registered, &R.provider_guid, on_enable, NULL, NULL));
        if (registered) {
            etw_provider_unregister(R.provider);
            R.provider = registered;
        }
    } else if (strcmp(verb, "unregister") == 0) {
        *ok = R.provider ? 1 : fail("no provider", 0, 0);
        etw_provider_unregister(R.provider);
        R.provider = NULL;
    } else if (strcmp(verb, "enable") == 0 || strcmp(verb, "disable") == 0) {
        *ok = enable(l, verb[0] == 'e' ? ETW_CONTROL_CODE_ENABLE_PROVIDER : ETW_CONTROL_CODE_DISABLE_PROVIDER);
    } else if (strcmp(verb, "expect_callback") == 0) {
        *ok = expect_callback(l);
    } else if (strcmp(verb, "is_enabled") == 0) {
        unsigned long long level = 0, flags = 0, want;
        *ok =
            R.provider && optional_number(l, "level", &level) && optional_number(l, "flags", &flags) &&
            need(l, "value", &t) && number(t, &want) &&
            compare("is_enabled", (unsigned long long)etw_provider_is_enabled(R.provider, (uint8_t)level, flags), want);
        if (!R.provider)
            *ok = fail("no provider", 0, 0);
    } else if (strcmp(verb, "write") == 0) {
        *ok = write_events(l);
    } else if (strcmp(verb, "write_event") == 0) {
        *ok = write_header_events(l);
    } else if (strcmp(verb, "write_file") == 0) {
        *ok = write_file(l);
    } else if (strcmp(verb, "process") == 0) {
        *ok = process_file(l);
    } else if (strcmp(verb, "live_start") == 0) {
        *ok = live_start(l);
    } else if (strcmp(verb, "live_join") == 0) {
        *ok = live_join(l);
    } else if (strcmp(verb, "expect_records") == 0) {
        *ok = expect_records(l);
    } else if (strcmp(verb, "expect_ordered") == 0) {
        *ok = expect_ordered();
    } else if (strcmp(verb, "expect_stats") == 0) {
        *ok = expect_stats(l);
    } else if (strcmp(verb, "expect_header") == 0) {
        *ok = expect_header(l);
    } else {
        return 0;
    }
    return 1;
}
