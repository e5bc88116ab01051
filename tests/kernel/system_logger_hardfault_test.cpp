// A system logger session with MEMORY_HARD_FAULTS and DISK_FILE_IO over a
// known workload: two files written, synced and dropped from the page
// cache, mapped with MADV_RANDOM (no read-around: each touch reads its own
// page) and touched a page at a time by this thread. Each touch arrives as
// one PageFault/HardFault with the address touched, the page's file
// offset, this thread, the bytes read and a start no later than the
// record and after the previous touch's (its own file fault's, not a
// stale one's); EventsLost is 0 (the flag opens no exceptions:*
// tracepoint: the machine's other faults, such as a sanitized process's
// shadow pages, make no samples); the file still open carries the FileIo key its Name record
// carries (the two classes join), the file closed before the touches a key
// of its own that a FileIo/Name names. (Whether the open and its first
// fault fall in one drain is the disk's timing: when they do, the hard
// faults written after the drain's FileIo records is what gives page 0
// FileIo's key.) Each carries its stack when asked; the flag turned off by
// an update right after the touches loses none; etwdump shows them by name.
// Runs as root (as CI).
#include "system_logger_live.hpp"

#include "command_output.hpp"
#include "kernel/hard_faults.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace {

using namespace syslogtest;
using openetw::kernel::HardFaultFiles;

// A folder on a disk's filesystem: tmpfs pages are never read from a file.
std::filesystem::path disk_folder()
{
    const std::filesystem::path tmp = std::filesystem::temp_directory_path();
    struct statfs fs {};
    if (::statfs(tmp.c_str(), &fs) == 0 && fs.f_type != TMPFS_MAGIC)
        return tmp;
    return std::filesystem::current_path();
}

// A file of pages pages (each page's first bytes its number), on disk and
// out of the page cache; its path.
std::string cold_file(const std::string &stem, int pages, long page)
{
    const std::string path = (disk_folder() / (stem + "-" + std::to_string(::getpid()))).string();
    const int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR, 0600);
    EXPECT_GE(fd, 0) << path;
    std::vector<char> buf(std::size_t(page), 'x');
    for (int i = 0; i < pages; ++i) {
        std::memcpy(buf.data(), &i, sizeof i);
        EXPECT_EQ(::write(fd, buf.data(), buf.size()), page);
    }
    EXPECT_EQ(::fsync(fd), 0);
    EXPECT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    ::close(fd);
    return path;
}

// How many of the mapping's pages are in memory (mincore).
int resident(const void *base, int pages, long page)
{
    std::vector<unsigned char> v(std::size_t(pages), 0);
    EXPECT_EQ(::mincore(const_cast<void *>(base), std::size_t(pages) * std::size_t(page), v.data()), 0);
    int n = 0;
    for (unsigned char c : v)
        n += c & 1;
    return n;
}

std::string hex(std::uint64_t v)
{
    char b[24];
    std::snprintf(b, sizeof b, "%llX", (unsigned long long)v);
    return b;
}

long major_faults()
{
    rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    return u.ru_majflt;
}

// Maps path read-only with no read-around; nullptr on failure.
char *map_random(int fd, int pages, long page)
{
    void *p = ::mmap(nullptr, std::size_t(pages) * std::size_t(page), PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return nullptr;
    EXPECT_EQ(::madvise(p, std::size_t(pages) * std::size_t(page), MADV_RANDOM), 0);
    return static_cast<char *>(p);
}

} // namespace

TEST(SystemLoggerHardFaults, EachPageReadFromAFileIsAHardFaultWithItsOffsetThreadAndFile)
{
    const long page = ::sysconf(_SC_PAGESIZE);
    constexpr int kOpenPages = 24, kClosedPages = 8;
    const std::string held = cold_file("openetw-hardfault-open", kOpenPages, page);
    const std::string closed = cold_file("openetw-hardfault-closed", kClosedPages, page);

    const std::string file = temp_file("openetw-syslog-hardfaults");
    Props props("OpenETW system logger hard faults " + std::to_string(::getpid()));
    etw_session *s = nullptr;
    ASSERT_EQ(start(&s, props, file, ETW_FLAG_MEMORY_HARD_FAULTS | ETW_FLAG_DISK_FILE_IO), ETW_OK)
        << etw_last_error_message();
    // Each HardFault followed by its stack (xperf's -stackwalk HardFault).
    constexpr etw_classic_event_id kHardFault = {
        {0x3d6fa8d3, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}},
        32,
        {}};
    ASSERT_EQ(etw_session_set_stack_tracing(s, &kHardFault, 1), ETW_OK) << etw_last_error_message();
    // Opened while the session runs (its FileIo key is made), kept open.
    const int held_fd = ::open(held.c_str(), O_RDONLY);
    ASSERT_GE(held_fd, 0);
    char *a = map_random(held_fd, kOpenPages, page);
    // Mapped, then closed: no descriptor holds it when its pages are read.
    const int closed_fd = ::open(closed.c_str(), O_RDONLY);
    ASSERT_GE(closed_fd, 0);
    char *b = map_random(closed_fd, kClosedPages, page);
    ::close(closed_fd);
    ASSERT_TRUE(a && b);
    ASSERT_EQ(resident(a, kOpenPages, page), 0) << "the file is still in the page cache";
    ASSERT_EQ(resident(b, kClosedPages, page), 0) << "the file is still in the page cache";

    const long majors_before = major_faults();
    long sum = 0;
    for (int i = 0; i < kOpenPages; ++i)
        sum += a[i * page + 8]; // 8 bytes into the page: VirtualAddress is the address touched
    for (int i = 0; i < kClosedPages; ++i)
        sum += b[i * page + 16];
    const long majors = major_faults() - majors_before;
    // Turned off at once: what the closed source still held is written (the
    // last faults' samples are younger than a drain's margin).
    etw_properties_set_enable_flags(props.p, ETW_FLAG_DISK_FILE_IO);
    ASSERT_EQ(etw_session_update(s, props.p), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_stop(s, props.p), ETW_OK) << etw_last_error_message();
    etw_session_close(s);
    ::munmap(a, std::size_t(kOpenPages) * std::size_t(page));
    ::munmap(b, std::size_t(kClosedPages) * std::size_t(page));
    ::close(held_fd);
    EXPECT_EQ(sum, long(kOpenPages + kClosedPages) * 'x') << "the pages read back";
    EXPECT_EQ(majors, kOpenPages + kClosedPages) << "the kernel counted other major faults than the touches";
    EXPECT_EQ(etw_properties_events_lost(props.p), 0u);
    const std::vector<Seen> seen = read_back(file);
    const char *etwdump = std::getenv("ETWDUMP"); // tools/etwdump (meson test sets it)
    ASSERT_NE(etwdump, nullptr) << "ETWDUMP names no etwdump";
    const std::string text = kerneltest::run(std::string(etwdump) + " --format text " + file);
    std::filesystem::remove(file);
    std::filesystem::remove(held);
    std::filesystem::remove(closed);

    // The names the FileIo records give each key.
    std::map<long long, std::vector<std::string>> names;
    for (const Seen &r : seen)
        if (r.event_name == "FileIo/Name")
            names[number(r, "FileObject")].push_back(r.value("FileName"));
    // The open file is named once, by FileIo's key (not one of HardFault's own).
    std::vector<long long> held_keys;
    for (const auto &[key, paths] : names)
        for (const std::string &p : paths)
            if (p == held)
                held_keys.push_back(key);
    ASSERT_EQ(held_keys.size(), 1u) << "FileIo/Name records of " << held;
    const long long held_key = held_keys[0];
    EXPECT_LT(held_key, (long long)HardFaultFiles::kOwnKeyBase) << "not FileIo's key";

    const auto me = (long long)::gettid();
    std::set<long long> stacked; // the EventTimeStamps of this thread's stacks
    for (const Seen &r : seen)
        if (r.event_name == "StackWalk/Stack" && number(r, "StackThread") == me)
            stacked.insert(number(r, "EventTimeStamp"));
    const auto base_a = (long long)(std::uintptr_t)a, base_b = (long long)(std::uintptr_t)b;
    std::vector<int> faults_a(kOpenPages), faults_b(kClosedPages);
    std::set<long long> closed_keys;
    std::vector<std::pair<long long, long long>> spans; // the touches' (InitialTime, time), one after another
    for (const Seen &r : seen) {
        EXPECT_TRUE(r.problem.empty()) << r.event_name << ": " << r.problem;
        if (r.event_name != "PageFault/HardFault" || number(r, "TThreadId") != me)
            continue;
        const long long va = number(r, "VirtualAddress"), offset = number(r, "ReadOffset");
        const long long bytes = number(r, "ByteCount"), initial = number(r, "InitialTime");
        const long long object = number(r, "FileObject");
        EXPECT_GT(bytes, 0) << "ByteCount";
        EXPECT_EQ(bytes % page, 0) << "whole pages are read";
        EXPECT_GT(initial, 0);
        EXPECT_LE(initial, r.timestamp_raw) << "InitialTime after the record";
        EXPECT_EQ(stacked.count(r.timestamp_raw), 1u) << "no StackWalk of the HardFault at " << va;
        int i = -1;
        if (va >= base_a && va < base_a + kOpenPages * page) {
            i = int((va - base_a) / page);
            EXPECT_EQ(va, base_a + i * page + 8) << "page " << i;
            EXPECT_EQ(object, held_key) << "page " << i << ": not the FileIo key of the open file";
            ++faults_a[std::size_t(i)];
        } else if (va >= base_b && va < base_b + kClosedPages * page) {
            i = int((va - base_b) / page);
            EXPECT_EQ(va, base_b + i * page + 16) << "page " << i;
            closed_keys.insert(object);
            ++faults_b[std::size_t(i)];
        } else {
            continue;
        }
        EXPECT_EQ(offset, (long long)i * page) << "ReadOffset of page " << i;
        spans.emplace_back(initial, r.timestamp_raw);
    }
    // Each touch's start is its own file fault's: after the previous touch ended.
    std::sort(spans.begin(), spans.end(), [](const auto &x, const auto &y) { return x.second < y.second; });
    for (std::size_t k = 1; k < spans.size(); ++k)
        EXPECT_GT(spans[k].first, spans[k - 1].second)
            << "the start of touch " << k << " is before the end of the last";
    for (int i = 0; i < kOpenPages; ++i)
        EXPECT_EQ(faults_a[std::size_t(i)], 1) << "HardFaults of page " << i << " of the open file";
    for (int i = 0; i < kClosedPages; ++i)
        EXPECT_EQ(faults_b[std::size_t(i)], 1) << "HardFaults of page " << i << " of the closed file";
    // etwdump names them too, with their fields.
    std::size_t dumped = 0, decoded = 0;
    for (std::size_t at = 0; (at = text.find("PageFault/HardFault: InitialTime=", at)) != std::string::npos; ++at)
        ++dumped;
    for (const Seen &r : seen)
        decoded += r.event_name == "PageFault/HardFault";
    EXPECT_EQ(dumped, decoded) << "etwdump's HardFaults";
    EXPECT_NE(text.find("ReadOffset=0x" + hex(std::uint64_t(kOpenPages - 1) * std::uint64_t(page))), std::string::npos);
    ASSERT_EQ(closed_keys.size(), 1u) << "one key for the closed file";
    const long long closed_key = *closed_keys.begin();
    EXPECT_GE(closed_key, (long long)HardFaultFiles::kOwnKeyBase) << "a key of HardFault's own";
    ASSERT_EQ(names[closed_key].size(), 1u) << "one FileIo/Name of the closed file's key";
    EXPECT_EQ(names[closed_key][0], closed);
}
