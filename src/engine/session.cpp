#include "engine/session.hpp"

#include "base/utf.hpp"
#include "engine/grace.hpp"
#include "engine/remote_writers.hpp"
#include "format/buffer_repair.hpp"
#include "format/etl_writer.hpp"
#include "platform/clock.hpp"
#include "platform/files.hpp"
#include "platform/process.hpp"
#include "platform/region.hpp"
#include "platform/sync.hpp"

#include <openetw/constants.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace openetw::engine {

namespace {

// A lossless session's logger offers a buffer the export's full queue
// refused again every kExportRoomWaitMs (checking for a stop in between);
// once the stop began it gives up after kExportStopWaitMs in all, the
// stop's own wait for acknowledgements (exporter::kFinishWaitMs).
constexpr std::int64_t kExportRoomWaitMs = 100;
constexpr std::int64_t kExportStopWaitMs = 20000;

std::string utf8(const std::u16string &s)
{
    auto r = utf16_to_utf8(s);
    return r ? *r : utf16_to_utf8_lossy(s);
}

} // namespace

Session::~Session()
{
    if (writer_index_ >= 0)
        release_writer_slot(pool_.control(), writer_index_);
    if (logger_.joinable()) {
        {
            std::lock_guard<std::mutex> lock(control_mutex_);
            stop_requested_ = true;
        }
        wake_logger();
        logger_.join();
    }
}

Session::WriterParams Session::writer_params() const
{
    WriterParams p;
    p.logger_id = logger_id_;
    p.mode = mode_;
    p.clock_type = clock_type_;
    p.lossless = options_.lossless ? 1 : 0;
    p.lossless_timeout_ms = options_.lossless_timeout_ms;
    p.handle = handle_;
    p.guid = guid_;
    return p;
}

Status Session::attach_writer(platform::Region region, const WriterParams &params, std::shared_ptr<Session> *out)
{
    std::shared_ptr<Session> s(new Session());
    if (s->pool_.attach(region) != ETW_OK)
        return Fail(ETW_ERROR_INVALID_DATA, "the host's region is not a session region of this version");
    const int slot = claim_writer_slot(s->pool_.control());
    if (slot < 0)
        return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                    "the session already has " + std::to_string(kWriterSlots) + " writer processes");
    s->writer_index_ = slot;
    s->writer_slot_ = &s->pool_.control().writers[slot];
    // The buffers the host backed at its start, mapped here too: this
    // process's writers take no page fault on their first pass (the
    // contents are the host's: only the page tables are filled).
    platform::memory_prefault(s->pool_.buffer(0), std::size_t(s->pool_.allocated()) * s->pool_.buffer_size());
    // Owned buffers for this process's threads too (see Session::create).
    if (const char *v = std::getenv("OPENETW_OWNED_BUFFERS"); v == nullptr || v[0] != '0')
        s->owned_.enable(&s->pool_, true);
    // The host's logger may sleep with no timeout (no FlushTimer, no writer
    // of another process yet): it looks for dead writers and exited owners
    // twice a second from its next wake on.
    s->wake_logger();
    s->handle_ = params.handle;
    s->guid_ = params.guid;
    s->logger_id_ = params.logger_id;
    s->mode_ = params.mode;
    s->clock_type_ =
        params.clock_type <= ETW_CLOCK_CPU_CYCLE && params.clock_type != 0 ? params.clock_type : ETW_CLOCK_QPC;
    if (s->clock_type_ == ETW_CLOCK_CPU_CYCLE && !platform::has_cycle_counter())
        s->clock_type_ = ETW_CLOCK_SYSTEM_TIME; // as the host would have chosen
    // Stamped as the host's own writers stamp (a FILETIME session never by
    // the cycle counter, whatever the region says).
    if (s->clock_type_ != ETW_CLOCK_SYSTEM_TIME && platform::has_cycle_counter())
        s->use_cycle_counter(s->pool_.control().cycle_hz);
    s->buffer_kb_ = s->pool_.buffer_size() / 1024;
    s->options_.lossless = params.lossless != 0;
    s->options_.lossless_timeout_ms =
        std::min<std::uint32_t>(std::max<std::uint32_t>(params.lossless_timeout_ms, 1), 60'000);
    *out = std::move(s);
    return Status::ok();
}

std::uint64_t Session::cycle_hz_for(std::uint32_t clock) noexcept
{
    if (!platform::has_cycle_counter())
        return 0;
    if (clock == ETW_CLOCK_CPU_CYCLE)
        return platform::cycle_counter_hz();
    if (clock != ETW_CLOCK_QPC || !platform::cycle_counter_is_system_clock())
        return 0;
    if (const char *v = std::getenv("OPENETW_QPC_CLOCK"); v != nullptr && std::strcmp(v, "monotonic") == 0)
        return 0;
    return platform::cycle_counter_hz();
}

void Session::use_cycle_counter(std::uint64_t hz) noexcept
{
    // TimerResolution (15.625 ms) in ticks; at least one, so that 0 keeps
    // meaning "not the cycle counter".
    cycle_tick_ = hz == 0 ? 0 : std::max<std::uint64_t>(hz / 64, 1);
}

Status Session::create(Properties &props, const SessionOptions &options, std::uint16_t logger_id, std::uint64_t handle,
                       std::unique_ptr<Session> *out, const std::string &region_path,
                       std::unique_ptr<BufferExport> exporter)
{
    etw_event_trace_properties &r = props.record();
    const std::uint32_t mode = r.LogFileMode;
    if (props.log_file_name().empty() && !(mode & (ETW_REAL_TIME_MODE | ETW_BUFFERING_MODE)))
        return Fail(ETW_ERROR_INVALID_PARAMETER, "the session has no log file name (file mode needs one)");
    if ((mode & ETW_BUFFERING_MODE) && (mode & ETW_REAL_TIME_MODE))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "LogFileMode: ETW_BUFFERING_MODE cannot be combined with ETW_REAL_TIME_MODE");
    if ((mode & ETW_PRIVATE_LOGGER_MODE) && (mode & ETW_FILE_MODE_NEWFILE))
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "LogFileMode: ETW_FILE_MODE_NEWFILE is not allowed for private sessions");
    if (r.BufferSize < ETW_MIN_BUFFER_SIZE_KB || r.BufferSize > ETW_MAX_BUFFER_SIZE_KB)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "BufferSize must be 4..16384 KB");
    if (r.Wnode.ClientContext > ETW_CLOCK_CPU_CYCLE)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "Wnode.ClientContext must be 0..3");
    if (options.profile_interval != 0)
        if (Status st = kernel::check_profile_interval(options.profile_interval); !st)
            return st;

    std::unique_ptr<Session> s(new Session());
    s->name_ = props.session_name();
    s->guid_ = r.Wnode.Guid;
    s->handle_ = handle;
    s->logger_id_ = logger_id;
    s->mode_ = mode;
    s->system_logger_ = props.is_system_logger();
    s->enable_flags_ = r.EnableFlags;
    s->age_limit_ = r.AgeLimit;
    s->max_file_size_ = r.MaximumFileSize;
    s->flush_timer_.store(r.FlushTimer, std::memory_order_relaxed);
    s->options_ = options;
    if (s->options_.lossless_timeout_ms == 0)
        s->options_.lossless_timeout_ms = 1000;
    if (s->options_.profile_interval == 0)
        s->options_.profile_interval = kernel::kDefaultProfileInterval;
    s->profile_.interval_100ns = s->options_.profile_interval;

    // Clock: 0 means 1; 3 falls back to 2 without a cycle counter.
    std::uint32_t clock = r.Wnode.ClientContext == 0 ? ETW_CLOCK_QPC : r.Wnode.ClientContext;
    std::uint64_t cycle_hz = cycle_hz_for(clock);
    if (clock == ETW_CLOCK_CPU_CYCLE && cycle_hz == 0)
        clock = ETW_CLOCK_SYSTEM_TIME;
    s->clock_type_ = clock;

    // Buffers (BufferSize, MinimumBuffers, MaximumBuffers rules).
    const std::uint32_t bs = r.BufferSize * 1024u;
    s->buffer_kb_ = r.BufferSize;
    const std::uint32_t cpus = platform::processor_count();
    const std::uint32_t streams = (mode & ETW_NO_PER_PROCESSOR_BUFFERING) ? 1u : cpus;
    const std::uint32_t cap = std::uint32_t(std::min<std::uint64_t>(ETW_MAX_BUFFERS, kMaxPoolBytes / bs));
    std::uint32_t min_b = std::max(r.MinimumBuffers, 2u * streams);
    min_b = std::min(min_b, cap);
    std::uint32_t max_b = std::max(r.MaximumBuffers, min_b);
    max_b = std::min(max_b, cap);
    // Buffering mode: MinimumBuffers allocated once; MaximumBuffers ignored.
    if (mode & ETW_BUFFERING_MODE)
        max_b = min_b;
    const std::uint32_t capacity =
        (mode & ETW_BUFFERING_MODE)
            ? min_b
            : std::max(max_b, std::uint32_t(std::min<std::uint64_t>(cap, kGrowHeadroomBytes / bs)));
    // Real-time backlog: buffers kept while no consumer is attached. At most
    // MaximumBuffers minus one per stream, so writers still find a buffer to
    // fill until the backlog is full and they are told so.
    const std::uint32_t rt_max = max_b > streams ? max_b - streams : 1;
    s->rt_limit_ = options.realtime_backlog == 0 ? rt_max : std::min(options.realtime_backlog, rt_max);
    s->min_buffers_ = min_b;
    etw_status mapped = s->pool_.create(bs, streams, min_b, max_b, capacity, region_path);
    if (mapped != ETW_OK && !region_path.empty()) {
        // No room (or no right) for a shared file: the session still runs,
        // with its buffers private to this process (no writers or recovery
        // from other processes; control requests still work).
        mapped = s->pool_.create(bs, streams, min_b, max_b, capacity);
    }
    if (mapped != ETW_OK)
        return Fail(mapped, "cannot map " + std::to_string(BufferPool::region_size(bs, streams, capacity)) +
                                " bytes for the session's buffers");
    // Owned buffers for this process's threads (OPENETW_OWNED_BUFFERS=0:
    // the per-processor CAS protocol only, for comparison).
    if (const char *v = std::getenv("OPENETW_OWNED_BUFFERS"); v == nullptr || v[0] != '0')
        s->owned_.enable(&s->pool_, false);
    s->batch_.resize(capacity);
    s->ring_.reset(capacity);
    if (mode & ETW_BUFFERING_MODE)
        s->plan_ring(streams, min_b);

    // Log file name: private sessions get the process id appended.
    std::u16string file = props.log_file_name();
    if (mode & ETW_PRIVATE_LOGGER_MODE) {
        std::u16string usuffix = u"_";
        for (char c : std::to_string(platform::process_id()))
            usuffix += char16_t(c);
        if (file.size() < usuffix.size() || file.compare(file.size() - usuffix.size(), usuffix.size(), usuffix) != 0)
            file += usuffix;
    }
    s->log_file_name_ = file;
    if (cycle_hz != 0 && clock == ETW_CLOCK_QPC && (mode & ETW_FILE_MODE_APPEND) && !(mode & ETW_BUFFERING_MODE) &&
        !file.empty() && LogFile::perf_freq_of(utf8(file)) == platform::kQpcFrequency)
        cycle_hz = 0; // appending to 100 ns timestamps: stamp alike
    s->use_cycle_counter(cycle_hz);
    s->pool_.control().cycle_hz = cycle_hz; // before any other process maps the region
    // The reference pair of section 6: raw clock and FILETIME read together,
    // and before the kernel's sources start: the header's time is the
    // session's start, no event precedes it (a reader's time order puts the
    // header first on its processor, and events before it would follow it).
    const std::int64_t start_raw = s->now_raw();
    const std::int64_t start_time = platform::filetime_now();
    // A system logger's kernel sources: refused here (rights, flags this
    // system cannot serve) before a file is made, never a session that runs
    // and records nothing.
    if (s->system_logger_)
        if (Status st = s->set_kernel_flags(s->enable_flags_); !st)
            return st;

    LogFile::Config fc;
    fc.path = utf8(file);
    fc.mode = mode;
    fc.buffer_size = bs;
    fc.logger_id = logger_id;
    fc.max_bytes = std::uint64_t(r.MaximumFileSize) * ((mode & ETW_USE_KBYTES_FOR_SIZE) ? 1024u : 1024u * 1024u);
    etl::LogfileHeaderFields &h = fc.header;
    h.buffer_size = bs;
    h.number_of_processors = cpus;
    h.maximum_file_size = r.MaximumFileSize;
    h.log_file_mode = mode;
    h.pointer_size = platform::kPointerSize;
    h.cpu_speed_mhz = platform::cycle_counter_mhz();
    platform::local_time_zone(&h.time_zone);
    h.boot_time = platform::boot_time_filetime();
    h.perf_freq = clock == ETW_CLOCK_QPC && cycle_hz != 0 ? std::int64_t(cycle_hz) : platform::kQpcFrequency;
    h.clock_type = clock;
    h.thread_id = platform::thread_id();
    h.process_id = platform::process_id();
    h.start_raw = start_raw;
    h.start_time = start_time;
    h.logger_name = s->name_;
    s->file_config_ = fc;
    s->start_time_ = h.start_time;
    s->export_ = std::move(exporter);
    if (s->export_ && s->is_buffering())
        s->ring_arrival_.assign(s->pool_.capacity(), 0);
    {
        etl::LogfileHeaderFields live = h;
        live.log_file_name = file;
        s->header_buffer_ = etl::encode_header_buffer(live, logger_id);
        s->header_fields_ = live;
    }
    if (mode & ETW_BUFFERING_MODE) {
        // The file is written only when flushed; its folder must exist now.
        if (!file.empty() && !platform::parent_directory_exists(fc.path))
            return Fail(ETW_ERROR_PATH_NOT_FOUND, "the folder of the log file \"" + fc.path + "\" does not exist");
        s->file_config_.mode = mode & ~(ETW_BUFFERING_MODE | ETW_FILE_MODE_APPEND | ETW_FILE_MODE_CIRCULAR |
                                        ETW_FILE_MODE_NEWFILE | ETW_FILE_MODE_PREALLOCATE);
        s->file_config_.max_bytes = 0;
    } else if (!file.empty()) {
        if (Status st = s->file_.open(fc); !st)
            return st;
        s->has_file_.store(true, std::memory_order_release);
    }

    // Logger thread. A process out of threads (a tasks limit) refuses the start, never dies of it.
    try {
        s->logger_ = std::thread([p = s.get()] { p->logger_main(); });
    } catch (const std::system_error &) {
        return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES, "cannot start the session's logger thread (a limit on the "
                                                   "process's tasks or threads?)");
    }
    // Sleep (not spin) until the logger has published its id.
    while (s->logger_tid_.load(std::memory_order_acquire) == 0)
        platform::wait_on(&s->logger_tid_, 0, 10);

    // Report the adjusted values.
    r.Wnode.ClientContext = clock;
    r.MinimumBuffers = min_b;
    r.MaximumBuffers = max_b;
    props.assign_log_file_name(file);
    s->fill(props);
    *out = std::move(s);
    return Status::ok();
}

void Session::fill(Properties &props) const
{
    etw_event_trace_properties &r = props.record();
    const ControlBlock &cb = pool_.control();
    if (props.session_name() != name_)
        props.assign_session_name(name_);
    if (props.log_file_name() != log_file_name_)
        props.assign_log_file_name(log_file_name_);
    r.Wnode.Flags |= ETW_WNODE_FLAG_TRACED_GUID;
    r.Wnode.Guid = guid_;
    r.Wnode.ClientContext = clock_type_;
    r.Wnode.HistoricalContext = handle_;
    r.BufferSize = buffer_kb_;
    r.MinimumBuffers = min_buffers_;
    r.MaximumBuffers = cb.max_buffers.load(std::memory_order_relaxed);
    r.MaximumFileSize = max_file_size_;
    r.LogFileMode = mode_;
    r.FlushTimer = flush_timer_.load(std::memory_order_relaxed);
    r.EnableFlags = enable_flags_;
    r.AgeLimit = age_limit_;
    r.NumberOfBuffers = cb.allocated.load(std::memory_order_acquire);
    r.FreeBuffers = cb.free_count.load(std::memory_order_acquire);
    r.EventsLost = cb.events_lost.load(std::memory_order_acquire);
    r.BuffersWritten = cb.buffers_written.load(std::memory_order_acquire);
    r.LogBuffersLost = cb.log_buffers_lost.load(std::memory_order_acquire);
    r.RealTimeBuffersLost = cb.real_time_buffers_lost.load(std::memory_order_acquire);
    r.LoggerThreadId = logger_tid_.load(std::memory_order_acquire);
}

void Session::wake_logger() noexcept
{
    std::atomic<std::uint32_t> &w = pool_.wake_word();
    w.fetch_add(1, std::memory_order_release);
    platform::wake_all(&w);
}

void Session::seal_all(bool final)
{
    owned_.seal_all(final);
    for (std::uint32_t s = 0; s < pool_.streams(); ++s)
        pool_.seal_stream(s);
}

void Session::drain()
{
    if (!is_buffering()) {
        drain_buffers(); // the logger alone
        return;
    }
    std::lock_guard<std::mutex> lock(ring_mutex_); // writers that ran out of buffers drain too
    drain_buffers();
    recycle();
}

void Session::drain_buffers()
{
    ControlBlock &cb = pool_.control();
    const std::uint32_t n = pool_.take_flushed(batch_.data(), std::uint32_t(batch_.size()));
    const std::uint32_t bs = pool_.buffer_size();
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::uint32_t idx = batch_[i];
        const std::uint64_t state = pool_.desc(idx).state.load(std::memory_order_acquire);
        // Read from the region: bounded before use.
        std::uint32_t filled = std::min(BufferPool::offset_of(state), bs);
        std::uint32_t events = BufferPool::events_of(state);
        std::uint32_t stream = pool_.desc(idx).stream.load(std::memory_order_relaxed);
        if (stream >= pool_.streams())
            stream = 0;
        std::uint8_t *b = pool_.buffer(idx);
        if (events == 0 && filled <= etl::kBufferHeaderSize && !(state & BufferPool::kForced)) {
            pool_.release(idx); // sealed before anyone wrote in it (BufferPool::seal_detached)
            continue;
        }
        if (state & BufferPool::kForced) {
            // Writers died in it: keep the finished records, count the rest lost.
            const etl::RepairResult r = etl::repair_buffer(b, filled, bs);
            const std::uint32_t lost = events > r.kept ? events - r.kept : 0;
            cb.events_lost.fetch_add(lost, std::memory_order_release);
            cb.records_skipped.fetch_add(lost, std::memory_order_release);
            filled = r.filled;
            events = r.kept;
            // Counted once: a dead host's region shows it repaired.
            pool_.desc(idx).state.store(BufferPool::kSealed | filled |
                                            (std::uint64_t(events) << BufferPool::kEventsShift),
                                        std::memory_order_release);
        }
        etl::BufferHeaderFields h;
        h.buffer_size = bs;
        h.filled = filled;
        h.timestamp = now_raw();
        h.processor_index = std::uint16_t(stream);
        h.logger_id = logger_id_;
        h.flags = etl::kFlagProcIndex;
        h.type = etl::kTypeGeneric;
        etl::write_buffer_header(b, h);
        etl::fill_buffer_tail(b, filled, bs);
        if (is_buffering()) {
            if (!ring_arrival_.empty())
                ring_arrival_[idx] = ++ring_arrivals_; // a flush exports each buffer once (write_snapshot)
            ring_.push_back(idx);                      // kept until recycled or flushed (never full: each buffer once)
            continue;
        }
        if (file_.is_open()) {
            switch (file_.write_buffer(b, events, losses())) {
            case LogFile::Outcome::Written:
                cb.buffers_written.fetch_add(1, std::memory_order_release);
                export_buffer(b);
                break;
            case LogFile::Outcome::FileFull:
                if (!is_realtime()) // real-time consumers still get these events
                    cb.events_lost.fetch_add(events, std::memory_order_release);
                break;
            case LogFile::Outcome::WriteError:
                cb.log_buffers_lost.fetch_add(1, std::memory_order_release);
                break;
            }
        } else {
            etl::wr64(b + etl::buf::SequenceNumber, ++rt_sequence_);
            export_buffer(b);
        }
        if (is_realtime())
            rt_push(idx, events);
        else
            pool_.release(idx);
    }
}

void Session::export_buffer(const std::uint8_t *buffer)
{
    if (!export_)
        return;
    ++export_offered_;
    for (bool again = false;; again = true) {
        const BufferExport::Offer r =
            export_->publish(buffer, pool_.buffer_size(), options_.lossless ? kExportRoomWaitMs : 0, again);
        if (r == BufferExport::Offer::Queued)
            return;
        if (r == BufferExport::Offer::Failed || !options_.lossless || !export_may_wait())
            break;
    }
    pool_.control().real_time_buffers_lost.fetch_add(1, std::memory_order_release);
}

std::vector<std::uint8_t> Session::export_final_header() const
{
    const ControlBlock &cb = pool_.control();
    etl::LogfileHeaderFields f = header_fields_;
    f.end_time = platform::filetime_now();
    f.buffers_written = 1 + export_offered_;
    f.events_lost = cb.events_lost.load(std::memory_order_acquire);
    f.buffers_lost = cb.log_buffers_lost.load(std::memory_order_acquire);
    return etl::encode_header_buffer(f, logger_id_);
}

bool Session::export_may_wait()
{
    std::lock_guard<std::mutex> lock(control_mutex_);
    if (!stop_requested_)
        return true;
    const auto now = std::chrono::steady_clock::now();
    if (export_stop_deadline_ == std::chrono::steady_clock::time_point{})
        export_stop_deadline_ = now + std::chrono::milliseconds(kExportStopWaitMs);
    return now < export_stop_deadline_;
}

Status Session::flush(const std::string &path)
{
    std::string target = path;
    if (is_buffering()) {
        if (target.empty())
            target = file_config_.path;
        if (target.empty())
            return Fail(ETW_ERROR_INVALID_PARAMETER, "the buffering session has no log file name: name one in its "
                                                     "properties or pass a path to etw_session_flush_to_file");
        if (!platform::parent_directory_exists(target))
            return Fail(ETW_ERROR_PATH_NOT_FOUND, "the folder of \"" + target + "\" does not exist");
    } else if (!target.empty()) {
        return Fail(ETW_ERROR_INVALID_PARAMETER,
                    "a flush to a named file needs a buffering session (ETW_BUFFERING_MODE)");
    }
    std::unique_lock<std::mutex> lock(control_mutex_);
    if (stopped_ || stop_requested_)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is stopping");
    // Requests are served in order; one path at a time.
    control_cv_.wait(lock, [&] { return flush_done_ == flush_requested_ || stopped_; });
    if (stopped_)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session is stopping");
    flush_path_ = target;
    const std::uint64_t req = ++flush_requested_;
    lock.unlock();
    wake_logger();
    lock.lock();
    control_cv_.wait(lock, [&] { return flush_done_ >= req || stopped_; });
    if (flush_done_ < req)
        return Fail(ETW_ERROR_WMI_INSTANCE_NOT_FOUND, "the session stopped during the flush");
    return flush_result_;
}

Status Session::update(Properties &props)
{
    etw_event_trace_properties &r = props.record();
    if (r.EnableFlags != 0 && r.EnableFlags != enable_flags_ && !system_logger_)
        return Fail(ETW_ERROR_INVALID_PARAMETER, "EnableFlags can be updated only on a system logger session");
    if (system_logger_ && r.EnableFlags != enable_flags_) {
        // As Windows: the flags of a running kernel session change at once
        // (first: a refusal changes nothing else either).
        if (Status st = set_kernel_flags(r.EnableFlags); !st)
            return st;
        enable_flags_ = r.EnableFlags;
    }
    flush_timer_.store(r.FlushTimer, std::memory_order_relaxed);
    if (r.MaximumBuffers != 0 && !is_buffering())
        pool_.set_max_buffers(r.MaximumBuffers);

    // A different log file name switches to a new file.
    if (!props.log_file_name().empty() && props.log_file_name() != log_file_name_) {
        if (mode_ & ETW_FILE_MODE_NEWFILE)
            return Fail(ETW_ERROR_INVALID_PARAMETER,
                        "a NEWFILE session switches files by itself; the log file name cannot be updated");
        if (is_buffering()) {
            // Only where later flushes write.
            const std::string path = utf8(props.log_file_name());
            if (!platform::parent_directory_exists(path))
                return Fail(ETW_ERROR_PATH_NOT_FOUND, "the folder of \"" + path + "\" does not exist");
            std::lock_guard<std::mutex> lock(control_mutex_);
            file_config_.path = path;
            log_file_name_ = props.log_file_name();
            fill(props);
            return Status::ok();
        }
        std::unique_lock<std::mutex> lock(control_mutex_);
        switch_path_ = utf8(props.log_file_name());
        switch_requested_ = true;
        switch_done_ = false;
        lock.unlock();
        wake_logger();
        lock.lock();
        control_cv_.wait(lock, [&] { return switch_done_ || stopped_; });
        if (!switch_result_)
            return switch_result_;
        log_file_name_ = props.log_file_name();
    }
    wake_logger(); // apply a new FlushTimer now
    fill(props);
    return Status::ok();
}

Status Session::stop()
{
    logger_held_.store(false, std::memory_order_release);
    {
        std::lock_guard<std::mutex> lock(control_mutex_);
        stop_requested_ = true;
    }
    wake_logger();
    if (logger_.joinable())
        logger_.join();
    state.store(Stopped, std::memory_order_release);
    return finish_result_;
}

} // namespace openetw::engine
