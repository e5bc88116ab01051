// src/engine/buffer_pool: a buffer a writer process took from the free list
// and never installed, because it died in between, goes back to the pool
// (Session::take_dead_writers_buffers, docs/SYSTEM_SESSIONS.md).
#include "engine/buffer_pool.hpp"
#include "shared_pool_util.hpp"

#include <gtest/gtest.h>

namespace openetw::engine {

struct BufferPoolTestAccess {
    static std::uint32_t acquire_free(BufferPool &p) { return p.acquire_free(); }
};

namespace {

constexpr std::uint32_t kBuffers = 4;

using SharedPool = testutil::SharedPool<kBuffers>;

} // namespace

TEST(BufferPool, ABufferTakenByAWriterThatDiedBeforeInstallingItIsFreedAgain)
{
    SharedPool s;
    ASSERT_TRUE(s.pool.is_shared());
    EXPECT_TRUE(s.pool.unopened_of_dead().empty()) << "free buffers have no owner";
    const pid_t dead =
        s.writer_that_dies_after([](BufferPool &p) { return BufferPoolTestAccess::acquire_free(p) != kNoBuffer; });
    EXPECT_EQ(s.pool.free_count(), kBuffers - 1);
    const std::vector<BufferPool::Unopened> lost = s.pool.unopened_of_dead();
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0].owner, std::uint32_t(dead));
    EXPECT_EQ(s.pool.reclaim_unopened(lost, {}), 1u);
    EXPECT_EQ(s.pool.free_count(), kBuffers);
    EXPECT_TRUE(s.pool.unopened_of_dead().empty());
    // The pool hands it out again.
    BufferPool::Reservation r{};
    EXPECT_EQ(s.pool.reserve(0, 64, &r), ETW_OK);
}

TEST(BufferPool, BuffersOfLiveOwnersInstalledOrHeldAreNotReclaimed)
{
    SharedPool s;
    // Taken by this (live) process.
    const std::uint32_t mine = BufferPoolTestAccess::acquire_free(s.pool);
    ASSERT_NE(mine, kNoBuffer);
    EXPECT_TRUE(s.pool.unopened_of_dead().empty());
    // Installed by a writer that died afterwards: in the stream's slot.
    s.writer_that_dies_after([](BufferPool &p) {
        BufferPool::Reservation r{};
        if (p.reserve(0, 64, &r) != ETW_OK)
            return false;
        p.commit(r);
        return true;
    });
    EXPECT_TRUE(s.pool.unopened_of_dead().empty());
    // Taken by a writer that died, but the logger holds it (or a live
    // process took it since: its owner changed) by the time of the reclaim.
    s.writer_that_dies_after([](BufferPool &p) { return BufferPoolTestAccess::acquire_free(p) != kNoBuffer; });
    std::vector<BufferPool::Unopened> lost = s.pool.unopened_of_dead();
    ASSERT_EQ(lost.size(), 1u);
    const std::uint32_t free_before = s.pool.free_count();
    EXPECT_EQ(s.pool.reclaim_unopened(lost, {lost[0].index}), 0u);
    lost[0].owner += 1;
    EXPECT_EQ(s.pool.reclaim_unopened(lost, {}), 0u);
    EXPECT_EQ(s.pool.free_count(), free_before);
}

} // namespace openetw::engine
