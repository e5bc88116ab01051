/* What the C conformance runner's two halves share: runner.c parses the
 * scenario and runs the properties verbs, runner_session.c the session,
 * provider and consumer verbs (tests/conformance/README.md). */
#ifndef OPENETW_CONFORMANCE_RUNNER_H
#define OPENETW_CONFORMANCE_RUNNER_H

#include <openetw/consumer.h>
#include <openetw/properties.h>
#include <openetw/provider.h>
#include <openetw/records.h>
#include <openetw/session.h>
#include <openetw/status.h>

#include <stddef.h>

#define MAX_TOKENS 32

struct token {
    char key[64];
    char *value;
    int quoted;
    int used;
};
struct line {
    struct token t[MAX_TOKENS];
    int n;
};

/* Records the step's failure (printf-style with two strings); returns 0. */
int fail(const char *fmt, const char *a, const char *b);
/* The field `key` of the line, marked used; NULL when absent. */
struct token *field(struct line *l, const char *key);
int need(struct line *l, const char *key, struct token **out);
/* An integer, or ETW_* constants joined with '|'. */
int number(const struct token *t, unsigned long long *out);
int parse_guid(const char *text, etw_guid *g);
/* Compares a call's status and message with the step's status= and message=. */
int expect(struct line *l, etw_status got);
/* The current properties object P (NULL when there is none). */
etw_properties *runner_props(void);
/* UTF-8 to UTF-16LE bytes plus a NUL character; returns the byte count or 0. */
size_t utf16le(const char *s, unsigned char *out, size_t cap);

/* Replaces {tmp} and {pid} in a malloc'ed string; returns the new string
   (the old one is freed) or NULL when out of memory. */
char *expand_placeholders(char *value);
/* Runs a session, provider or consumer verb: 0 when verb is not one. */
int session_step(struct line *l, const char *verb, int *ok);
/* Stops and closes the session, unregisters the provider, clears the records. */
void session_reset(void);
/* Removes the files written under {tmp}, and {tmp} itself. */
void session_cleanup(void);
/* An optional number field: *out keeps its default when the field is absent. */
int optional_number(struct line *l, const char *key, unsigned long long *out);
/* 1 when got == want, else records "<what> is <got>, expected <want>". */
int compare(const char *what, unsigned long long got, unsigned long long want);
unsigned long runner_process_id(void);
/* S and R (NULL when there is none). */
etw_session *runner_session(void);
etw_provider *runner_provider(void);

/* What runner_modern.c keeps of a record while the record callback runs. */
struct record_facts {
    char *tl_name;   /* the TraceLogging event's name; NULL when it is none */
    char *tl_fields; /* its decoded fields, canonical "name:type=value" joined by 0x1F */
    /* Items: 0 none; 1 present and filled (a stack with frames, a nonzero key); 2 present, empty */
    uint8_t stack, ts_id, process_start_key, event_key;
    char sid[192]; /* the SID item as text, "" without one */
};
/* Fills *out from a record (borrowed); 0 when out of memory. */
int record_facts_collect(struct record_facts *out, const etw_record *record);
void record_facts_free(struct record_facts *facts);
/* V's records: their count, and one's facts and EVENT_HEADER Id (event_id may be NULL). */
size_t runner_record_count(void);
const struct record_facts *runner_record_facts(size_t index, uint16_t *event_id);
/* Runs enable_ex, write_tl, expect_tl or expect_items: 0 when verb is none of them. */
int modern_step(struct line *l, const char *verb, int *ok);
/* Frees the decoder the record facts use. */
void modern_cleanup(void);

#endif
