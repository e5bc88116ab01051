// Grace periods for the event-writing path (a small sleepable RCU).
//
// Writers enter a read-side section with two atomic adds on a per-CPU
// striped counter (no lock, no system call); control operations that
// unpublish something a writer may still hold (a provider's session list, a
// stopping session) call synchronize(), which waits until every section that
// began before it has ended. Sections never block, so the wait is short.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

namespace openetw::core {

class Grace {
public:
    struct Token {
        std::uint32_t parity;
        std::uint32_t stripe;
    };

    Token enter(std::uint32_t cpu) noexcept
    {
        const std::uint32_t stripe = cpu % kStripes;
        for (;;) {
            const std::uint64_t e = epoch_.load(std::memory_order_seq_cst);
            auto &c = slots_[e & 1][stripe].count;
            c.fetch_add(1, std::memory_order_seq_cst);
            if (epoch_.load(std::memory_order_seq_cst) == e)
                return Token{std::uint32_t(e & 1), stripe};
            c.fetch_sub(1, std::memory_order_release);
        }
    }

    void leave(Token t) noexcept { slots_[t.parity][t.stripe].count.fetch_sub(1, std::memory_order_release); }

    // Waits until every section entered before this call has left. Must not
    // be called inside a section.
    void synchronize() noexcept;

    static Grace &global() noexcept;

private:
    static constexpr std::uint32_t kStripes = 64;
    struct alignas(64) Slot {
        std::atomic<std::uint64_t> count{0};
    };
    std::atomic<std::uint64_t> epoch_{0};
    Slot slots_[2][kStripes];
    std::mutex sync_mutex_;
};

// RAII read-side section.
class GraceSection {
public:
    GraceSection(Grace &g, std::uint32_t cpu) noexcept : g_(g), t_(g.enter(cpu)) {}
    ~GraceSection() { g_.leave(t_); }
    GraceSection(const GraceSection &) = delete;
    GraceSection &operator=(const GraceSection &) = delete;

private:
    Grace &g_;
    Grace::Token t_;
};

} // namespace openetw::core
