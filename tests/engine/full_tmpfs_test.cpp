// A full tmpfs (any user can fill /dev/shm) under the registry and the
// session regions: every start is a status or a session with private
// buffers, never a SIGBUS, and the sessions already running keep logging
// (docs/SYSTEM_SESSIONS.md, "Limits and what is left alone"). On the code
// before regions were reserved, each test here dies of SIGBUS. Needs root
// (mount); skipped with the reason otherwise. Linux only.
#include "engine_test_util.hpp"
#include "small_tmpfs.hpp"

#include "engine/buffer_pool.hpp"
#include "platform/files.hpp"
#include "platform/host.hpp"

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace enginetest;
using namespace openetw;
namespace fs = std::filesystem;

namespace {

bool usable(const void *base) { return *static_cast<const std::uint32_t *>(base) == 0x52454731; }
void init_registry(void *base, void *) { *static_cast<std::uint32_t *>(base) = 0x52454731; }

constexpr std::size_t kRegistryBytes = 256 * 1024;

// n events of 100 bytes from this process, the session flushed every 10 so
// that it never needs more than its minimum.
void log_events(etw_provider *p, const etw_guid &g, std::initializer_list<etw_session *> sessions, int n)
{
    for (int i = 0; i < n; ++i) {
        Event e(g, 100);
        std::memcpy(e.bytes + 0x30, &i, sizeof i);
        EXPECT_EQ(etw_provider_trace_event(p, e.h()), ETW_OK) << "event " << i;
        if (i % 10 == 9)
            for (etw_session *s : sessions)
                etw_session_flush(s, nullptr);
    }
}

std::size_t events_of(const std::string &path, const etw_guid &g)
{
    const etltest::File f = etltest::decode(path);
    EXPECT_TRUE(f.ok()) << path << ": " << f.problem_text();
    std::size_t n = 0;
    for (const auto &ev : f.events)
        n += std::memcmp(ev.guid, &g, sizeof g) == 0 ? 1 : 0;
    return n;
}

} // namespace

TEST(FullTmpfs, APoolWithoutRoomForItsRegionFailsWithDiskFullAndLeavesNoFile)
{
    SmallTmpfs shm(1 << 20, "shm");
    if (!shm.error().empty())
        GTEST_SKIP() << shm.error();
    shm.fill();
    const std::string path = shm.dir() + "/region";
    engine::BufferPool pool;
    EXPECT_EQ(pool.create(4096, 1, 4, 8, 64, path), ETW_ERROR_DISK_FULL);
    EXPECT_FALSE(platform::file_exists(path)) << "a region that could not be made is left behind";
}

TEST(FullTmpfs, ARegistryWithoutRoomIsDiskFullAndNoFileReadersWouldFaultOn)
{
    SmallTmpfs shm(1 << 20, "shm");
    if (!shm.error().empty())
        GTEST_SKIP() << shm.error();
    shm.fill();
    const std::string path = shm.dir() + "/registry";
    platform::Region r;
    EXPECT_EQ(platform::registry_create(&r, path, kRegistryBytes, usable, init_registry, nullptr), ETW_ERROR_DISK_FULL);
    // A reader accepts a registry of the right size only: one with holes
    // would fault in every process that reads it.
    std::uint32_t owner = 0;
    EXPECT_EQ(platform::registry_open_readonly(&r, path, kRegistryBytes, &owner), ETW_ERROR_BAD_LENGTH);
}

TEST(FullTmpfs, ARegistryWithHolesIsFilledOrRefusedNeverTouched)
{
    SmallTmpfs shm(1 << 20, "shm");
    if (!shm.error().empty())
        GTEST_SKIP() << shm.error();
    // The size without the pages: a host that died right after sizing it.
    const std::string path = shm.dir() + "/registry";
    {
        std::ofstream(path, std::ios::binary);
    }
    fs::resize_file(path, kRegistryBytes);
    shm.fill();
    platform::Region r;
    EXPECT_EQ(platform::registry_create(&r, path, kRegistryBytes, usable, init_registry, nullptr), ETW_ERROR_DISK_FULL);
    std::uint32_t owner = 0;
    EXPECT_EQ(platform::registry_open_readonly(&r, path, kRegistryBytes, &owner), ETW_ERROR_BAD_LENGTH);
}

TEST(FullTmpfs, ASessionStartedWithoutRoomRunsWithPrivateBuffersAndTheOthersKeepLogging)
{
    SmallTmpfs shm(4 << 20, "shm");
    if (!shm.error().empty())
        GTEST_SKIP() << shm.error();
    // This process hosts the sessions of a namespace on the small tmpfs
    // (before anything asks for the registry: it is mapped once).
    fs::create_directories(shm.dir() + "/ns");
    const std::string registry = shm.dir() + "/ns/registry";
    setenv("OPENETW_REGISTRY", registry.c_str(), 1);
    setenv("OPENETW_HOST", "inprocess", 1);

    const etw_guid g = make_guid(0x7400);
    const std::string file_a = temp_file("fulltmpfs-a"), file_b = temp_file("fulltmpfs-b");
    auto props = [](const std::string &name, const std::string &file) {
        auto p = std::make_unique<Props>(name, file);
        etw_properties_set_buffer_size(*p, 4);
        etw_properties_set_minimum_buffers(*p, 4);
        etw_properties_set_maximum_buffers(*p, 16);
        etw_properties_set_log_file_mode(*p, ETW_NO_PER_PROCESSOR_BUFFERING);
        return p;
    };
    auto pa = props(unique_name("fulltmpfs-a"), file_a);
    SessionHandle a;
    ASSERT_EQ(etw_session_start(&a.s, *pa), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(shm.files_named("registry."), 1u) << "the first session's region is not on the tmpfs";

    shm.fill();
    auto pb = props(unique_name("fulltmpfs-b"), file_b);
    SessionHandle b;
    ASSERT_EQ(etw_session_start(&b.s, *pb), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(shm.files_named("registry."), 1u) << "the second session has a region file on a full tmpfs";

    Provider p(g);
    ASSERT_EQ(etw_session_enable_provider(a, &g, 1, 5, 0, 0), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(b, &g, 1, 5, 0, 0), ETW_OK);
    constexpr int kEvents = 200;
    log_events(p, g, {a.s, b.s}, kEvents);
    EXPECT_EQ(etw_session_stop(a, *pa), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(etw_session_stop(b, *pb), ETW_OK) << etw_last_error_message();
    EXPECT_EQ(pa->rec().EventsLost, 0u);
    EXPECT_EQ(pb->rec().EventsLost, 0u);
    EXPECT_EQ(events_of(file_a, g), std::size_t(kEvents)) << "the session already running lost events";
    EXPECT_EQ(events_of(file_b, g), std::size_t(kEvents)) << "the session with private buffers lost events";
}
