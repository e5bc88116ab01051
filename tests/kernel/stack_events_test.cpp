// Stacks of kernel events: StackWalk_Event laid out and decoded field by
// field in both layouts, cut to a record's room; which CLASSIC_EVENT_IDs a
// system logger serves stacks for, and the refusals naming why; xperf's
// -stackwalk names parsed into them.
#include "kernel_etl.hpp"

#include "kernel/profile_records.hpp"
#include "kernel/stack_event_names.hpp"
#include "kernel/stack_events.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

using namespace openetw::kernel;
using kerneltest::expect_perfinfo;
using kerneltest::ptr_text;

namespace {

constexpr etw_guid kThread = {0x3d6fa8d1, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
constexpr etw_guid kPerfInfo = {0xce1dbfb4, 0x137e, 0x4da6, {0x87, 0xb0, 0x3f, 0x59, 0xaa, 0x10, 0x2c, 0xbc}};
constexpr etw_guid kTcpIp = {0x9a280ac0, 0xc8e0, 0x11d1, {0x84, 0xe2, 0x00, 0xc0, 0x4f, 0xb9, 0x98, 0xa2}};
constexpr etw_guid kUdpIp = {0xbf3a50c5, 0xa9c9, 0x4988, {0xa0, 0x05, 0x2d, 0xf0, 0xb7, 0xc8, 0x0f, 0x80}};
constexpr etw_guid kPageFault = {0x3d6fa8d3, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
constexpr etw_guid kFileIo = {0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};
constexpr etw_guid kImage = {0x2cb15d1d, 0x5fc1, 0x11d2, {0xab, 0xe1, 0x00, 0xa0, 0xc9, 0x11, 0xf5, 0x18}};

etw_classic_event_id id(const etw_guid &g, std::uint8_t type) { return {g, type, {}}; }

} // namespace

TEST(StackWalk, TheRecordDecodesFieldByFieldInBothLayouts)
{
    for (std::uint32_t ptr : {8u, 4u}) {
        const StackFields f{0x1122334455667788, 4321, 4322, {0xFFFFFFFF81000010ull, 0x7F0000401234ull, 0x401000}};
        const auto seen = kerneltest::round_trip({stack_walk_record(0x1122334455667788, f, ptr)}, ptr);
        ASSERT_EQ(seen.size(), 1u);
        expect_perfinfo(seen[0], 0x1820, kStackWalkVersion, ptr, 0x1122334455667788);
        EXPECT_EQ(seen[0].event_name, "StackWalk/Stack");
        EXPECT_EQ(seen[0].payload_size, 16u + 3 * ptr);
        EXPECT_EQ(seen[0].value("EventTimeStamp"), std::to_string(0x1122334455667788));
        EXPECT_EQ(seen[0].value("StackProcess"), "4321");
        EXPECT_EQ(seen[0].value("StackThread"), "4322");
        for (std::size_t i = 0; i < f.frames.size(); ++i)
            EXPECT_EQ(seen[0].value("Stacks[" + std::to_string(i) + "]"), ptr_text(f.frames[i], ptr)) << i;
    }
}

TEST(StackWalk, FramesAreCutToTheRecordsRoomInnermostKept)
{
    StackFields f{7, 1, 2, {}};
    for (std::uint64_t i = 0; i < 100; ++i)
        f.frames.push_back(0x1000 + i);
    // PERFINFO header 16, fixed fields 16: room for 10 frames of 8 bytes.
    const Bytes r = stack_walk_record_within(7, f, 8, 16 + 16 + 10 * 8 + 7);
    ASSERT_EQ(r.size(), 16u + 16 + 10 * 8);
    const auto seen = kerneltest::round_trip({r}, 8);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].value("Stacks[0]"), "0x1000");
    EXPECT_EQ(seen[0].value("Stacks[9]"), "0x1009");
    EXPECT_EQ(seen[0].value("Stacks[10]"), "<absent>");
    // No frames: no record.
    EXPECT_TRUE(stack_walk_record_within(7, StackFields{7, 1, 2, {}}, 8, 4096).empty());
    // The whole stack when it fits; StackWalk's 192 frames at most.
    EXPECT_EQ(stack_walk_record_within(7, f, 8, 65000).size(), 16u + 16 + 100 * 8);
    f.frames.resize(300, 0x2000);
    EXPECT_EQ(stack_walk_record_within(7, f, 8, 65000).size(), 16u + 16 + kMaxStackFrames * 8);
}

TEST(StackEvents, TheSampledAndTracepointEventsAreServed)
{
    const etw_classic_event_id served[] = {
        id(kPerfInfo, 46),  id(kPerfInfo, 51),  id(kPerfInfo, 52), id(kThread, 36),    id(kTcpIp, 10),
        id(kTcpIp, 11),     id(kTcpIp, 26),     id(kTcpIp, 27),    id(kPageFault, 11), id(kPageFault, 12),
        id(kPageFault, 15), id(kPageFault, 32), id(kThread, 36), // a duplicate is fine
        id(kUdpIp, 10),     id(kUdpIp, 11),     id(kUdpIp, 26),    id(kUdpIp, 27),
    };
    StackEvents s;
    ASSERT_TRUE(StackEvents::from(served, &s));
    // The FileIo calls' records (file_io_tracker.hpp).
    const etw_classic_event_id file_io[] = {id(kFileIo, 64), id(kFileIo, 65), id(kFileIo, 66),
                                            id(kFileIo, 67), id(kFileIo, 68), id(kFileIo, 70),
                                            id(kFileIo, 71), id(kFileIo, 73), id(kFileIo, 76)};
    StackEvents files;
    ASSERT_TRUE(StackEvents::from(file_io, &files));
    EXPECT_EQ(files, StackEvents::of({0x0440, 0x0441, 0x0442, 0x0443, 0x0444, 0x0446, 0x0447, 0x0449, 0x044C}));
    const std::vector<std::uint16_t> hooks = {0x0F2E, 0x0F33, 0x0F34, 0x0524, 0x060A, 0x060B, 0x061A, 0x061B,
                                              0x020B, 0x020C, 0x020F, 0x0220, 0x110A, 0x110B, 0x111A, 0x111B};
    for (std::uint16_t hook : hooks)
        EXPECT_TRUE(s.has(hook)) << std::hex << hook;
    EXPECT_FALSE(s.has(0x0F2F));
    EXPECT_EQ(s, StackEvents::of(hooks));
    // Only some: the others are not in the set.
    ASSERT_TRUE(StackEvents::from(std::span(served + 3, 1), &s));
    EXPECT_TRUE(s.has(0x0524));
    EXPECT_FALSE(s.has(0x0F2E));
    // None: stacks off.
    ASSERT_TRUE(StackEvents::from({}, &s));
    EXPECT_TRUE(s.empty());
}

TEST(StackEvents, EveryOtherEventIsRefusedNamingItAndWhy)
{
    const struct {
        etw_classic_event_id id;
        const char *why;
    } refused[] = {
        {id(kThread, 1), "side-band"},          // Thread/Start
        {id(kImage, 10), "side-band"},          // Image/Load
        {id(kPerfInfo, 67), "SysClEnter (51)"}, // PerfInfo/ISR: not written
        {id(kTcpIp, 12), "RecvIPV6 (27)"},      // TcpIp/ConnectIPV4: not written
        {id(kUdpIp, 17), "of the UdpIp class"}, // UdpIp/Fail: not written
        {id(kPageFault, 10), "HardFault (32) are served: the others are not written here"}, // TransitionFault
        {id(kFileIo, 0), "the names (0, 32, 35, 36) are no call's"},                        // FileIo/Name
        {id(kFileIo, 72), "Write (68)"}, // FileIo/DirEnum: not written
    };
    const StackEvents before = StackEvents::of({0x0524});
    for (const auto &r : refused) {
        StackEvents s = before;
        const etw_classic_event_id ids[] = {id(kThread, 36), r.id};
        const openetw::Status st = StackEvents::from(ids, &s);
        EXPECT_EQ(st.code, ETW_ERROR_NOT_SUPPORTED);
        EXPECT_NE(st.message.find(" type " + std::to_string(r.id.type) + " "), std::string::npos) << st.message;
        EXPECT_NE(st.message.find(r.why), std::string::npos) << st.message;
        EXPECT_EQ(s, before) << "a refusal changes nothing";
    }
}

namespace {

bool same(const etw_classic_event_id &a, const etw_classic_event_id &b)
{
    return std::memcmp(&a.event_guid, &b.event_guid, sizeof a.event_guid) == 0 && a.type == b.type;
}

} // namespace

TEST(StackEventNames, XperfNamesAndCustomEventsNameTheirClassAndType)
{
    std::vector<etw_classic_event_id> got;
    ASSERT_TRUE(parse_stack_events("Profile+cswitch, ReadyThread|0x060A PagefaultDemandZero ImageLoad", &got));
    const std::vector<etw_classic_event_id> want = {id(kPerfInfo, 46), id(kThread, 36),    id(kThread, 50),
                                                    id(kTcpIp, 10),    id(kPageFault, 11), id(kImage, 10)};
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_TRUE(same(got[i], want[i])) << "event " << i;
    // What the names give is what the logger takes (ReadyThread's stacks it refuses by name).
    StackEvents set;
    EXPECT_FALSE(StackEvents::from(got, &set));
    EXPECT_TRUE(StackEvents::from(std::vector<etw_classic_event_id>{got[0], got[1], got[3], got[4]}, &set));
    EXPECT_TRUE(set.has(0x0F2E) && set.has(0x0524) && set.has(0x060A) && set.has(0x020B));
}

TEST(StackEventNames, NoneIsTheEmptyListAndEveryBadListIsRefusedByName)
{
    std::vector<etw_classic_event_id> got;
    ASSERT_TRUE(parse_stack_events(" none ", &got));
    EXPECT_TRUE(got.empty());
    for (const char *bad : {"", " , ", "Profile+Bogus", "0x06", "0x060G", "0x7F01", "none+Profile"}) {
        const openetw::Status st = parse_stack_events(bad, &got);
        EXPECT_EQ(st.code, ETW_ERROR_INVALID_PARAMETER) << bad;
        EXPECT_TRUE(got.empty()) << bad << ": the list changed although it was refused";
    }
    EXPECT_NE(parse_stack_events("Profile+Bogus", &got).message.find("\"Bogus\""), std::string::npos);
    EXPECT_NE(parse_stack_events("0x7F01", &got).message.find("0x7F"), std::string::npos);
}

TEST(StackEventNames, ThePublicCallSaysHowManyAndFillsOnlyItsRoom)
{
    std::uint32_t count = 0;
    EXPECT_EQ(etw_stack_events_parse(nullptr, 0, &count, "Profile+CSwitch"), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(count, 2u);
    etw_classic_event_id one[1] = {};
    EXPECT_EQ(etw_stack_events_parse(one, 1, &count, "Profile+CSwitch"), ETW_ERROR_MORE_DATA);
    EXPECT_TRUE(same(one[0], id(kPerfInfo, 46)));
    etw_classic_event_id two[2] = {};
    EXPECT_EQ(etw_stack_events_parse(two, 2, &count, "Profile+CSwitch"), ETW_OK);
    EXPECT_TRUE(same(two[1], id(kThread, 36)));
    EXPECT_EQ(etw_stack_events_parse(two, 2, nullptr, "Profile"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_stack_events_parse(two, 2, &count, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_stack_events_parse(nullptr, 2, &count, "Profile"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_stack_events_parse(two, 2, &count, "Nope"), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("\"Nope\""), std::string::npos);
}
