// Process/End's ExitStatus from Linux exits (docs/KERNEL_LOGGER.md).
#include "kernel/exit_status.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

using namespace openetw::kernel;

TEST(ExitStatus, ExitGroupCodeIsItsLowByte)
{
    EXPECT_EQ(exit_status_from_exit_group(0), 0);
    EXPECT_EQ(exit_status_from_exit_group(6), 6);
    EXPECT_EQ(exit_status_from_exit_group(255), 255);
    EXPECT_EQ(exit_status_from_exit_group(256), 0);  // exit(256) is seen as 0
    EXPECT_EQ(exit_status_from_exit_group(-1), 255); // exit(-1) is seen as 255
}

// Real wait statuses, from children that exit or are killed.
TEST(ExitStatus, WaitStatusOfRealChildren)
{
    const auto status_of = [](auto child) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            child();
            ::_exit(99);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        return status;
    };
    EXPECT_EQ(exit_status_from_wait_status(status_of([] { ::_exit(3); })), 3);
    EXPECT_EQ(exit_status_from_wait_status(status_of([] { ::_exit(0); })), 0);
    EXPECT_EQ(exit_status_from_wait_status(status_of([] { ::raise(SIGKILL); })), 128 + SIGKILL);
    EXPECT_EQ(exit_status_from_wait_status(status_of([] { ::raise(SIGTERM); })), 128 + SIGTERM);
    // Core dump bit (0x80) set: still the signal.
    EXPECT_EQ(exit_status_from_wait_status(0x80 | SIGSEGV), 128 + SIGSEGV);
    // Stopped, not ended.
    EXPECT_EQ(exit_status_from_wait_status(0x7F | (SIGSTOP << 8)), 259);
}
