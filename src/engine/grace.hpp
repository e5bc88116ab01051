// Grace periods for the event-writing path (a small sleepable RCU).
//
// Every thread that writes events owns a Reader record (one cache line,
// taken at its first section, handed to a later thread when it exits).
// Entering a section makes the record's word odd, leaving makes it even
// again: two plain stores to a line no other thread writes, no atomic
// read-modify-write, no shared line. A control operation that unpublishes
// something a writer may still hold (a provider's session list, a stopping
// session) calls synchronize(): it runs one process-wide memory barrier
// (Linux membarrier PRIVATE_EXPEDITED, Windows FlushProcessWriteBuffers),
// after which every reader either had its entering store made visible (the
// word reads odd, and synchronize waits for that section's end: the word
// changes) or enters later and sees the unpublished state. Where the system
// has no such barrier, each entering store is followed by a full fence
// instead, paired with one in synchronize() (the Dekker pattern).
//
// A section entered while the thread is already inside one (a signal
// handler that writes an event) is part of the outer section. Sections
// never block, so synchronize() waits briefly.
#pragma once

#include "base/sanitizer.hpp"
#include "platform/process.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace openetw::engine {

// A full memory fence. GCC's ThreadSanitizer rejects atomic_thread_fence;
// there a sequentially consistent read-modify-write of a word only the
// caller's side writes stands in (a full barrier on the hardware too).
inline void full_fence([[maybe_unused]] std::atomic<std::uint64_t> &scratch) noexcept
{
#if defined(OPENETW_TSAN)
    scratch.fetch_add(0, std::memory_order_seq_cst);
#else
    std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

class Grace {
public:
    struct alignas(64) Reader {
        // Odd while the owner is inside a section; +1 at each outermost
        // enter and leave, so a value names one section.
        std::atomic<std::uint64_t> word{0};
        bool fence = true;                   // the owner fences after entering (no process barrier)
        std::atomic<bool> in_use{false};     // owned by a live thread
        std::atomic<Reader *> next{nullptr}; // the registry: pushed once, never removed
        // Names the thread that owns the record: a process-unique number
        // given at each attach, 0 once the thread has exited (released), so
        // owned buffers (engine/owned_buffers.hpp) tell an exited owner.
        std::atomic<std::uint64_t> owner_gen{0};
    };
    struct Token {
        Reader *reader;
        std::uint64_t leave; // the word's value after the section (a nested one: unchanged)
    };

    // (Static: the records are the threads'; the domain is needed only at a
    // thread's first section, so a section does not load it.)
    static Token enter() noexcept
    {
        // Before its first section a thread's record is unattached_, which
        // fences: one test takes both rare cases to enter_slow().
        Reader *r = t_reader_;
        if (r->fence) [[unlikely]]
            return enter_slow();
        const std::uint64_t w = r->word.load(std::memory_order_relaxed);
        if (w & 1) [[unlikely]]
            return Token{r, w}; // nested (a signal handler inside a section): part of the outer one
        r->word.store(w + 1, std::memory_order_relaxed);
        std::atomic_signal_fence(std::memory_order_seq_cst); // synchronize's barrier orders the rest
        return Token{r, w + 2};
    }

    static void leave(Token t) noexcept { t.reader->word.store(t.leave, std::memory_order_release); }

    // Waits until every section entered before this call has left. Must not
    // be called inside a section.
    void synchronize() noexcept;

    // The process-wide barrier alone (or the fence of the fallback): after
    // it, a reader whose word reads even (or changes) sees every store the
    // caller made before the call in its next section. Not in a section.
    void barrier() noexcept;
    // The calling thread's record (made at its first section); inside a
    // section it is the section's.
    static Reader *thread_reader() noexcept
    {
        Reader *r = t_reader_;
        return r != &unattached_ ? r : global().attach();
    }

    // True when synchronize() uses the process-wide barrier (readers do not
    // fence). OPENETW_GRACE_FENCE=1 in the environment asks for the
    // fallback (tests run both).
    bool uses_process_barrier() const noexcept { return barrier_; }
    // Testing aid: reader records ever made (live threads and spare ones).
    std::size_t reader_count() const noexcept;

    // The process's grace domain (made at the first call; never destroyed:
    // threads may still leave sections during exit).
    static Grace &global() noexcept
    {
        Grace *g = instance_.load(std::memory_order_acquire);
        return g != nullptr ? *g : make_global();
    }

private:
    Grace() noexcept;
    Reader *attach() noexcept;          // the calling thread's first section
    static Token enter_slow() noexcept; // the first section, or a fencing reader
    static Grace &make_global() noexcept;
    static inline std::atomic<Grace *> instance_{nullptr};
    // The record of a thread without one: never written (it fences, so
    // enter() leaves it to enter_slow, which attaches).
    static Reader unattached_; // (defined below the class: Reader's initializers first)
    static inline thread_local Reader *t_reader_ OPENETW_FAST_TLS = &unattached_;
    friend struct GraceThreadExit;

    bool barrier_ = false;
    std::atomic<std::uint64_t> fence_scratch_{0}; // full_fence() in synchronize()
    std::atomic<Reader *> head_{nullptr};
    std::mutex sync_mutex_;
};

inline Grace::Reader Grace::unattached_{};

// RAII read-side section (of the process's grace domain).
class GraceSection {
public:
    GraceSection() noexcept : t_(Grace::enter()) {}
    ~GraceSection() { Grace::leave(t_); }
    GraceSection(const GraceSection &) = delete;
    GraceSection &operator=(const GraceSection &) = delete;

private:
    Grace::Token t_;
};

} // namespace openetw::engine
