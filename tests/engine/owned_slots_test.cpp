// The thread slots of owned buffers (engine/owned_buffers.hpp) in a shared
// region: the slots of a writer process that died are freed and their
// buffers handed on at the committed offsets; a slot another process
// scribbled over never hands on a buffer that is not its own.
#include "engine/owned_buffers.hpp"
#include "shared_pool_util.hpp"
#include "format/etl_layout.hpp"
#include "platform/process.hpp"
#include "platform/sync.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <vector>

namespace openetw::engine {
namespace {

constexpr std::uint32_t kBuffers = 8;
constexpr std::uint32_t kRecord = 64;

using SharedPool = testutil::SharedPool<kBuffers>;

// One committed record through the owned path of `o`; false if it took the
// CAS protocol instead.
bool write_owned(OwnedBuffers &o)
{
    if (o.remote()) {
        OwnedCursor *c = o.reserve_remote(0, kRecord);
        if (c == nullptr)
            return false;
        std::memset(c->pos, 0x5A, kRecord);
        o.commit_remote(c, kRecord);
        return true;
    }
    OwnedCursor *c = o.reserve(0, kRecord);
    if (c == nullptr)
        return false;
    std::memset(c->pos, 0x5A, kRecord);
    o.commit(c, kRecord);
    return true;
}

// The buffer the one claimed thread slot names (kNoBuffer: none claimed).
std::uint32_t owned_buffer(SharedPool &s)
{
    for (const ThreadSlot &ts : s.pool.control().threads)
        if (ts.pid.load() != 0)
            return ts.current.load();
    return kNoBuffer;
}

// A shared pool whose hosting process owns a buffer holding one record.
struct HostOwning {
    SharedPool s;
    OwnedBuffers host;
    std::uint32_t owned = kNoBuffer;
    HostOwning()
    {
        host.enable(&s.pool, false);
        if (write_owned(host))
            owned = owned_buffer(s);
    }
};

} // namespace

TEST(OwnedSlots, TheSlotsOfAWriterProcessThatDiedAreFreedWithItsBuffers)
{
    SharedPool s;
    OwnedBuffers host;
    host.enable(&s.pool, false);
    ASSERT_TRUE(host.enabled());
    // A writer process owns a buffer, commits three records and dies.
    s.writer_that_dies_after([](BufferPool &mine) {
        auto *o = new OwnedBuffers; // never destroyed: the process dies owning its slot
        o->enable(&mine, true);
        for (int i = 0; i < 3; ++i)
            if (!write_owned(*o))
                return false;
        return true;
    });
    ASSERT_FALSE(::testing::Test::HasFailure());
    EXPECT_EQ(host.claimed(), 1u);
    EXPECT_EQ(host.reap_exited(false), 0u) << "no exit mark: only the dead-process check may take it";
    EXPECT_EQ(host.reap_exited(true), 1u);
    EXPECT_EQ(host.claimed(), 0u);
    std::uint32_t out[kBuffers];
    ASSERT_EQ(s.pool.take_flushed(out, kBuffers), 1u);
    const std::uint64_t v = s.pool.desc(out[0]).state.load();
    EXPECT_EQ(BufferPool::events_of(v), 3u);
    EXPECT_EQ(BufferPool::offset_of(v), etl::kBufferHeaderSize + 3 * kRecord);
}

// The logger frees an owned buffer without clearing its body (its state
// word said what was committed); the CAS protocol, whose unfinished records
// must show as zero (format/buffer_repair.hpp), clears it as it installs it.
TEST(OwnedSlots, ABufferAnOwnerUsedStartsZeroedWhenTheCasProtocolTakesIt)
{
    SharedPool s;
    OwnedBuffers host;
    host.enable(&s.pool, false);
    ASSERT_TRUE(write_owned(host)); // 0x5A bytes after the header
    host.seal_all(true);
    std::uint32_t out[kBuffers];
    ASSERT_EQ(s.pool.take_flushed(out, kBuffers), 1u);
    const std::uint32_t used = out[0];
    const std::uint8_t *body = s.pool.buffer(used) + etl::kBufferHeaderSize;
    s.pool.release(used);
    EXPECT_EQ(body[0], 0x5A) << "the logger cleared an owned buffer's body";
    BufferPool::Reservation res;
    ASSERT_EQ(s.pool.reserve(0, kRecord, &res), ETW_OK);
    ASSERT_EQ(res.index, used) << "the free list hands out the buffer freed last";
    for (std::uint32_t i = 0; i < s.pool.buffer_size() - etl::kBufferHeaderSize; ++i)
        ASSERT_EQ(body[i], 0) << "byte " << i << " of the body";
}

// A buffer the CAS protocol used is cleared as the logger frees it (the
// next CAS writer installs it as it is).
TEST(OwnedSlots, ABufferTheCasProtocolUsedIsClearedWhenItIsFreed)
{
    SharedPool s;
    BufferPool::Reservation res;
    ASSERT_EQ(s.pool.reserve(0, kRecord, &res), ETW_OK);
    std::memset(s.pool.buffer(res.index) + res.offset, 0x5A, kRecord);
    s.pool.commit(res);
    ASSERT_TRUE(s.pool.seal_stream(0));
    std::uint32_t out[kBuffers];
    ASSERT_EQ(s.pool.take_flushed(out, kBuffers), 1u);
    s.pool.release(out[0]);
    const std::uint8_t *body = s.pool.buffer(out[0]) + etl::kBufferHeaderSize;
    for (std::uint32_t i = 0; i < s.pool.buffer_size() - etl::kBufferHeaderSize; ++i)
        ASSERT_EQ(body[i], 0) << "byte " << i << " of the body";
}

TEST(OwnedSlots, AScribbledSlotNamingAnotherOwnersBufferHandsNothingOn)
{
    SharedPool s;
    OwnedBuffers host;
    host.enable(&s.pool, false);
    ASSERT_TRUE(write_owned(host));
    ThreadSlot *slots = s.pool.control().threads;
    std::uint32_t mine = kThreadSlots, idx = kNoBuffer;
    for (std::uint32_t i = 0; i < kThreadSlots; ++i)
        if (slots[i].pid.load() != 0) {
            mine = i;
            idx = slots[i].current.load();
        }
    ASSERT_LT(mine, kThreadSlots);
    ASSERT_LT(idx, s.pool.capacity());
    // Another slot, scribbled into the shape of an exited owner of a live
    // process (pid 1) whose buffer is this thread's.
    ThreadSlot &bad = slots[mine == 0 ? 1 : 0];
    bad.pid.store(1);
    bad.start.store(platform::process_start_time(1));
    bad.gen.store(7);
    bad.current.store(idx);
    bad.exited.store(1);
    EXPECT_EQ(host.reap_exited(false), 1u) << "the scribbled slot is freed";
    EXPECT_EQ(bad.current.load(), kNoBuffer);
    EXPECT_EQ(s.flushed(), 0u) << "another owner's buffer was handed on by a slot that does not own it";
    EXPECT_FALSE(s.pool.desc(idx).state.load() & BufferPool::kSealed);
    // Its owner goes on writing in it, and hands it on once, at the flush.
    ASSERT_TRUE(write_owned(host));
    EXPECT_EQ(s.pool.control().threads[mine].current.load(), idx);
    host.seal_all(true);
    EXPECT_EQ(s.flushed(), 1u);
    EXPECT_EQ(BufferPool::events_of(s.pool.desc(idx).state.load()), 2u);
}

TEST(OwnedSlots, AnOwnedBufferInAScribbledStreamSlotIsNotSealedByOtherWriters)
{
    HostOwning h;
    SharedPool &s = h.s;
    const std::uint32_t owned = h.owned;
    ASSERT_LT(owned, s.pool.capacity());
    s.pool.slot(0).current.store(owned); // scribbled
    EXPECT_FALSE(s.pool.seal_stream(0));
    BufferPool::Reservation r{};
    ASSERT_EQ(s.pool.reserve(0, kRecord, &r), ETW_OK);
    s.pool.commit(r);
    EXPECT_NE(r.index, owned);
    EXPECT_EQ(s.pool.slot(0).current.load(), r.index) << "the scribbled stream slot was replaced";
    EXPECT_FALSE(s.pool.desc(owned).state.load() & BufferPool::kSealed);
    EXPECT_EQ(s.flushed(), 0u) << "an owner's buffer was handed on by a CAS writer";
}

TEST(OwnedSlots, AScribbledFreeListNeverHandsABufferInUseToAnotherWriter)
{
    SharedPool s;
    OwnedBuffers host;
    host.enable(&s.pool, false);
    ASSERT_TRUE(write_owned(host));
    BufferPool::Reservation r{};
    ASSERT_EQ(s.pool.reserve(0, kRecord, &r), ETW_OK);
    s.pool.commit(r);
    const std::uint32_t owned = owned_buffer(s);
    ASSERT_LT(owned, s.pool.capacity());
    const std::uint64_t owned_state = s.pool.desc(owned).state.load();
    const std::uint64_t shared_state = s.pool.desc(r.index).state.load();
    std::atomic<std::uint64_t> &head = s.pool.control().free_head;
    for (std::uint32_t in_use : {owned, r.index}) {
        head.store(in_use | (std::uint64_t(77) << 32)); // scribbled: the list starts at a buffer in use
        EXPECT_EQ(s.pool.acquire_owned(0, 9), kNoBuffer) << "buffer " << in_use << " handed to an owner while in use";
        head.store(in_use | (std::uint64_t(78) << 32));
        s.pool.slot(0).current.store(kNoBuffer); // the CAS writers switch buffers
        BufferPool::Reservation again{};
        EXPECT_EQ(s.pool.reserve(0, kRecord, &again), ETW_ERROR_NOT_ENOUGH_MEMORY) << "buffer " << in_use;
    }
    EXPECT_EQ(s.pool.desc(owned).state.load(), owned_state);
    EXPECT_EQ(s.pool.desc(r.index).state.load(), shared_state);
}

// An owner changing buffers empties its slot, then seals the old buffer
// (OwnedBuffers::renew). One killed in between leaves a buffer with
// committed events that no slot names: the dead-writer check hands it on
// (BufferPool::seal_detached), or events whose writes returned ETW_OK are
// in neither the file nor EventsLost. A live owner between the two steps
// seals its buffer itself: the check leaves that one alone.
TEST(OwnedSlots, AnOwnedBufferItsOwnerLetGoOfIsHandedOnByTheCheckOnlyIfTheOwnerDied)
{
    HostOwning h;
    SharedPool &s = h.s;
    const std::uint32_t live = h.owned;
    ASSERT_LT(live, s.pool.capacity());
    for (ThreadSlot &ts : s.pool.control().threads)
        ts.current.store(kNoBuffer); // renew's first step (this process: live)
    s.pool.seal_detached();
    EXPECT_EQ(s.flushed(), 0u);
    EXPECT_FALSE(s.pool.desc(live).state.load() & BufferPool::kSealed);
    s.writer_that_dies_after([](BufferPool &mine) {
        auto *o = new OwnedBuffers; // never destroyed: the process dies owning its slot
        o->enable(&mine, true);
        for (int i = 0; i < 2; ++i)
            if (!write_owned(*o))
                return false;
        for (ThreadSlot &ts : mine.control().threads)
            if (ts.pid.load() == std::uint32_t(getpid()))
                ts.current.store(kNoBuffer); // renew's first step, and no second
        return true;
    });
    ASSERT_FALSE(::testing::Test::HasFailure());
    std::uint32_t dead = kNoBuffer;
    for (std::uint32_t i = 0; i < s.pool.capacity(); ++i)
        if (i != live && BufferPool::events_of(s.pool.desc(i).state.load()) != 0)
            dead = i;
    ASSERT_LT(dead, s.pool.capacity());
    EXPECT_EQ(h.host.reap_exited(true), 1u); // the dead owner's slot is freed; it named no buffer
    EXPECT_EQ(s.flushed(), 0u);
    s.pool.seal_detached();
    std::uint32_t out[kBuffers];
    ASSERT_EQ(s.pool.take_flushed(out, kBuffers), 1u) << "the dead owner's committed events were left behind";
    EXPECT_EQ(out[0], dead);
    EXPECT_EQ(BufferPool::events_of(s.pool.desc(dead).state.load()), 2u);
    EXPECT_FALSE(s.pool.desc(live).state.load() & BufferPool::kSealed);
}

TEST(OwnedSlots, AnOwnedBufferOpenedByAWriterThatDiedBeforeItsSlotNamedItIsFreedAgain)
{
    SharedPool s;
    const pid_t pid = s.writer_that_dies_after([](BufferPool &mine) { return mine.acquire_owned(0, 5) != kNoBuffer; });
    ASSERT_FALSE(::testing::Test::HasFailure());
    EXPECT_EQ(s.pool.free_count(), kBuffers - 1);
    const std::vector<BufferPool::Unopened> lost = s.pool.unopened_of_dead();
    ASSERT_EQ(lost.size(), 1u);
    EXPECT_EQ(lost[0].owner, std::uint32_t(pid));
    // Named by a thread slot (the owner stored it before dying): not reclaimed.
    ThreadSlot &ts = s.pool.control().threads[5];
    ts.pid.store(std::uint32_t(pid));
    ts.current.store(lost[0].index);
    EXPECT_EQ(s.pool.reclaim_unopened(lost, {}), 0u);
    ts.current.store(kNoBuffer);
    EXPECT_EQ(s.pool.reclaim_unopened(lost, {}), 1u);
    EXPECT_EQ(s.pool.free_count(), kBuffers);
}

// The host offers its remote barrier (platform::remote_barrier) in the
// region, and owners of another process leave out their fence only when it
// is offered and their process registered for it: the host's barrier then
// stands for the fence they leave out. OPENETW_GRACE_FENCE=1 (the
// engine-grace-fence run) asks for the fences on both sides.
TEST(OwnedSlots, OwnersOfAnotherProcessFenceUnlessTheHostOffersItsRemoteBarrier)
{
    const char *fence = std::getenv("OPENETW_GRACE_FENCE");
    const bool fences_asked = fence != nullptr && fence[0] == '1';
#if defined(__linux__)
    if (!fences_asked) {
        EXPECT_TRUE(platform::remote_barrier_available()) << "membarrier GLOBAL_EXPEDITED missing here?";
    }
#endif
    const bool offered = !fences_asked && platform::remote_barrier_available();
    SharedPool s;
    OwnedBuffers host;
    host.enable(&s.pool, false);
    EXPECT_EQ(s.pool.control().remote_barrier.load(), offered ? 1u : 0u);
    // The writer's mode, and a write and flush through it.
    const auto writer = [&](bool expect_fence) {
        s.writer_that_dies_after([expect_fence](BufferPool &mine) {
            auto *o = new OwnedBuffers; // never destroyed: the process dies owning its slot
            o->enable(&mine, true);
            return o->owners_fence() == expect_fence && write_owned(*o);
        });
        ASSERT_FALSE(::testing::Test::HasFailure());
        EXPECT_EQ(host.reap_exited(true), 1u); // its slot freed, its buffer handed on with its record
        EXPECT_EQ(s.flushed(), 1u);
    };
    writer(!offered);
    // A region whose host offers nothing (scribbled, or a host without the
    // barrier): the owners fence whatever their own process could register.
    s.pool.control().remote_barrier.store(0);
    writer(true);
}

// A writer of another process checks the session's `closing` flag only on
// its slow path (a changed request, a new processor, a full buffer): the
// stop bumps every slot's request after setting it, so an owner writing on
// in the buffer it holds is sent to the CAS protocol (which refuses) from
// then on.
TEST(OwnedSlots, AnOwnerOfAnotherProcessIsRefusedOnceTheStopQuiescedTheOwners)
{
    SharedPool s;
    OwnedBuffers writer; // (this process, as a writer to the region's host)
    writer.enable(&s.pool, true);
    ASSERT_TRUE(writer.enabled());
    ASSERT_TRUE(write_owned(writer)); // a slot and a buffer with room: the common path from here on
    ASSERT_TRUE(write_owned(writer));
    s.pool.control().closing.store(1, std::memory_order_seq_cst);
    ASSERT_TRUE(OwnedBuffers::quiesce_owners(s.pool.control(), 0, 1000));
    EXPECT_EQ(writer.reserve_remote(0, kRecord), nullptr) << "a write after the stop went in";
}

// An owner of another process held inside a write through a stop (its
// process stopped) has its buffer taken at the committed offset. Its event
// is lost only if it had not committed then: the entering store carried the
// offset it found, so a commit before the take is told from one after.
TEST(OwnedSlots, AHeldOwnersEventIsCountedLostOnlyIfItWasNotCommittedWhenItsBufferWasTaken)
{
    for (const bool committed : {true, false}) {
        SCOPED_TRACE(committed ? "held after its commit" : "held before its commit");
        SharedPool s;
        OwnedBuffers host; // the logger's side
        host.enable(&s.pool, false);
        OwnedBuffers writer; // (this process, as a writer to the region's host)
        writer.enable(&s.pool, true);
        ASSERT_TRUE(write_owned(writer));
        OwnedCursor *c = writer.reserve_remote(0, kRecord);
        ASSERT_NE(c, nullptr);
        std::memset(c->pos, 0x5A, kRecord);
        if (committed)
            writer.commit(c, kRecord); // the state stored, the bracket not yet left
        const std::vector<OwnedBuffers::Held> held = host.take_held_owners(s.pool.control(), 0);
        ASSERT_EQ(held.size(), 1u);
        EXPECT_EQ(s.flushed(), 1u) << "the held owner's buffer was not taken";
        EXPECT_EQ(OwnedBuffers::still_held(s.pool.control(), held), committed ? 0u : 1u);
    }
}

} // namespace openetw::engine
