// Every file mode on a small tmpfs that fills up mid-trace: each event a
// provider logged is either in a readable file, counted in EventsLost, or in
// one of the buffers counted in LogBuffersLost; no file is left without its
// header, and the files' headers (BuffersLost, EventsLost) together hold the
// session's losses, so the files alone account for every event. Needs root (mount); skipped with the reason otherwise.
// Linux only.
#include "engine_test_util.hpp"
#include "small_tmpfs.hpp"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

using namespace enginetest;
namespace fs = std::filesystem;

namespace {

constexpr std::uint32_t kBufferKb = 4;
constexpr std::size_t kPayload = 200;                     // 0x30 + 200 = 248-byte records
constexpr std::uint32_t kPerBuffer = (4096 - 0x48) / 248; // events a full buffer holds
constexpr std::size_t kDiskBytes = 128 * 1024;

// A tmpfs of kDiskBytes on a fresh folder.
struct SmallDisk : SmallTmpfs {
    SmallDisk() : SmallTmpfs(kDiskBytes, "disk") {}
};

struct Totals {
    std::uint64_t logged = 0; // trace calls
    std::uint64_t events_lost = 0, log_buffers_lost = 0;
};

// One session: n events of kPayload bytes tagged with their number from first on.
void trace(const std::string &file, std::uint32_t mode, std::uint32_t max_kb, int first, int n, Totals &t,
           const SmallDisk *fill_after_start = nullptr)
{
    const etw_guid g = make_guid(0x7100);
    Props props(unique_name("diskfull"), file);
    etw_properties_set_buffer_size(props, kBufferKb);
    etw_properties_set_log_file_mode(props, mode | ETW_NO_PER_PROCESSOR_BUFFERING | ETW_USE_KBYTES_FOR_SIZE);
    etw_properties_set_maximum_file_size(props, max_kb);
    etw_properties_set_maximum_buffers(props, 64);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    if (fill_after_start)
        fill_after_start->fill();
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    etw_session_enable_provider(s, &g, 1, 0, 0, 0);
    for (int i = first; i < first + n; ++i) {
        Event e(g, kPayload);
        std::memcpy(e.bytes + 0x30, &i, sizeof i);
        etw_provider_trace_event(p, e.h()); // a refused event is counted in EventsLost
        ++t.logged;
        if (i % 16 == 15)
            etw_session_flush(s, nullptr);
    }
    etw_provider_unregister(p);
    etw_session_stop(s, props); // the status may name the full disk; the counts are what matter
    const etw_event_trace_properties r = props.rec();
    t.events_lost += r.EventsLost;
    t.log_buffers_lost += r.LogBuffersLost;
}

// Reads every .etl of the disk and checks the accounting.
void check(const SmallDisk &disk, const Totals &t, bool must_fill)
{
    std::set<int> seen;
    int files = 0;
    std::uint64_t header_buffers_lost = 0, header_events_lost = 0;
    for (const auto &entry : fs::directory_iterator(disk.dir())) {
        if (entry.path().extension() != ".etl")
            continue;
        ++files;
        const std::string path = entry.path().string();
        EXPECT_GE(fs::file_size(path), kBufferKb * 1024u) << path << ": a file without its header buffer";
        const etltest::File f = etltest::decode(path);
        EXPECT_TRUE(f.ok()) << path << ": " << f.problem_text();
        header_buffers_lost += f.buffers_lost;
        header_events_lost += f.events_lost;
        for (const auto &ev : f.events) {
            int n = 0;
            ASSERT_GE(ev.payload.size(), sizeof n);
            std::memcpy(&n, ev.payload.data(), sizeof n);
            EXPECT_TRUE(seen.insert(n).second) << "event " << n << " is in the files twice";
        }
    }
    EXPECT_GE(files, 1);
    const std::int64_t in_files = std::int64_t(seen.size());
    const std::int64_t missing = std::int64_t(t.logged) - in_files - std::int64_t(t.events_lost);
    std::printf("logged %llu, in files %lld (%d files), EventsLost %llu, LogBuffersLost %llu\n",
                (unsigned long long)t.logged, (long long)in_files, files, (unsigned long long)t.events_lost,
                (unsigned long long)t.log_buffers_lost);
    SCOPED_TRACE("logged " + std::to_string(t.logged) + ", in files " + std::to_string(in_files) + ", EventsLost " +
                 std::to_string(t.events_lost) + ", LogBuffersLost " + std::to_string(t.log_buffers_lost));
    if (must_fill) {
        EXPECT_GT(t.events_lost + t.log_buffers_lost, 0u) << "the disk never filled";
    }
    // What is neither in a file nor in EventsLost was in the lost buffers:
    // at least one event each, at most a full buffer each.
    EXPECT_GE(missing, std::int64_t(t.log_buffers_lost));
    EXPECT_LE(missing, std::int64_t(t.log_buffers_lost) * kPerBuffer);
    EXPECT_EQ(header_buffers_lost, t.log_buffers_lost) << "the files' headers miss lost buffers";
    EXPECT_EQ(header_events_lost, t.events_lost) << "the files' headers miss lost events";
}

#define NEED_ROOT_AND(disk)                                                                                            \
    if (geteuid() != 0)                                                                                                \
        GTEST_SKIP() << "not root: cannot mount the small tmpfs this test fills";                                      \
    SmallDisk disk;                                                                                                    \
    ASSERT_TRUE(disk.error().empty()) << disk.error()

} // namespace

TEST(DiskFull, Sequential)
{
    NEED_ROOT_AND(disk);
    Totals t;
    trace(disk.dir() + "/seq.etl", ETW_FILE_MODE_SEQUENTIAL, 0, 0, 2000, t);
    check(disk, t, true);
}

TEST(DiskFull, Circular)
{
    NEED_ROOT_AND(disk);
    Totals t;
    trace(disk.dir() + "/ring.etl", ETW_FILE_MODE_CIRCULAR, 1024, 0, 2000, t); // a ring larger than the disk
    check(disk, t, true);
}

TEST(DiskFull, NewFile)
{
    NEED_ROOT_AND(disk);
    Totals t;
    trace(disk.dir() + "/n_%d.etl", ETW_FILE_MODE_NEWFILE, 32, 0, 2000, t);
    check(disk, t, true);
}

TEST(DiskFull, NewFileLossesGoIntoTheHeaderOfTheNextFileOpened)
{
    // The first file takes what is left of the disk: the second cannot be
    // opened until the filler goes, and the buffers lost meanwhile are in
    // its header from its first write on (before the stop finishes it).
    NEED_ROOT_AND(disk);
    constexpr std::uint32_t kFileKb = 32;
    {
        std::ofstream filler(disk.dir() + "/filler", std::ios::binary);
        const std::string block(kDiskBytes - kFileKb * 1024, 'x');
        filler.write(block.data(), std::streamsize(block.size()));
        ASSERT_TRUE(filler.good());
    }
    const etw_guid g = make_guid(0x7101);
    Props props(unique_name("diskfull"), disk.dir() + "/n_%d.etl");
    etw_properties_set_buffer_size(props, kBufferKb);
    etw_properties_set_log_file_mode(props,
                                     ETW_FILE_MODE_NEWFILE | ETW_NO_PER_PROCESSOR_BUFFERING | ETW_USE_KBYTES_FOR_SIZE);
    etw_properties_set_maximum_file_size(props, kFileKb);
    etw_properties_set_maximum_buffers(props, 64);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, nullptr, nullptr, nullptr), ETW_OK);
    etw_session_enable_provider(s, &g, 1, 0, 0, 0);
    Totals t;
    int i = 0;
    auto write_some = [&] {
        for (int k = 0; k < 16; ++k, ++i) {
            Event e(g, kPayload);
            std::memcpy(e.bytes + 0x30, &i, sizeof i);
            etw_provider_trace_event(p, e.h());
            ++t.logged;
        }
        etw_session_flush(s, nullptr);
    };
    std::uint32_t lost_before = 0;
    for (int round = 0; round < 64 && lost_before < 3; ++round) {
        write_some();
        ASSERT_EQ(etw_session_query(s, props), ETW_OK);
        lost_before = props.rec().LogBuffersLost;
    }
    ASSERT_GE(lost_before, 3u) << "the second file could be opened on a full disk";
    ASSERT_FALSE(fs::exists(disk.dir() + "/n_2.etl"));
    fs::remove(disk.dir() + "/filler");
    write_some();
    ASSERT_TRUE(fs::exists(disk.dir() + "/n_2.etl"));
    const etltest::File second = etltest::decode(disk.dir() + "/n_2.etl");
    EXPECT_EQ(second.buffers_lost, lost_before) << "the losses before it opened are not in its header";
    etw_provider_unregister(p);
    etw_session_stop(s, props);
    t.events_lost = props.rec().EventsLost;
    t.log_buffers_lost = props.rec().LogBuffersLost;
    check(disk, t, true);
}

TEST(DiskFull, Append)
{
    NEED_ROOT_AND(disk);
    Totals t;
    const std::string file = disk.dir() + "/append.etl";
    trace(file, ETW_FILE_MODE_SEQUENTIAL, 0, 0, 100, t);
    trace(file, ETW_FILE_MODE_APPEND, 0, 100, 2000, t);
    check(disk, t, true);
}

TEST(DiskFull, Preallocate)
{
    // The disk fills (with another file) after the space is reserved: the
    // file still takes MaximumFileSize, then counts the rest lost.
    NEED_ROOT_AND(disk);
    Totals t;
    trace(disk.dir() + "/pre.etl", ETW_FILE_MODE_SEQUENTIAL | ETW_FILE_MODE_PREALLOCATE, 64, 0, 2000, t, &disk);
    check(disk, t, true);
}

TEST(DiskFull, PreallocateLargerThanTheDiskFailsToStart)
{
    NEED_ROOT_AND(disk);
    const std::string file = disk.dir() + "/big.etl";
    Props props(unique_name("diskfull"), file);
    etw_properties_set_buffer_size(props, kBufferKb);
    etw_properties_set_log_file_mode(props, ETW_FILE_MODE_SEQUENTIAL | ETW_FILE_MODE_PREALLOCATE |
                                                ETW_USE_KBYTES_FOR_SIZE | ETW_NO_PER_PROCESSOR_BUFFERING);
    etw_properties_set_maximum_file_size(props, 1024);
    SessionHandle s;
    const etw_status st = etw_session_start(&s.s, props);
    EXPECT_NE(st, ETW_OK);
    EXPECT_NE(std::string(etw_last_error_message()).find("preallocate"), std::string::npos) << etw_last_error_message();
}
