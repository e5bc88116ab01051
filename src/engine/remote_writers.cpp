#include "engine/remote_writers.hpp"

#include "platform/clock.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

namespace openetw::engine {

namespace {
bool alive(const WriterSlot &w, std::uint32_t pid)
{
    const std::uint64_t start = w.start.load(std::memory_order_acquire);
    return start != 0 && platform::process_start_time(pid) == start;
}
} // namespace

int claim_writer_slot(ControlBlock &cb) noexcept
{
    const std::uint32_t self = platform::process_id();
    const std::uint64_t start = platform::process_start_time(self);
    for (int pass = 0; pass < 2; ++pass) {
        for (std::uint32_t i = 0; i < kWriterSlots; ++i) {
            WriterSlot &w = cb.writers[i];
            std::uint32_t expected = 0;
            if (w.pid.compare_exchange_strong(expected, self, std::memory_order_acq_rel)) {
                w.inside.store(0, std::memory_order_relaxed);
                w.start.store(start, std::memory_order_release);
                cb.remote_writers.fetch_add(1, std::memory_order_release);
                return int(i);
            }
        }
        reap_dead_writers(cb); // then try once more
    }
    return -1;
}

void release_writer_slot(ControlBlock &cb, int slot) noexcept
{
    if (slot < 0 || std::uint32_t(slot) >= kWriterSlots)
        return;
    WriterSlot &w = cb.writers[slot];
    w.start.store(0, std::memory_order_relaxed);
    w.inside.store(0, std::memory_order_relaxed);
    w.pid.store(0, std::memory_order_release);
}

std::uint32_t reap_dead_writers(ControlBlock &cb) noexcept
{
    std::uint32_t dead = 0;
    for (std::uint32_t i = 0; i < kWriterSlots; ++i) {
        WriterSlot &w = cb.writers[i];
        std::uint32_t pid = w.pid.load(std::memory_order_acquire);
        if (pid == 0 || alive(w, pid))
            continue;
        // A slot being claimed has its pid before its start time: a just
        // claimed slot (start 0) of a live process is left alone.
        if (w.start.load(std::memory_order_acquire) == 0 && platform::process_start_time(pid) != 0)
            continue;
        if (w.pid.compare_exchange_strong(pid, 0, std::memory_order_acq_rel)) {
            w.start.store(0, std::memory_order_relaxed);
            w.inside.store(0, std::memory_order_relaxed);
            ++dead;
        }
    }
    return dead;
}

bool quiesce_writers(ControlBlock &cb, std::int64_t timeout_ms) noexcept
{
    bool pending[kWriterSlots];
    for (std::uint32_t i = 0; i < kWriterSlots; ++i)
        pending[i] = cb.writers[i].pid.load(std::memory_order_acquire) != 0;
    const std::int64_t deadline = platform::qpc_now() + timeout_ms * 10'000;
    for (;;) {
        bool any = false;
        for (std::uint32_t i = 0; i < kWriterSlots; ++i) {
            if (!pending[i])
                continue;
            WriterSlot &w = cb.writers[i];
            const std::uint32_t pid = w.pid.load(std::memory_order_acquire);
            if (pid == 0 || w.inside.load(std::memory_order_seq_cst) == 0 || !alive(w, pid))
                pending[i] = false; // gone, idle or dead: nothing of it is in flight
            else
                any = true;
        }
        if (!any)
            return true;
        if (platform::qpc_now() >= deadline)
            return false;
        platform::sleep_ms(1);
    }
}

} // namespace openetw::engine
