// The OS-independent parts of platform/perf_events.hpp: the ring reader
// over a hand-built ring (a record wrapping the ring's end comes out whole
// and still becomes its Windows record; a loss is counted; a header that
// cannot be stops the read), perf_event_open's errno as status and
// sentence, and the online-processor list.
#include "kernel_etl.hpp"
#include "perf_records.hpp"

#include "kernel/perf_process_source.hpp"

#include <gtest/gtest.h>

#include <cerrno>

using namespace openetw::kernel;
namespace platform = openetw::platform;

namespace {

// Writes records into a ring of size bytes from running byte count start, as the kernel does.
std::uint64_t fill(Bytes &ring, std::uint64_t start, const std::vector<Bytes> &records)
{
    std::uint64_t head = start;
    for (const Bytes &r : records)
        for (std::uint8_t b : r)
            ring[head++ % ring.size()] = b;
    return head;
}

} // namespace

TEST(PerfRing, ARecordWrappingTheEndIsReadWhole)
{
    Bytes ring(256, 0xEE);
    const perftest::Ctx c{42, 43, 123'400, 1};
    const Bytes lost = perftest::lost(0, 5, c);                                                           // 48 bytes
    const Bytes image = perftest::mmap2(42, 43, 0x400000, 0x1000, 0, 5, "/opt/app/bin/server-daemon", c); // 128 bytes
    ASSERT_EQ(lost.size(), 48u);
    ASSERT_EQ(image.size(), 128u);
    // Running counts past the first lap: the lost record ends at 3*256+200,
    // so the image record is cut 56 bytes before the ring's end.
    const std::uint64_t tail = 3 * 256 + 152;
    const std::uint64_t head = fill(ring, tail, {lost, image});
    std::vector<std::uint8_t> scratch;
    std::vector<Bytes> got;
    std::vector<std::uint32_t> types, cpus;
    platform::PerfDrainCounts counts;
    const std::uint64_t done = platform::perf_ring_read(
        ring.data(), ring.size(), tail, head, 3, scratch,
        [&](const platform::PerfRecord &r) {
            got.emplace_back(r.bytes.begin(), r.bytes.end());
            types.push_back(r.type);
            cpus.push_back(r.cpu);
        },
        &counts);
    EXPECT_EQ(done, head);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0], lost);
    EXPECT_EQ(got[1], image) << "the wrapped record must come out whole";
    EXPECT_EQ(types, (std::vector<std::uint32_t>{platform::kPerfRecordLost, platform::kPerfRecordMmap2}));
    EXPECT_EQ(cpus, (std::vector<std::uint32_t>{3, 3}));
    EXPECT_EQ(counts.records, 2u);
    EXPECT_EQ(counts.bytes, 176u);
    EXPECT_EQ(counts.lost, 5u);
    EXPECT_EQ(counts.malformed, 0u);

    // ...and becomes its Image/Load.
    PerfProcessSource source(PerfSourceOptions{});
    std::vector<Bytes> records;
    for (const Bytes &r : got)
        source.consume(r, [&](Bytes &&w) { records.push_back(std::move(w)); });
    EXPECT_EQ(source.counts().lost, 0u) << "counted by the ring's drain (above), not again";
    const std::vector<kerneltest::Seen> seen = kerneltest::round_trip(records, 8);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].event_name, "Image/Load");
    EXPECT_EQ(seen[0].value("FileName"), "/opt/app/bin/server-daemon");
    EXPECT_EQ(seen[0].value("ImageBase"), "0x400000");
    EXPECT_EQ(seen[0].value("ProcessId"), "42");
    EXPECT_EQ(seen[0].thread_id, 43u);
    EXPECT_EQ(seen[0].timestamp_raw, 1234);
}

// A header whose size is below 8 or past head stops the read there.
TEST(PerfRing, AnImpossibleHeaderStopsTheRead)
{
    Bytes ring(128, 0);
    const Bytes rec = perftest::lost(0, 1, {});
    std::uint64_t head = fill(ring, 0, {rec});
    ring[head % 128 + 6] = 4; // a record of 4 bytes
    head += 16;
    platform::PerfDrainCounts counts;
    std::vector<std::uint8_t> scratch;
    int n = 0;
    EXPECT_EQ(platform::perf_ring_read(
                  ring.data(), ring.size(), 0, head, 0, scratch, [&](const platform::PerfRecord &) { ++n; }, &counts),
              rec.size());
    EXPECT_EQ(n, 1);
    EXPECT_EQ(counts.malformed, 1u);
    // A size past head: half a record written.
    counts = {};
    n = 0;
    EXPECT_EQ(platform::perf_ring_read(
                  ring.data(), ring.size(), 0, rec.size() - 8, 0, scratch, [&](const platform::PerfRecord &) { ++n; },
                  &counts),
              0u);
    EXPECT_EQ(n, 0);
    EXPECT_EQ(counts.malformed, 1u);
}

TEST(PerfErrors, AccessDeniedNamesTheRightsAndTheParanoidLevel)
{
    for (int e : {EACCES, EPERM}) {
        const openetw::Status s = platform::perf_open_status(e, "task, comm and mmap events", "2\n");
        EXPECT_EQ(s.code, ETW_ERROR_ACCESS_DENIED);
        EXPECT_NE(s.message.find("CAP_PERFMON"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("CAP_SYS_ADMIN"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("/proc/sys/kernel/perf_event_paranoid is 2 "), std::string::npos) << s.message;
        EXPECT_NE(s.message.find(e == EACCES ? "EACCES" : "EPERM"), std::string::npos) << s.message;
        EXPECT_NE(s.message.find("task, comm and mmap events"), std::string::npos) << s.message;
    }
    const openetw::Status unreadable = platform::perf_open_status(EACCES, "x", "");
    EXPECT_NE(unreadable.message.find("perf_event_paranoid cannot be read"), std::string::npos) << unreadable.message;
}

TEST(PerfErrors, OtherErrnosMapToTheirStatus)
{
    EXPECT_EQ(platform::perf_open_status(ENOENT, "x", "2").code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(platform::perf_open_status(EOPNOTSUPP, "x", "2").code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(platform::perf_open_status(ENOSYS, "x", "2").code, ETW_ERROR_NOT_SUPPORTED);
    const openetw::Status files = platform::perf_open_status(EMFILE, "x", "2");
    EXPECT_EQ(files.code, ETW_ERROR_NO_SYSTEM_RESOURCES);
    EXPECT_NE(files.message.find("file descriptors"), std::string::npos) << files.message;
    EXPECT_EQ(platform::perf_open_status(ENFILE, "x", "2").code, ETW_ERROR_NO_SYSTEM_RESOURCES);
}

TEST(PerfEvents, OnlineProcessorListsParse)
{
    EXPECT_EQ(platform::parse_cpu_list("0-3,6\n"), (std::vector<std::uint32_t>{0, 1, 2, 3, 6}));
    EXPECT_EQ(platform::parse_cpu_list("0"), (std::vector<std::uint32_t>{0}));
    EXPECT_TRUE(platform::parse_cpu_list("").empty());
    EXPECT_TRUE(platform::parse_cpu_list("3-1").empty());
    EXPECT_TRUE(platform::parse_cpu_list("0,").empty());
    EXPECT_TRUE(platform::parse_cpu_list("a-b").empty());
}
