// Memory of reading in time order stays bounded whatever a file claims: a
// compression bomb (each processor stream one tiny compressed buffer that
// expands to 16 MiB of records) must not cost 16 MiB per stream. The heap is
// measured by counting every operator new of this program, so the bound
// holds the same in every build, sanitizers included. (Under clang's
// ThreadSanitizer, whose static runtime defines operator new itself, the
// runtime's allocation hooks count every allocation instead.)
// usage: reader_memory_test
#include "consumer/consumer.hpp"
#include "platform/file_input.hpp"
#include "etl_builder.hpp"

#include <openetw/openetw.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>

namespace {

std::atomic<std::size_t> g_live{0}, g_peak{0};

void count_live(std::size_t live)
{
    std::size_t peak = g_peak.load();
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) {
    }
}

} // namespace

#if defined(__clang__) && defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OPENETW_COUNT_BY_HOOKS 1
#endif
#endif

#ifdef OPENETW_COUNT_BY_HOOKS
#include <sanitizer/allocator_interface.h>

namespace {

void on_malloc(const volatile void *, std::size_t n) { count_live(g_live.fetch_add(n) + n); }
void on_free(const volatile void *p) { g_live.fetch_sub(__sanitizer_get_allocated_size(p)); }
// Installed before main, as operator new replaces before any allocation.
[[maybe_unused]] const int g_hooks = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);

} // namespace
#else
namespace {

constexpr std::size_t kHead = 16; // keeps the alignment of malloc

void *counted_alloc(std::size_t n)
{
    void *p = std::malloc(n + kHead);
    if (!p)
        throw std::bad_alloc();
    *static_cast<std::size_t *>(p) = n;
    count_live(g_live.fetch_add(n) + n);
    return static_cast<char *>(p) + kHead;
}

void counted_free(void *p) noexcept
{
    if (!p)
        return;
    char *block = static_cast<char *>(p) - kHead;
    g_live.fetch_sub(*reinterpret_cast<std::size_t *>(block));
    std::free(block);
}

} // namespace

void *operator new(std::size_t n) { return counted_alloc(n); }
void *operator new[](std::size_t n) { return counted_alloc(n); }
void operator delete(void *p) noexcept { counted_free(p); }
void operator delete[](void *p) noexcept { counted_free(p); }
void operator delete(void *p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void *p, std::size_t) noexcept { counted_free(p); }
// The nothrow forms too (std::stable_sort's buffer uses them): a sanitizer
// runtime would otherwise serve them without the size header.
void *operator new(std::size_t n, const std::nothrow_t &) noexcept
{
    try {
        return counted_alloc(n);
    } catch (...) {
        return nullptr;
    }
}
void *operator new[](std::size_t n, const std::nothrow_t &t) noexcept { return operator new(n, t); }
void operator delete(void *p, const std::nothrow_t &) noexcept { counted_free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { counted_free(p); }
#endif

namespace {

using etltest::Bytes;
namespace cons = openetw::consumer;

constexpr std::uint32_t kClaimed = 16u << 20; // the session BufferSize the header claims
constexpr std::uint32_t kRecord = 48;
constexpr std::uint32_t kPayload = kRecord * ((kClaimed - 0x48) / kRecord); // decompressed record bytes
constexpr int kStreams = 24;

void put16(Bytes &b, std::size_t at, std::uint16_t v)
{
    b[at] = std::uint8_t(v);
    b[at + 1] = std::uint8_t(v >> 8);
}
void put32(Bytes &b, std::size_t at, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        b[at + i] = std::uint8_t(v >> (8 * i));
}

// One EVENT_TRACE_HEADER-sized FULL record (0x30 bytes).
Bytes full_record()
{
    Bytes r(kRecord, 0);
    put16(r, 0, kRecord);
    r[2] = 0x14;
    r[3] = 0xC0;
    r[4] = 10;
    r[5] = 4;
    put32(r, 8, 1);
    put32(r, 12, 2);
    put32(r, 16, 1000);
    for (int i = 0; i < 16; ++i)
        r[24 + i] = std::uint8_t(i);
    return r;
}

// XPRESS (plain LZ77): the record as 48 literals, then one match at distance
// 48 repeating it to kPayload bytes.
Bytes bomb_stream()
{
    const Bytes rec = full_record();
    Bytes out(4, 0); // flags: 32 literals
    out.insert(out.end(), rec.begin(), rec.begin() + 32);
    Bytes flags(4, 0);
    put32(flags, 0, 1u << 15); // 16 literals, then a match
    out.insert(out.end(), flags.begin(), flags.end());
    out.insert(out.end(), rec.begin() + 32, rec.end());
    const std::uint32_t length = kPayload - kRecord;
    Bytes match(10, 0);
    put16(match, 0, std::uint16_t(((kRecord - 1) << 3) | 7)); // distance 48, length 7 = more follows
    match[2] = 0x0F;                                          // nibble 15: more follows
    match[3] = 0xFF;                                          // 255: a 16-bit length follows
    put16(match, 4, 0);                                       // 0: a 32-bit length follows
    put32(match, 6, length - 3);
    out.insert(out.end(), match.begin(), match.end());
    return out;
}

Bytes bomb_file()
{
    etltest::LogfileSpec spec;
    spec.mode = 0x04000000; // COMPRESSED_MODE
    spec.processors = kStreams;
    spec.buffers_written = 1 + kStreams;
    etltest::FileBuilder f(spec);
    Bytes file = f.build();
    put32(file, 0x48 + 0x20 + 0x00, kClaimed); // TRACE_LOGFILE_HEADER.BufferSize
    const Bytes packed = bomb_stream();
    for (int i = 0; i < kStreams; ++i) {
        Bytes b(0x48, 0);
        put32(b, 0x00, std::uint32_t(0x48 + packed.size())); // BufferSize as stored
        put32(b, 0x04, 0x48 + kPayload);                     // SavedOffset
        put32(b, 0x08, 0x48 + kPayload);                     // Offset: the decompressed size
        put32(b, 0x18, 1);                                   // SequenceNumber
        put16(b, 0x28, std::uint16_t(i));                    // ProcessorIndex: one stream each
        put16(b, 0x2A, 1);
        put32(b, 0x2C, 3);
        put32(b, 0x30, 0x48 + kPayload);
        put16(b, 0x34, 0x40 | 0x20); // COMPRESSED | PROC_INDEX
        b.insert(b.end(), packed.begin(), packed.end());
        file.insert(file.end(), b.begin(), b.end());
    }
    return file;
}

std::uint64_t g_records = 0;
std::int32_t count_record(void *, const etw_record *)
{
    ++g_records;
    return 0;
}

int fail(const char *what, unsigned long long a, unsigned long long b)
{
    std::fprintf(stderr, "reader_memory_test: %s (%llu, %llu)\n", what, a, b);
    return 1;
}

} // namespace

int main()
{
    const Bytes file = bomb_file();
    etw_consumer_options options{};
    options.struct_size = sizeof options;
    options.record = count_record; // time order: the default
    auto owner = std::make_unique<cons::Consumer>(options);
    if (!owner->add_input("bomb.etl", openetw::platform::memory_input(file)))
        return fail("add_input", 0, 0);
    const std::size_t before = g_live.load();
    g_peak.store(before);
    const openetw::Status st = owner->process();
    const std::size_t peak = g_peak.load() - before;
    const std::uint64_t expected = 1 + std::uint64_t(kStreams) * (kPayload / kRecord); // + the logfile header
    std::printf("%d streams of %u claimed bytes: %llu records, status %u, peak heap %.1f MiB\n", kStreams, kClaimed,
                (unsigned long long)g_records, unsigned(st.code), double(peak) / (1 << 20));
    if (!st)
        return fail("processing failed", st.code, 0);
    if (g_records != expected)
        return fail("records delivered / expected", g_records, expected);
    // The images of 4 streams (the budget) and one being made, plus change;
    // one image per stream would be 24 x 16 MiB.
    constexpr std::size_t kBound = std::size_t(128) << 20;
    if (peak > kBound)
        return fail("peak heap bytes / bound", peak, kBound);
    return 0;
}
