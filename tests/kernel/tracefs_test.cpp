// tracefs on this machine (Linux, run as root in CI): found or mounted,
// a tracepoint's id and format read and parsed, and the errors for names
// it does not have. Never skipped: a machine without tracefs fails here
// with the reason.
#include "kernel/tracepoint_format.hpp"
#include "platform/tracefs.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace openetw;

TEST(Tracefs, FoundOrMounted)
{
    std::string root;
    const Status st = platform::tracefs_root(&root);
    ASSERT_TRUE(st) << "tracefs is needed by the system logger: " << st.message;
    EXPECT_TRUE(root == "/sys/kernel/tracing" || root == "/sys/kernel/debug/tracing") << root;
}

// The id file and the format's ID line agree; the format parses and has
// the fields the CSwitch source reads.
TEST(Tracefs, SchedSwitchIdAndFormat)
{
    std::uint64_t id = 0;
    Status st = platform::tracepoint_id("sched", "sched_switch", &id);
    ASSERT_TRUE(st) << st.message;
    EXPECT_GT(id, 0u);
    std::string text;
    st = platform::tracepoint_format_text("sched", "sched_switch", &text);
    ASSERT_TRUE(st) << st.message;
    kernel::TracepointFormat f;
    st = kernel::TracepointFormat::parse(text, &f);
    ASSERT_TRUE(st) << st.message;
    EXPECT_EQ(f.name(), "sched_switch");
    EXPECT_EQ(f.id(), id);
    for (const char *field : {"prev_pid", "prev_prio", "prev_state", "next_pid", "next_prio"})
        EXPECT_NE(f.find(field), nullptr) << field;
}

// The block and sock tracepoints the disk and network sources use parse too.
TEST(Tracefs, SourceTracepointsParse)
{
    const std::pair<const char *, const char *> points[] = {{"block", "block_rq_issue"},
                                                            {"block", "block_rq_complete"},
                                                            {"sched", "sched_wakeup"},
                                                            {"sock", "inet_sock_set_state"}};
    for (const auto &[system, name] : points) {
        std::string text;
        Status st = platform::tracepoint_format_text(system, name, &text);
        ASSERT_TRUE(st) << st.message;
        kernel::TracepointFormat f;
        st = kernel::TracepointFormat::parse(text, &f);
        EXPECT_TRUE(st) << name << ": " << st.message;
    }
}

TEST(Tracefs, UnknownTracepointIsNotSupportedByName)
{
    std::uint64_t id = 7;
    const Status st = platform::tracepoint_id("sched", "no_such_event_xyz", &id);
    EXPECT_EQ(st.code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(st.message.find("sched:no_such_event_xyz"), std::string::npos) << st.message;
    EXPECT_EQ(id, 7u) << "nothing written on failure";
    std::string text;
    EXPECT_EQ(platform::tracepoint_format_text("no_such_system", "x", &text).code, ETW_ERROR_NOT_SUPPORTED);
}

TEST(Tracefs, NamesThatAreNotOnePathComponentAreRefused)
{
    std::uint64_t id = 0;
    for (const auto &[system, name] : {std::pair<const char *, const char *>{"..", "sched_switch"},
                                       {"sched/../sched", "sched_switch"},
                                       {"sched", ""},
                                       {"", "x"}}) {
        const Status st = platform::tracepoint_id(system, name, &id);
        EXPECT_EQ(st.code, ETW_ERROR_INVALID_PARAMETER) << system << ":" << name;
        EXPECT_NE(st.message.find("is not a system:event name"), std::string::npos) << st.message;
    }
}
