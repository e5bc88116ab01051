// A session's logger thread (docs/ENGINE.md): drains flushed buffers to
// the sink, serves flush requests and the flush timer, and settles what dead
// writers of other processes left (docs/SYSTEM_SESSIONS.md, "Dead writers").
#include "engine/session.hpp"

#include "engine/grace.hpp"
#include "engine/remote_writers.hpp"
#include "platform/clock.hpp"
#include "platform/process.hpp"
#include "platform/region.hpp"
#include "platform/sync.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace openetw::engine {

namespace {
constexpr std::int64_t kReapIntervalMs = 500; // how often a logger looks for dead remote writers
constexpr std::int64_t kCloseWaitMs = 5000;   // longest wait for remote writers at a stop
} // namespace

void Session::logger_main()
{
    // MinimumBuffers are allocated at the start, as Windows allocates them:
    // back and write them all before the start returns (it waits for the
    // logger's id), so that writers take no page fault on their first pass
    // through the pool (writers racing a concurrent prefault fault ahead of
    // it). Writing them once matters too: pages the kernel just zeroed were
    // measured 4x slower to fill than written ones (docs/ENGINE.md, "Region
    // layout"). A buffering session's ring cycles through all of them.
    {
        const std::size_t bytes = std::size_t(pool_.allocated()) * pool_.buffer_size();
        platform::memory_prefault(pool_.buffer(0), bytes); // backs them in one call where it can
        std::memset(pool_.buffer(0), 0, bytes);            // fresh buffers: nobody else is in them yet
    }
    // A system logger's rundown of what runs now, before the start returns:
    // what the caller does next comes after it in the trace (the records are
    // written, in time order with the kernel's, by the next drain).
    kernel_rundown(false);
    if (export_) { // the header buffer travels first, as it starts the file
        const std::vector<std::uint8_t> &h = file_.is_open() ? file_.header() : header_buffer_;
        if (!export_->begin(h.data(), std::uint32_t(h.size()), start_time_))
            pool_.control().real_time_buffers_lost.fetch_add(1, std::memory_order_release);
    }
    logger_tid_.store(platform::thread_id(), std::memory_order_release);
    platform::wake_all(&logger_tid_);
    std::atomic<std::uint32_t> &word = pool_.wake_word();
    auto next_timed = std::chrono::steady_clock::now();
    bool timed_armed = false;
    for (;;) {
        const std::uint32_t seen = word.load(std::memory_order_acquire);
        drain_kernel();
        if (!logger_held_.load(std::memory_order_acquire))
            drain();
        bool stop = false;
        {
            std::unique_lock<std::mutex> lock(control_mutex_);
            if (flush_requested_ > flush_done_) {
                const std::uint64_t req = flush_requested_;
                const std::string path = flush_path_;
                lock.unlock();
                seal_all();
                drain();
                Status st;
                if (is_buffering())
                    st = write_snapshot(path);
                lock.lock();
                flush_result_ = st;
                flush_done_ = req;
                control_cv_.notify_all();
            }
            if (switch_requested_) {
                const std::string path = switch_path_;
                lock.unlock();
                seal_all();
                drain();
                Status st;
                if (file_.is_open()) {
                    st = file_.switch_to(path, platform::filetime_now(), losses());
                } else {
                    // A real-time session without a file starts writing one.
                    LogFile::Config fc = file_config_;
                    fc.path = path;
                    st = file_.open(fc);
                }
                has_file_.store(file_.is_open(), std::memory_order_release);
                lock.lock();
                switch_result_ = st;
                switch_requested_ = false;
                switch_done_ = true;
                control_cv_.notify_all();
            }
            stop = stop_requested_;
        }
        if (stop) {
            // The kernel's last events and the rundown of what still runs,
            // before writers of other processes are refused (the pool then
            // opens no buffer).
            drain_kernel(true);
            kernel_rundown(true);
            {
                std::lock_guard<std::mutex> k(kernel_mutex_);
                kernel_.reset();
            }
            if (pool_.is_shared())
                close_remote_writers();
            seal_all(true); // no writer is inside any more (Engine::stop's grace period), but held ones
            drain();
            count_held_writes();
            if (is_realtime()) {
                std::lock_guard<std::mutex> rt(rt_mutex_);
                rt_ended_ = true;
                if (rt_readers_.empty())
                    rt_trim(0); // nobody will ever read the backlog: count it lost
                rt_update_refusal();
                rt_cv_.notify_all();
            }
            const bool had_file = file_.is_open();
            Status st = file_.finish(platform::filetime_now(), losses());
            if (export_) {
                // The file is complete either way; the stop reports what the export could not deliver.
                const std::vector<std::uint8_t> h = had_file ? file_.header() : export_final_header();
                Status sent = export_->finish(h.data(), std::uint32_t(h.size()));
                if (st && !sent)
                    st = sent;
            }
            std::lock_guard<std::mutex> lock(control_mutex_);
            finish_result_ = st;
            stopped_ = true;
            control_cv_.notify_all();
            return;
        }
        // FlushTimer: file mode: 0 disables timed flushing; real-time: 0 means
        // 1 s; buffering mode: unused. Seconds otherwise.
        std::uint32_t ft = flush_timer_.load(std::memory_order_relaxed);
        if (is_realtime() && ft == 0)
            ft = 1;
        if (is_buffering())
            ft = 0;
        std::int64_t timeout_ms = -1;
        const auto now = std::chrono::steady_clock::now();
        if (ft > 0) {
            if (!timed_armed) {
                next_timed = now + std::chrono::seconds(ft);
                timed_armed = true;
            }
            if (now >= next_timed) {
                seal_all();
                next_timed = now + std::chrono::seconds(ft);
                continue;
            }
            timeout_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next_timed - now).count() + 1;
        } else {
            timed_armed = false;
        }
        if (pool_.control().remote_writers.load(std::memory_order_relaxed) != 0) {
            // Writers in other processes: look for dead ones twice a second.
            take_dead_writers_buffers();
            if (timeout_ms < 0 || timeout_ms > kReapIntervalMs)
                timeout_ms = kReapIntervalMs;
        }
        timeout_ms = kernel_wait_ms(timeout_ms); // the kernel's rings drained in time
        owned_.reap_exited();                    // exited threads' buffers to the file, their slots free
        // Announce the sleep, then re-check the word (see BufferPool::hand_off).
        std::atomic<std::uint32_t> &waiting = pool_.control().logger_waiting;
        waiting.store(1, std::memory_order_seq_cst);
        if (word.load(std::memory_order_seq_cst) == seen)
            platform::wait_on(&word, seen, timeout_ms);
        waiting.store(0, std::memory_order_relaxed);
    }
}

void Session::take_dead_writers_buffers()
{
    ControlBlock &cb = pool_.control();
    owned_.reap_exited(true); // owners whose process died: their buffers at the committed offsets
    if (reap_dead_writers(cb) != 0)
        dead_writer_pending_ = true;
    if (!dead_writer_pending_)
        return;
    // Sealed buffers take no new writers; once every live writer was seen
    // outside (other processes) and a grace period passed (this one), what
    // is still reserved in them, or never handed on, belongs to the dead.
    seal_all();
    pool_.seal_detached();
    const std::vector<BufferPool::Stuck> stuck = pool_.stuck_buffers();
    const std::vector<BufferPool::Stuck> idle = pool_.sealed_idle();
    const std::vector<BufferPool::Unopened> unopened = pool_.unopened_of_dead();
    if (!quiesce_writers(cb, 50))
        return; // a live writer stayed busy: next time
    Grace::global().synchronize();
    requeue_lost_hand_offs(idle);
    pool_.reclaim_unopened(unopened, logger_held_buffers());
    if (!stuck.empty() && pool_.force_stuck(stuck) != stuck.size()) {
        // Some changed meanwhile (live writers were in them too): still
        // stuck now, they are looked at again next time.
        for (const BufferPool::Stuck &now : pool_.stuck_buffers())
            for (const BufferPool::Stuck &was : stuck)
                if (now.index == was.index)
                    return;
    }
    dead_writer_pending_ = false;
}

std::vector<std::uint32_t> Session::logger_held_buffers()
{
    std::vector<std::uint32_t> held;
    {
        // Writers of this process drain into the ring under its mutex: the
        // queue and the ring are read in one step.
        std::lock_guard<std::mutex> ring(ring_mutex_);
        held = pool_.queued();
        for (std::uint32_t i = 0; i < ring_.size(); ++i)
            held.push_back(ring_.at(i));
    }
    std::lock_guard<std::mutex> lock(rt_mutex_);
    for (const RtEntry &e : rt_queue_)
        held.push_back(e.index);
    return held;
}

void Session::requeue_lost_hand_offs(const std::vector<BufferPool::Stuck> &idle)
{
    // Logger thread: nothing leaves the flush queue meanwhile, so a buffer
    // still idle, unchanged, in no queue and not held here was being handed
    // on by a writer that died.
    if (idle.empty())
        return;
    const std::vector<std::uint32_t> held = logger_held_buffers();
    for (const BufferPool::Stuck &b : idle)
        if (std::find(held.begin(), held.end(), b.index) == held.end() &&
            pool_.desc(b.index).state.load(std::memory_order_acquire) == b.state)
            pool_.requeue(b.index);
}

void Session::close_remote_writers()
{
    ControlBlock &cb = pool_.control();
    cb.closing.store(1, std::memory_order_seq_cst);
    pool_.notify_space(); // writers waiting for the ring to recycle give up now
    // Writers that saw the session open finish their event; later ones refuse.
    seal_all();
    pool_.seal_detached();
    const std::vector<BufferPool::Stuck> stuck = pool_.stuck_buffers();
    const std::vector<BufferPool::Stuck> idle = pool_.sealed_idle();
    const bool quiet =
        quiesce_writers(cb, kCloseWaitMs) && OwnedBuffers::quiesce_owners(cb, platform::process_id(), kCloseWaitMs);
    reap_dead_writers(cb);
    if (quiet) {
        // What is still reserved, or never handed on, belongs to dead writers.
        requeue_lost_hand_offs(idle);
        pool_.force_stuck(stuck);
        return;
    }
    // A writer stayed inside its write through the whole wait (its process
    // stopped, a debugger); it goes on after the file is finished. An owned
    // buffer out of its owner's slot is sealed (its committed events reach
    // the file; the owner's own seal finds it sealed). Reserved buffers
    // unchanged all along are taken as a dead writer's (the repair counts
    // the unfinished record lost; one hand-off: the late commit finds no
    // writer count to end). Streams keep no open buffer: a writer that had
    // not reserved yet refuses (reserve_slow). A buffer left to hand on is
    // not requeued (its writer would hand it on again): it and an owner's
    // event in flight are counted lost after the final drain, if still so
    // then (one too many counted when that owner, held before it saw
    // `closing`, refuses instead, or was held in its starved drop after
    // counting it: its drop and its bracket are two words, and a late
    // count would miss the file's header, so the stop counts rather than
    // ever misses).
    pool_.seal_detached(true);
    pool_.force_stuck(stuck);
    pool_.close_streams();
    held_idle_ = idle;
    held_owners_ = owned_.take_held_owners(cb, platform::process_id());
}

void Session::count_held_writes()
{
    if (held_idle_.empty() && held_owners_.empty())
        return;
    ControlBlock &cb = pool_.control();
    std::uint32_t lost = OwnedBuffers::still_held(cb, held_owners_);
    const std::vector<std::uint32_t> held = logger_held_buffers();
    for (const BufferPool::Stuck &b : held_idle_)
        if (std::find(held.begin(), held.end(), b.index) == held.end() &&
            pool_.desc(b.index).state.load(std::memory_order_acquire) == b.state)
            lost += BufferPool::events_of(b.state);
    cb.events_lost.fetch_add(lost, std::memory_order_release);
}

} // namespace openetw::engine
