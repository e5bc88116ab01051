// POSIX (Linux) part of perf_events.hpp: perf_event_open per online
// processor, each ring mapped read-write (so the kernel never overwrites
// what is not yet read: it counts a loss instead), an epoll set over the
// events and an eventfd for wake().
#include "platform/perf_events.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#if defined(__linux__)
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#endif

namespace openetw::platform {

#if defined(__linux__)

static_assert(kPerfRecordMmap == PERF_RECORD_MMAP && kPerfRecordLost == PERF_RECORD_LOST &&
              kPerfRecordComm == PERF_RECORD_COMM && kPerfRecordExit == PERF_RECORD_EXIT &&
              kPerfRecordFork == PERF_RECORD_FORK && kPerfRecordSample == PERF_RECORD_SAMPLE &&
              kPerfRecordMmap2 == PERF_RECORD_MMAP2);
static_assert(kPerfMiscCommExec == PERF_RECORD_MISC_COMM_EXEC);
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID // headers of Linux 5.12+
static_assert(kPerfMiscMmapBuildId == PERF_RECORD_MISC_MMAP_BUILD_ID);
#endif
static_assert(kPerfSampleTid == PERF_SAMPLE_TID && kPerfSampleTime == PERF_SAMPLE_TIME &&
              kPerfSampleId == PERF_SAMPLE_ID && kPerfSampleCpu == PERF_SAMPLE_CPU &&
              kPerfSampleStreamId == PERF_SAMPLE_STREAM_ID && kPerfSampleIdentifier == PERF_SAMPLE_IDENTIFIER &&
              kPerfSampleRaw == PERF_SAMPLE_RAW && kPerfSampleIp == PERF_SAMPLE_IP &&
              kPerfSampleAddr == PERF_SAMPLE_ADDR && kPerfSampleCallchain == PERF_SAMPLE_CALLCHAIN);
static_assert(kPerfFormatLost == 1u << 4); // PERF_FORMAT_LOST: an enumerator, absent from older headers
static_assert(kPerfContextMax == std::uint64_t(PERF_CONTEXT_MAX));

namespace {

// The token of the wake-up eventfd in the epoll set (events use their index).
constexpr std::uint64_t kWakeToken = ~std::uint64_t(0);

std::string read_small_file(const char *path)
{
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return {};
    char text[256];
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    return n > 0 ? std::string(text, std::size_t(n)) : std::string();
}

// A record's size is a u16 in its header.
constexpr std::uint64_t kMaxRecordBytes = 65536;

} // namespace

struct PerfEventSet::Impl {
    struct Ring {
        int fd = -1;
        std::uint32_t cpu = 0;
        void *map = nullptr;
        std::size_t map_size = 0;
        std::uint64_t lost_seen = 0; // the event's PERF_FORMAT_LOST count at the last read
    };
    std::vector<Ring> rings;
    int epoll = -1;
    int wake = -1;
    std::uint64_t data_size = 0;
    bool lost_counter = false; // read_format has PERF_FORMAT_LOST
    std::vector<std::uint8_t> scratch;

    ~Impl()
    {
        for (Ring &r : rings) {
            if (r.map)
                ::munmap(r.map, r.map_size);
            if (r.fd >= 0)
                ::close(r.fd);
        }
        if (epoll >= 0)
            ::close(epoll);
        if (wake >= 0)
            ::close(wake);
    }

    // The samples the kernel dropped since the last call (read_format
    // PERF_FORMAT_LOST alone: {value, lost}); 0 when the read fails.
    static std::uint64_t read_lost(Ring &r)
    {
        std::uint64_t v[2];
        if (::read(r.fd, v, sizeof v) != ssize_t(sizeof v) || v[1] < r.lost_seen)
            return 0;
        const std::uint64_t delta = v[1] - r.lost_seen;
        r.lost_seen = v[1];
        return delta;
    }

    Status ioctl_all(unsigned long request, const char *what)
    {
        for (Ring &r : rings)
            if (::ioctl(r.fd, request, 0) != 0)
                return Fail(ETW_ERROR_INTERNAL_ERROR, std::string("perf events: ") + what + " failed on processor " +
                                                          std::to_string(r.cpu) + ": " + std::strerror(errno));
        return Status::ok();
    }
};

PerfEventSet::PerfEventSet() noexcept = default;
PerfEventSet::~PerfEventSet() = default;
PerfEventSet::PerfEventSet(PerfEventSet &&) noexcept = default;
PerfEventSet &PerfEventSet::operator=(PerfEventSet &&) noexcept = default;

Status PerfEventSet::open(const PerfEventSpec &spec)
{
    close();
    if (spec.data_pages == 0 || (spec.data_pages & (spec.data_pages - 1)) != 0 || spec.data_pages > (1u << 20))
        return Fail(ETW_ERROR_INVALID_PARAMETER, "perf events: the ring's data pages (" +
                                                     std::to_string(spec.data_pages) +
                                                     ") must be a power of two, at most 1048576");
    const std::vector<std::uint32_t> cpus = parse_cpu_list(read_small_file("/sys/devices/system/cpu/online"));
    if (cpus.empty())
        return Fail(ETW_ERROR_NOT_SUPPORTED, "perf events: /sys/devices/system/cpu/online cannot be read");
    const long page = ::sysconf(_SC_PAGESIZE);
    const std::size_t page_size = page > 0 ? std::size_t(page) : 4096;

    perf_event_attr attr;
    std::memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    if (spec.kind == PerfEventSpec::Kind::Tracepoint) {
        attr.type = PERF_TYPE_TRACEPOINT;
        attr.config = spec.tracepoint_id;
        attr.sample_period = 1; // every hit
    } else if (spec.kind == PerfEventSpec::Kind::CpuClock) {
        if (spec.period_ns == 0)
            return Fail(ETW_ERROR_INVALID_PARAMETER, "perf events: a processor clock sampled every 0 ns");
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_CPU_CLOCK;
        attr.sample_period = spec.period_ns;
        attr.sample_max_stack = spec.max_stack;
    } else if (spec.kind == PerfEventSpec::Kind::MajorFaults) {
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
        attr.sample_period = 1; // every one
    } else {
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_DUMMY;
    }
    attr.sample_type = spec.sample_type;
    attr.sample_id_all = 1;
    attr.task = spec.task;
    attr.comm = spec.comm;
    attr.comm_exec = spec.comm;
    // Older kernels report executable mappings only with mmap set as well.
    attr.mmap = spec.mmap2;
    attr.mmap2 = spec.mmap2;
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
    attr.build_id = spec.mmap2 && spec.mmap_build_id;
#endif
    attr.disabled = 1;
    attr.read_format = kPerfFormatLost;
    // The sessions' clock type 1 (qpc_now) is CLOCK_MONOTONIC: stamping with
    // it (rather than perf's sched_clock) makes a record's time / 100 a
    // session timestamp, with no drift between the two.
    attr.use_clockid = 1;
    attr.clockid = CLOCK_MONOTONIC;
    const std::uint64_t data_size = std::uint64_t(spec.data_pages) * page_size;
    attr.watermark = 1;
    attr.wakeup_watermark =
        std::uint32_t(spec.wakeup_bytes != 0 ? std::min<std::uint64_t>(spec.wakeup_bytes, data_size) : data_size / 4);
    const char *what = spec.kind == PerfEventSpec::Kind::Tracepoint    ? "tracepoint"
                       : spec.kind == PerfEventSpec::Kind::CpuClock    ? "the processor clock (sampled profile)"
                       : spec.kind == PerfEventSpec::Kind::MajorFaults ? "major page faults"
                                                                       : "task, comm and mmap events";

    auto impl = std::make_unique<Impl>();
    impl->data_size = data_size;
    impl->epoll = ::epoll_create1(EPOLL_CLOEXEC);
    impl->wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (impl->epoll < 0 || impl->wake < 0)
        return perf_open_status(errno, "its epoll set", "");
    epoll_event wev{};
    wev.events = EPOLLIN;
    wev.data.u64 = kWakeToken;
    if (::epoll_ctl(impl->epoll, EPOLL_CTL_ADD, impl->wake, &wev) != 0)
        return perf_open_status(errno, "its epoll set", "");
    for (std::uint32_t cpu : cpus) {
        Impl::Ring r;
        r.cpu = cpu;
        r.fd = int(::syscall(SYS_perf_event_open, &attr, -1, int(cpu), -1, PERF_FLAG_FD_CLOEXEC));
#ifdef PERF_RECORD_MISC_MMAP_BUILD_ID
        if (r.fd < 0 && errno == EINVAL && attr.build_id && impl->rings.empty()) {
            // A kernel before 5.12 refuses the bit: its MMAP2 records give the inode instead.
            attr.build_id = 0;
            r.fd = int(::syscall(SYS_perf_event_open, &attr, -1, int(cpu), -1, PERF_FLAG_FD_CLOEXEC));
        }
#endif
        if (r.fd < 0 && errno == EINVAL && attr.read_format != 0 && impl->rings.empty()) {
            // Before Linux 6.0: losses are known from LOST records only.
            attr.read_format = kPerfFormatLost;
            r.fd = int(::syscall(SYS_perf_event_open, &attr, -1, int(cpu), -1, PERF_FLAG_FD_CLOEXEC));
        }
        if (r.fd < 0) {
            const int e = errno;
            // A processor that went offline since the list was read has no events to give.
            if (e == ENODEV && cpus.size() > 1)
                continue;
            return perf_open_status(e, what, read_small_file("/proc/sys/kernel/perf_event_paranoid"));
        }
        r.map_size = page_size + std::size_t(data_size);
        void *map = ::mmap(nullptr, r.map_size, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd, 0);
        if (map == MAP_FAILED) {
            const int e = errno;
            ::close(r.fd);
            // EPERM here is the locked-memory limit (kernel.perf_event_mlock_kb), not a right.
            if (e == EPERM || e == ENOMEM)
                return Fail(ETW_ERROR_NO_SYSTEM_RESOURCES,
                            "perf events: a ring of " + std::to_string(data_size / 1024) + " KB on processor " +
                                std::to_string(cpu) + " cannot be mapped (" + std::strerror(e) +
                                "): lower the ring size or raise kernel.perf_event_mlock_kb");
            return perf_open_status(e, "mapping its ring", "");
        }
        r.map = map;
        impl->rings.push_back(r);
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.u64 = impl->rings.size() - 1;
        if (::epoll_ctl(impl->epoll, EPOLL_CTL_ADD, r.fd, &ev) != 0)
            return perf_open_status(errno, "its epoll set", "");
    }
    impl->lost_counter = attr.read_format != 0;
    impl_ = std::move(impl);
    return Status::ok();
}

Status PerfEventSet::enable()
{
    if (!impl_)
        return Fail(ETW_ERROR_INVALID_HANDLE, "perf events: enable before open");
    return impl_->ioctl_all(PERF_EVENT_IOC_ENABLE, "enable");
}

Status PerfEventSet::disable()
{
    if (!impl_)
        return Fail(ETW_ERROR_INVALID_HANDLE, "perf events: disable before open");
    return impl_->ioctl_all(PERF_EVENT_IOC_DISABLE, "disable");
}

void PerfEventSet::close() noexcept { impl_.reset(); }

bool PerfEventSet::is_open() const noexcept { return impl_ != nullptr; }

std::size_t PerfEventSet::processor_count() const noexcept { return impl_ ? impl_->rings.size() : 0; }

Status PerfEventSet::drain(const PerfRecordFn &each, PerfDrainCounts *counts)
{
    if (!impl_)
        return Fail(ETW_ERROR_INVALID_HANDLE, "perf events: drain before open");
    for (Impl::Ring &r : impl_->rings) {
        auto *page = static_cast<perf_event_mmap_page *>(r.map);
        const std::uint8_t *data = static_cast<const std::uint8_t *>(r.map) + (r.map_size - impl_->data_size);
        // Acquire: the records up to head are written before head is.
        const std::uint64_t head = __atomic_load_n(&page->data_head, __ATOMIC_ACQUIRE);
        const std::uint64_t tail = page->data_tail; // only this reader writes it
        PerfDrainCounts ring;
        if (head != tail) {
            std::uint64_t done = perf_ring_read(data, impl_->data_size, tail, head, r.cpu, impl_->scratch, each, &ring);
            if (done != head)
                done = head; // a header that cannot be: what follows it is unreadable too
            // Release: the reads above finish before the kernel may reuse the space.
            __atomic_store_n(&page->data_tail, done, __ATOMIC_RELEASE);
        }
        if (impl_->lost_counter) {
            // The LOST records read above are in the event's count already
            // (read now or at an earlier drain). The ring only fills between
            // drains, and a record is at most 64 KB: with that much free now,
            // nothing was refused since the last read (no system call then).
            ring.lost = 0;
            if (impl_->data_size - (head - tail) < kMaxRecordBytes)
                ring.lost = Impl::read_lost(r);
        }
        if (counts) {
            counts->records += ring.records;
            counts->bytes += ring.bytes;
            counts->lost += ring.lost;
            counts->malformed += ring.malformed;
        }
    }
    return Status::ok();
}

Status PerfEventSet::wait(std::int64_t timeout_ms, bool *woken)
{
    *woken = false;
    if (!impl_)
        return Fail(ETW_ERROR_INVALID_HANDLE, "perf events: wait before open");
    epoll_event ev[16];
    const int timeout = timeout_ms < 0 ? -1 : int(std::min<std::int64_t>(timeout_ms, 0x7FFFFFFF));
    const int n = ::epoll_wait(impl_->epoll, ev, 16, timeout);
    if (n < 0)
        return errno == EINTR ? Status::ok()
                              : Fail(ETW_ERROR_INTERNAL_ERROR,
                                     std::string("perf events: epoll_wait failed: ") + std::strerror(errno));
    for (int i = 0; i < n; ++i) {
        *woken = true;
        if (ev[i].data.u64 == kWakeToken) {
            std::uint64_t v;
            [[maybe_unused]] const ssize_t got = ::read(impl_->wake, &v, sizeof v);
        } else if (ev[i].events & (EPOLLHUP | EPOLLERR)) {
            // A processor went offline: its ring keeps what it held (drain
            // reads it), but its fd would report a hang-up forever.
            ::epoll_ctl(impl_->epoll, EPOLL_CTL_DEL, impl_->rings[ev[i].data.u64].fd, nullptr);
        }
    }
    return Status::ok();
}

void PerfEventSet::wake() noexcept
{
    if (!impl_)
        return;
    const std::uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(impl_->wake, &one, sizeof one);
}

std::intptr_t PerfEventSet::wait_handle() const noexcept { return impl_ ? impl_->epoll : -1; }

#else // a POSIX system without perf events

struct PerfEventSet::Impl {};
PerfEventSet::PerfEventSet() noexcept = default;
PerfEventSet::~PerfEventSet() = default;
PerfEventSet::PerfEventSet(PerfEventSet &&) noexcept = default;
PerfEventSet &PerfEventSet::operator=(PerfEventSet &&) noexcept = default;
Status PerfEventSet::open(const PerfEventSpec &)
{
    return Fail(ETW_ERROR_NOT_SUPPORTED, "perf events are Linux's: this system has no perf_event_open");
}
Status PerfEventSet::enable() { return open({}); }
Status PerfEventSet::disable() { return open({}); }
void PerfEventSet::close() noexcept {}
bool PerfEventSet::is_open() const noexcept { return false; }
std::size_t PerfEventSet::processor_count() const noexcept { return 0; }
Status PerfEventSet::drain(const PerfRecordFn &, PerfDrainCounts *) { return open({}); }
Status PerfEventSet::wait(std::int64_t, bool *woken)
{
    *woken = false;
    return open({});
}
void PerfEventSet::wake() noexcept {}
std::intptr_t PerfEventSet::wait_handle() const noexcept { return -1; }

#endif

} // namespace openetw::platform
