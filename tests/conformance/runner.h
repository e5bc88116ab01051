/* What the C conformance runner's two halves share: runner.c parses the
 * scenario and runs the properties verbs, runner_session.c the session,
 * provider and consumer verbs (tests/conformance/README.md). */
#ifndef OPENETW_CONFORMANCE_RUNNER_H
#define OPENETW_CONFORMANCE_RUNNER_H

#include <openetw/properties.h>
#include <openetw/records.h>
#include <openetw/status.h>

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

/* Replaces {tmp} and {pid} in a malloc'ed string; returns the new string
   (the old one is freed) or NULL when out of memory. */
char *expand_placeholders(char *value);
/* Runs a session, provider or consumer verb: 0 when verb is not one. */
int session_step(struct line *l, const char *verb, int *ok);
/* Stops and closes the session, unregisters the provider, clears the records. */
void session_reset(void);
/* Removes the files written under {tmp}, and {tmp} itself. */
void session_cleanup(void);

#endif
