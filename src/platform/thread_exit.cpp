// platform::ThreadExitKey on POSIX thread keys: glibc on Linux and
// winpthreads (the -posix mingw toolchains) on Windows.
#include "platform/thread_exit.hpp"

#include <pthread.h>

#include <cstdlib>

namespace openetw::platform {

static_assert(sizeof(pthread_key_t) <= sizeof(unsigned long));

ThreadExitKey::ThreadExitKey(void (*on_exit)(void *)) noexcept
{
    pthread_key_t k;
    if (pthread_key_create(&k, on_exit) != 0)
        std::abort(); // PTHREAD_KEYS_MAX reached: nothing would run at thread exit
    key_ = static_cast<unsigned long>(k);
}

void ThreadExitKey::set(void *value) noexcept
{
    // Fails only for an invalid key or no memory for the thread's table;
    // the thread's exit work is then not done (its record stays taken).
    (void)pthread_setspecific(static_cast<pthread_key_t>(key_), value);
}

} // namespace openetw::platform
