// The live source against this machine's kernel: a child forked and
// exec'ed (/bin/true) is found as Process/Start with its pid and image,
// Image/Load of its executable and Process/End, stamped on the session
// clock between the times around its life; a tiny ring overrun by a burst
// of children reports its loss; wait() wakes for data and for wake().
// perf_event_open needs root or CAP_PERFMON: where it is refused these
// tests fail with the reason, they do not skip.
#include "kernel_etl.hpp"

#include "kernel/perf_process_source.hpp"
#include "platform/clock.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace openetw::kernel;
using kerneltest::Seen;

namespace {

// Runs /bin/true to its end; its pid.
pid_t run_true()
{
    char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
    pid_t pid = -1;
    EXPECT_EQ(::posix_spawn(&pid, "/bin/true", nullptr, nullptr, argv, environ), 0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

const Seen *find(const std::vector<Seen> &seen, const std::string &event, const std::string &field,
                 const std::string &value, const std::string &field2 = "", const std::string &value2 = "")
{
    for (const Seen &s : seen)
        if (s.event_name == event && s.value(field) == value && (field2.empty() || s.value(field2) == value2))
            return &s;
    return nullptr;
}

// Rings of one page per processor, open: a burst of children overruns them.
void open_tiny(PerfProcessSource &source)
{
    PerfSourceRings tiny;
    tiny.data_pages = 1;
    const openetw::Status opened = source.open(tiny);
    ASSERT_TRUE(opened.is_ok()) << opened.message;
}

} // namespace

TEST(PerfLive, AChildIsStartedLoadedAndEnded)
{
    PerfSourceOptions o;
    o.clock = PerfClock::capture(ETW_CLOCK_QPC, 0);
    PerfProcessSource source(o);
    const openetw::Status opened = source.open();
    ASSERT_TRUE(opened.is_ok()) << opened.message;

    const std::int64_t before = openetw::platform::qpc_now();
    const pid_t child = run_true();
    const std::int64_t after = openetw::platform::qpc_now();
    ASSERT_GT(child, 0);
    const std::string pid = std::to_string(child);
    const std::string exe = std::filesystem::canonical("/bin/true").string();

    // The records reach the rings as they happen; a drain finds them.
    std::vector<Bytes> records;
    std::vector<Seen> seen;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
        const openetw::Status drained = source.drain([&](Bytes &&r) { records.push_back(std::move(r)); });
        ASSERT_TRUE(drained.is_ok()) << drained.message;
        seen = kerneltest::round_trip(records, 8);
        if (find(seen, "Process/End", "ProcessId", pid, "ImageFileName", "true") ||
            std::chrono::steady_clock::now() > deadline)
            break;
        bool woken = false;
        ASSERT_TRUE(source.wait(50, &woken).is_ok());
    }
    source.close();

    // The fork (our image, our child), the exec (true), its executable, its end.
    const Seen *forked = find(seen, "Process/Start", "ProcessId", pid, "ParentId", std::to_string(::getpid()));
    ASSERT_NE(forked, nullptr) << "no Process/Start of the fork among " << seen.size() << " records";
    EXPECT_EQ(forked->process_id, std::uint32_t(::getpid())) << "logged by the parent that forked";
    const Seen *started = find(seen, "Process/Start", "ProcessId", pid, "ImageFileName", "true");
    ASSERT_NE(started, nullptr) << "no Process/Start of true";
    EXPECT_EQ(started->value("ParentId"), std::to_string(::getpid()));
    EXPECT_EQ(started->value("UserSID"), "S-1-22-1-" + std::to_string(::getuid()));
    const Seen *image = find(seen, "Image/Load", "ProcessId", pid, "FileName", exe);
    ASSERT_NE(image, nullptr) << "no Image/Load of " << exe;
    EXPECT_NE(image->value("ImageBase"), "0x0");
    const Seen *ended = find(seen, "Process/End", "ProcessId", pid, "ImageFileName", "true");
    ASSERT_NE(ended, nullptr) << "no Process/End of true";
    EXPECT_NE(find(seen, "Thread/End", "TThreadId",
                   [&] {
                       char s[16];
                       std::snprintf(s, sizeof s, "0x%X", unsigned(child));
                       return std::string(s);
                   }()),
              nullptr);
    // Stamped on the session clock (qpc_now), in the order they happened.
    for (const Seen *s : {forked, started, image, ended}) {
        EXPECT_GE(s->timestamp_raw, before) << s->event_name;
        EXPECT_LE(s->timestamp_raw, after) << s->event_name;
        EXPECT_EQ(s->problem, "") << s->event_name;
    }
    EXPECT_LE(forked->timestamp_raw, started->timestamp_raw);
    EXPECT_LE(started->timestamp_raw, image->timestamp_raw);
    EXPECT_LE(image->timestamp_raw, ended->timestamp_raw);
}

// One page per processor cannot hold a burst of children: the kernel drops
// records and counts them, and the next drain reports the count.
TEST(PerfLive, AnOverrunRingReportsItsLoss)
{
    PerfProcessSource source(PerfSourceOptions{});
    ASSERT_NO_FATAL_FAILURE(open_tiny(source));
    for (int i = 0; i < 60; ++i)
        run_true();
    std::uint64_t records = 0;
    ASSERT_TRUE(source.drain([&](Bytes &&) { ++records; }).is_ok());
    EXPECT_GT(source.counts().lost, 0u) << "a full ring must report its loss (" << records << " records read)";
    EXPECT_GT(records, 0u);
}

// Filled and then stopped, a ring never gets the LOST record the kernel
// writes once it has room again: the loss is still counted, by the
// events' own count of what they dropped.
TEST(PerfLive, ALossJustBeforeTheStopIsCounted)
{
    PerfProcessSource source(PerfSourceOptions{});
    ASSERT_NO_FATAL_FAILURE(open_tiny(source));
    for (int i = 0; i < 60; ++i)
        run_true();
    ASSERT_TRUE(source.disable().is_ok());
    std::uint64_t records = 0;
    ASSERT_TRUE(source.drain([&](Bytes &&) { ++records; }).is_ok());
    // Each child's fork is read or counted lost (a LOST record written into
    // a gap the children's larger records left would count only the drops
    // before it).
    const PerfSourceCounts &c = source.counts();
    EXPECT_GT(c.lost, 0u) << "60 children cannot fit in one page per processor (" << records << " records read)";
    EXPECT_GE(c.process_starts + c.lost, 60u) << c.process_starts << " children read, " << c.lost << " records lost";
    EXPECT_GE(c.process_ends + c.lost, 60u) << c.process_ends << " ends read, " << c.lost << " records lost";
}

TEST(PerfLive, WaitWakesForData)
{
    PerfProcessSource source(PerfSourceOptions{});
    PerfSourceRings rings;
    rings.wakeup_bytes = 8; // the first record
    const openetw::Status opened = source.open(rings);
    ASSERT_TRUE(opened.is_ok()) << opened.message;
    ASSERT_TRUE(source.drain([](Bytes &&) {}).is_ok());
    run_true();
    bool woken = false;
    ASSERT_TRUE(source.wait(2000, &woken).is_ok());
    EXPECT_TRUE(woken) << "a child's records must wake the waiter";
}

// A mark of 1 MB that nothing reaches: the wait sleeps its time out, and
// wake() (from another thread) ends it early.
TEST(PerfLive, WaitTimesOutAndWakeEndsIt)
{
    PerfProcessSource source(PerfSourceOptions{});
    PerfSourceRings rings;
    rings.data_pages = 1024;
    rings.wakeup_bytes = 1 << 20;
    const openetw::Status opened = source.open(rings);
    ASSERT_TRUE(opened.is_ok()) << opened.message;
    bool woken = true;
    ASSERT_TRUE(source.wait(20, &woken).is_ok());
    EXPECT_FALSE(woken);
    std::thread other([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        source.wake();
    });
    const auto start = std::chrono::steady_clock::now();
    ASSERT_TRUE(source.wait(10'000, &woken).is_ok());
    const auto took = std::chrono::steady_clock::now() - start;
    other.join();
    EXPECT_TRUE(woken);
    EXPECT_LT(took, std::chrono::seconds(2)) << "wake() must end the wait";
}

TEST(PerfLive, RingPagesMustBeAPowerOfTwo)
{
    PerfProcessSource source(PerfSourceOptions{});
    PerfSourceRings odd;
    odd.data_pages = 3;
    const openetw::Status s = source.open(odd);
    EXPECT_EQ(s.code, ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(s.message.find("power of two"), std::string::npos) << s.message;
}
