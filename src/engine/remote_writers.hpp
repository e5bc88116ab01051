// Writers in processes other than a session's host (docs/SYSTEM_SESSIONS.md):
// each claims a WriterSlot in the region's ControlBlock and counts its
// writes in progress there. The host uses the table to stop (close, then wait
// for every live writer to be outside) and to take the buffers a dead
// writer left reserved (force_stuck after quiesce).
#pragma once

#include "engine/buffer_pool.hpp"

#include <cstdint>

namespace openetw::engine {

// Claims a slot for the calling process (reusing one whose process died).
// -1 when all kWriterSlots are taken by live processes.
int claim_writer_slot(ControlBlock &cb) noexcept;
void release_writer_slot(ControlBlock &cb, int slot) noexcept;

// Frees the slots of processes that died; returns how many.
std::uint32_t reap_dead_writers(ControlBlock &cb) noexcept;

// Waits until each live writer process has been seen with no write in
// progress (from the call on), at most timeout_ms. True when all were; every
// reservation a live writer made before the call is then committed.
bool quiesce_writers(ControlBlock &cb, std::int64_t timeout_ms) noexcept;

// The write-path guard of a remote writer: enter() fails (and counts
// nothing) once the session is closing.
inline bool writer_enter(ControlBlock &cb, WriterSlot &w) noexcept
{
    w.inside.fetch_add(1, std::memory_order_seq_cst);
    if (cb.closing.load(std::memory_order_seq_cst) != 0) [[unlikely]] {
        w.inside.fetch_sub(1, std::memory_order_release);
        return false;
    }
    return true;
}
inline void writer_leave(WriterSlot &w) noexcept { w.inside.fetch_sub(1, std::memory_order_release); }

} // namespace openetw::engine
