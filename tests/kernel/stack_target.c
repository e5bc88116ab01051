/* A program whose system calls come from one known instruction, for the
 * kernel-event stack tests: sleep_in_known_function makes argv[1] (default
 * 200) nanosleep calls of 1 ms with its own `syscall` instruction, so the
 * user frame of every SysClEnter and CSwitch it causes is the address
 * right after that instruction, which it prints first (hex) and flushes.
 * x86-64 only (the test is too). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

__attribute__((noinline)) void sleep_in_known_function(int calls)
{
    const struct timespec ms = {0, 1000000};
    for (int i = 0; i < calls; ++i) {
        long nr = SYS_nanosleep;
        unsigned long after;
        __asm__ volatile("syscall\n1:\n\tlea 1b(%%rip), %1"
                         : "+a"(nr), "=r"(after)
                         : "D"(&ms), "S"(0)
                         : "rcx", "r11", "memory");
        if (i == 0) {
            printf("%lx\n", after);
            fflush(stdout);
        }
    }
}

int main(int argc, char **argv)
{
    sleep_in_known_function(argc > 1 ? atoi(argv[1]) : 200);
    return 0;
}
