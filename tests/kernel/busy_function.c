/* A program whose time goes to one function, for the sampled-profile test:
 * spins in spin_in_busy_function for argv[1] seconds of its own processor
 * time (default 1), so that its sample count does not depend on how busy
 * the machine is. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

volatile unsigned long busy_sink;

#ifdef BUSY_OTHER_BUILD
/* Another build of the program (the build id test replaces one with the
 * other): code placed before the busy function moves it. */
__attribute__((noinline)) unsigned long busy_other_build(unsigned long v)
{
    for (int i = 0; i < 64; ++i)
        v = v * 6364136223846793005ul + (unsigned long)i;
    return v;
}
#endif

__attribute__((noinline)) void spin_in_busy_function(double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 100000; ++i)
            busy_sink += (unsigned long)i * 7u;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
}

int main(int argc, char **argv)
{
#ifdef BUSY_OTHER_BUILD
    busy_sink = busy_other_build(busy_sink);
#endif
    spin_in_busy_function(argc > 1 ? atof(argv[1]) : 1.0);
    return 0;
}
