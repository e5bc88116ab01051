// Robust process-shared locks (platform::SharedMutex) on POSIX: a holder
// that dies hands the lock on as OwnerDied, and the lock goes on working.
#include "platform/sync.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace openetw::platform;

namespace {

struct SharedPage {
    SharedMutex *m =
        static_cast<SharedMutex *>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    SharedPage() { shared_mutex_init(m); }
    ~SharedPage() { munmap(m, 4096); }
};

} // namespace

// Also under ThreadSanitizer, whose timedlock interceptor knows only 0 as
// locked: without the annotation the unlock after OwnerDied is reported.
TEST(SharedMutex, AHolderThatDiesHandsTheLockOnAsOwnerDied)
{
    SharedPage page;
    ASSERT_NE(page.m, MAP_FAILED);
    const pid_t pid = fork();
    if (pid == 0) {
        _exit(shared_mutex_lock(page.m, 1000) == SharedLock::Locked ? 0 : 1); // dies holding it
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    EXPECT_EQ(shared_mutex_lock(page.m, 1000), SharedLock::OwnerDied);
    shared_mutex_unlock(page.m);
    EXPECT_EQ(shared_mutex_lock(page.m, 1000), SharedLock::Locked) << "the lock is usable again";
    shared_mutex_unlock(page.m);
}

TEST(SharedMutex, AHeldLockTimesOut)
{
    SharedPage page;
    ASSERT_NE(page.m, MAP_FAILED);
    int ready[2], done[2];
    ASSERT_EQ(pipe(ready), 0);
    ASSERT_EQ(pipe(done), 0);
    const pid_t pid = fork();
    if (pid == 0) {
        const bool locked = shared_mutex_lock(page.m, 1000) == SharedLock::Locked;
        char c = locked ? 'y' : 'n';
        (void)!write(ready[1], &c, 1);
        (void)!read(done[0], &c, 1); // holds it until told
        shared_mutex_unlock(page.m);
        _exit(0);
    }
    char c = 0;
    ASSERT_EQ(read(ready[0], &c, 1), 1);
    ASSERT_EQ(c, 'y');
    EXPECT_EQ(shared_mutex_lock(page.m, 50), SharedLock::Failed);
    (void)!write(done[1], &c, 1);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_EQ(shared_mutex_lock(page.m, 1000), SharedLock::Locked);
    shared_mutex_unlock(page.m);
    for (int fd : {ready[0], ready[1], done[0], done[1]})
        close(fd);
}
