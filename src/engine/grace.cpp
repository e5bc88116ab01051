#include "engine/grace.hpp"

#include "engine/owned_buffers.hpp"
#include "platform/thread_exit.hpp"

#include <cstdlib>
#include <new>

namespace openetw::engine {

// Gives the thread's Reader back when the thread exits (it is outside any
// section then: its word is even). The record stays in the registry for
// the next thread; its word keeps counting, so no value is reused.
//
// Through a platform::ThreadExitKey, not a thread_local destructor: under
// mingw the thread's emulated thread-locals are freed before their
// destructors run, and a destructor reading its record pointer from one
// read freed memory (a crash in 1 of 15 roundtrip runs under wine).
struct GraceThreadExit {
    static void release(void *reader) noexcept
    {
        auto *const r = static_cast<Grace::Reader *>(reader);
        OwnedBuffers::forget_thread();
        Grace::t_reader_ = &Grace::unattached_;           // a later write (another exit hook) attaches anew
        r->owner_gen.store(0, std::memory_order_release); // its owned buffers are the logger's now
        r->in_use.store(false, std::memory_order_release);
    }
    static platform::ThreadExitKey &key() noexcept
    {
        static platform::ThreadExitKey *const k = new platform::ThreadExitKey(release); // never destroyed
        return *k;
    }
};

namespace {
bool fence_asked() noexcept
{
    const char *v = std::getenv("OPENETW_GRACE_FENCE");
    return v != nullptr && v[0] == '1';
}
} // namespace

Grace::Grace() noexcept : barrier_(!fence_asked() && platform::process_barrier_init()) {}

std::size_t Grace::reader_count() const noexcept
{
    std::size_t n = 0;
    for (Reader *r = head_.load(std::memory_order_acquire); r != nullptr; r = r->next.load(std::memory_order_acquire))
        ++n;
    return n;
}

Grace::Reader *Grace::attach() noexcept
{
    Reader *r = nullptr;
    for (Reader *c = head_.load(std::memory_order_acquire); c != nullptr; c = c->next.load(std::memory_order_acquire)) {
        bool free = false;
        if (c->in_use.compare_exchange_strong(free, true, std::memory_order_acquire)) {
            r = c;
            break;
        }
    }
    if (r == nullptr) {
        r = new (std::nothrow) Reader;
        if (r == nullptr)
            std::abort(); // one cache line per thread, once
        r->in_use.store(true, std::memory_order_relaxed);
        r->fence = !barrier_;
        Reader *h = head_.load(std::memory_order_relaxed);
        do
            r->next.store(h, std::memory_order_relaxed);
        while (!head_.compare_exchange_weak(h, r, std::memory_order_release, std::memory_order_relaxed));
    }
    static std::atomic<std::uint64_t> generations{0};
    r->owner_gen.store(generations.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_release);
    t_reader_ = r;
    GraceThreadExit::key().set(r);
    return r;
}

Grace::Token Grace::enter_slow() noexcept
{
    Reader *r = t_reader_;
    if (r == &unattached_)
        r = global().attach();
    const std::uint64_t w = r->word.load(std::memory_order_relaxed);
    if (w & 1)
        return Token{r, w}; // nested
    r->word.store(w + 1, std::memory_order_relaxed);
    if (r->fence)
        full_fence(r->word);
    else
        std::atomic_signal_fence(std::memory_order_seq_cst);
    return Token{r, w + 2};
}

void Grace::barrier() noexcept
{
    if (barrier_)
        platform::process_barrier();
    else
        full_fence(fence_scratch_);
}

void Grace::synchronize() noexcept
{
    std::lock_guard<std::mutex> lock(sync_mutex_);
    // Whatever the caller unpublished before this call is visible to every
    // section that enters after the barrier; a section that entered before
    // it shows an odd word below.
    barrier();
    for (Reader *r = head_.load(std::memory_order_acquire); r != nullptr; r = r->next.load(std::memory_order_acquire)) {
        const std::uint64_t w = r->word.load(std::memory_order_acquire);
        if (!(w & 1))
            continue;
        for (unsigned spins = 0; r->word.load(std::memory_order_acquire) == w; ++spins) {
            if (spins < 64)
                platform::yield();
            else
                platform::sleep_ms(1);
        }
    }
}

Grace &Grace::make_global() noexcept
{
    static Grace *const g = [] {
        Grace *made = new Grace;
        instance_.store(made, std::memory_order_release);
        return made;
    }();
    return *g;
}

} // namespace openetw::engine
