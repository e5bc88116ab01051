// One running trace session: its adjusted configuration, its buffer pool
// (one offset-addressed region), its logger thread and its log file.
#pragma once

#include "base/status.hpp"
#include "engine/buffer_export.hpp"
#include "engine/buffer_pool.hpp"
#include "engine/buffer_ring.hpp"
#include "engine/log_file.hpp"
#include "engine/owned_buffers.hpp"
#include "engine/properties.hpp"
#include "engine/session_clock.hpp"
#include "kernel/system_logger.hpp"

#include <openetw/constants.h>
#include <openetw/provider.h>
#include <openetw/records.h>
#include <openetw/session.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace openetw::engine {

// The limits the engine applies to MinimumBuffers/MaximumBuffers: both are
// capped at ETW_MAX_BUFFERS and at kMaxPoolBytes of buffer memory.
inline constexpr std::uint64_t kMaxPoolBytes = 4ull << 30; // 4 GiB per session
// Region headroom so that an update can raise MaximumBuffers later.
inline constexpr std::uint64_t kGrowHeadroomBytes = 64ull << 20;

// One event, validated and gathered once, written to every session.
// An EVENT_HEADER record's own parts (etw_provider_write_event): the
// record is the 0x50-byte header, the items, then the data pieces.
// The PROV_TRAITS and EVENT_SCHEMA_TL data of an event (either may be null),
// each starting with its own UINT16 size.
struct TlItems {
    const std::uint8_t *traits = nullptr;
    const std::uint8_t *schema = nullptr;
};

struct EventHeaderInput {
    const etw_event_descriptor *descriptor = nullptr;
    const etw_guid *provider = nullptr;
    const etw_guid *activity = nullptr; // resolved: the caller's or the thread's
    const etw_guid *related = nullptr;  // null: no RELATED_ACTIVITYID item
    // TraceLogging's items (null: none; one pointer, so the plain event tests once).
    const struct TlItems *tl = nullptr;
    std::uint16_t flags = 0; // EVENT_HEADER.Flags as stored
    std::uint32_t data_count = 0;
    const etw_event_data_descriptor *data = nullptr;
    // Extended data items after RELATED_ACTIVITYID, as stored (the enable
    // properties', engine/event_properties.hpp); items_size 0: none, and
    // items is not read. Read only when flags has EXTENDED_INFO, which is
    // set exactly when related, items or tl are.
    const std::uint8_t *items = nullptr;
    std::uint32_t items_size = 0;
    std::uint64_t exclude = 0; // EventWriteEx's Filter: sessions (their instance bits) that skip it
};

struct EventInput {
    etw_event_class event_class{};
    etw_guid guid{};
    std::uint32_t size = 0; // record size: 0x30 header + payload, < 0x10000
    struct Piece {
        const void *data;
        std::uint32_t length;
    };
    Piece pieces[16]; // only the first piece_count are set (not zeroed: hot path)
    std::uint32_t piece_count = 0;
    std::uint32_t thread_id = 0;
    std::uint32_t process_id = 0;
    // The caller's EVENT_TRACE_HEADER when the payload follows it in place and
    // the Guid is inline: the record is a copy of its size bytes with the
    // writer's fields set (event_class, guid and pieces are then not read).
    const std::uint8_t *whole = nullptr;
    // An EVENT_HEADER record (event_class, guid, pieces and whole are then not read).
    const EventHeaderInput *event = nullptr;
};

// Options beyond EVENT_TRACE_PROPERTIES (etw_session_options).
struct SessionOptions {
    bool lossless = false;                    // writers wait for space instead of dropping
    std::uint32_t lossless_timeout_ms = 1000; // how long at most (then the event is dropped)
    std::uint32_t realtime_backlog = 0;       // buffers kept without a consumer; 0 = default
    bool replace_orphan = false;              // start: stop an orphan holding the name first
    bool take_over = false;                   // start: continue an orphan (Engine::take_over)
    bool in_process = false;                  // start: run here, not in the session host (host/session_ref)
    std::uint32_t profile_interval = 0;       // a system logger's PROFILE interval (100 ns); 0 = 10000
    std::vector<std::uint8_t> filters;        // session-level filters (pack_filters, FilterScope::Session)
};

// What a real-time reader learns about losses since its last report.
struct LossReport {
    std::uint32_t events_lost = 0;  // EventsLost grew by this much
    std::uint32_t buffers_lost = 0; // RealTimeBuffersLost grew by this much
};

class Session;

// Where a live consumer's buffers come from: a reader on a session of this
// process (RealtimeReader) or a relay from another process (RemoteFeed).
class LiveFeed {
public:
    enum class Next { Buffer, End, Interrupted };
    virtual ~LiveFeed() = default;
    // Waits for the next buffer and copies it into out (BufferSize bytes,
    // header complete). End: the session stopped and everything was
    // delivered. loss (may be NULL) receives the losses counted since the
    // previous call.
    virtual Next next(std::vector<std::uint8_t> &out, LossReport *loss) = 0;
    // Any thread: wakes next() for good.
    virtual void interrupt() = 0;
    // Why the feed ended before its session did (a host that died); empty otherwise.
    virtual std::string ended_early() const { return {}; }
};

// One live consumer's cursor on a real-time session (see docs/ENGINE.md,
// "Real-time delivery"). Created by Session::attach; destroying it detaches.
// next() may block; interrupt() (any thread) wakes it for good.
class RealtimeReader final : public LiveFeed {
public:
    ~RealtimeReader() override;
    RealtimeReader(const RealtimeReader &) = delete;
    RealtimeReader &operator=(const RealtimeReader &) = delete;

    // LiveFeed::next; the pool buffer is released before this returns.
    Next next(std::vector<std::uint8_t> &out, LossReport *loss) override;
    // Like next, but returns Interrupted at once when nothing is queued.
    Next try_next(std::vector<std::uint8_t> &out, LossReport *loss);
    void interrupt() override;
    const std::shared_ptr<Session> &session() const { return session_; }

private:
    friend class Session;
    explicit RealtimeReader(std::shared_ptr<Session> s) : session_(std::move(s)) {}
    Next take(std::vector<std::uint8_t> &out, LossReport *loss, bool wait);
    std::shared_ptr<Session> session_;
    std::uint64_t next_ = 0;   // sequence of the next entry to deliver
    bool interrupted_ = false; // guarded by the session's rt_mutex_
    std::uint32_t seen_events_lost_ = 0;
    std::uint32_t seen_buffers_lost_ = 0;
};

class Session : public std::enable_shared_from_this<Session> {
public:
    enum State : int { Running = 0, Stopping = 1, Stopped = 2 };

    ~Session();
    Session(const Session &) = delete;
    Session &operator=(const Session &) = delete;

    // Adjusts props (buffer counts, clock fallback, private-mode file name),
    // creates the pool and the log file, and starts the logger thread. The
    // engine has already checked name, GUID and session count and set
    // Wnode.Guid. On success props holds the adjusted values and statistics.
    // region_path: when not empty, the buffers live in that file, so that
    // writers in other processes can attach (docs/SYSTEM_SESSIONS.md).
    // exporter: where the logger also sends every buffer it writes (the
    // header buffer first); null for none.
    static Status create(Properties &props, const SessionOptions &options, std::uint16_t logger_id,
                         std::uint64_t handle, std::unique_ptr<Session> *out, const std::string &region_path = {},
                         std::unique_ptr<BufferExport> exporter = nullptr);

    // What a writer in another process needs besides the region.
    struct WriterParams {
        std::uint16_t logger_id = 0;
        std::uint32_t mode = 0;
        std::uint32_t clock_type = 1;
        std::uint32_t lossless = 0;
        std::uint32_t lossless_timeout_ms = 1000;
        std::uint64_t handle = 0;
        etw_guid guid{};
    };
    WriterParams writer_params() const;
    // A session hosted by another process, opened for writing only (no
    // logger, no file) on the region its host handed over (adopted).
    // ETW_ERROR_INVALID_DATA for a region that is no session's;
    // ETW_ERROR_NO_SYSTEM_RESOURCES when its writer table is full.
    static Status attach_writer(platform::Region region, const WriterParams &params, std::shared_ptr<Session> *out);
    // The shared region's descriptor (-1: private).
    std::intptr_t region_fd() const { return pool_.region_fd(); }
    bool is_shared() const { return pool_.is_shared(); }
    // Unfinished records of dead writers skipped so far (in EventsLost too).
    std::uint32_t records_skipped() const { return pool_.control().records_skipped.load(std::memory_order_acquire); }

    // HOT: writes one event. ETW_ERROR_NOT_ENOUGH_MEMORY when dropped;
    // ETW_ERROR_WMI_INSTANCE_NOT_FOUND when a session of another process is
    // stopping (the event is neither written nor counted).
    etw_status write(const EventInput &ev, std::uint32_t cpu) noexcept;
    // HOT: the same for a record that is the caller's size bytes at h (an
    // EVENT_TRACE_HEADER with its payload in place and its Guid inline; the
    // writer's fields are set in the copy), the calling thread's event.
    // Defined inline in write_path.cpp, with its one caller.
    etw_status write_whole(const std::uint8_t *h, std::uint32_t size) noexcept;
    // write_whole out of line: an event for several sessions.
    etw_status write_whole_general(const std::uint8_t *h, std::uint32_t size) noexcept;
    // HOT: an EVENT_HEADER event of size bytes (checked by the caller), the
    // calling thread's, as write_whole writes a classic one; inline in
    // write_path.cpp, with its one caller.
    etw_status write_event(const EventHeaderInput &e, std::uint32_t size) noexcept;
    // write_event out of line: an event for several sessions, or the slow path.
    etw_status write_event_general(const EventHeaderInput &e, std::uint32_t size) noexcept;

    // Copies the current configuration and statistics into props.
    void fill(Properties &props) const;
    // ControlTrace UPDATE: FlushTimer, MaximumBuffers, EnableFlags (system
    // loggers), a new log file name.
    Status update(Properties &props);
    // A system logger's kernel events that carry their stacks
    // (etw_session_set_stack_tracing; session_kernel.cpp).
    Status set_stack_tracing(const std::vector<etw_classic_event_id> &events);
    // A system logger's profile interval (etw_session_set_profile_interval;
    // session_kernel.cpp), its range checked here too: a host's request
    // comes from another process.
    Status set_profile_interval(std::uint32_t interval_100ns);
    // Seals every non-empty buffer and waits until the logger has written
    // them (buffers still held by writers follow when they commit); real-time
    // buffers are then queued for the consumers. Buffering mode: writes the
    // retained buffers, oldest first, as a complete .etl to path (empty: the
    // session's log file name).
    Status flush(const std::string &path = {});
    // Final drain and file finish; joins the logger. No writer may be inside
    // the session any more (the engine guarantees it with a grace period).
    Status stop();

    // Testing aid: while held, the logger leaves full buffers queued, as a
    // logger stalled by a slow disk would, so pool growth and event loss can
    // be tested exactly rather than by racing the logger. stop() releases it.
    void hold_logger(bool held) noexcept
    {
        logger_held_.store(held, std::memory_order_release);
        if (!held)
            wake_logger();
    }
    // Testing aid: writers now waiting for space (lossless sessions).
    std::uint32_t space_waiters() const noexcept
    {
        return pool_.control().space_waiters.load(std::memory_order_acquire);
    }
    // Testing aid (buffering mode): how many times a writer of this process
    // found no free buffer and recycled under the ring's mutex.
    std::uint32_t writer_recycles() const noexcept { return writer_recycles_.load(std::memory_order_relaxed); }

    // Real-time: attaches a live reader (ETW_ERROR_INVALID_PARAMETER when the
    // session is not in real-time mode, ETW_ERROR_WMI_INSTANCE_NOT_FOUND
    // when it has stopped). The first reader gets the backlog, oldest first.
    Status attach(std::unique_ptr<RealtimeReader> *out);
    // Buffer 0 of the session's stream: the logfile-header buffer a file
    // would start with (for live consumers).
    const std::vector<std::uint8_t> &header_buffer() const { return header_buffer_; }
    std::uint32_t realtime_backlog_limit() const { return rt_limit_; }
    std::uint32_t mode() const { return mode_; }
    bool is_realtime() const { return (mode_ & ETW_REAL_TIME_MODE) != 0; }
    bool is_buffering() const { return (mode_ & ETW_BUFFERING_MODE) != 0; }
    bool is_lossless() const { return options_.lossless; }
    // The NT Kernel Logger, the Global Logger or ETW_SYSTEM_LOGGER_MODE.
    bool is_system_logger() const { return system_logger_; }
    // A copy: profile_interval changes while the session runs
    // (set_profile_interval).
    SessionOptions options() const
    {
        std::lock_guard<std::mutex> lock(kernel_mutex_);
        return options_;
    }

    // True once per process for the first caller: it writes this process's
    // module map into the session before the first event with a stack
    // (engine/event_properties.cpp). A forked child is another process.
    bool claim_stack_images(std::uint32_t pid) noexcept
    {
        std::uint32_t seen = stack_images_pid_.load(std::memory_order_relaxed);
        return seen != pid && stack_images_pid_.compare_exchange_strong(seen, pid, std::memory_order_acq_rel);
    }

    const std::u16string &name() const { return name_; }
    const etw_guid &guid() const { return guid_; }
    std::uint64_t handle() const { return handle_; }
    std::uint16_t logger_id() const { return logger_id_; }
    bool is_private() const { return (mode_ & ETW_PRIVATE_LOGGER_MODE) != 0; }
    std::uint32_t clock_type() const { return clock_type_; }
    std::uint32_t buffer_bytes() const { return buffer_kb_ * 1024u; }
    std::atomic<int> state{Running};

private:
    friend class RealtimeReader;
    std::atomic<std::uint32_t> stack_images_pid_{0}; // claim_stack_images
    struct RtEntry {
        std::uint32_t index;
        std::uint32_t events;
    };

    Session() = default;
    etw_status write_here(const EventInput &ev, std::uint32_t cpu) noexcept;
    // Writes the record of ev at p (aligned bytes reserved there). Bracketed:
    // Size first and word0 last with release (a buffer other writers share,
    // so a dead writer's partial record can be skipped); otherwise plain
    // stores (an owned buffer: the commit publishes the record).
    // Sets the writer's header fields of the record at p (timestamp, times,
    // ids); returns its word0, for the caller to store last.
    std::uint32_t header_fields(std::uint8_t *p, std::uint32_t size, std::uint32_t thread_id,
                                std::uint32_t process_id) noexcept;
    // The same for an EVENT_HEADER record of size bytes: every byte of the
    // record but word0, which it returns. ids: ThreadId | ProcessId << 32.
    std::uint32_t event_record(std::uint8_t *p, const EventHeaderInput &e, std::uint64_t ids,
                               std::uint32_t size) noexcept;
    // The clock's fields of a record: TimeStamp and the times word.
    struct Stamp {
        std::int64_t timestamp;
        std::uint64_t times;
    };
    Stamp stamp() noexcept;
    template <bool Bracketed>
    void fill_record(std::uint8_t *p, const EventInput &ev, std::uint32_t aligned) noexcept;
    // Shared sessions, logger thread: hands on the buffers dead writers of
    // other processes left reserved, frees those they took and never
    // installed; at a stop, closes the session to them.
    void take_dead_writers_buffers();
    void close_remote_writers();
    // The stop, after its final drain: counts in EventsLost what writers held
    // inside a write through close_remote_writers' wait keep from the file.
    void count_held_writes();
    void requeue_lost_hand_offs(const std::vector<BufferPool::Stuck> &idle);
    // Logger thread: the flush queue and the buffers the logger holds.
    std::vector<std::uint32_t> logger_held_buffers();
    // The session clock's raw timestamp.
    std::int64_t now_raw() const noexcept { return session_clock_now(clock_type_, cycle_tick_ != 0); }
    // Create: the cycle counter's rate when it stamps this session's events
    // (clock 3; clock 1 where it is the system clock, unless
    // OPENETW_QPC_CLOCK=monotonic), else 0.
    static std::uint64_t cycle_hz_for(std::uint32_t clock) noexcept;
    // Stamps this session's events with the cycle counter running at hz
    // (0: the 100 ns clocks): sets cycle_tick_. The creator also puts hz in
    // the region (ControlBlock::cycle_hz) for writers of other processes.
    void use_cycle_counter(std::uint64_t hz) noexcept;
    void logger_main();
    // Takes the handed-off buffers: to the file, the real-time queue or
    // (buffering mode, under ring_mutex_) the ring.
    void drain();
    void drain_buffers();
    // Logger thread: hands a written buffer to the export; one it drops
    // counts in RealTimeBuffersLost (a buffer the stream's readers miss).
    // Lossless: a full export queue holds the logger until the sender makes
    // room (the pool then fills and writers wait as lossless says); a stop
    // ends the holding after kExportStopWaitMs in all.
    void export_buffer(const std::uint8_t *buffer);
    bool export_may_wait();
    // The final header buffer an export of a session without a file gets
    // at the stop: the header it began with, its counts final
    // (BuffersWritten: the header and every data buffer offered to it).
    std::vector<std::uint8_t> export_final_header() const;
    // EventsLost and LogBuffersLost now, for the log file's headers.
    LogFile::Losses losses() const
    {
        const ControlBlock &cb = pool_.control();
        return {cb.events_lost.load(std::memory_order_acquire), cb.log_buffers_lost.load(std::memory_order_acquire)};
    }
    // Seals every buffer holding events (owned ones: see OwnedBuffers::seal_all).
    void seal_all(bool final = false);
    void wake_logger() noexcept;
    // Lossless: waits (bounded) until pred() holds; false on timeout.
    template <class Pred>
    bool wait_for_space(Pred pred, std::uint32_t timeout_ms) noexcept;
    // Real-time: queues a written buffer for the readers (logger thread).
    void rt_push(std::uint32_t idx, std::uint32_t events);
    // Caller holds rt_mutex_: releases entries every reader has passed.
    void rt_release_passed();
    // Caller holds rt_mutex_, no reader attached: drops queued buffers beyond
    // keep (all when keep is 0), counting them lost; updates refusal.
    void rt_trim(std::size_t keep);
    void rt_update_refusal();
    void rt_detach(RealtimeReader *r);
    // Buffering, at create: the logger's free reserve and the pool's
    // low-water mark, from the streams and the pool's size.
    void plan_ring(std::uint32_t streams, std::uint32_t buffers);
    // Buffering (ring_mutex_ held): returns the oldest retained buffers to
    // the free list until `reserve_` are free.
    void recycle();
    // Buffering, a writer of this process that found no free buffer: takes
    // what was handed off into the ring and frees its oldest buffer not
    // being written to a snapshot (unless a buffer is free already and not
    // force). False when nothing is free and nothing could be freed.
    bool recycle_oldest(bool force) noexcept;
    // Buffering: reserve after recycling the oldest buffers, as many times
    // as other writers take the freed one first (bounded by the pool).
    bool reserve_recycling(std::uint32_t stream, std::uint32_t size, BufferPool::Reservation *res) noexcept;
    // Buffering, no free buffer: reserve_recycling here; a writer of another
    // process's session waits (at most kRemoteRingWaitMs) for the host's
    // logger to recycle. False when the event is to be dropped.
    bool reserve_in_ring(std::uint32_t stream, std::uint32_t size, BufferPool::Reservation *res) noexcept;
    static constexpr std::uint32_t kRemoteRingWaitMs = 250;
    Status write_snapshot(const std::string &path);

    // System loggers (session_kernel.cpp): the kernel's events of the
    // EnableFlags, drained by the logger thread into the session's buffers.
    // Opens (create) or changes (update) the kernel sources.
    Status set_kernel_flags(std::uint32_t flags);
    // Logger thread: the rundown (DCStart at the start, DCEnd at the stop);
    // what the kernel reported since the last drain (all: also its last
    // milliseconds, which a drain otherwise holds back to keep time order).
    void kernel_rundown(bool end);
    void drain_kernel(bool all = false);
    // Logger thread: how long it may sleep, given timeout_ms (-1: forever).
    std::int64_t kernel_wait_ms(std::int64_t timeout_ms);
    // kernel::SessionSink's function: one record into the buffer stream of
    // its processor (logger thread).
    static void write_kernel_record(void *self, std::uint32_t cpu, const std::uint8_t *record, std::uint32_t size);
    std::unique_ptr<kernel::SystemLogger> kernel_; // null: no kernel events asked for
    kernel::ProfileSettings profile_;              // the sampled profile's, from the start options
    mutable std::mutex kernel_mutex_; // update's flag changes against the logger's drains; options_.profile_interval

    // Identity and configuration.
    std::u16string name_;
    std::u16string log_file_name_; // as given (private: with the process id)
    etw_guid guid_{};
    std::uint64_t handle_ = 0;
    std::uint16_t logger_id_ = 0;
    std::uint32_t mode_ = 0;
    std::uint32_t clock_type_ = 1;
    // Non-zero when events are stamped with the cycle counter (ControlBlock::
    // cycle_hz): the thread-times sampling interval in its ticks
    // (TimerResolution). 0: 100 ns clocks (qpc_now, filetime_now).
    std::uint64_t cycle_tick_ = 0;
    std::uint32_t buffer_kb_ = 0;
    std::uint32_t min_buffers_ = 0;
    std::uint32_t max_file_size_ = 0;
    std::uint32_t enable_flags_ = 0;
    std::int32_t age_limit_ = 0;
    bool system_logger_ = false;
    std::atomic<std::uint32_t> flush_timer_{0};
    std::atomic<bool> logger_held_{false};

    BufferPool pool_;
    OwnedBuffers owned_;                // threads of this process that own their buffer
    WriterSlot *writer_slot_ = nullptr; // set in a writer of another process's session
    int writer_index_ = -1;
    bool dead_writer_pending_ = false; // logger thread only
    // The stop, when a writer of another process stayed inside a write
    // through its wait: what that writer held (logger thread only).
    std::vector<BufferPool::Stuck> held_idle_;
    std::vector<OwnedBuffers::Held> held_owners_;
    LogFile file_;
    std::unique_ptr<BufferExport> export_; // null: the session exports nothing
    std::int64_t start_time_ = 0;          // the header's StartTime (FILETIME)
    LogFile::Config file_config_;          // for buffering-mode snapshots
    std::vector<std::uint32_t> batch_;
    std::vector<std::uint8_t> header_buffer_;
    etl::LogfileHeaderFields header_fields_; // what header_buffer_ was encoded from
    std::uint32_t export_offered_ = 0;       // data buffers handed to the export (logger thread)
    SessionOptions options_;

    // Buffering mode: full buffers kept, oldest first. The logger and
    // writers that run out of buffers take from the flush queue into it and
    // recycle its oldest, all under ring_mutex_ (so it keeps hand-off order);
    // the ring_pinned_ oldest are being written to a snapshot.
    std::mutex ring_mutex_;
    BufferRing ring_;
    std::uint32_t ring_pinned_ = 0;
    // With an export: each pool buffer's arrival number in the ring (under
    // ring_mutex_), and the newest arrival a flush exported (logger thread),
    // so that a buffer two flushes write is published once.
    std::vector<std::uint64_t> ring_arrival_;
    std::uint64_t ring_arrivals_ = 0;
    std::uint64_t ring_exported_ = 0;
    std::uint32_t reserve_ = 1;                     // free buffers the logger keeps (plan_ring)
    std::atomic<std::uint32_t> writer_recycles_{0}; // recycle_oldest calls (testing aid)

    // Real-time channel.
    std::mutex rt_mutex_;
    std::condition_variable rt_cv_;
    std::deque<RtEntry> rt_queue_;
    std::uint64_t rt_base_ = 0; // sequence of rt_queue_.front()
    std::vector<RealtimeReader *> rt_readers_;
    bool rt_ended_ = false;
    std::uint32_t rt_limit_ = 0;
    std::uint64_t rt_sequence_ = 0;     // SequenceNumber of real-time-only buffers
    std::atomic<bool> has_file_{false}; // a log file is open (read by attach/detach)

    // Logger thread and its control channel (control path only).
    std::thread logger_;
    std::atomic<std::uint32_t> logger_tid_{0};
    std::mutex control_mutex_;
    std::condition_variable control_cv_;
    std::uint64_t flush_requested_ = 0;
    std::uint64_t flush_done_ = 0;
    bool stop_requested_ = false;
    std::chrono::steady_clock::time_point export_stop_deadline_{}; // a lossless export's last wait (set at the stop)
    bool stopped_ = false;
    bool switch_requested_ = false;
    std::string switch_path_;
    Status switch_result_;
    bool switch_done_ = false;
    std::string flush_path_;
    Status flush_result_;
    Status finish_result_;
};

} // namespace openetw::engine
