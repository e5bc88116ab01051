// The tracepoint source's pure parts and its translators: PERF_RECORD_SAMPLE
// records built by hand around raw samples laid out by real format files
// (tracepoints/), parsed, and turned into a Thread/CSwitch read back through
// the consumer and decoder with exact values, and into Process/End's exit
// statuses (exit_group's code; a fatal signal's 128 + N; none for others),
// and block requests followed from issue to a DiskIo/Write at completion.
#include "kernel_etl.hpp"
#include "tracepoint_fixtures.hpp"

#include "kernel/disk_requests.hpp"
#include "kernel/perf_clock.hpp"
#include "kernel/tcp_connections.hpp"
#include "kernel/tracepoint_records.hpp"
#include "kernel/tracepoint_source.hpp"

#include <gtest/gtest.h>

#include <cstring>

using namespace openetw::kernel;
using kerneltest::Seen;

namespace {

void put(std::vector<std::uint8_t> &b, std::size_t at, std::uint64_t v, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        b[at + i] = std::uint8_t(v >> (8 * i));
}

// A PERF_RECORD_SAMPLE of TID|TIME|CPU|RAW around raw, padded to 8 bytes as the kernel does.
std::vector<std::uint8_t> sample_record(std::uint32_t pid, std::uint32_t tid, std::uint64_t time, std::uint32_t cpu,
                                        const std::vector<std::uint8_t> &raw)
{
    const std::size_t size = (36 + raw.size() + 7) / 8 * 8;
    std::vector<std::uint8_t> r(size, 0);
    put(r, 0, openetw::platform::kPerfRecordSample, 4);
    put(r, 6, size, 2);
    put(r, 8, pid, 4);
    put(r, 12, tid, 4);
    put(r, 16, time, 8);
    put(r, 24, cpu, 4);
    put(r, 32, raw.size(), 4);
    std::memcpy(r.data() + 36, raw.data(), raw.size());
    return r;
}

} // namespace

TEST(TracepointSource, ASampleRecordParsesIntoItsFields)
{
    const std::vector<std::uint8_t> raw = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const auto r = sample_record(100, 101, 0x1122334455, 3, raw);
    TracepointSample t;
    std::vector<std::uint64_t> frames;
    ASSERT_TRUE(parse_tracepoint_sample(r, false, &t, &frames));
    EXPECT_EQ(t.pid, 100u);
    EXPECT_EQ(t.tid, 101u);
    EXPECT_EQ(t.time, 0x1122334455u);
    EXPECT_EQ(t.cpu, 3u);
    EXPECT_EQ(std::vector<std::uint8_t>(t.raw.begin(), t.raw.end()), raw);
    // Shorter than its raw_size says, or not a sample: refused.
    EXPECT_FALSE(parse_tracepoint_sample(std::span(r.data(), 40), false, &t, &frames));
    auto lost = r;
    put(lost, 0, openetw::platform::kPerfRecordLost, 4);
    EXPECT_FALSE(parse_tracepoint_sample(lost, false, &t, &frames));
}

TEST(TracepointSource, ASampleWithACallChainParsesItsFramesWithoutTheContextMarkers)
{
    const std::vector<std::uint8_t> raw = {1, 2, 3, 4};
    const auto plain = sample_record(100, 101, 5000, 1, raw);
    // The chain sits between cpu and raw_size: nr, then the addresses, the
    // kernel and user context markers among them.
    const std::uint64_t chain[] = {4, std::uint64_t(-128), 0xffffffff81000010ull, std::uint64_t(-512), 0x401234};
    std::vector<std::uint8_t> r(plain.begin(), plain.begin() + 32);
    for (std::uint64_t v : chain)
        for (int b = 0; b < 8; ++b)
            r.push_back(std::uint8_t(v >> (8 * b)));
    r.insert(r.end(), plain.begin() + 32, plain.end());
    put(r, 6, r.size(), 2);
    TracepointSample t;
    std::vector<std::uint64_t> frames;
    ASSERT_TRUE(parse_tracepoint_sample(r, true, &t, &frames));
    EXPECT_EQ(std::vector<std::uint64_t>(t.frames.begin(), t.frames.end()),
              (std::vector<std::uint64_t>{0xffffffff81000010ull, 0x401234}));
    EXPECT_EQ(std::vector<std::uint8_t>(t.raw.begin(), t.raw.end()), raw);
    EXPECT_EQ(t.tid, 101u);
    // Read without the chain, the same bytes are not this sample's fields.
    EXPECT_FALSE(parse_tracepoint_sample(r, false, &t, &frames) &&
                 std::vector<std::uint8_t>(t.raw.begin(), t.raw.end()) == raw);
    // A chain longer than the record: refused.
    put(r, 32, 1000, 8);
    EXPECT_FALSE(parse_tracepoint_sample(r, true, &t, &frames));
}

TEST(TracepointRecords, SchedSwitchBecomesAThreadCSwitchOnTheSessionClock)
{
    const TracepointFormat f = kerneltest::load_format("sched_switch.format");
    std::vector<std::uint8_t> raw(64, 0);
    std::memcpy(&raw[8], "yield", 5);
    put(raw, 24, 4321, 4); // prev_pid
    put(raw, 28, 120, 4);  // prev_prio: nice 0
    put(raw, 32, 0, 8);    // prev_state: runnable, gave the processor up (yield)
    put(raw, 56, 99, 4);   // next_pid
    put(raw, 60, 139, 4);  // next_prio: nice 19
    const auto rec = sample_record(4321, 4321, 123456700, 1, raw);
    TracepointSample t;
    std::vector<std::uint64_t> frames;
    ASSERT_TRUE(parse_tracepoint_sample(rec, false, &t, &frames));
    const PerfClock clock; // Monotonic: ns / 100
    const Bytes out = cswitch_from_sample(f, t, clock, 8);
    ASSERT_FALSE(out.empty());
    const std::vector<Seen> seen = kerneltest::round_trip({out}, 8);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].event_name, "Thread/CSwitch");
    EXPECT_EQ(seen[0].timestamp_raw, 1234567);
    EXPECT_EQ(seen[0].problem, "");
    const kerneltest::Pairs want = {{"NewThreadId", "0x63"},       {"OldThreadId", "0x10E1"},
                                    {"NewThreadPriority", "2"},    {"OldThreadPriority", "8"},
                                    {"PreviousCState", "0"},       {"SpareByte", "0"},
                                    {"OldThreadWaitReason", "33"}, {"OldThreadWaitMode", "0"},
                                    {"OldThreadState", "1"},       {"OldThreadWaitIdealProcessor", "0"},
                                    {"NewThreadWaitTime", "0x0"},  {"Reserved", "0"}};
    EXPECT_EQ(seen[0].values, want);
    // A sample cut short of next_prio writes nothing.
    TracepointSample cut = t;
    cut.raw = t.raw.first(62);
    EXPECT_TRUE(cswitch_from_sample(f, cut, clock, 8).empty());
}

TEST(TracepointRecords, SchedWakeupBecomesAReadyThreadFlaggedWhenAnInterruptWokeIt)
{
    const TracepointFormat f = kerneltest::load_format("sched_wakeup.format");
    const PerfClock clock;
    for (const std::uint8_t flags : {0x00, 0x01, 0x08, 0x10}) { // none, irqs-off, hardirq, softirq
        std::vector<std::uint8_t> raw(36, 0);
        raw[2] = flags;        // common_flags
        put(raw, 24, 4321, 4); // pid: the thread woken
        put(raw, 28, 120, 4);  // prio
        const auto rec = sample_record(77, 77, 123456700, 1, raw);
        TracepointSample t;
        std::vector<std::uint64_t> frames;
        ASSERT_TRUE(parse_tracepoint_sample(rec, false, &t, &frames));
        const Bytes out = ready_thread_from_sample(f, t, clock, 8);
        ASSERT_FALSE(out.empty());
        const std::vector<Seen> seen = kerneltest::round_trip({out}, 8);
        ASSERT_EQ(seen.size(), 1u);
        EXPECT_EQ(seen[0].event_name, "Thread/ReadyThread");
        EXPECT_EQ(seen[0].timestamp_raw, 1234567);
        const std::string from_interrupt = (flags & 0x18) ? "1" : "0";
        const kerneltest::Pairs want = {{"TThreadId", "0x10E1"},
                                        {"AdjustReason", "0"},
                                        {"AdjustIncrement", "0"},
                                        {"Flag", from_interrupt},
                                        {"Reserved", "0"}};
        EXPECT_EQ(seen[0].values, want) << "common_flags " << int(flags);
        // Cut short of pid: nothing.
        TracepointSample cut = t;
        cut.raw = t.raw.first(26);
        EXPECT_TRUE(ready_thread_from_sample(f, cut, clock, 8).empty());
    }
}

TEST(TracepointRecords, ExitGroupGivesTheCodesLowByte)
{
    const TracepointFormat f = kerneltest::load_format("sys_enter_exit_group.format");
    std::vector<std::uint8_t> raw(24, 0);
    TracepointSample t;
    t.raw = raw;
    for (const auto &[code, want] : {std::pair<std::uint64_t, std::int32_t>{3, 3}, {5, 5}, {0x1FF, 255}, {256, 0}}) {
        put(raw, 16, code, 8);
        EXPECT_EQ(exit_status_from_sample(f, t), want) << code;
    }
    t.raw = std::span(raw.data(), 20);
    EXPECT_FALSE(exit_status_from_sample(f, t).has_value()) << "error_code cut off";
}

TEST(TracepointRecords, OnlyASignalLeftToAFatalDefaultEndsTheProcess)
{
    const TracepointFormat f = kerneltest::load_format("signal_deliver.format");
    std::vector<std::uint8_t> raw(40, 0);
    TracepointSample t;
    t.raw = raw;
    const auto status = [&](int sig, std::uint64_t handler) {
        put(raw, 8, std::uint32_t(sig), 4);
        put(raw, 24, handler, 8);
        return fatal_signal_status_from_sample(f, t);
    };
    EXPECT_EQ(status(9, 0), 137);  // SIGKILL
    EXPECT_EQ(status(15, 0), 143); // SIGTERM
    EXPECT_EQ(status(11, 0), 139); // SIGSEGV
    EXPECT_EQ(status(34, 0), 162); // SIGRTMIN
    EXPECT_FALSE(status(15, 0x401000).has_value()) << "a handler runs: the process lives on";
    EXPECT_FALSE(status(15, 1).has_value()) << "SIG_IGN";
    for (int harmless : {17, 18, 19, 20, 21, 22, 23, 28})
        EXPECT_FALSE(status(harmless, 0).has_value()) << harmless;
    t.raw = std::span(raw.data(), 30);
    EXPECT_FALSE(fatal_signal_status_from_sample(f, t).has_value()) << "sa_handler cut off";
}

namespace {
// sock_send_length / sock_recv_length raw: sk, family, protocol, ret, flags.
std::vector<std::uint8_t> transfer_raw(std::uint64_t sk, std::uint16_t family, std::uint16_t protocol, std::int32_t ret,
                                       std::int32_t flags)
{
    std::vector<std::uint8_t> raw(28, 0);
    put(raw, 8, sk, 8);
    put(raw, 16, family, 2);
    put(raw, 18, protocol, 2);
    put(raw, 20, std::uint32_t(ret), 4);
    put(raw, 24, std::uint32_t(flags), 4);
    return raw;
}
} // namespace

TEST(TcpConnections, TransfersCarryTheEndsLearntFromStateChangesAndProbes)
{
    const TracepointFormat state = kerneltest::load_format("inet_sock_set_state.format");
    const TracepointFormat probe = kerneltest::load_format("tcp_probe.format");
    const TracepointFormat send = kerneltest::load_format("sock_send_length.format");
    const TracepointFormat recv = kerneltest::load_format("sock_recv_length.format");
    const PerfClock clock;
    TcpConnections tcp;
    TracepointSample t;
    t.pid = 77;
    t.tid = 78;
    t.time = 500000000;
    // A connection made while the session runs: 10.0.0.1:40000 -> 10.0.0.2:80.
    std::vector<std::uint8_t> st(72, 0);
    put(st, 8, 0xffff888000001000ull, 8); // skaddr
    put(st, 16, 2, 4);                    // oldstate SYN_SENT
    put(st, 20, 1, 4);                    // newstate ESTABLISHED
    put(st, 24, 40000, 2);
    put(st, 26, 80, 2);
    put(st, 28, 2, 2); // AF_INET
    put(st, 30, 6, 2); // TCP
    const std::uint8_t s4[4] = {10, 0, 0, 1}, d4[4] = {10, 0, 0, 2};
    std::memcpy(&st[32], s4, 4);
    std::memcpy(&st[36], d4, 4);
    t.raw = st;
    tcp.state_change(state, t);
    auto sent_raw = transfer_raw(0xffff888000001000ull, 2, 6, 1000, 0);
    t.raw = sent_raw;
    const Bytes sent = tcp.transfer(true, send, t, clock, 8);
    // One older than the session, seen first by a probe: [::1]:5000 -> [::1]:6000.
    std::vector<std::uint8_t> pr(136, 0);
    put(pr, 8, 10, 2); // saddr: sockaddr_in6 family
    put(pr, 10, 0x8813, 2);
    pr[8 + 8 + 15] = 1; // ::1
    put(pr, 36, 10, 2);
    pr[36 + 8 + 15] = 1;
    put(pr, 64, 5000, 2);
    put(pr, 66, 6000, 2);
    put(pr, 68, 10, 2);                     // AF_INET6
    put(pr, 128, 0xffff888000002000ull, 8); // skaddr
    t.raw = pr;
    tcp.probe(probe, t);
    auto recv_raw = transfer_raw(0xffff888000002000ull, 10, 6, 700, 0);
    t.raw = recv_raw;
    const Bytes got = tcp.transfer(false, recv, t, clock, 8);
    // Not written: a peek, an error, UDP, and a connection never seen (written without ends).
    auto peek = transfer_raw(0xffff888000002000ull, 10, 6, 700, 2);
    t.raw = peek;
    EXPECT_TRUE(tcp.transfer(false, recv, t, clock, 8).empty()) << "MSG_PEEK";
    auto err = transfer_raw(0xffff888000001000ull, 2, 6, -11, 0);
    t.raw = err;
    EXPECT_TRUE(tcp.transfer(true, send, t, clock, 8).empty()) << "an error";
    auto udp = transfer_raw(0xffff888000001000ull, 2, 17, 100, 0);
    t.raw = udp;
    EXPECT_TRUE(tcp.transfer(true, send, t, clock, 8).empty()) << "UDP";
    auto unknown = transfer_raw(0xffff888000003000ull, 2, 6, 5, 0);
    t.raw = unknown;
    const Bytes anon = tcp.transfer(true, send, t, clock, 8);
    // Closed: forgotten (a later transfer on that address has no ends).
    st[20] = 7; // newstate CLOSE
    t.raw = st;
    tcp.state_change(state, t);
    t.raw = sent_raw;
    const Bytes after_close = tcp.transfer(true, send, t, clock, 8);

    const std::vector<Seen> seen = kerneltest::round_trip({sent, got, anon, after_close}, 8);
    ASSERT_EQ(seen.size(), 4u);
    EXPECT_EQ(seen[0].event_name, "TcpIp/SendIPV4");
    EXPECT_EQ(seen[0].process_id, 77u);
    EXPECT_EQ(seen[0].thread_id, 78u);
    EXPECT_EQ(seen[0].timestamp_raw, 5000000);
    EXPECT_EQ(seen[0].value("size"), "1000");
    EXPECT_EQ(seen[0].value("saddr"), "10.0.0.1");
    EXPECT_EQ(seen[0].value("daddr"), "10.0.0.2");
    EXPECT_EQ(seen[0].value("sport"), "40000");
    EXPECT_EQ(seen[0].value("dport"), "80");
    EXPECT_EQ(seen[0].value("connid"), "0x1") << "a number of the session's, not the kernel's address";
    EXPECT_EQ(seen[1].event_name, "TcpIp/RecvIPV6");
    EXPECT_EQ(seen[1].value("size"), "700");
    EXPECT_EQ(seen[1].value("saddr"), "::1");
    EXPECT_EQ(seen[1].value("sport"), "5000");
    EXPECT_EQ(seen[1].value("dport"), "6000");
    EXPECT_EQ(seen[1].value("connid"), "0x2");
    EXPECT_EQ(seen[2].value("dport"), "0") << "a connection never seen has no ends";
    EXPECT_EQ(seen[2].value("daddr"), "0.0.0.0");
    EXPECT_EQ(seen[3].value("dport"), "0") << "a closed connection is forgotten";
    EXPECT_NE(seen[3].value("connid"), "0x1");
}

TEST(DiskRequests, AnIssuedWriteCompletesAsDiskIoWrite)
{
    const TracepointFormat issue_f = kerneltest::load_format("block_rq_issue.format");
    const TracepointFormat complete_f = kerneltest::load_format("block_rq_complete.format");
    const std::uint32_t dev = kernel_dev(254, 16); // vdb: the second disk below
    std::vector<std::uint8_t> issue_raw(64, 0), complete_raw(48, 0);
    put(issue_raw, 8, dev, 4);
    put(issue_raw, 16, 2048, 8); // sector
    put(issue_raw, 24, 2048, 4); // nr_sector: 1 MiB
    put(issue_raw, 28, 1 << 20, 4);
    std::memcpy(&issue_raw[34], "WS", 2);
    put(complete_raw, 8, dev, 4);
    put(complete_raw, 16, 2048, 8);
    put(complete_raw, 24, 2048, 4);
    std::memcpy(&complete_raw[34], "WS", 2);
    DiskRequests disks({{"vda", 254, 0}, {"vdb", 254, 16}});
    TracepointSample issue, done;
    issue.raw = issue_raw;
    issue.tid = 4321;
    issue.time = 1'000'000; // ns
    done.raw = complete_raw;
    done.tid = 0; // completions run in interrupts
    done.time = 1'250'000;
    EXPECT_TRUE(disks.issue(issue_f, issue, PerfClock{}, 8, true, false).empty()) << "no Init without DISK_IO_INIT";
    EXPECT_EQ(disks.pending(), 1u);
    const Bytes r = disks.complete(complete_f, done, PerfClock{}, 8);
    EXPECT_EQ(disks.pending(), 0u);
    ASSERT_FALSE(r.empty());
    const std::vector<Seen> seen = kerneltest::round_trip({r}, 8);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].event_name, "DiskIo/Write");
    EXPECT_EQ(seen[0].timestamp_raw, 12500);
    const kerneltest::Pairs want = {{"DiskNumber", "1"}, {"IrpFlags", "0x204"},           {"TransferSize", "1048576"},
                                    {"Reserved", "0"},   {"ByteOffset", "1048576"},       {"FileObject", "0x0"},
                                    {"Irp", "0x1"},      {"HighResResponseTime", "2500"}, {"IssuingThreadId", "4321"}};
    EXPECT_EQ(seen[0].values, want);
    // A discard has no DiskIo event; a completion never issued still
    // reports its size, with no issuing thread.
    std::memcpy(&complete_raw[34], "DS", 2);
    EXPECT_TRUE(disks.complete(complete_f, done, PerfClock{}, 8).empty());
    std::memcpy(&complete_raw[34], "R\0", 2);
    const std::vector<Seen> unissued = kerneltest::round_trip({disks.complete(complete_f, done, PerfClock{}, 8)}, 8);
    ASSERT_EQ(unissued.size(), 1u);
    EXPECT_EQ(unissued[0].event_name, "DiskIo/Read");
    EXPECT_EQ(unissued[0].value("TransferSize"), "1048576");
    EXPECT_EQ(unissued[0].value("IssuingThreadId"), "0");
    EXPECT_EQ(unissued[0].value("HighResResponseTime"), "0");
}

TEST(DiskRequests, AnIssueIsItsInitEventAndAFlushCompletesAsFlushBuffersOfTheSameIrp)
{
    const TracepointFormat issue_f = kerneltest::load_format("block_rq_issue.format");
    const TracepointFormat complete_f = kerneltest::load_format("block_rq_complete.format");
    const std::uint32_t dev = kernel_dev(254, 0);
    DiskRequests disks({{"vda", 254, 0}});
    auto request = [&](const char *rwbs, std::uint64_t sector, std::size_t size) {
        std::vector<std::uint8_t> raw(size, 0);
        put(raw, 8, dev, 4);
        put(raw, 16, sector, 8);
        put(raw, 24, sector ? 8 : 0, 4); // nr_sector: 4 KiB, none for a flush
        std::memcpy(&raw[34], rwbs, std::strlen(rwbs));
        return raw;
    };
    TracepointSample s;
    s.tid = 99;
    s.time = 2'000'000;
    std::vector<Bytes> out;
    // With DISK_IO_INIT alone nothing waits for a completion.
    for (const char *rwbs : {"R", "WS", "FF", "DS"}) {
        const auto raw = request(rwbs, std::strcmp(rwbs, "FF") ? 64 : 0, 64);
        s.raw = raw;
        if (Bytes r = disks.issue(issue_f, s, PerfClock{}, 8, false, true); !r.empty())
            out.push_back(std::move(r));
    }
    EXPECT_EQ(disks.pending(), 0u);
    const std::vector<Seen> init = kerneltest::round_trip(out, 8);
    ASSERT_EQ(init.size(), 3u) << "a discard has no Init event";
    EXPECT_EQ(init[0].event_name, "DiskIo/ReadInit");
    EXPECT_EQ(init[1].event_name, "DiskIo/WriteInit");
    EXPECT_EQ(init[2].event_name, "DiskIo/FlushInit");
    for (const Seen &e : init) {
        EXPECT_EQ(e.kind, ETW_RECORD_KIND_PERFINFO);
        EXPECT_EQ(e.timestamp_raw, 20000);
        EXPECT_EQ(e.value("IssuingThreadId"), "99");
    }
    EXPECT_EQ(init[0].value("Irp"), "0x1");
    EXPECT_EQ(init[2].value("Irp"), "0x3");

    // Followed and initiated: the flush's completion is FlushBuffers with the Init's Irp.
    const auto flush = request("FF", 0, 64);
    s.raw = flush;
    const std::vector<Seen> flush_init =
        kerneltest::round_trip({disks.issue(issue_f, s, PerfClock{}, 8, true, true)}, 8);
    ASSERT_EQ(flush_init.size(), 1u);
    const auto flushed = request("FF", 0, 48);
    TracepointSample done;
    done.raw = flushed;
    done.time = 2'400'000;
    const std::vector<Seen> f = kerneltest::round_trip({disks.complete(complete_f, done, PerfClock{}, 8)}, 8);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].event_name, "DiskIo/FlushBuffers");
    EXPECT_EQ(f[0].value("Irp"), flush_init[0].value("Irp"));
    EXPECT_EQ(f[0].value("DiskNumber"), "0");
    EXPECT_EQ(f[0].value("HighResResponseTime"), "4000");
    EXPECT_EQ(f[0].value("IssuingThreadId"), "99");
}
