// The write path's inline ids (platform/process.hpp): the processor number read
// from glibc's rseq area, and the cached thread and process ids, agree
// with what the kernel says, also after a migration and after a fork.
#include "platform/process.hpp"

#include <gtest/gtest.h>

#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

using namespace openetw::platform;

namespace {

bool pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0;
}

} // namespace

// Pinned to each allowed CPU in turn, the inline read names that CPU (a
// wrong offset into the rseq area, or a stale value, would not).
TEST(PlatformIds, CurrentProcessorFollowsTheThreadAcrossProcessors)
{
    cpu_set_t allowed;
    ASSERT_EQ(sched_getaffinity(0, sizeof allowed, &allowed), 0);
    int checked = 0;
    std::thread t([&] {
        for (int cpu = 0; cpu < CPU_SETSIZE && checked < 64; ++cpu) {
            if (!CPU_ISSET(cpu, &allowed) || !pin_to(cpu))
                continue;
            sched_yield(); // the migration happens by the next return to user space
            EXPECT_EQ(current_processor(), std::uint32_t(cpu));
            EXPECT_EQ(current_processor_slow(), std::uint32_t(cpu));
            ++checked;
        }
    });
    t.join();
    EXPECT_GT(checked, 0);
#if OPENETW_RSEQ_CPU
    // The inline path is the one checked: glibc registered the area.
    EXPECT_GT(__rseq_size, 0u) << "rseq not registered (GLIBC_TUNABLES=glibc.pthread.rseq=0?)";
#endif
}

TEST(PlatformIds, ThreadAndProcessIdsAreTheKernelsAlsoAfterAFork)
{
    EXPECT_EQ(thread_id(), std::uint32_t(syscall(SYS_gettid)));
    EXPECT_EQ(process_id(), std::uint32_t(getpid()));
    std::uint32_t other = 0;
    std::thread t([&] { other = thread_id(); });
    t.join();
    EXPECT_NE(other, thread_id());
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        const bool ok = process_id() == std::uint32_t(getpid()) && thread_id() == std::uint32_t(syscall(SYS_gettid));
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child kept its parent's cached ids";
}
