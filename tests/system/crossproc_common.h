/* Shared by crossproc_helper.c and the crossproc tests: the layout of the
 * counters file a helper process and the test both map (MAP_SHARED, so the
 * counts survive a SIGKILL of the helper), the event payload, and the
 * provider GUIDs. Every member is a 64-bit word accessed with the __atomic
 * builtins only (xp_load / xp_store / xp_add). */
#ifndef OPENETW_TESTS_CROSSPROC_COMMON_H
#define OPENETW_TESTS_CROSSPROC_COMMON_H

#include <stdint.h>
#include <openetw/records.h>

#define XP_MAGIC 0x3150434f5250584full /* "XPROCP1" */
#define XP_MAX_THREADS 8

/* xp_shared.cmd: what provider threads do. */
#define XP_CMD_WAIT 0u /* write nothing; acknowledge xp_shared.seq */
#define XP_CMD_RUN 1u  /* write (up to events= per thread) */
#define XP_CMD_QUIT 2u /* threads end, the provider unregisters and exits 0 */

/* One writer thread of a provider process. */
typedef struct xp_thread {
    uint64_t started;     /* incremented before each etw_provider_trace_event */
    uint64_t ok;          /* ETW_OK: written into the session */
    uint64_t lost;        /* ETW_ERROR_NOT_ENOUGH_MEMORY / ETW_ERROR_LOG_FILE_FULL: dropped, counted */
    uint64_t refused;     /* ETW_ERROR_WMI_INSTANCE_NOT_FOUND: the session was stopping/gone */
    uint64_t other;       /* any other status (a test failure) */
    uint64_t first_other; /* the first such status */
    uint64_t ack;         /* the last xp_shared.seq this thread saw while not writing */
    uint64_t done;        /* 1 once events= were attempted */
} xp_thread;

typedef struct xp_shared {
    uint64_t magic;
    uint64_t cmd; /* XP_CMD_*, set by the test */
    uint64_t seq; /* bumped by the test to ask the threads to acknowledge a pause */
    uint64_t pid;
    /* Provider. */
    uint64_t registered; /* 1 after etw_provider_register returned */
    uint64_t register_status;
    uint64_t enable_calls;  /* callbacks with is_enabled 1 */
    uint64_t disable_calls; /* callbacks with is_enabled 0 */
    uint64_t enabled;       /* is_enabled of the last callback */
    uint64_t last_level;    /* of the last callback with is_enabled 1 */
    uint64_t last_any;
    uint64_t last_all;
    uint64_t level_mask;   /* bit L: etw_provider_is_enabled(provider, L, 0), L = 0..7, polled */
    uint64_t enabled_word; /* *etw_provider_enabled_word, polled */
    /* Consumer. */
    uint64_t attached; /* 1 after etw_consumer_open_session returned */
    uint64_t open_status;
    uint64_t events; /* events of the provider GUID received */
    uint64_t buffers;
    uint64_t processed; /* 1 after etw_consumer_process returned */
    uint64_t process_status;
    uint64_t bad_payload; /* events with a wrong magic or fill bytes */
    /* Provider: capture-state callbacks (is_enabled 2), each answered with one rundown event. */
    uint64_t capture_calls;
    uint64_t capture_level; /* of the last one */
    uint64_t capture_any;
    uint64_t rundown_status; /* etw_provider_trace_event's status for the last rundown event */
    uint64_t reserved[7];
    xp_thread threads[XP_MAX_THREADS];
} xp_shared;

static inline uint64_t xp_load(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static inline void xp_store(uint64_t *p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_SEQ_CST); }
static inline uint64_t xp_add(uint64_t *p, uint64_t v) { return __atomic_add_fetch(p, v, __ATOMIC_SEQ_CST); }

/* The payload every provider event starts with; the rest of the payload
 * (up to the event's Size) is filled with xp_fill_byte(...). */
#define XP_EVENT_MAGIC 0x56455058u /* "XPEV" */
typedef struct xp_payload {
    uint32_t magic;
    uint16_t provider; /* provider process index */
    uint16_t thread;   /* thread index in that process */
    uint64_t seq;      /* 0, 1, ... per thread: the value of started before the write */
} xp_payload;

/* A rundown event (written from a capture-state callback): an xp_payload
 * with this magic, thread 0xFFFF and seq the capture count, nothing after. */
#define XP_RUNDOWN_MAGIC 0x4E445258u /* "XRDN" */

static inline uint8_t xp_fill_byte(uint32_t provider, uint32_t thread, uint64_t seq)
{
    return (uint8_t)(seq * 31u + provider * 7u + thread * 3u + 1u);
}

/* Provider GUID number n: n = 0 is the one the hosts enable by default. */
static inline etw_guid xp_guid(uint32_t n)
{
    etw_guid g = {0x7c1d5e00u + n, 0x2b3c, 0x4d5e, {0x8f, 0x90, 0xa1, 0xb2, 0xc3, 0xd4, 0xe5, 0xf6}};
    return g;
}

#endif /* OPENETW_TESTS_CROSSPROC_COMMON_H */
