/* A tiny test harness for the black-box C tests: CHECK counts and reports,
   and check_summary prints the closing "N passed, N failed" line. */
#ifndef OPENETW_TEST_CHECK_H
#define OPENETW_TEST_CHECK_H

#include <stdio.h>

static int check_passed;
static int check_failed;

#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            ++check_passed;                                                                                            \
        } else {                                                                                                       \
            ++check_failed;                                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond,                   \
                    etw_last_error_message());                                                                         \
        }                                                                                                              \
    } while (0)

static int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}

#endif
