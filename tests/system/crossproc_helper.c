/* The processes of tests/system/crossproc_*_test.cpp, using only the public C
 * API. Arguments after the mode are key=value pairs.
 *
 *   host     name= [file=] [rt=1] [buffering=1] [buf=KB] [min=] [max=] [flush=s] [guid=n]
 *            [level=] [any=] [all=] [noenable=1] [grant=uid:rights]
 *            Starts a session, enables provider GUID n (xp_guid), prints
 *            "ready <pid>", then serves until another process stops the
 *            session (exit 0) or it is killed.
 *   provider counters=PATH [index=] [threads=] [events=] [min=] [max=]
 *            [level=] [levels=1] [guid=n] [pace=N] [pace_us=] [linger_ms=]
 *            Registers GUID n and records enable callbacks in the counters
 *            file; threads write while the test sets cmd RUN (events= per
 *            thread, 0 = no limit), counting every status (crossproc_common.h).
 *            Exits 0 on cmd QUIT (its threads end, then it stays linger_ms
 *            longer, still registered).
 *   consume  name= counters=PATH [out=PATH] [guid=n] [slow_us=]
 *            A real-time consumer of the session (slow_us: sleeps that long
 *            in each buffer callback): counts the GUID's events;
 *            when processing returns, writes their keys (provider << 56 |
 *            thread << 48 | seq, uint64 each) to out= and exits 0.
 *   probe    name= ops=a,b,... [index=] [guid=n] [events=] [wait_ms=]
 *            [uid=] [rights=]
 *            Runs each op and prints "op=status" lines: list (found/count),
 *            open, query, flush, update, stop, consume, log, enable, grant.
 *   scribble registry=PATH seed= [bursts=] [writes=] [sleep_us=]
 *            Maps every session region "<registry>.<slot>.<generation>" and
 *            writes random bytes: half in the first 64 KiB (control block,
 *            stream slots, buffer descriptors), half anywhere. Exit 5 when
 *            there is no region file. */
#define _GNU_SOURCE
#include <openetw/openetw.h>

#include "crossproc_common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int g_argc;
static char **g_argv;

static const char *arg(const char *key, const char *fallback)
{
    const size_t n = strlen(key);
    for (int i = 2; i < g_argc; ++i)
        if (strncmp(g_argv[i], key, n) == 0 && g_argv[i][n] == '=')
            return g_argv[i] + n + 1;
    return fallback;
}

static uint64_t num(const char *key, uint64_t fallback)
{
    const char *v = arg(key, NULL);
    return v ? strtoull(v, NULL, 0) : fallback;
}

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

static int fail(const char *what, etw_status st)
{
    printf("error %s %u %s: %s\n", what, st, etw_status_name(st), etw_last_error_message());
    fflush(stdout);
    return 3;
}

static xp_shared *map_counters(const char *path)
{
    if (!path)
        return NULL;
    const int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *p = mmap(NULL, sizeof(xp_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    xp_shared *s = (xp_shared *)p;
    if (xp_load(&s->magic) != XP_MAGIC)
        return NULL;
    xp_store(&s->pid, (uint64_t)getpid());
    return s;
}

/* ---- host ---- */

static int host(void)
{
    const char *name = arg("name", NULL);
    const char *file = arg("file", "");
    if (!name)
        return 2;
    etw_properties *props = NULL;
    etw_session *session = NULL;
    etw_status st = etw_properties_create(&props, name);
    uint32_t mode = 0;
    if (*file)
        mode |= ETW_FILE_MODE_SEQUENTIAL;
    if (num("rt", 0))
        mode |= ETW_REAL_TIME_MODE;
    if (num("buffering", 0))
        mode = ETW_BUFFERING_MODE; /* file= only names where a flush writes */
    if (st == ETW_OK && *file)
        st = etw_properties_set_log_file_name(props, file);
    if (st == ETW_OK)
        st = etw_properties_set_log_file_mode(props, mode);
    if (st == ETW_OK)
        st = etw_properties_set_buffer_size(props, (uint32_t)num("buf", 64));
    if (st == ETW_OK && num("min", 0))
        st = etw_properties_set_minimum_buffers(props, (uint32_t)num("min", 0));
    if (st == ETW_OK)
        st = etw_properties_set_maximum_buffers(props, (uint32_t)num("max", 40));
    if (st == ETW_OK)
        st = etw_properties_set_flush_timer(props, (uint32_t)num("flush", 0));
    if (st != ETW_OK)
        return fail("properties", st);
    if ((st = etw_session_start(&session, props)) != ETW_OK)
        return fail("start", st);
    if (!num("noenable", 0)) {
        const etw_guid g = xp_guid((uint32_t)num("guid", 0));
        st = etw_session_enable_provider(session, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, (uint8_t)num("level", 0),
                                         num("any", 0), num("all", 0));
        if (st != ETW_OK)
            return fail("enable", st);
    }
    const char *grant = arg("grant", NULL);
    if (grant) {
        char *colon = NULL;
        const unsigned long uid = strtoul(grant, &colon, 0);
        const unsigned long rights = colon && *colon == ':' ? strtoul(colon + 1, NULL, 0) : ETW_SESSION_RIGHT_ALL;
        if ((st = etw_session_grant(session, (uint32_t)uid, (uint32_t)rights)) != ETW_OK)
            return fail("grant", st);
    }
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    /* Serve until someone stops the session (the servant thread does the work). */
    for (;;) {
        sleep_us(10000);
        if (etw_session_query(session, props) == ETW_ERROR_WMI_INSTANCE_NOT_FOUND)
            break;
    }
    etw_session_close(session);
    etw_properties_destroy(props);
    return 0;
}

/* ---- provider ---- */

typedef struct provider_ctx {
    xp_shared *shared;
    etw_provider *provider;
    uint32_t index;
    uint64_t events;
    uint32_t min, max;
    int level, cycle_levels;
    etw_guid guid;
    uint64_t pace, pace_us;
} provider_ctx;

typedef struct thread_ctx {
    provider_ctx *p;
    uint32_t index;
    pthread_t tid;
} thread_ctx;

/* The provider of a provider process (one per process), for its rundown events. */
static etw_provider *g_provider; /* atomic: set after register, read by the callbacks */
static etw_guid g_provider_guid;
static uint32_t g_provider_index;

/* Answers a capture-state request with one rundown event (Class.Type 3,
 * DC_START), written from inside the callback as a provider does. */
static void rundown(xp_shared *s, const etw_provider_enable_info *info)
{
    const uint64_t n = xp_add(&s->capture_calls, 1);
    xp_store(&s->capture_level, info->level);
    xp_store(&s->capture_any, info->match_any_keyword);
    struct {
        etw_event_trace_header h;
        xp_payload pl;
    } ev;
    memset(&ev, 0, sizeof ev);
    ev.h.Size = (uint16_t)sizeof ev;
    ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    ev.h.Guid = g_provider_guid;
    ev.h.Class.Type = 3;
    ev.h.Class.Level = 1;
    ev.pl.magic = XP_RUNDOWN_MAGIC;
    ev.pl.provider = (uint16_t)g_provider_index;
    ev.pl.thread = 0xFFFF;
    ev.pl.seq = n;
    /* The request can come before etw_provider_register has returned here
       (the listing shows the registration first): wait for the handle. */
    etw_provider *p = NULL;
    for (int i = 0; i < 5000 && !(p = __atomic_load_n(&g_provider, __ATOMIC_ACQUIRE)); ++i) {
        struct timespec ts = {0, 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    xp_store(&s->rundown_status, p ? etw_provider_trace_event(p, &ev.h) : 0xFFFFFFFFu);
}

static void on_enable(const etw_provider_enable_info *info, void *user_data)
{
    xp_shared *s = (xp_shared *)user_data;
    if (info->is_enabled == ETW_CONTROL_CODE_CAPTURE_STATE) {
        rundown(s, info);
    } else if (info->is_enabled) {
        xp_store(&s->last_level, info->level);
        xp_store(&s->last_any, info->match_any_keyword);
        xp_store(&s->last_all, info->match_all_keyword);
        xp_store(&s->enabled, 1);
        xp_add(&s->enable_calls, 1);
    } else {
        xp_store(&s->enabled, 0);
        xp_add(&s->disable_calls, 1);
    }
}

static uint64_t xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void *writer(void *arg_)
{
    thread_ctx *t = (thread_ctx *)arg_;
    provider_ctx *p = t->p;
    xp_shared *s = p->shared;
    xp_thread *c = &s->threads[t->index];
    const size_t cap = sizeof(etw_event_trace_header) + 65536;
    uint8_t *buf = (uint8_t *)calloc(1, cap);
    uint64_t rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)p->index << 32) ^ t->index ^ (uint64_t)getpid() << 16;
    uint64_t seq = xp_load(&c->started);
    for (;;) {
        const uint64_t cmd = xp_load(&s->cmd);
        if (cmd == XP_CMD_QUIT)
            break;
        if (cmd == XP_CMD_RUN && (p->events == 0 || seq < p->events)) {
            uint32_t size = p->min;
            if (p->max > p->min)
                size += (uint32_t)(xorshift(&rng) % (p->max - p->min + 1));
            if (size < sizeof(xp_payload))
                size = sizeof(xp_payload);
            etw_event_trace_header *h = (etw_event_trace_header *)buf;
            memset(h, 0, sizeof *h);
            h->Size = (uint16_t)(sizeof *h + size);
            h->Flags = ETW_WNODE_FLAG_TRACED_GUID;
            h->Guid = p->guid;
            h->Class.Type = 10;
            h->Class.Level = (uint8_t)(p->cycle_levels ? 1 + seq % 5 : (uint64_t)p->level);
            xp_payload pl = {XP_EVENT_MAGIC, (uint16_t)p->index, (uint16_t)t->index, seq};
            memcpy(buf + sizeof *h, &pl, sizeof pl);
            memset(buf + sizeof *h + sizeof pl, xp_fill_byte(p->index, t->index, seq), size - sizeof pl);
            xp_add(&c->started, 1);
            const etw_status st = etw_provider_trace_event(p->provider, h);
            switch (st) {
            case ETW_OK:
                xp_add(&c->ok, 1);
                break;
            case ETW_ERROR_NOT_ENOUGH_MEMORY:
            case ETW_ERROR_LOG_FILE_FULL:
                xp_add(&c->lost, 1);
                break;
            case ETW_ERROR_WMI_INSTANCE_NOT_FOUND:
                xp_add(&c->refused, 1);
                break;
            default:
                if (xp_add(&c->other, 1) == 1)
                    xp_store(&c->first_other, st);
            }
            ++seq;
            if (p->events && seq == p->events)
                xp_store(&c->done, 1);
            if (p->pace && seq % p->pace == 0)
                sleep_us((long)p->pace_us);
            continue;
        }
        xp_store(&c->ack, xp_load(&s->seq));
        sleep_us(200);
    }
    xp_store(&c->ack, xp_load(&s->seq));
    free(buf);
    return NULL;
}

static int provider(void)
{
    provider_ctx p;
    memset(&p, 0, sizeof p);
    p.shared = map_counters(arg("counters", NULL));
    if (!p.shared) {
        printf("error counters file %s\n", arg("counters", "(none)"));
        return 2;
    }
    p.index = (uint32_t)num("index", 0);
    p.events = num("events", 0);
    p.min = (uint32_t)num("min", 16);
    p.max = (uint32_t)num("max", 200);
    p.level = (int)num("level", 0);
    p.cycle_levels = (int)num("levels", 0);
    p.guid = xp_guid((uint32_t)num("guid", 0));
    p.pace = num("pace", 0);
    p.pace_us = num("pace_us", 1000);
    uint32_t threads = (uint32_t)num("threads", 1);
    if (threads > XP_MAX_THREADS)
        threads = XP_MAX_THREADS;
    xp_shared *s = p.shared;
    g_provider_guid = p.guid;
    g_provider_index = p.index;
    const etw_status st = etw_provider_register(&p.provider, &p.guid, on_enable, s, NULL);
    __atomic_store_n(&g_provider, p.provider, __ATOMIC_RELEASE);
    xp_store(&s->register_status, st);
    xp_store(&s->registered, 1);
    if (st != ETW_OK)
        return fail("register", st);
    thread_ctx t[XP_MAX_THREADS];
    for (uint32_t i = 0; i < threads; ++i) {
        t[i].p = &p;
        t[i].index = i;
        pthread_create(&t[i].tid, NULL, writer, &t[i]);
    }
    const volatile uint32_t *word = etw_provider_enabled_word(p.provider);
    while (xp_load(&s->cmd) != XP_CMD_QUIT) {
        uint64_t mask = 0;
        for (uint32_t level = 0; level < 8; ++level)
            if (etw_provider_is_enabled(p.provider, (uint8_t)level, 0))
                mask |= 1ull << level;
        xp_store(&s->level_mask, mask);
        /* An atomic load: the same single load, and race detectors accept it. */
        xp_store(&s->enabled_word, word ? __atomic_load_n(word, __ATOMIC_RELAXED) : 0);
        sleep_us(2000);
    }
    for (uint32_t i = 0; i < threads; ++i)
        pthread_join(t[i].tid, NULL);
    const long linger_ms = (long)num("linger_ms", 0);
    if (linger_ms > 0)
        sleep_us(linger_ms * 1000);
    etw_provider_unregister(p.provider);
    return 0;
}

/* ---- consume ---- */

typedef struct consume_ctx {
    xp_shared *s;
    etw_guid guid;
    uint64_t *keys;
    size_t count, cap;
    long slow_us;
} consume_ctx;

static int32_t on_event(void *user_data, const etw_classic_event *e)
{
    consume_ctx *c = (consume_ctx *)user_data;
    if (memcmp(&e->header.Guid, &c->guid, sizeof c->guid) != 0)
        return 0;
    xp_add(&c->s->events, 1);
    xp_payload pl;
    if (e->payload_size < sizeof pl) {
        xp_add(&c->s->bad_payload, 1);
        return 0;
    }
    memcpy(&pl, e->payload, sizeof pl);
    const uint8_t fill = xp_fill_byte(pl.provider, pl.thread, pl.seq);
    for (uint32_t i = sizeof pl; i < e->payload_size; ++i)
        if (e->payload[i] != fill) {
            xp_add(&c->s->bad_payload, 1);
            break;
        }
    if (c->count == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4096;
        c->keys = (uint64_t *)realloc(c->keys, c->cap * sizeof *c->keys);
    }
    c->keys[c->count++] = (uint64_t)pl.provider << 56 | (uint64_t)pl.thread << 48 | (pl.seq & 0xFFFFFFFFFFFFull);
    return 0;
}

static int32_t on_buffer(void *user_data, const etw_buffer_info *b)
{
    (void)b;
    consume_ctx *c = (consume_ctx *)user_data;
    xp_add(&c->s->buffers, 1);
    if (c->slow_us)
        sleep_us(c->slow_us);
    return 0;
}

static int consume(void)
{
    consume_ctx c;
    memset(&c, 0, sizeof c);
    c.s = map_counters(arg("counters", NULL));
    const char *name = arg("name", NULL);
    if (!c.s || !name)
        return 2;
    c.guid = xp_guid((uint32_t)num("guid", 0));
    c.slow_us = (long)num("slow_us", 0);
    etw_consumer_options o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.event = on_event;
    o.buffer = on_buffer;
    o.user_data = &c;
    etw_consumer *consumer = NULL;
    const etw_status st = etw_consumer_open_session(&consumer, name, &o);
    xp_store(&c.s->open_status, st);
    xp_store(&c.s->attached, 1);
    if (st != ETW_OK)
        return fail("open_session", st);
    const etw_status ps = etw_consumer_process(consumer);
    etw_consumer_close(consumer);
    const char *out = arg("out", NULL);
    if (out) {
        FILE *f = fopen(out, "wb");
        if (f) {
            if (c.count)
                fwrite(c.keys, sizeof *c.keys, c.count, f);
            fclose(f);
        }
    }
    xp_store(&c.s->process_status, ps);
    xp_store(&c.s->processed, 1);
    free(c.keys);
    return 0;
}

/* ---- probe ---- */

static void report(const char *op, etw_status st)
{
    printf("%s=%u\n", op, st);
    if (st != ETW_OK)
        printf("%s_message=%s %s\n", op, etw_status_name(st), etw_last_error_message());
    fflush(stdout);
}

typedef struct probe_consumer {
    etw_consumer *consumer;
    etw_status status;
} probe_consumer;

static void *probe_process(void *arg_)
{
    probe_consumer *pc = (probe_consumer *)arg_;
    pc->status = etw_consumer_process(pc->consumer);
    return NULL;
}

static int probe(void)
{
    const char *name = arg("name", NULL);
    const char *ops = arg("ops", "");
    if (!name)
        return 2;
    const uint32_t index = (uint32_t)num("index", 9);
    const etw_guid guid = xp_guid((uint32_t)num("guid", 0));
    etw_session *session = NULL;
    char op[32];
    while (*ops) {
        size_t n = strcspn(ops, ",");
        if (n >= sizeof op)
            n = sizeof op - 1;
        memcpy(op, ops, n);
        op[n] = 0;
        ops += n + (ops[n] == ',');
        if (strcmp(op, "list") == 0) {
            etw_properties *list[16] = {0};
            uint32_t count = 0, found = 0;
            for (int i = 0; i < 16; ++i)
                etw_properties_create(&list[i], "list");
            const etw_status st = etw_session_list(&count, list, 16);
            for (uint32_t i = 0; i < count && i < 16; ++i) {
                printf("list_name%u=%s\n", i, etw_properties_session_name(list[i]));
                if (strcasecmp(etw_properties_session_name(list[i]), name) == 0)
                    found = 1;
            }
            for (int i = 0; i < 16; ++i)
                etw_properties_destroy(list[i]);
            report("list", st);
            printf("list_found=%u\nlist_count=%u\n", found, count);
        } else if (strcmp(op, "open") == 0) {
            report("open", etw_session_open(&session, name));
        } else if (strcmp(op, "query") == 0 || strcmp(op, "flush") == 0 || strcmp(op, "update") == 0 ||
                   strcmp(op, "stop") == 0) {
            if (!session) {
                report(op, ETW_ERROR_INVALID_HANDLE);
                continue;
            }
            etw_properties *props = NULL;
            etw_properties_create(&props, name);
            etw_status st;
            if (op[0] == 'q')
                st = etw_session_query(session, props);
            else if (op[0] == 'f')
                st = etw_session_flush(session, props);
            else if (op[0] == 'u') {
                etw_properties_set_flush_timer(props, 3);
                st = etw_session_update(session, props);
            } else
                st = etw_session_stop(session, props);
            report(op, st);
            etw_properties_destroy(props);
        } else if (strcmp(op, "enable") == 0) {
            const etw_guid other = xp_guid(7);
            report(op, session ? etw_session_enable_provider(session, &other, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0)
                               : ETW_ERROR_INVALID_HANDLE);
        } else if (strcmp(op, "grant") == 0) {
            report(op, session ? etw_session_grant(session, (uint32_t)num("uid", getuid()), (uint32_t)num("rights", 7))
                               : ETW_ERROR_INVALID_HANDLE);
        } else if (strcmp(op, "consume") == 0) {
            etw_consumer_options o;
            memset(&o, 0, sizeof o);
            o.struct_size = sizeof o;
            probe_consumer pc = {NULL, ETW_OK};
            const etw_status st = etw_consumer_open_session(&pc.consumer, name, &o);
            report(op, st);
            if (st == ETW_OK) {
                pthread_t t;
                pthread_create(&t, NULL, probe_process, &pc);
                sleep_us(200000);
                etw_consumer_cancel(pc.consumer);
                pthread_join(t, NULL);
                printf("consume_process=%u\n", pc.status);
                etw_consumer_close(pc.consumer);
            }
        } else if (strcmp(op, "log") == 0) {
            xp_shared s;
            memset(&s, 0, sizeof s);
            etw_provider *p = NULL;
            const etw_status st = etw_provider_register(&p, &guid, on_enable, &s, NULL);
            report("log_register", st);
            if (st != ETW_OK)
                continue;
            const uint64_t wait_ms = num("wait_ms", 1500);
            for (uint64_t waited = 0; waited < wait_ms && !xp_load(&s.enable_calls); waited += 10)
                sleep_us(10000);
            printf("log_enabled=%u\n", (unsigned)xp_load(&s.enable_calls) ? 1u : 0u);
            /* Write whether enabled or not: a session that did not enable
             * this provider must not log these. */
            const uint64_t events = num("events", 100);
            uint64_t ok = 0, other = 0;
            for (uint64_t i = 0; i < events; ++i) {
                struct {
                    etw_event_trace_header h;
                    xp_payload pl;
                } ev;
                memset(&ev, 0, sizeof ev);
                ev.h.Size = sizeof ev;
                ev.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
                ev.h.Guid = guid;
                ev.pl.magic = XP_EVENT_MAGIC;
                ev.pl.provider = (uint16_t)index;
                ev.pl.seq = i;
                if (etw_provider_trace_event(p, &ev.h) == ETW_OK)
                    ++ok;
                else
                    ++other;
            }
            printf("log_ok=%llu\nlog_failed=%llu\n", (unsigned long long)ok, (unsigned long long)other);
            fflush(stdout);
            etw_provider_unregister(p);
        } else {
            printf("%s=unknown\n", op);
        }
    }
    etw_session_close(session);
    printf("end=0\n");
    fflush(stdout);
    return 0;
}

/* ---- scribble ---- */

static int scribble(void)
{
    const char *registry = arg("registry", NULL);
    if (!registry)
        return 2;
    char dir[4096], base[1024];
    const char *slash = strrchr(registry, '/');
    if (!slash)
        return 2;
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - registry), registry);
    snprintf(base, sizeof base, "%s.", slash + 1);
    uint64_t rng = num("seed", 1) * 0x9e3779b97f4a7c15ull + 1;
    const uint64_t bursts = num("bursts", 20), writes = num("writes", 64), pause = num("sleep_us", 500);
    struct region {
        uint8_t *p;
        size_t size;
    } regions[64];
    int count = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL && count < 64) {
        const size_t n = strlen(base);
        if (strncmp(e->d_name, base, n) != 0)
            continue;
        /* <slot>.<generation>: digits, a dot, digits */
        const char *rest = e->d_name + n;
        const size_t a = strspn(rest, "0123456789");
        if (a == 0 || rest[a] != '.' || strspn(rest + a + 1, "0123456789") == 0 ||
            rest[a + 1 + strspn(rest + a + 1, "0123456789")] != 0)
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        const int fd = open(path, O_RDWR | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 64) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (p == MAP_FAILED)
            continue;
        regions[count].p = (uint8_t *)p;
        regions[count].size = (size_t)st.st_size;
        ++count;
        printf("region %s %zu\n", path, (size_t)st.st_size);
    }
    if (d)
        closedir(d);
    if (count == 0) {
        printf("no region file %s<slot>.<generation>\n", registry);
        fflush(stdout);
        return 5;
    }
    fflush(stdout);
    uint64_t total = 0;
    for (uint64_t b = 0; b < bursts; ++b) {
        for (uint64_t w = 0; w < writes; ++w) {
            const struct region *r = &regions[xorshift(&rng) % (uint64_t)count];
            const size_t head = r->size < 65536 ? r->size : 65536;
            const size_t span = xorshift(&rng) % 2 ? head : r->size;
            const size_t n = 1 + xorshift(&rng) % 8;
            if (span <= n)
                continue;
            const size_t at = xorshift(&rng) % (span - n);
            const uint64_t junk = xorshift(&rng);
            memcpy(r->p + at, &junk, n);
            ++total;
        }
        sleep_us((long)pause);
    }
    printf("scribbled %llu writes over %d regions\n", (unsigned long long)total, count);
    return 0;
}

int main(int argc, char **argv)
{
    g_argc = argc;
    g_argv = argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2) {
        if (strcmp(argv[1], "host") == 0)
            return host();
        if (strcmp(argv[1], "provider") == 0)
            return provider();
        if (strcmp(argv[1], "consume") == 0)
            return consume();
        if (strcmp(argv[1], "probe") == 0)
            return probe();
        if (strcmp(argv[1], "scribble") == 0)
            return scribble();
    }
    fprintf(stderr, "usage: crossproc_helper host|provider|consume|probe|scribble key=value...\n");
    return 2;
}
