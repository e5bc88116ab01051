#include "interrupt.hpp"

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <thread>

#if !defined(_WIN32)
#include <csignal>
#include <pthread.h>
#endif

namespace etwdump {

namespace {
std::atomic<bool> g_interrupted{false};
}

#if !defined(_WIN32)
namespace {
// The consumer a signal cancels, NULL once it is closing; the waiter cancels
// under the lock, so the close never overlaps a cancel.
std::mutex g_mutex;
etw_consumer *g_consumer = nullptr;

sigset_t interrupt_set()
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}
} // namespace

void hold_interrupts()
{
    const sigset_t set = interrupt_set();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void watch_interrupts(etw_consumer *consumer)
{
    {
        std::lock_guard lock(g_mutex);
        g_consumer = consumer;
    }
    // Detached: it lives until the end of the program.
    std::thread([] {
        const sigset_t set = interrupt_set();
        for (;;) {
            int signal = 0;
            if (sigwait(&set, &signal) != 0)
                continue;
            std::lock_guard lock(g_mutex);
            if (g_consumer == nullptr)
                std::_Exit(128 + signal);
            g_interrupted = true;
            etw_consumer_cancel(g_consumer);
        }
    }).detach();
}

void stop_watching_interrupts()
{
    std::lock_guard lock(g_mutex);
    g_consumer = nullptr;
}
#else
void hold_interrupts() {}
void watch_interrupts(etw_consumer *) {}
void stop_watching_interrupts() {}
#endif

bool interrupted() { return g_interrupted; }

} // namespace etwdump
