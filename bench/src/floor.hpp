// The physical floor: what writing the same record costs with nothing but
// the hardware's work in it.
//
//  - floor_write: the same clock read as the session's clock type, then a
//    bare copy of the same record (the 48-byte EVENT_TRACE_HEADER with the
//    engine's fields filled, then the payload, 8-aligned) into a
//    thread-local ring. No reservation protocol, no buffer switch, no
//    session lookup.
//  - floor_disabled: one relaxed load of a flag and a branch.
//  - Pipeline: the least a file-backed tracer must do: each writer thread
//    fills fixed-size buffers of a private ring (no atomics per event) and
//    hands a full buffer to one flusher thread (one futex wake per buffer),
//    which write()s it to the file; a writer whose ring is full drops the
//    event (as ETW and LTTng discard mode do). Buffer bytes match the
//    session's.
#pragma once

#include "common.hpp"

#include <atomic>
#include <thread>

#include <linux/futex.h>
#include <sys/mman.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace bench::floor {

inline constexpr std::int64_t kFiletimeUnixEpoch = 116444736000000000LL;

template <int Clock>
inline std::int64_t clock_read() noexcept
{
    if constexpr (Clock == 3) {
#if defined(__x86_64__) || defined(__i386__)
        return std::int64_t(__rdtsc());
#else
        timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return std::int64_t(ts.tv_sec) * 10000000 + ts.tv_nsec / 100 + kFiletimeUnixEpoch;
#endif
    } else if constexpr (Clock == 2) {
        timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return std::int64_t(ts.tv_sec) * 10000000 + ts.tv_nsec / 100 + kFiletimeUnixEpoch;
    } else {
        timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return std::int64_t(ts.tv_sec) * 10000000 + ts.tv_nsec / 100;
    }
}

// Composes the record at p from the caller's header+payload image.
template <int Clock>
inline std::uint32_t compose(std::uint8_t *p, const std::uint8_t *ev, std::uint32_t tid, std::uint32_t pid) noexcept
{
    std::uint16_t size;
    std::memcpy(&size, ev, 2);
    std::memcpy(p, ev, 48);
    p[2] = 0x14; // HeaderType (64-bit full header)
    p[3] = 0xC0; // MarkerFlags
    std::memcpy(p + 8, &tid, 4);
    std::memcpy(p + 12, &pid, 4);
    const std::int64_t ts = clock_read<Clock>();
    std::memcpy(p + 16, &ts, 8);
    std::memcpy(p + 48, ev + 48, std::size_t(size) - 48);
    return (std::uint32_t(size) + 7u) & ~7u;
}

struct Ring {
    std::uint8_t *base = nullptr;
    std::size_t size = 0;
    std::size_t pos = 0;
    std::uint32_t tid = 0, pid = 0;
};
inline thread_local Ring t_ring;

inline void ring_init(std::size_t bytes)
{
    Ring &r = t_ring;
    r.base = static_cast<std::uint8_t *>(std::aligned_alloc(4096, bytes));
    std::memset(r.base, 0, bytes); // resident, as the session's reused buffers are
    r.size = bytes;
    r.pos = 0;
    r.tid = std::uint32_t(syscall(SYS_gettid));
    r.pid = std::uint32_t(getpid());
}

template <int Clock>
__attribute__((noinline)) bool floor_write(const std::uint8_t *ev) noexcept
{
    Ring &r = t_ring;
    std::uint16_t size;
    std::memcpy(&size, ev, 2);
    const std::size_t rec = (std::size_t(size) + 7u) & ~std::size_t(7);
    if (r.pos + rec > r.size)
        r.pos = 0;
    compose<Clock>(r.base + r.pos, ev, r.tid, r.pid);
    r.pos += rec;
    return true;
}

inline std::atomic<std::uint64_t> g_enabled{0};

__attribute__((noinline)) inline bool floor_disabled(const std::uint8_t *ev) noexcept
{
    if (g_enabled.load(std::memory_order_relaxed) == 0)
        return true;
    return floor_write<1>(ev);
}

// ---------------------------------------------------------------- pipeline

inline void futex_wake(std::atomic<std::uint32_t> *w)
{
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(w), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}
inline void futex_wait(std::atomic<std::uint32_t> *w, std::uint32_t seen, long timeout_ms)
{
    timespec ts{timeout_ms / 1000, (timeout_ms % 1000) * 1000000};
    syscall(SYS_futex, reinterpret_cast<std::uint32_t *>(w), FUTEX_WAIT_PRIVATE, seen, &ts, nullptr, 0);
}

class Pipeline {
public:
    static constexpr std::uint32_t kHeader = 0x48; // room for a buffer header, as in .etl buffers

    struct alignas(64) Stream {
        std::uint8_t *mem = nullptr;
        std::uint32_t nbuf = 0;
        std::vector<std::uint32_t> filled;
        alignas(64) std::atomic<std::uint64_t> produced{0}; // buffers handed to the flusher
        alignas(64) std::atomic<std::uint64_t> consumed{0}; // buffers written
        // Writer-local.
        alignas(64) std::uint64_t cur = 0;
        std::uint32_t fill = 0;
        bool have = false;
        std::uint64_t lost = 0, events = 0;
        std::uint32_t tid = 0, pid = 0;
    };

    // streams: writer threads; total_bytes split evenly; buffer size bs.
    bool open(const std::string &path, unsigned streams, std::uint32_t bs, std::uint64_t total_bytes,
              bool lossless = false)
    {
        lossless_ = lossless;
        fd_ = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0644);
        if (fd_ < 0)
            return false;
        bs_ = bs;
        streams_.clear();
        for (unsigned i = 0; i < streams; ++i)
            streams_.emplace_back(new Stream());
        for (auto &s : streams_) {
            s->nbuf = std::uint32_t(std::max<std::uint64_t>(2, total_bytes / bs / streams));
            s->mem = static_cast<std::uint8_t *>(std::aligned_alloc(4096, std::size_t(s->nbuf) * bs));
            std::memset(s->mem, 0, std::size_t(s->nbuf) * bs);
            s->filled.assign(s->nbuf, 0);
        }
        // A header buffer, as a log file starts with one.
        std::vector<std::uint8_t> hdr(bs, 0xFF);
        if (::write(fd_, hdr.data(), bs) != ssize_t(bs))
            return false;
        bytes_ = bs;
        flusher_ = std::thread([this] { flush_main(); });
        return true;
    }

    Stream &stream(unsigned i) { return *streams_[i]; }

    template <int Clock>
    bool write(Stream &s, const std::uint8_t *ev) noexcept
    {
        std::uint16_t size;
        std::memcpy(&size, ev, 2);
        const std::uint32_t rec = (std::uint32_t(size) + 7u) & ~7u;
        for (;;) {
            if (!s.have) {
                while (s.cur - s.consumed.load(std::memory_order_acquire) >= s.nbuf) {
                    if (!lossless_) {
                        ++s.lost;
                        return false;
                    }
                    // Lossless: sleep until the flusher has written a buffer.
                    const std::uint32_t seen = space_.load(std::memory_order_acquire);
                    space_waiters_.fetch_add(1, std::memory_order_seq_cst);
                    if (s.cur - s.consumed.load(std::memory_order_seq_cst) >= s.nbuf)
                        futex_wait(&space_, seen, 100);
                    space_waiters_.fetch_sub(1, std::memory_order_relaxed);
                }
                s.have = true;
                s.fill = kHeader;
            }
            if (s.fill + rec <= bs_)
                break;
            hand_off(s);
        }
        std::uint8_t *p = s.mem + std::size_t(s.cur % s.nbuf) * bs_ + s.fill;
        compose<Clock>(p, ev, s.tid, s.pid);
        s.fill += rec;
        ++s.events;
        return true;
    }

    // Writers call this when done; then close() from any thread.
    void finish_writer(Stream &s)
    {
        if (s.have && s.fill > kHeader)
            hand_off(s);
    }

    void close()
    {
        stop_.store(true, std::memory_order_release);
        wake_.fetch_add(1, std::memory_order_release);
        futex_wake(&wake_);
        if (flusher_.joinable())
            flusher_.join();
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
        for (auto &s : streams_)
            std::free(s->mem);
    }

    std::uint64_t bytes_written() const { return bytes_; }
    std::int64_t flusher_cpu_ns() const { return flusher_cpu_; }

private:
    void hand_off(Stream &s) noexcept
    {
        s.filled[s.cur % s.nbuf] = s.fill;
        s.cur++;
        s.produced.store(s.cur, std::memory_order_release);
        s.have = false;
        wake_.fetch_add(1, std::memory_order_release);
        futex_wake(&wake_);
    }

    void flush_main()
    {
        const std::int64_t c0 = thread_cpu_ns();
        for (;;) {
            const std::uint32_t seen = wake_.load(std::memory_order_acquire);
            bool any = false;
            for (auto &sp : streams_) {
                Stream &s = *sp;
                const std::uint64_t prod = s.produced.load(std::memory_order_acquire);
                for (std::uint64_t c = s.consumed.load(std::memory_order_relaxed); c < prod; ++c) {
                    std::uint8_t *b = s.mem + std::size_t(c % s.nbuf) * bs_;
                    const std::uint32_t filled = s.filled[c % s.nbuf];
                    std::memcpy(b, &bs_, 4);        // BufferSize
                    std::memcpy(b + 4, &filled, 4); // SavedOffset
                    std::memset(b + filled, 0xFF, bs_ - filled);
                    if (::write(fd_, b, bs_) == ssize_t(bs_))
                        bytes_ += bs_;
                    s.consumed.store(c + 1, std::memory_order_seq_cst);
                    any = true;
                    if (lossless_) {
                        space_.fetch_add(1, std::memory_order_seq_cst);
                        if (space_waiters_.load(std::memory_order_seq_cst) != 0)
                            futex_wake(&space_);
                    }
                }
            }
            if (any)
                continue;
            if (stop_.load(std::memory_order_acquire)) {
                bool pending = false;
                for (auto &sp : streams_)
                    pending = pending || sp->consumed.load() < sp->produced.load();
                if (!pending)
                    break;
                continue;
            }
            futex_wait(&wake_, seen, 1000);
        }
        flusher_cpu_ = thread_cpu_ns() - c0;
    }

    int fd_ = -1;
    bool lossless_ = false;
    std::uint32_t bs_ = 0;
    std::vector<std::unique_ptr<Stream>> streams_;
    std::thread flusher_;
    std::atomic<bool> stop_{false};
    std::atomic<std::uint32_t> wake_{0};
    std::atomic<std::uint32_t> space_{0}; // bumped per buffer written (lossless writers wait on it)
    std::atomic<std::uint32_t> space_waiters_{0};
    std::uint64_t bytes_ = 0;
    std::int64_t flusher_cpu_ = 0;
};

} // namespace bench::floor
