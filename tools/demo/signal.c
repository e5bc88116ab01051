/*
 * demo_signal: a flag set by one thread (an enable callback, the consumer
 * thread) that another waits for with a deadline, so no wait is unbounded.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c99 */
#include "demo.h"

#include <errno.h>
#include <time.h>

void demo_signal_init(struct demo_signal *s)
{
    pthread_mutex_init(&s->mutex, NULL);
    pthread_cond_init(&s->cond, NULL);
    s->set = 0;
}

void demo_signal_set(struct demo_signal *s, int value)
{
    pthread_mutex_lock(&s->mutex);
    s->set = value;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mutex);
}

int demo_signal_wait(struct demo_signal *s, unsigned timeout_ms)
{
    struct timespec deadline;
    int set, rc = 0;
    clock_gettime(CLOCK_REALTIME, &deadline); /* pthread_cond_timedwait's clock */
    deadline.tv_sec += (time_t)(timeout_ms / 1000u);
    deadline.tv_nsec += (long)(timeout_ms % 1000u) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec += 1;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mutex);
    while (!s->set && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&s->cond, &s->mutex, &deadline);
    set = s->set;
    pthread_mutex_unlock(&s->mutex);
    return set;
}

void demo_signal_destroy(struct demo_signal *s)
{
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mutex);
}
