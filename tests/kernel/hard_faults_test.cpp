// HardFault's pairing (hard_faults.hpp): a major fault's end makes a read
// only with its own thread's start at the same address, counting the page
// cache fills of the fault's file in that thread between the two; what
// lacks a start, a file or a read is counted by why; the table is fixed
// (a thread whose slot another took loses its fault). The FileObject: the
// FileIo key of an open path, else a key of its own whose Name is due
// once. Samples laid out by the real filemap and exceptions formats
// (tracepoints/), and the major faults' perf sample.
#include "kernel/hard_faults.hpp"

#include "format/etl_layout.hpp"
#include "platform/perf_events.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <iterator>

using namespace openetw::kernel;

namespace {

constexpr std::uint32_t kDev = 0xFD00001; // fd:01
constexpr std::uint64_t kIno = 0x1234;

TracepointFormat load(const std::string &name)
{
    std::ifstream in(std::string(OPENETW_SOURCE_DIR) + "/tests/kernel/tracepoints/" + name);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    TracepointFormat f;
    EXPECT_TRUE(TracepointFormat::parse(text, &f)) << name;
    return f;
}

std::vector<std::uint8_t> raw_sample(const TracepointFormat &f,
                                     std::initializer_list<std::pair<const char *, std::uint64_t>> values)
{
    std::vector<std::uint8_t> raw(f.fixed_size(), 0);
    for (const auto &[name, v] : values) {
        const TracepointField *field = f.find(name);
        EXPECT_NE(field, nullptr) << name;
        if (field)
            for (std::uint32_t i = 0; i < field->size && i < 8; ++i)
                raw[field->offset + i] = std::uint8_t(v >> (8 * i));
    }
    return raw;
}

} // namespace

TEST(HardFaultPairing, AMajorFaultIsReadWithItsStartFilePageAndTheBytesItsThreadRead)
{
    HardFaultPairing p;
    p.entry(7, 1000, 0x7F0000003008);
    p.filemap_fault(7, kDev, kIno, 3);
    p.page_cache_add(7, kDev, kIno, 0); // one page
    p.page_cache_add(7, kDev, kIno, 2); // a folio of four
    const auto r = p.completed(70, 7, 5000, 0x7F0000003008);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->initial_ns, 1000u);
    EXPECT_EQ(r->end_ns, 5000u);
    EXPECT_EQ(r->pid, 70u);
    EXPECT_EQ(r->tid, 7u);
    EXPECT_EQ(r->address, 0x7F0000003008u);
    EXPECT_EQ(r->dev, kDev);
    EXPECT_EQ(r->ino, kIno);
    EXPECT_EQ(r->read_offset, 3u * 4096);
    EXPECT_EQ(r->bytes, 5u * 4096);
    EXPECT_EQ(p.counts().written, 1u);
    // Ended: the same end again has no start.
    EXPECT_FALSE(p.completed(70, 7, 6000, 0x7F0000003008));
    EXPECT_EQ(p.counts().unpaired, 1u);
}

TEST(HardFaultPairing, OnlyTheFaultsOwnFileInItsOwnThreadAfterItsStartCounts)
{
    HardFaultPairing p;
    p.page_cache_add(7, kDev, kIno, 4); // before the fault: a read() of the thread's
    p.entry(7, 1000, 0x5000);
    p.page_cache_add(7, kDev, kIno, 4);        // before the fault asked for a file
    p.filemap_fault(7, kDev, kIno, 9);         //
    p.filemap_fault(7, kDev, kIno + 1, 50);    // a retry of another file: the first counts
    p.page_cache_add(7, kDev, kIno + 1, 3);    // another file
    p.page_cache_add(7, kDev + 1, kIno, 3);    // another device's inode of that number
    p.page_cache_add(8, kDev, kIno, 3);        // another thread
    p.page_cache_add(7 + 4096, kDev, kIno, 3); // a thread of the same slot
    p.page_cache_add(7, kDev, kIno, 1);        // the fault's: two pages
    const auto r = p.completed(70, 7, 2000, 0x5000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->ino, kIno);
    EXPECT_EQ(r->read_offset, 9u * 4096);
    EXPECT_EQ(r->bytes, 2u * 4096);
}

TEST(HardFaultPairing, AnEndWithoutItsStartIsUnpaired)
{
    HardFaultPairing p;
    // No start at all.
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    // The start lost: the thread's last start was another fault (a minor one, at another address).
    p.entry(7, 1000, 0x9000);
    p.filemap_fault(7, kDev, kIno, 1);
    p.page_cache_add(7, kDev, kIno, 0);
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    // A start after the end (read out of order): not this fault's.
    p.entry(7, 3000, 0x5000);
    p.filemap_fault(7, kDev, kIno, 1);
    p.page_cache_add(7, kDev, kIno, 0);
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    // Another thread's start at the same address.
    p.entry(8, 1000, 0x6000);
    p.filemap_fault(8, kDev, kIno, 1);
    p.page_cache_add(8, kDev, kIno, 0);
    EXPECT_FALSE(p.completed(70, 9, 2000, 0x6000));
    EXPECT_EQ(p.counts().unpaired, 4u);
    EXPECT_EQ(p.counts().written, 0u);
}

TEST(HardFaultPairing, TheTableIsFixedAThreadWhoseSlotAnotherTookLosesItsFault)
{
    HardFaultPairing p;
    constexpr std::uint32_t kOther = 7 + std::uint32_t(HardFaultPairing::kSlots);
    p.entry(7, 1000, 0x5000);
    p.filemap_fault(7, kDev, kIno, 1);
    p.page_cache_add(7, kDev, kIno, 0);
    p.entry(kOther, 1100, 0x5000); // the same slot
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    EXPECT_EQ(p.counts().unpaired, 1u);
    // The newcomer's fault is its own.
    p.filemap_fault(kOther, kDev, kIno, 2);
    p.page_cache_add(kOther, kDev, kIno, 0);
    const auto r = p.completed(71, kOther, 2100, 0x5000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->read_offset, 2u * 4096);
    EXPECT_EQ(r->initial_ns, 1100u);
    // Many threads: each fault still pairs, whatever came before.
    for (std::uint32_t t = 1; t < 3 * HardFaultPairing::kSlots; t += 97) {
        p.entry(t, t * 10, 0x1000 + t);
        p.filemap_fault(t, kDev, kIno, t);
        p.page_cache_add(t, kDev, kIno, 0);
        ASSERT_TRUE(p.completed(1, t, t * 10 + 5, 0x1000 + t)) << t;
    }
}

TEST(HardFaultPairing, MajorFaultsWithoutAFileOrThatReadNothingAreCountedNotWritten)
{
    HardFaultPairing p;
    // Swap-in: no filemap_fault in it.
    p.entry(7, 1000, 0x5000);
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    EXPECT_EQ(p.counts().no_file, 1u);
    // Waited for a read another thread began: its file page, no fill of its own.
    p.entry(7, 3000, 0x5000);
    p.filemap_fault(7, kDev, kIno, 1);
    p.page_cache_add(8, kDev, kIno, 0); // the reader's
    EXPECT_FALSE(p.completed(70, 7, 4000, 0x5000));
    EXPECT_EQ(p.counts().no_read, 1u);
    EXPECT_EQ(p.counts().written, 0u);
    EXPECT_EQ(p.counts().unpaired, 0u);
}

TEST(HardFaultPairing, SamplesAreSettledInTimeOrderUpToTheDrainsHorizon)
{
    const TracepointFormat user = load("page_fault_user.format");
    const TracepointFormat fault = load("mm_filemap_fault.format");
    const TracepointFormat add = load("mm_filemap_add_to_page_cache.format");
    HardFaultPairing p;
    const auto at = [](std::uint32_t tid, std::uint64_t time, std::span<const std::uint8_t> raw) {
        TracepointSample s;
        s.pid = 70;
        s.tid = tid;
        s.cpu = 1;
        s.time = time;
        s.raw = raw;
        return s;
    };
    const auto e = raw_sample(user, {{"address", 0x7F0000002010}, {"ip", 0x401000}, {"error_code", 0x4}});
    const auto f = raw_sample(fault, {{"s_dev", kDev}, {"i_ino", kIno}, {"index", 2}});
    const auto a = raw_sample(add, {{"s_dev", kDev}, {"i_ino", kIno}, {"index", 0}, {"order", 3}, {"pfn", 99}});
    std::vector<HardFaultPairing::Ended> ended;
    const auto keep = [&](HardFaultPairing::Ended &&x) { ended.push_back(std::move(x)); };
    // One drain read the file page and fill (their rings read after the
    // fault began) but not the start (its ring read before): nothing is
    // applied past the horizon, the drain's start less its margin.
    ASSERT_TRUE(p.on_filemap_fault(fault, at(7, 1100, f)));
    ASSERT_TRUE(p.on_page_cache_add(add, at(7, 1200, a)));
    p.settle(900, keep);
    EXPECT_EQ(p.queued(), 2u);
    // The next drain brings the start and the end: settled in time order.
    TracepointSample major = at(7, 3000, {});
    major.addr = 0x7F0000002010;
    const std::uint64_t frames[] = {0x401000, 0x402000};
    major.frames = frames;
    p.on_major_fault(major);
    ASSERT_TRUE(p.on_entry(user, at(7, 1000, e)));
    p.settle(2000, keep);
    EXPECT_TRUE(ended.empty()) << "the end is past the horizon";
    EXPECT_EQ(p.queued(), 1u);
    p.settle(UINT64_MAX, keep);
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(p.queued(), 0u);
    const HardFaultRead &r = ended[0].read;
    EXPECT_EQ(r.initial_ns, 1000u);
    EXPECT_EQ(r.end_ns, 3000u);
    EXPECT_EQ(r.read_offset, 2u * 4096);
    EXPECT_EQ(r.bytes, 8u * 4096);
    EXPECT_EQ(r.dev, kDev);
    EXPECT_EQ(r.ino, kIno);
    EXPECT_EQ(ended[0].cpu, 1u);
    EXPECT_EQ(ended[0].frames, (std::vector<std::uint64_t>{0x401000, 0x402000}));
    // Cut short: refused, nothing queued.
    const std::vector<std::uint8_t> cut(a.begin(), a.begin() + 20);
    EXPECT_FALSE(p.on_page_cache_add(add, at(7, 1300, cut)));
    EXPECT_FALSE(p.on_filemap_fault(fault, at(7, 1300, std::span(f.data(), 12))));
    EXPECT_FALSE(p.on_entry(user, at(7, 1300, std::span(e.data(), 8))));
    EXPECT_EQ(p.queued(), 0u);
}

TEST(HardFaultSample, TheMajorFaultsSampleCarriesTheAddressAfterTheTime)
{
    // header 8; pid, tid; time; addr; cpu, res; then the call chain.
    std::vector<std::uint8_t> r(40, 0);
    const auto put = [&](std::size_t at, std::uint64_t v, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i)
            r[at + i] = std::uint8_t(v >> (8 * i));
    };
    put(0, openetw::platform::kPerfRecordSample, 4);
    put(6, 40, 2);
    put(8, 100, 4);
    put(12, 101, 4);
    put(16, 0x1122334455, 8);
    put(24, 0x7F0000002010, 8);
    put(32, 1, 4);
    TracepointSample t;
    std::vector<std::uint64_t> frames;
    ASSERT_TRUE(parse_major_fault_sample(r, false, &t, &frames));
    EXPECT_EQ(t.pid, 100u);
    EXPECT_EQ(t.tid, 101u);
    EXPECT_EQ(t.time, 0x1122334455u);
    EXPECT_EQ(t.addr, 0x7F0000002010u);
    EXPECT_EQ(t.cpu, 1u);
    EXPECT_TRUE(t.raw.empty());
    EXPECT_TRUE(t.frames.empty());
    // With its chain: nr, then the frames (context markers dropped).
    for (std::uint64_t v : {std::uint64_t(2), std::uint64_t(-512), std::uint64_t(0x401234)})
        for (int b = 0; b < 8; ++b)
            r.push_back(std::uint8_t(v >> (8 * b)));
    put(6, r.size(), 2);
    ASSERT_TRUE(parse_major_fault_sample(r, true, &t, &frames));
    EXPECT_EQ(std::vector<std::uint64_t>(t.frames.begin(), t.frames.end()), std::vector<std::uint64_t>{0x401234});
    // Cut short, or not a sample: refused.
    EXPECT_FALSE(parse_major_fault_sample(std::span(r.data(), 32), false, &t, &frames));
    EXPECT_FALSE(parse_major_fault_sample(std::span(r.data(), 48), true, &t, &frames));
    put(0, openetw::platform::kPerfRecordLost, 4);
    EXPECT_FALSE(parse_major_fault_sample(r, false, &t, &frames));
}

TEST(HardFaultFiles, AnOpenPathsFileIoKeyElseAKeyOfItsOwnNamedOnce)
{
    int lookups = 0;
    std::map<std::string, std::uint64_t> open; // FileIo's held keys
    HardFaultFiles files(
        [&](std::uint32_t pid, std::uint64_t address, std::uint32_t dev, std::uint64_t ino, std::string *path) {
            ++lookups;
            EXPECT_EQ(pid, 70u);
            EXPECT_EQ(address, 0x5000u);
            EXPECT_EQ(dev, kDev);
            if (ino == 1)
                *path = "/data/one";
            else if (ino == 2)
                *path = "/data/two";
            return ino == 1 || ino == 2;
        },
        [&](const std::string &path) {
            const auto k = open.find(path);
            return k != open.end() ? k->second : std::uint64_t(0);
        });
    open["/data/one"] = 0x10040;
    // Held open: FileIo's key, no Name of its own.
    HardFaultFiles::Key k = files.key_of(70, 0x5000, kDev, 1);
    EXPECT_EQ(k.file_object, 0x10040u);
    EXPECT_FALSE(k.new_name);
    EXPECT_EQ(k.path, "/data/one");
    // Not held: a key of its own, its Name due once.
    k = files.key_of(70, 0x5000, kDev, 2);
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase);
    EXPECT_TRUE(k.new_name);
    EXPECT_EQ(k.path, "/data/two");
    k = files.key_of(70, 0x5000, kDev, 2);
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase);
    EXPECT_FALSE(k.new_name);
    // The open file closed: its own key from then on, named.
    open.clear();
    k = files.key_of(70, 0x5000, kDev, 1);
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase + HardFaultFiles::kKeyStep);
    EXPECT_TRUE(k.new_name);
    // Reopened: FileIo's (new) key again.
    open["/data/one"] = 0x10400;
    EXPECT_EQ(files.key_of(70, 0x5000, kDev, 1).file_object, 0x10400u);
    // No path (the process gone): a key of its own, no Name (nothing to name it by).
    k = files.key_of(70, 0x5000, kDev, 3);
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase + 2 * HardFaultFiles::kKeyStep);
    EXPECT_FALSE(k.new_name);
    // Each file's mapping was looked up once.
    EXPECT_EQ(lookups, 3);
    // Bounded: past kMaxFiles the table starts over.
    for (std::uint64_t ino = 10; ino < 10 + HardFaultFiles::kMaxFiles + 5; ++ino)
        (void)files.key_of(70, 0x5000, kDev, ino);
    EXPECT_LE(files.size(), HardFaultFiles::kMaxFiles);
}
