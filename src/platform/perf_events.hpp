// The Linux kernel's own event stream (perf_event_open): one event per
// online processor, system-wide, each with a ring buffer the kernel fills
// and this process drains. The system logger (kernel/perf_process_source.hpp)
// reads process, thread and image events from it.
//
// Rules (every header of src/platform): nothing here is on the
// event-writing path; nothing throws. posix/perf_events_posix.cpp opens
// the events; windows/perf_events_windows.cpp refuses with
// ETW_ERROR_NOT_SUPPORTED (Windows has its own kernel logger).
// perf_ring.cpp (the ring reader) and perf_errors.cpp (errno to status)
// serve every OS: they are pure and tested on their own.
//
// Clock: the events stamp with CLOCK_MONOTONIC (use_clockid), the clock of
// qpc_now(), in nanoseconds: a record's time / 100 is a qpc_now() value.
#pragma once

#include "base/status.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace openetw::platform {

// Linux ABI numbers (uapi/linux/perf_event.h), so that layers above parse
// records without the OS header; the POSIX file checks them against it.
inline constexpr std::uint32_t kPerfRecordMmap = 1;
inline constexpr std::uint32_t kPerfRecordLost = 2;
inline constexpr std::uint32_t kPerfRecordComm = 3;
inline constexpr std::uint32_t kPerfRecordExit = 4;
inline constexpr std::uint32_t kPerfRecordFork = 7;
inline constexpr std::uint32_t kPerfRecordSample = 9;
inline constexpr std::uint32_t kPerfRecordMmap2 = 10;
inline constexpr std::uint16_t kPerfMiscCommExec = 1u << 13; // a COMM record written by exec
// An MMAP2 record carrying build_id_size, 3 reserved bytes and build_id[20]
// where maj, min, ino and ino_generation are otherwise.
inline constexpr std::uint16_t kPerfMiscMmapBuildId = 1u << 14;
// sample_type bits; also the fields (in this order) that sample_id_all
// appends to every non-sample record.
inline constexpr std::uint64_t kPerfSampleIp = 1u << 0; // samples only: the interrupted instruction
inline constexpr std::uint64_t kPerfSampleTid = 1u << 1;
inline constexpr std::uint64_t kPerfSampleTime = 1u << 2;
inline constexpr std::uint64_t kPerfSampleAddr = 1u << 3; // samples only: a fault's address (after TIME)
inline constexpr std::uint64_t kPerfSampleId = 1u << 6;
inline constexpr std::uint64_t kPerfSampleCpu = 1u << 7;
inline constexpr std::uint64_t kPerfSampleCallchain = 1u << 5; // samples only: nr, then nr addresses
inline constexpr std::uint64_t kPerfSampleStreamId = 1u << 9;
inline constexpr std::uint64_t kPerfSampleRaw = 1u << 10; // samples only: a tracepoint's raw bytes
inline constexpr std::uint64_t kPerfSampleIdentifier = 1u << 16;
inline constexpr std::uint32_t kPerfProtExec = 4;         // MMAP2's prot: PROT_EXEC
inline constexpr std::uint64_t kPerfFormatLost = 1u << 4; // read_format: the event's dropped samples (Linux 6.0+)
// A call chain's entries at or above this are context markers
// (PERF_CONTEXT_KERNEL, _USER...), not addresses.
inline constexpr std::uint64_t kPerfContextMax = std::uint64_t(-4095);

// What to open on each processor.
struct PerfEventSpec {
    enum class Kind : std::uint8_t {
        Dummy,       // the software dummy event: side-band records only
        Tracepoint,  // a tracepoint by its id (tracefs events/<group>/<name>/id)
        CpuClock,    // the processor's clock: a sample every period_ns (idle time too)
        MajorFaults, // every fault the kernel counts as major (PERF_COUNT_SW_PAGE_FAULTS_MAJ), at its end
    };
    Kind kind = Kind::Dummy;
    std::uint64_t tracepoint_id = 0;
    std::uint64_t period_ns = 0; // CpuClock: nanoseconds between samples
    // With kPerfSampleCallchain: the deepest chain the kernel walks (0: its
    // default, kernel.perf_event_max_stack).
    std::uint16_t max_stack = 0;
    bool task = false;  // FORK and EXIT records
    bool comm = false;  // COMM records, exec ones marked kPerfMiscCommExec
    bool mmap2 = false; // MMAP2 records of executable mappings
    // ... carrying the file's build id (Linux 5.12+; older kernels refuse
    // the bit and the events open without it, their MMAP2 records then
    // giving the device and inode).
    bool mmap_build_id = false;
    // The sample fields; with sample_id_all they also end every side-band record.
    std::uint64_t sample_type = kPerfSampleTid | kPerfSampleTime | kPerfSampleCpu;
    std::uint32_t data_pages = 64; // pages of each ring's data area: a power of two
    // A waiter wakes once a ring holds this many bytes (0: a quarter of the
    // ring), not per record; the caller's timeout covers quiet periods.
    std::uint32_t wakeup_bytes = 0;
};

// One record, contiguous even when it wrapped the ring's end; borrowed
// until the callback returns.
struct PerfRecord {
    std::uint32_t type = 0;
    std::uint16_t misc = 0;
    std::uint32_t cpu = 0;               // the processor whose ring held it
    std::span<const std::uint8_t> bytes; // the whole record, its 8-byte header included
};

struct PerfDrainCounts {
    std::uint64_t records = 0;
    std::uint64_t bytes = 0;
    // The records the kernel dropped since the last drain: the event's own
    // count (PERF_FORMAT_LOST, Linux 6.0+), else what PERF_RECORD_LOST
    // records said. The kernel writes a LOST record only once its ring has
    // room again, so drops just before a stop never get one; the count has
    // them. LOST records still reach the callback: count from here, not them.
    std::uint64_t lost = 0;
    std::uint64_t malformed = 0; // rings abandoned at a header that cannot be (their data skipped)
};

using PerfRecordFn = std::function<void(const PerfRecord &)>;

// The events of one spec on every online processor. Move-only; the
// destructor closes.
class PerfEventSet {
public:
    PerfEventSet() noexcept;
    ~PerfEventSet();
    PerfEventSet(PerfEventSet &&) noexcept;
    PerfEventSet &operator=(PerfEventSet &&) noexcept;
    PerfEventSet(const PerfEventSet &) = delete;
    PerfEventSet &operator=(const PerfEventSet &) = delete;

    // Opens spec on each online processor, disabled, with its ring mapped.
    // ETW_ERROR_ACCESS_DENIED (a sentence naming the rights), _NOT_SUPPORTED,
    // _NO_SYSTEM_RESOURCES, _INVALID_PARAMETER (data_pages), as perf_open_status.
    Status open(const PerfEventSpec &spec);
    Status enable();
    Status disable();
    void close() noexcept;
    bool is_open() const noexcept;
    std::size_t processor_count() const noexcept;

    // Reads every ring once without blocking, hands each record to each
    // (LOST ones too) and frees the space it read for the kernel.
    Status drain(const PerfRecordFn &each, PerfDrainCounts *counts = nullptr);
    // Sleeps until a ring holds wakeup_bytes, wake() rings, or timeout_ms
    // passes (negative: no limit). *woken says which of the first two.
    Status wait(std::int64_t timeout_ms, bool *woken);
    // Ends the current or next wait (any thread).
    void wake() noexcept;
    // An fd (POSIX: an epoll set) readable when wait would return at once,
    // for a caller's own poll loop; -1 when closed.
    std::intptr_t wait_handle() const noexcept;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// ---- OS-independent parts ----

// Reads the records of one ring's data area (size a power of two) between
// tail and head, the kernel's running byte counts; a record that wraps the
// end is copied whole into scratch. Returns the new tail: head, or where a
// header that cannot be (size < 8 or past head) stopped it (counted as
// malformed; the caller then skips to head). perf_ring.cpp.
std::uint64_t perf_ring_read(const std::uint8_t *data, std::uint64_t size, std::uint64_t tail, std::uint64_t head,
                             std::uint32_t cpu, std::vector<std::uint8_t> &scratch, const PerfRecordFn &each,
                             PerfDrainCounts *counts);

// The status and sentence for perf_event_open's errno: EACCES/EPERM name
// CAP_PERFMON/CAP_SYS_ADMIN and the paranoid setting (the text of
// /proc/sys/kernel/perf_event_paranoid, or empty when unreadable);
// ENOENT/EOPNOTSUPP/ENODEV/ENOSYS are ETW_ERROR_NOT_SUPPORTED; EMFILE/ENFILE
// ETW_ERROR_NO_SYSTEM_RESOURCES. what names the event. perf_errors.cpp.
Status perf_open_status(int error, std::string_view what, std::string_view paranoid);

// The processors of a list like /sys/devices/system/cpu/online ("0-3,6").
// Empty when malformed. proc_text.cpp.
std::vector<std::uint32_t> parse_cpu_list(std::string_view text);

} // namespace openetw::platform
