// ftrace ring pages (kernel/ftrace_page.hpp) built by hand as the kernel
// lays them out: small and long data events, time extends, absolute time
// stamps, discarded events (padding), missed-event flags, and pages cut or
// scribbled, which end the page without reading outside it. And a live
// ftrace instance (root): block_rq_issue read back from it, the instance
// removed when closed, one of a dead process removed by the next open.
#include "kernel/ftrace_page.hpp"
#include "platform/trace_instance.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

using namespace openetw::kernel;

namespace {

struct Page {
    std::vector<std::uint8_t> b = std::vector<std::uint8_t>(4096, 0);
    std::size_t at = 16;
    void u32(std::uint32_t v)
    {
        std::memcpy(&b[at], &v, 4);
        at += 4;
    }
    void head(std::uint32_t type_len, std::uint32_t delta) { u32(type_len | (delta << 5)); }
    void bytes(std::size_t n, std::uint8_t fill)
    {
        std::memset(&b[at], fill, n);
        at += (n + 3) & ~std::size_t(3);
    }
    // Time stamp and commit word (flags in its high bits).
    std::vector<std::uint8_t> done(std::uint64_t time, std::uint64_t flags = 0)
    {
        std::memcpy(&b[0], &time, 8);
        const std::uint64_t commit = (at - 16) | flags;
        std::memcpy(&b[8], &commit, 8);
        return b;
    }
};

struct Event {
    std::uint64_t time;
    std::vector<std::uint8_t> data;
};

std::vector<Event> parse(const std::vector<std::uint8_t> &page, FtracePageCounts *counts = nullptr)
{
    std::vector<Event> out;
    const FtracePageCounts c = parse_ftrace_page(page, 16, [&](std::uint64_t t, std::span<const std::uint8_t> d) {
        out.push_back({t, std::vector<std::uint8_t>(d.begin(), d.end())});
    });
    if (counts)
        *counts = c;
    return out;
}

} // namespace

TEST(FtracePage, EventsOfEveryKindAndTheirTimes)
{
    Page p;
    p.head(3, 10); // 12 bytes of data, 10 ns after the page's time
    p.bytes(12, 0xA1);
    p.head(30, 5); // time extend: 5 | 2 << 27
    p.u32(2);
    p.head(0, 7); // long data: its length word counts itself
    p.u32(4 + 200);
    p.bytes(200, 0xB2);
    p.head(29, 1); // a discarded event: its delta only marks it
    p.u32(4 + 8);
    p.bytes(8, 0xEE);
    p.head(31, 0x123); // absolute time stamp
    p.u32(0x10);
    p.head(1, 0);
    p.bytes(4, 0xC3);
    const std::uint64_t base = 0x0800000000000000ull | 1000; // a high bit the stamp lacks
    FtracePageCounts c;
    const auto ev = parse(p.done(base), &c);
    ASSERT_EQ(ev.size(), 3u);
    EXPECT_EQ(c.events, 3u);
    EXPECT_EQ(c.missed, 0u);
    EXPECT_FALSE(c.malformed);
    EXPECT_EQ(ev[0].time, base + 10);
    EXPECT_EQ(ev[0].data, std::vector<std::uint8_t>(12, 0xA1));
    EXPECT_EQ(ev[1].time, base + 10 + (5 | (std::uint64_t(2) << 27)) + 7);
    EXPECT_EQ(ev[1].data, std::vector<std::uint8_t>(200, 0xB2));
    EXPECT_EQ(ev[2].time, 0x0800000000000000ull | (0x123 | (std::uint64_t(0x10) << 27)));
    EXPECT_EQ(ev[2].data, std::vector<std::uint8_t>(4, 0xC3));
}

TEST(FtracePage, MissedEventsAreCountedAsTheKernelStoredThem)
{
    Page p;
    p.head(1, 0);
    p.bytes(4, 1);
    std::vector<std::uint8_t> page = p.done(0, 1u << 31 | 1u << 30);
    const std::uint64_t missed = 42;
    std::memcpy(&page[16 + 8], &missed, 8); // after the committed data
    FtracePageCounts c;
    EXPECT_EQ(parse(page, &c).size(), 1u);
    EXPECT_EQ(c.missed, 42u);
    // Missed, count not stored: at least one.
    Page q;
    q.head(1, 0);
    q.bytes(4, 1);
    parse(q.done(0, 1u << 31), &c);
    EXPECT_EQ(c.missed, 1u);
}

TEST(FtracePage, ACutOrScribbledPageEndsWithoutReadingOutsideIt)
{
    Page p;
    p.head(2, 0);
    p.bytes(8, 1);
    p.head(0, 0);
    p.u32(4 + 5000); // longer than the page
    FtracePageCounts c;
    auto page = p.done(0);
    EXPECT_EQ(parse(page, &c).size(), 1u);
    EXPECT_TRUE(c.malformed);
    // A commit beyond the page, a page shorter than its header: nothing.
    const std::uint64_t huge = 9000;
    std::memcpy(&page[8], &huge, 8);
    EXPECT_TRUE(parse(page, &c).empty());
    EXPECT_TRUE(c.malformed);
    EXPECT_TRUE(parse(std::vector<std::uint8_t>(10, 0), &c).empty());
    EXPECT_TRUE(c.malformed);
    // Every cut of a valid page parses within it.
    Page v;
    for (int i = 0; i < 20; ++i) {
        v.head(0, 3);
        v.u32(4 + 40);
        v.bytes(40, std::uint8_t(i));
    }
    const auto whole = v.done(0);
    for (std::size_t n = 0; n < 16 + 20 * 48; n += 7) {
        std::vector<std::uint8_t> cut(whole.begin(), whole.begin() + std::ptrdiff_t(n));
        (void)parse(cut, &c);
    }
}

TEST(TraceInstance, ReadsItsOwnRingAndIsRemovedWhenClosed)
{
    if (::geteuid() != 0)
        GTEST_SKIP() << "ftrace instances need root";
    openetw::platform::TraceInstance t;
    ASSERT_TRUE(t.open("openetw-test", {{"block", "block_rq_issue"}}, 256)) << "instance";
    const std::string dir = t.dir();
    EXPECT_TRUE(std::filesystem::exists(dir));
    // A write that reaches the disk issues a request.
    const std::string data = "/var/tmp/openetw-ftrace-" + std::to_string(::getpid());
    const int fd = ::open(data.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ASSERT_GE(fd, 0);
    std::vector<char> buf(1 << 16, 'f');
    ASSERT_EQ(::write(fd, buf.data(), buf.size()), ssize_t(buf.size()));
    ASSERT_EQ(::fsync(fd), 0);
    ::close(fd);
    std::filesystem::remove(data);
    std::size_t events = 0;
    ASSERT_TRUE(t.drain([&](std::uint32_t, std::span<const std::uint8_t> page) {
        events +=
            parse_ftrace_page(page, t.page_header_size(), [](std::uint64_t, std::span<const std::uint8_t>) {}).events;
    }));
    EXPECT_GT(events, 0u) << "no block_rq_issue read from " << dir;
    t.close();
    EXPECT_FALSE(std::filesystem::exists(dir)) << dir << " left behind";
    // One of a process that is gone (pid 2^22 + 1 is beyond pid_max) is removed by the next open.
    const std::string root = dir.substr(0, dir.rfind('/'));
    const std::string orphan = root + "/openetw-test-4194305-0";
    ASSERT_TRUE(std::filesystem::create_directory(orphan));
    openetw::platform::TraceInstance u;
    ASSERT_TRUE(u.open("openetw-test", {{"block", "block_rq_issue"}}, 64));
    EXPECT_FALSE(std::filesystem::exists(orphan)) << "a dead process's instance stayed";
    u.close();
    // A tracepoint this kernel lacks: refused by name, nothing left.
    openetw::platform::TraceInstance w;
    const openetw::Status st = w.open("openetw-test", {{"block", "no_such_tracepoint"}}, 64);
    EXPECT_EQ(st.code, ETW_ERROR_NOT_SUPPORTED);
    EXPECT_NE(st.message.find("no_such_tracepoint"), std::string::npos) << st.message;
}
