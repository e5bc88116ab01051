// The system logger's live source of process, thread and image events:
// perf's side-band records (PERF_RECORD_FORK, COMM, EXIT, MMAP2, with the
// sample_id_all fields TID|TIME|CPU) read system-wide
// (platform/perf_events.hpp) and turned into Windows' Process, Thread and
// Image records (kernel_records.hpp). docs/KERNEL_LOGGER.md, "The live
// source", gives the mapping; in short:
//   fork of a new process  -> Process/Start (+ Thread/Start of its first thread)
//   fork of a thread       -> Thread/Start
//   exec (COMM, exec bit)  -> Thread/End + Process/End of the old image,
//                             Process/Start + Thread/Start of the new one (same pid)
//   exit of a thread       -> Thread/End; of the leader also Process/End
//   executable file MMAP2  -> Image/Load (hook 0x030A), then
//                             ImageID/DbgID_RSDS with the file's build id
//   the kernel's drops     -> counted in lost by drain (never silent)
// consume() is pure but for the process lookup it is given (tests pass
// their own); open/drain/wait make it live. Not thread-safe: one logger
// thread drains, any thread may wake() it.
#pragma once

#include "base/status.hpp"
#include "kernel/image_build_id.hpp"
#include "kernel/kernel_records.hpp"
#include "kernel/perf_clock.hpp"
#include "platform/perf_events.hpp"
#include "platform/proc_info.hpp"

#include <functional>
#include <span>
#include <unordered_map>
#include <vector>

namespace openetw::kernel {

struct PerfSourceOptions {
    bool processes = true; // EVENT_TRACE_FLAG_PROCESS
    bool threads = true;   // EVENT_TRACE_FLAG_THREAD
    bool images = true;    // EVENT_TRACE_FLAG_IMAGE_LOAD
    // After each Image/Load of a file with a GNU build id, its
    // ImageID/DbgID_RSDS: the id the kernel put in the MMAP2 record, else
    // the one read from the file (read_build_id; read_file_build_id when empty).
    bool build_ids = true;
    BuildIdReader read_build_id;
    std::uint32_t pointer_size = 8;
    std::size_t max_record = kMaxRecordSize;
    PerfClock clock;                                                   // perf time -> session time
    std::uint64_t sample_type = platform::PerfEventSpec{}.sample_type; // what ends each record
};

struct PerfSourceCounts {
    std::uint64_t process_starts = 0;
    std::uint64_t process_ends = 0;
    std::uint64_t thread_starts = 0;
    std::uint64_t thread_ends = 0;
    std::uint64_t execs = 0;
    std::uint64_t images = 0;
    std::uint64_t build_ids = 0;      // DbgID_RSDS records
    std::uint64_t build_ids_read = 0; // of those, ids read from the file (the kernel gave none)
    std::uint64_t lost = 0;           // records the kernel dropped (its rings were full)
    std::uint64_t malformed = 0;      // records too short for their type, or rings abandoned
    std::uint64_t ignored = 0;        // other types, non-exec COMMs, mappings that are not executable files
};

// How a process is looked up in the system (platform::proc_read_process by default).
using ProcessLookup = std::function<etw_status(std::uint32_t pid, platform::ProcProcess *out)>;
using RecordSink = std::function<void(Bytes &&record)>;

// The size and wake-up of the live rings.
struct PerfSourceRings {
    std::uint32_t data_pages = 64;  // per processor, a power of two: 256 KB of 4 KB pages
    std::uint32_t wakeup_bytes = 0; // 0: a quarter of a ring
};

class PerfProcessSource {
public:
    explicit PerfProcessSource(PerfSourceOptions options, ProcessLookup lookup = {});

    // One perf record (its 8-byte header included): its Windows records, if
    // any, go to sink in the order Windows writes them.
    void consume(std::span<const std::uint8_t> record, const RecordSink &sink);
    // Tells the source of a process it did not see start (the rundown's),
    // so that its exec and end name its image.
    void remember(const ProcessFields &process);
    // Tells the source how a process is ending, which perf's EXIT record
    // lacks: the status of its exit_group(2) or of the fatal signal, at
    // perf_time. Its Process/End carries the first noted since its last exec
    // (later ones are the kernel killing its other threads); else 0
    // (docs/KERNEL_LOGGER.md).
    void note_exit_status(std::uint32_t pid, std::int32_t status, std::uint64_t perf_time);
    const PerfSourceCounts &counts() const noexcept { return counts_; }
    // The processor of the record drain() is translating (whose ring held
    // it), for a sink that files records by processor.
    std::uint32_t record_cpu() const noexcept { return record_cpu_; }
    // Its time on the perf clock, for a sink that orders records of several sources.
    std::uint64_t record_time() const noexcept { return record_time_; }
    // The clock of later records (a session re-anchors it at each drain).
    void set_clock(const PerfClock &clock) noexcept { options_.clock = clock; }
    // The perf events this source needs for its options.
    platform::PerfEventSpec spec(const PerfSourceRings &rings) const;

    // ---- Live ----
    // Opens and enables the events on every processor (the statuses of
    // PerfEventSet::open: ETW_ERROR_ACCESS_DENIED names the rights).
    Status open(const PerfSourceRings &rings = {});
    // Reads what the rings hold, in time order across processors, into sink.
    // after_read runs once the rings are read and before any is translated:
    // what another source saw before these records (an exit_group before its
    // EXIT) is in that source's rings by then, and can be noted.
    Status drain(const RecordSink &sink, const std::function<void()> &after_read = {});
    // Sleeps until a ring fills to its wake-up mark, wake(), or timeout_ms.
    Status wait(std::int64_t timeout_ms, bool *woken) { return events_.wait(timeout_ms, woken); }
    void wake() noexcept { events_.wake(); }
    void close() noexcept { events_.close(); }
    // Stops the kernel adding to the rings; what they hold can still be drained.
    Status disable() { return events_.disable(); }

private:
    struct Context {
        std::uint32_t pid = 0, tid = 0;
        std::int64_t timestamp = 0;
        std::uint64_t perf_time = 0;
    };
    struct ExitNote {
        std::uint64_t perf_time;
        std::int32_t status;
    };

    HeaderFields header(const Context &c) const;
    ProcessFields *known(std::uint32_t pid);
    void on_fork(std::span<const std::uint8_t> r, const Context &c, const RecordSink &sink);
    void on_exit(std::span<const std::uint8_t> r, const Context &c, const RecordSink &sink);
    void on_comm(std::span<const std::uint8_t> r, std::size_t body_end, const Context &c, const RecordSink &sink);
    void on_mmap2(std::span<const std::uint8_t> r, std::size_t body_end, const Context &c, const RecordSink &sink);
    void emit_process(Opcode type, const Context &c, const ProcessFields &p, const RecordSink &sink);
    void emit_thread(Opcode type, const Context &c, std::uint32_t pid, std::uint32_t tid, const RecordSink &sink);

    PerfSourceOptions options_;
    ProcessLookup lookup_;
    PerfSourceCounts counts_;
    std::uint32_t record_cpu_ = 0;
    std::uint64_t record_time_ = 0;
    // The live processes this source knows: what their exec and end repeat.
    std::unordered_map<std::uint32_t, ProcessFields> processes_;
    std::unordered_map<std::uint32_t, std::vector<ExitNote>> exit_notes_; // note_exit_status's, in time order
    BuildIdCache build_id_files_; // ids read from files, by path, device and inode
    platform::PerfEventSet events_;
};

// The time of a record from its sample_id_all fields (0 when sample_type has no TIME).
std::uint64_t perf_record_time(std::span<const std::uint8_t> record, std::uint64_t sample_type);

} // namespace openetw::kernel
