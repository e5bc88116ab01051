// Work at thread exit: a per-thread pointer handed to a function when its
// thread exits. Built on POSIX thread keys on both systems (winpthreads on
// Windows): thread_exit.cpp.
//
// Rules (every header of src/platform): nothing throws; failures are
// etw_status values, or an abort where nothing could recover.
#pragma once

namespace openetw::platform {

// Hands a per-thread pointer to on_exit when its thread exits. Use it
// instead of a thread_local object with a destructor: where thread-locals
// are emulated (mingw's emutls), a thread's thread_local objects are freed
// before their destructors run, while on_exit gets the pointer itself.
// on_exit may use thread-locals (they are made anew and freed again) and
// may set() again: it is then called again, up to the system's
// PTHREAD_DESTRUCTOR_ITERATIONS rounds. Keys live as long as the process
// (never destroyed: threads exit until the very end).
class ThreadExitKey {
public:
    explicit ThreadExitKey(void (*on_exit)(void *)) noexcept; // aborts when no key is left
    ThreadExitKey(const ThreadExitKey &) = delete;
    ThreadExitKey &operator=(const ThreadExitKey &) = delete;
    // The calling thread's pointer; null: nothing is called at its exit.
    void set(void *value) noexcept;

private:
    unsigned long key_ = 0; // pthread_key_t (an unsigned int on both)
};

} // namespace openetw::platform
