// A buffer pool in a shared region file, and writer processes that attach
// to it and die: for the tests of what a session does with a dead writer's
// leftovers (buffer_pool_test.cpp, owned_slots_test.cpp). POSIX (fork).
#pragma once

#include "engine/buffer_pool.hpp"
#include "platform/files.hpp"
#include "platform/region.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace openetw::engine::testutil {

template <std::uint32_t Buffers>
struct SharedPool {
    std::string path = "/dev/shm/openetw-pool-test-" + std::to_string(getpid());
    BufferPool pool;
    SharedPool() { EXPECT_EQ(pool.create(4096, 1, Buffers, Buffers, Buffers, path), ETW_OK); }
    ~SharedPool() { platform::remove_file(path); }

    // Takes every handed-off buffer; returns how many there were.
    std::uint32_t flushed()
    {
        std::uint32_t out[Buffers];
        return pool.take_flushed(out, Buffers);
    }

    // A writer process attaches, does `step` (false: it failed) and dies
    // with no clean-up (as if killed); returns its pid once it is gone.
    template <class Step>
    pid_t writer_that_dies_after(Step step)
    {
        const pid_t pid = fork();
        if (pid == 0) {
            platform::Region r;
            BufferPool mine;
            if (platform::shared_region_open(&r, path) != ETW_OK || mine.attach(r) != ETW_OK)
                _exit(2);
            _exit(step(mine) ? 0 : 3);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the writer's status " << status;
        return pid;
    }
};

} // namespace openetw::engine::testutil
