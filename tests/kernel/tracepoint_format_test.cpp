// The tracepoint format parser on format files of a real kernel (6.18,
// copied from /sys/kernel/tracing/events into tests/kernel/tracepoints/)
// and on malformed text; the readers on samples laid out by them,
// refusing what a short or lying sample would make them read past its end.
#include "kernel/tracepoint_format.hpp"

#include "../format/etl_builder.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using openetw::kernel::TracepointField;
using openetw::kernel::TracepointFormat;

namespace {

std::string format_text(const char *name)
{
    const auto bytes =
        etltest::read_file(std::string(OPENETW_SOURCE_DIR) + "/tests/kernel/tracepoints/" + name + ".format");
    return std::string(bytes.begin(), bytes.end());
}

TracepointFormat parsed(const char *name)
{
    TracepointFormat f;
    const openetw::Status st = TracepointFormat::parse(format_text(name), &f);
    EXPECT_TRUE(st) << name << ": " << st.message;
    return f;
}

void put(std::vector<std::uint8_t> &s, std::size_t at, std::uint64_t v, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        s[at + i] = std::uint8_t(v >> (8 * i));
}

} // namespace

TEST(TracepointFormat, SchedSwitchFieldsAsTheKernelLaysThemOut)
{
    const TracepointFormat f = parsed("sched_switch");
    EXPECT_EQ(f.name(), "sched_switch");
    EXPECT_EQ(f.id(), 372u);
    ASSERT_EQ(f.fields().size(), 11u);
    const TracepointField *comm = f.find("prev_comm");
    ASSERT_NE(comm, nullptr);
    EXPECT_EQ(comm->type, "char[16]");
    EXPECT_EQ(comm->offset, 8u);
    EXPECT_EQ(comm->size, 16u);
    EXPECT_EQ(comm->array_len, 16u);
    const TracepointField *state = f.find("prev_state");
    ASSERT_NE(state, nullptr);
    EXPECT_EQ(state->type, "long");
    EXPECT_EQ(state->offset, 32u);
    EXPECT_EQ(state->size, 8u);
    EXPECT_TRUE(state->is_signed);
    const TracepointField *type = f.find("common_type");
    ASSERT_NE(type, nullptr);
    EXPECT_EQ(type->type, "unsigned short");
    EXPECT_FALSE(type->is_signed);
    EXPECT_EQ(f.find("next_prio")->offset, 60u);
    EXPECT_EQ(f.fixed_size(), 64u);
    EXPECT_EQ(f.find("nope"), nullptr);
}

TEST(TracepointFormat, EveryCopiedFormatParses)
{
    for (const char *name :
         {"sched_switch", "sched_wakeup", "sched_process_fork", "block_rq_issue", "block_rq_complete",
          "block_rq_insert", "sys_enter_exit_group", "inet_sock_set_state", "tcp_probe"}) {
        const TracepointFormat f = parsed(name);
        EXPECT_EQ(f.name(), name);
        EXPECT_NE(f.find("common_pid"), nullptr) << name;
    }
    const TracepointFormat issue = parsed("block_rq_issue");
    const TracepointField *cmd = issue.find("cmd");
    ASSERT_NE(cmd, nullptr);
    EXPECT_TRUE(cmd->data_loc);
    EXPECT_EQ(cmd->type, "__data_loc char[]");
    EXPECT_EQ(cmd->offset, 60u);
    EXPECT_EQ(issue.find("dev")->type, "dev_t");
    EXPECT_EQ(issue.find("sector")->offset, 16u);
    const TracepointFormat sock = parsed("inet_sock_set_state");
    EXPECT_EQ(sock.find("skaddr")->type, "const void *");
    EXPECT_EQ(sock.find("daddr_v6")->array_len, 16u);
    EXPECT_EQ(parsed("sys_enter_exit_group").find("error_code")->offset, 16u);
}

TEST(TracepointFormat, ReadersTakeIntegersStringsAndDataLoc)
{
    const TracepointFormat f = parsed("block_rq_issue");
    std::vector<std::uint8_t> s(64 + 8, 0);
    put(s, 8, (8u << 20) | 16u, 4);      // dev 8:16
    put(s, 16, 0x123456789ull, 8);       // sector
    put(s, 28, 1u << 20, 4);             // bytes
    std::memcpy(&s[34], "WS\0", 3);      // rwbs
    std::memcpy(&s[44], "python3\0", 8); // comm
    put(s, 60, (5u << 16) | 64u, 4);     // cmd: 5 bytes at 64
    std::memcpy(&s[64], "abc\0z", 5);
    EXPECT_EQ(f.u(s, "dev"), (8u << 20) | 16u);
    EXPECT_EQ(f.u(s, "sector"), 0x123456789ull);
    EXPECT_EQ(f.u(s, "bytes"), 1u << 20);
    EXPECT_EQ(f.str(s, "rwbs"), "WS");
    EXPECT_EQ(f.str(s, "comm"), "python3");
    EXPECT_EQ(f.str(s, "cmd"), "abc");
    EXPECT_FALSE(f.u(s, "comm")) << "an array is not an integer";
    EXPECT_FALSE(f.u(s, "nope"));

    // Signed fields are sign-extended, unsigned ones are not.
    const TracepointFormat sw = parsed("sched_switch");
    std::vector<std::uint8_t> t(64, 0);
    put(t, 24, 0xFFFFFFFF, 4); // prev_pid -1
    put(t, 0, 0xFFFF, 2);      // common_type
    EXPECT_EQ(sw.i(t, "prev_pid"), -1);
    EXPECT_EQ(sw.i(t, "common_type"), 0xFFFF);
    EXPECT_EQ(sw.u(t, "prev_pid"), 0xFFFFFFFFu);
}

TEST(TracepointFormat, ShortOrLyingSamplesAreRefused)
{
    const TracepointFormat f = parsed("block_rq_issue");
    std::vector<std::uint8_t> s(64, 0);
    put(s, 28, 4096, 4);
    // One byte short of `bytes` (offset 28, size 4).
    EXPECT_FALSE(f.u(std::span(s.data(), 31), "bytes"));
    EXPECT_EQ(f.u(std::span(s.data(), 32), "bytes"), 4096u);
    // A __data_loc word pointing past the sample, or its length running past it.
    put(s, 60, (4u << 16) | 200u, 4);
    EXPECT_FALSE(f.str(s, "cmd"));
    put(s, 60, (5u << 16) | 62u, 4);
    EXPECT_FALSE(f.str(s, "cmd"));
    put(s, 60, (0u << 16) | 64u, 4); // empty, at the very end: allowed
    EXPECT_EQ(f.str(s, "cmd"), "");
    // The data_loc word itself cut off.
    EXPECT_FALSE(f.str(std::span(s.data(), 62), "cmd"));
    // A char array cut off.
    EXPECT_FALSE(f.str(std::span(s.data(), 50), "comm"));
}

TEST(TracepointFormat, RelLocCountsFromTheWordsEnd)
{
    const std::string text =
        "name: x\nID: 9\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
        "\tfield:__rel_loc char[] msg;\toffset:8;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
    TracepointFormat f;
    ASSERT_TRUE(TracepointFormat::parse(text, &f));
    std::vector<std::uint8_t> s(20, 0);
    put(s, 8, (3u << 16) | 4u, 4); // 3 bytes, 4 after the word's end (12): at 16
    std::memcpy(&s[16], "hi\0", 3);
    EXPECT_EQ(f.str(s, "msg"), "hi");
}

TEST(TracepointFormat, MalformedTextIsRefusedWithTheLine)
{
    const std::string head = "name: t\nID: 5\nformat:\n";
    const struct {
        std::string text;
        std::string says;
    } cases[] = {
        {"", "no 'name:' line"},
        {"name: t\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n", "no 'ID:' line"},
        {head, "no fields"},
        {"name: t\nID: x5\n", "line 2: the ID 'x5' is not a number"},
        {head + "\tfield:int a;\tsize:4;\tsigned:1;\n", "line 4: field a lacks its offset or size"},
        {head + "\tfield:int a;\toffset:z;\tsize:4;\tsigned:1;\n", "line 4: offset 'z' is not a number"},
        {head + "\tfield:int a;\toffset:0;\tsize:0;\tsigned:1;\n", "line 4: size '0' is not a positive number"},
        {head + "\tfield:int a;\toffset:0;\tsize:4;\tsigned:2;\n", "line 4: signed '2' is neither 0 nor 1"},
        {head + "\tfield:int a;\toffset:0;\tsize:4\n", "line 4: 'size:4' is not ended by ';'"},
        {head + "\tfield:a;\toffset:0;\tsize:4;\tsigned:1;\n", "line 4: 'a' is not a type followed by a name"},
        {head + "\tfield:int a[4;\toffset:0;\tsize:4;\tsigned:1;\n", "line 4: 'a[4' has an unclosed array bound"},
        {head + "\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n\tfield:int a;\toffset:4;\tsize:4;\tsigned:1;\n",
         "line 5: field a appears twice"},
        {head + "\tfield:int a;\toffset:70000;\tsize:4;\tsigned:1;\n", "line 4: field a lies past 64 KB"},
        {head + "\tfield:__data_loc char[] s;\toffset:0;\tsize:8;\tsigned:0;\n",
         "line 4: __data_loc field s is not a 4-byte word"},
        {head + "\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\tcolour:red;\n", "line 4: unknown item 'colour:red'"},
        {"name: t\nID: 5\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
         "line 3: a field before the 'format:' line"},
        {head + "garbage\n", "line 4: 'garbage' is neither a field nor a header line"},
    };
    for (const auto &c : cases) {
        TracepointFormat f;
        const openetw::Status st = TracepointFormat::parse(c.text, &f);
        EXPECT_EQ(st.code, ETW_ERROR_INVALID_DATA) << c.text;
        EXPECT_NE(st.message.find(c.says), std::string::npos) << "got: " << st.message << "\nwanted: " << c.says;
    }
    // A whole real format with one field line broken is refused, not half-read.
    std::string broken = format_text("sched_switch");
    broken.replace(broken.find("offset:32;"), 10, "offset:;");
    TracepointFormat f;
    const openetw::Status st = TracepointFormat::parse(broken, &f);
    EXPECT_EQ(st.code, ETW_ERROR_INVALID_DATA);
    EXPECT_NE(st.message.find("line 12: offset '' is not a number"), std::string::npos) << st.message;
}
