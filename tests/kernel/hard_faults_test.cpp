// HardFault's pairing (hard_faults.hpp): a major fault's end makes a read
// with its thread's latest file fault start not yet used (a file fault of
// another page replaces it, one of the same page is a retry and keeps it),
// counting the page cache fills of the start's file in that thread between
// the two; the check of the address's mapping refuses a pair of another
// file or page, or of no file; what lacks a start, a file or a read is
// counted by why; the table is fixed (a thread whose slot another took
// loses its start). The check reads a process's mappings again only when
// its kept ones disagree. The FileObject: the FileIo key of an open path,
// else a key of its own whose Name is due once. Samples laid out by the
// real filemap formats (tracepoints/), and the major faults' perf sample.
// The flag opens no exceptions:* tracepoint (MEMORY_PAGE_FAULTS does).
#include "kernel/hard_faults.hpp"
#include "tracepoint_fixtures.hpp"

#include "format/etl_layout.hpp"
#include "kernel/logger_tracepoints.hpp"
#include "platform/perf_events.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <iterator>
#include <tuple>

using namespace openetw::kernel;

namespace {

constexpr std::uint32_t kDev = 0xFD00001; // fd:01
constexpr std::uint64_t kIno = 0x1234;

} // namespace

TEST(HardFaultPairing, AMajorFaultIsReadWithItsStartFilePageAndTheBytesItsThreadRead)
{
    HardFaultPairing p;
    p.filemap_fault(7, 1000, kDev, kIno, 3);
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
    EXPECT_TRUE(r->path.empty()) << "unchecked";
    EXPECT_EQ(p.counts().written, 1u);
    // A start pairs once: the next end of the thread has none (a swap-in's).
    EXPECT_FALSE(p.completed(70, 7, 6000, 0x7F0000003008));
    EXPECT_EQ(p.counts().no_file, 1u);
    EXPECT_EQ(p.counts().written, 1u);
}

TEST(HardFaultPairing, OnlyTheStartsFileInItsOwnThreadAfterItsStartCounts)
{
    HardFaultPairing p;
    p.page_cache_add(7, kDev, kIno, 4); // before the fault: a read() of the thread's
    p.filemap_fault(7, 1000, kDev, kIno, 9);
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

TEST(HardFaultPairing, AFileFaultOfAnotherPageReplacesTheStartOneOfTheSamePageIsItsRetry)
{
    HardFaultPairing p;
    // A minor file fault: its start stays, no end comes.
    p.filemap_fault(7, 1000, kDev, kIno, 1);
    p.page_cache_add(7, kDev, kIno, 0); // a read() of the thread's after it
    // The next file fault, of another page (of the same file), replaces it:
    // its own start and bytes only.
    p.filemap_fault(7, 3000, kDev, kIno, 5);
    p.page_cache_add(7, kDev, kIno, 0);
    // It retried (the mmap lock dropped for the read): its page asked again,
    // the start and the bytes read before the retry stay.
    p.filemap_fault(7, 4000, kDev, kIno, 5);
    const auto r = p.completed(70, 7, 5000, 0x5000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->initial_ns, 3000u);
    EXPECT_EQ(r->read_offset, 5u * 4096);
    EXPECT_EQ(r->bytes, 4096u);
    // Another file's page replaces too.
    p.filemap_fault(7, 6000, kDev, kIno, 5);
    p.filemap_fault(7, 6100, kDev, kIno + 1, 5);
    p.page_cache_add(7, kDev, kIno, 0);
    p.page_cache_add(7, kDev, kIno + 1, 0);
    const auto o = p.completed(70, 7, 7000, 0x5000);
    ASSERT_TRUE(o);
    EXPECT_EQ(o->ino, kIno + 1);
    EXPECT_EQ(o->initial_ns, 6100u);
    EXPECT_EQ(o->bytes, 4096u);
    // Once used, the same page is a new fault's start, not a retry.
    p.filemap_fault(7, 8000, kDev, kIno + 1, 5);
    p.page_cache_add(7, kDev, kIno + 1, 1);
    const auto n = p.completed(70, 7, 9000, 0x5000);
    ASSERT_TRUE(n);
    EXPECT_EQ(n->initial_ns, 8000u);
    EXPECT_EQ(n->bytes, 2u * 4096);
    EXPECT_EQ(p.counts().written, 3u);
}

TEST(HardFaultPairing, AnEndWithoutItsThreadsStartIsNotWritten)
{
    HardFaultPairing p;
    // No start at all (a swap-in: no file fault).
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    EXPECT_EQ(p.counts().no_file, 1u);
    // A start after the end (applied out of order): a later fault's, kept for it.
    p.filemap_fault(7, 3000, kDev, kIno, 1);
    p.page_cache_add(7, kDev, kIno, 0);
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    EXPECT_EQ(p.counts().unpaired, 1u);
    ASSERT_TRUE(p.completed(70, 7, 3500, 0x5000));
    // Another thread's start.
    p.filemap_fault(8, 4000, kDev, kIno, 1);
    p.page_cache_add(8, kDev, kIno, 0);
    EXPECT_FALSE(p.completed(70, 9, 5000, 0x6000));
    EXPECT_EQ(p.counts().no_file, 2u);
    EXPECT_EQ(p.counts().written, 1u);
}

TEST(HardFaultPairing, TheTableIsFixedAThreadWhoseSlotAnotherTookLosesItsStart)
{
    HardFaultPairing p;
    constexpr std::uint32_t kOther = 7 + std::uint32_t(HardFaultPairing::kSlots);
    p.filemap_fault(7, 1000, kDev, kIno, 1);
    p.page_cache_add(7, kDev, kIno, 0);
    p.filemap_fault(kOther, 1100, kDev, kIno, 2); // the same slot
    EXPECT_FALSE(p.completed(70, 7, 2000, 0x5000));
    EXPECT_EQ(p.counts().unpaired, 1u);
    // The newcomer's fault is its own.
    p.page_cache_add(kOther, kDev, kIno, 0);
    const auto r = p.completed(71, kOther, 2100, 0x5000);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->read_offset, 2u * 4096);
    EXPECT_EQ(r->initial_ns, 1100u);
    // Many threads: each fault still pairs, whatever came before.
    for (std::uint32_t t = 1; t < 3 * HardFaultPairing::kSlots; t += 97) {
        p.filemap_fault(t, t * 10, kDev, kIno, t);
        p.page_cache_add(t, kDev, kIno, 0);
        ASSERT_TRUE(p.completed(1, t, t * 10 + 5, 0x1000 + t)) << t;
    }
}

TEST(HardFaultPairing, MajorFaultsThatReadNothingAreCountedNotWritten)
{
    HardFaultPairing p;
    // Waited for a read another thread began: its file page, no fill of its own.
    p.filemap_fault(7, 3000, kDev, kIno, 1);
    p.page_cache_add(8, kDev, kIno, 0); // the reader's
    EXPECT_FALSE(p.completed(70, 7, 4000, 0x5000));
    EXPECT_EQ(p.counts().no_read, 1u);
    EXPECT_EQ(p.counts().written, 0u);
    EXPECT_EQ(p.counts().unpaired, 0u);
    EXPECT_EQ(p.counts().no_file, 0u);
}

TEST(HardFaultPairing, ThePairIsCheckedAgainstThePageTheAddressMaps)
{
    // The address's page as the mappings show it: 0x5000 maps page 1 of
    // kIno, 0x9000 an anonymous page, 0xA000 nothing the process still maps.
    std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> asked; // address, ino, index
    HardFaultPairing p(
        12, [&](std::uint32_t pid, std::uint64_t address, std::uint64_t ino, std::uint64_t index, std::string *path) {
            EXPECT_EQ(pid, 70u);
            asked.emplace_back(address, ino, index);
            if (address == 0x9000)
                return MappedPage::NoFile;
            if (address == 0xA000)
                return MappedPage::Unknown;
            if (ino != kIno || index != 1)
                return MappedPage::Other;
            *path = "/data/one";
            return MappedPage::Same;
        });
    const auto fault = [&](std::uint64_t time, std::uint64_t ino, std::uint64_t index) {
        p.filemap_fault(7, time, kDev, ino, index);
        p.page_cache_add(7, kDev, ino, 0);
    };
    // The start of the page the address maps: written, with the mapping's path.
    fault(1000, kIno, 1);
    auto r = p.completed(70, 7, 1500, 0x5008);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->path, "/data/one");
    // A start of another page (the end's own start lost after a minor
    // fault's): refused, the start used.
    fault(2000, kIno, 2);
    EXPECT_FALSE(p.completed(70, 7, 2500, 0x5008));
    EXPECT_EQ(p.counts().unpaired, 1u);
    EXPECT_FALSE(p.completed(70, 7, 2600, 0x5008));
    EXPECT_EQ(p.counts().no_file, 1u);
    // ... or of another file.
    fault(3000, kIno + 1, 1);
    EXPECT_FALSE(p.completed(70, 7, 3500, 0x5008));
    EXPECT_EQ(p.counts().unpaired, 2u);
    // A swap-in paired with a minor file fault's start: no file at the address.
    fault(4000, kIno, 1);
    EXPECT_FALSE(p.completed(70, 7, 4500, 0x9000));
    EXPECT_EQ(p.counts().no_file, 2u);
    // Unmapped since: unchecked, written.
    fault(5000, kIno, 7);
    r = p.completed(70, 7, 5500, 0xA000);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->path.empty());
    EXPECT_EQ(r->read_offset, 7u * 4096);
    EXPECT_EQ(p.counts().written, 2u);
    // A pair that read nothing is not checked (no record either way).
    p.filemap_fault(7, 6000, kDev, kIno, 1);
    EXPECT_FALSE(p.completed(70, 7, 6500, 0x5008));
    using A = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>;
    EXPECT_EQ(asked, (std::vector<A>{A{0x5008, kIno, 1}, A{0x5008, kIno, 2}, A{0x5008, kIno + 1, 1}, A{0x9000, kIno, 1},
                                     A{0xA000, kIno, 7}}));
}

TEST(HardFaultPairing, SamplesAreSettledInTimeOrderUpToTheDrainsHorizon)
{
    const TracepointFormat fault = kerneltest::load_format("mm_filemap_fault.format");
    const TracepointFormat add = kerneltest::load_format("mm_filemap_add_to_page_cache.format");
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
    const auto f = kerneltest::raw_sample(fault, {{"s_dev", kDev}, {"i_ino", kIno}, {"index", 2}});
    const auto a =
        kerneltest::raw_sample(add, {{"s_dev", kDev}, {"i_ino", kIno}, {"index", 0}, {"order", 3}, {"pfn", 99}});
    std::vector<HardFaultPairing::Ended> ended;
    const auto keep = [&](HardFaultPairing::Ended &&x) { ended.push_back(std::move(x)); };
    // One drain read the fill (its ring read after the fault began) but not
    // the start (its ring read before): nothing is applied past the
    // horizon, the drain's start less its margin.
    ASSERT_TRUE(p.on_page_cache_add(add, at(7, 1200, a)));
    p.settle(900, keep);
    EXPECT_EQ(p.queued(), 1u);
    // The next drain brings the start and the end: settled in time order.
    TracepointSample major = at(7, 3000, {});
    major.addr = 0x7F0000002010;
    const std::uint64_t frames[] = {0x401000, 0x402000};
    major.frames = frames;
    p.on_major_fault(major);
    ASSERT_TRUE(p.on_filemap_fault(fault, at(7, 1100, f)));
    p.settle(2000, keep);
    EXPECT_TRUE(ended.empty()) << "the end is past the horizon";
    EXPECT_EQ(p.queued(), 1u);
    p.settle(UINT64_MAX, keep);
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(p.queued(), 0u);
    const HardFaultRead &r = ended[0].read;
    EXPECT_EQ(r.initial_ns, 1100u);
    EXPECT_EQ(r.end_ns, 3000u);
    EXPECT_EQ(r.address, 0x7F0000002010u);
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
    EXPECT_EQ(p.queued(), 0u);
}

TEST(HardFaultTracepoints, HardFaultsOpenTheFileFaultsNotEveryFaultsExceptions)
{
    const auto names = [](std::uint32_t flags) {
        std::vector<std::string> out;
        for (const TracepointName &n : tracepoints_for(flags, StackEvents{}).names)
            out.push_back(n.system + ":" + n.name);
        return out;
    };
    const std::vector<std::string> hard = names(ETW_FLAG_MEMORY_HARD_FAULTS);
    EXPECT_EQ(hard, (std::vector<std::string>{"filemap:mm_filemap_fault", "filemap:mm_filemap_add_to_page_cache",
                                              "perf:major-faults"}));
    // MEMORY_PAGE_FAULTS' records still come from them.
    const std::vector<std::string> both = names(ETW_FLAG_MEMORY_HARD_FAULTS | ETW_FLAG_MEMORY_PAGE_FAULTS);
    EXPECT_EQ(std::count(both.begin(), both.end(), "exceptions:page_fault_user"), 1);
    EXPECT_EQ(std::count(both.begin(), both.end(), "exceptions:page_fault_kernel"), 1);
    EXPECT_EQ(both.size(), hard.size() + 2);
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

TEST(HardFaultFiles, TheCheckReadsTheAddressesPageFromTheMappingsReadAgainOnlyWhenTheyDisagree)
{
    // Process 70 maps kIno's pages 16.. at 0x10000 and has an anonymous
    // mapping at 0x40000; process 71 maps another file.
    int reads = 0;
    std::map<std::uint32_t, std::vector<HardFaultMapping>> now;
    now[70] = {{0x40000, 0x50000, 0, 0, ""}, {0x10000, 0x20000, 16 * 4096, kIno, "/data/one"}};
    now[71] = {{0x10000, 0x20000, 0, kIno + 1, "/data/two"}};
    HardFaultFiles files(
        [&](std::uint32_t pid, std::vector<HardFaultMapping> *maps) {
            ++reads;
            const auto m = now.find(pid);
            if (m == now.end())
                return false;
            *maps = m->second;
            return true;
        },
        {});
    std::string path;
    EXPECT_EQ(files.check(70, 0x13008, kIno, 19, &path), MappedPage::Same);
    EXPECT_EQ(path, "/data/one");
    EXPECT_EQ(reads, 1);
    // The kept mappings agree: not read again.
    EXPECT_EQ(files.check(70, 0x10000, kIno, 16, &path), MappedPage::Same);
    EXPECT_EQ(files.check(70, 0x1FFFF, kIno, 31, &path), MappedPage::Same);
    EXPECT_EQ(reads, 1);
    // Another page, another file, no file: read again to be sure, then refused.
    path.clear();
    EXPECT_EQ(files.check(70, 0x13008, kIno, 18, &path), MappedPage::Other);
    EXPECT_EQ(reads, 2);
    EXPECT_EQ(files.check(70, 0x13008, kIno + 1, 19, &path), MappedPage::Other);
    EXPECT_EQ(files.check(70, 0x40010, kIno, 19, &path), MappedPage::NoFile);
    EXPECT_EQ(reads, 4);
    EXPECT_TRUE(path.empty());
    // A mapping changed since they were kept: the fresh read decides.
    now[70][1] = {0x10000, 0x20000, 0, kIno + 2, "/data/three"};
    EXPECT_EQ(files.check(70, 0x13008, kIno + 2, 3, &path), MappedPage::Same);
    EXPECT_EQ(path, "/data/three");
    EXPECT_EQ(reads, 5);
    // Made since (not in the kept ones): read again.
    now[70].push_back({0x60000, 0x61000, 0, kIno, "/data/one"});
    EXPECT_EQ(files.check(70, 0x60000, kIno, 0, &path), MappedPage::Same);
    EXPECT_EQ(reads, 6);
    // Each process its own.
    EXPECT_EQ(files.check(71, 0x13008, kIno + 1, 3, &path), MappedPage::Same);
    EXPECT_EQ(path, "/data/two");
    // Unmapped, or the process gone: unknown.
    EXPECT_EQ(files.check(71, 0x90000, kIno + 1, 3, &path), MappedPage::Unknown);
    EXPECT_EQ(files.check(72, 0x13008, kIno, 3, &path), MappedPage::Unknown);
    // Bounded: past kMaxProcesses the kept mappings start over.
    for (std::uint32_t pid = 100; pid < 100 + HardFaultFiles::kMaxProcesses + 5; ++pid) {
        now[pid] = {{0x10000, 0x20000, 0, kIno, "/data/one"}};
        EXPECT_EQ(files.check(pid, 0x10000, kIno, 0, &path), MappedPage::Same);
    }
    EXPECT_LE(files.processes(), HardFaultFiles::kMaxProcesses);
}

TEST(HardFaultFiles, AnOpenPathsFileIoKeyElseAKeyOfItsOwnNamedOnce)
{
    std::map<std::string, std::uint64_t> open; // FileIo's held keys
    HardFaultFiles files(HardFaultFiles::ReadMappings{}, [&](const std::string &path) {
        const auto k = open.find(path);
        return k != open.end() ? k->second : std::uint64_t(0);
    });
    open["/data/one"] = 0x10040;
    // Held open: FileIo's key, no Name of its own.
    HardFaultFiles::Key k = files.key_of(kDev, 1, "/data/one");
    EXPECT_EQ(k.file_object, 0x10040u);
    EXPECT_FALSE(k.new_name);
    EXPECT_EQ(k.path, "/data/one");
    // Not held: a key of its own, its Name due once.
    k = files.key_of(kDev, 2, "/data/two");
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase);
    EXPECT_TRUE(k.new_name);
    EXPECT_EQ(k.path, "/data/two");
    k = files.key_of(kDev, 2, "/data/two");
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase);
    EXPECT_FALSE(k.new_name);
    // A fault unchecked (no path given) of a known file: the file's path.
    k = files.key_of(kDev, 2, "");
    EXPECT_EQ(k.path, "/data/two");
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase);
    // The open file closed: its own key from then on, named.
    open.clear();
    k = files.key_of(kDev, 1, "/data/one");
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase + HardFaultFiles::kKeyStep);
    EXPECT_TRUE(k.new_name);
    // Reopened: FileIo's (new) key again.
    open["/data/one"] = 0x10400;
    EXPECT_EQ(files.key_of(kDev, 1, "/data/one").file_object, 0x10400u);
    // No path (the process gone): a key of its own, no Name (nothing to
    // name it by) until a later fault's check gives the path.
    k = files.key_of(kDev, 3, "");
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase + 2 * HardFaultFiles::kKeyStep);
    EXPECT_FALSE(k.new_name);
    k = files.key_of(kDev, 3, "/data/three");
    EXPECT_EQ(k.file_object, HardFaultFiles::kOwnKeyBase + 2 * HardFaultFiles::kKeyStep);
    EXPECT_TRUE(k.new_name);
    EXPECT_EQ(k.path, "/data/three");
    EXPECT_FALSE(files.key_of(kDev, 3, "/data/three").new_name);
    // Bounded: past kMaxFiles the table starts over.
    for (std::uint64_t ino = 10; ino < 10 + HardFaultFiles::kMaxFiles + 5; ++ino)
        (void)files.key_of(kDev, ino, "/data/many");
    EXPECT_LE(files.size(), HardFaultFiles::kMaxFiles);
}
