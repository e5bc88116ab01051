// Following a stream live (docs/FLEET.md, "Following a stream"), against a
// real nats-server: etwdump --follow reads while this process's sessions
// write, gets every event once and in order per session, and ends cleanly on
// SIGINT; a consumer held back while the stream's retention removes
// messages counts them and goes on; close ends a follow that waits.
#include "../engine/engine_test_util.hpp"
#include "nats_server.hpp"

#include <openetw/openetw.h>

#include <nats/nats.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

using namespace enginetest;
using natstest::NatsServer;
using Clock = std::chrono::steady_clock;

namespace {

const etw_guid kProviderA = make_guid(0x7a75f001);
const etw_guid kProviderB = make_guid(0x7a75f002);
constexpr std::uint32_t kPayload = 100;

// count events of provider, each with (tag, counter) first in its payload.
void write_events(etw_provider *p, const etw_guid &g, std::uint32_t tag, std::uint32_t first, std::uint32_t count)
{
    Event ev(g, kPayload);
    for (std::uint32_t i = first; i < first + count; ++i) {
        std::memcpy(ev.bytes + 0x30, &tag, 4);
        std::memcpy(ev.bytes + 0x34, &i, 4);
        ASSERT_EQ(etw_provider_trace_event(p, ev.h()), ETW_OK);
    }
}

// An in-process file session exporting to url, flushed every second (what
// a followed session does: its buffers reach the stream within the
// follower's lateness window), with provider g enabled.
struct Exporting {
    SessionHandle session;
    std::unique_ptr<Props> props;
    std::unique_ptr<Provider> provider;
    Exporting(const std::string &name, const std::string &file, const std::string &url, const etw_guid &g)
    {
        props = std::make_unique<Props>(name, file);
        EXPECT_EQ(etw_properties_set_export(*props, url.c_str(), nullptr), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(etw_properties_set_flush_timer(*props, 1), ETW_OK);
        EXPECT_EQ(etw_properties_set_buffer_size(*props, 8), ETW_OK); // 8 KiB: many buffers
        etw_session_options opt{};
        opt.struct_size = sizeof opt;
        opt.flags = ETW_SESSION_IN_PROCESS;
        EXPECT_EQ(etw_session_start_ex(&session.s, *props, &opt), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(etw_session_enable_provider(session, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
                  ETW_OK);
        provider = std::make_unique<Provider>(g);
    }
};

std::string read_text(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// Our events in etwdump's jsonl: (tag, counter) of each, in output order,
// and the timestamps of every record.
struct Dumped {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> events;
    std::vector<long long> times;
};

std::uint32_t le32(const std::string &hex, std::size_t at)
{
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i)
        v = v << 8 | std::uint32_t(std::stoul(hex.substr(at + std::size_t(i) * 2, 2), nullptr, 16));
    return v;
}

Dumped parse_jsonl(const std::string &text)
{
    Dumped d;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (const std::size_t t = line.find("\"timestamp_filetime\": "); t != std::string::npos)
            d.times.push_back(std::stoll(line.substr(t + 22)));
        if (line.find("\"payload_size\": 100,") == std::string::npos)
            continue;
        const std::size_t p = line.find("\"payload\": \"");
        if (p == std::string::npos)
            continue;
        const std::string hex = line.substr(p + 12, 16);
        d.events.emplace_back(le32(hex, 0), le32(hex, 8));
    }
    return d;
}

struct Child {
    pid_t pid = -1;
    ~Child()
    {
        if (pid > 0) {
            kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
    }
};

// waitpid, bounded: -1 when it did not end within ms.
int wait_exit(pid_t pid, int ms)
{
    for (int i = 0; i < ms / 10; ++i) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
}

// A stream made before any export, with a limit on its messages (oldest removed first).
void add_limited_stream(const NatsServer &srv, const std::string &stream, std::int64_t max_msgs)
{
    natsConnection *nc = nullptr;
    jsCtx *js = nullptr;
    const std::string server = "nats://127.0.0.1:" + std::to_string(srv.port());
    ASSERT_EQ(natsConnection_ConnectTo(&nc, server.c_str()), NATS_OK);
    ASSERT_EQ(natsConnection_JetStream(&js, nc, nullptr), NATS_OK);
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = stream.c_str();
    const std::string subjects = stream + ".>";
    const char *list[] = {subjects.c_str()};
    cfg.Subjects = list;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    cfg.MaxMsgs = max_msgs;
    jsStreamInfo *si = nullptr;
    jsErrCode jerr = jsErrCode(0);
    EXPECT_EQ(js_AddStream(&si, js, &cfg, nullptr, &jerr), NATS_OK) << int(jerr);
    jsStreamInfo_Destroy(si);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
}

std::uint64_t last_sequence(const NatsServer &srv, const std::string &stream)
{
    natsConnection *nc = nullptr;
    jsCtx *js = nullptr;
    jsStreamInfo *si = nullptr;
    std::uint64_t n = 0;
    const std::string server = "nats://127.0.0.1:" + std::to_string(srv.port());
    if (natsConnection_ConnectTo(&nc, server.c_str()) == NATS_OK &&
        natsConnection_JetStream(&js, nc, nullptr) == NATS_OK &&
        js_GetStreamInfo(&si, js, stream.c_str(), nullptr, nullptr) == NATS_OK)
        n = si->State.LastSeq;
    jsStreamInfo_Destroy(si);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return n;
}

} // namespace

TEST(ExportNatsFollow, EtwdumpFollowsTwoSessionsEveryEventOnceInOrderAndEndsOnSigint)
{
    const char *etwdump = std::getenv("OPENETW_ETWDUMP");
    ASSERT_NE(etwdump, nullptr) << "run by meson, which names etwdump in OPENETW_ETWDUMP";
    NatsServer srv;
    const std::string url = srv.url("FOLLOW");
    Exporting a("FollowA", srv.dir() + "/a.etl", url, kProviderA);
    Exporting b("FollowB", srv.dir() + "/b.etl", url, kProviderB);
    constexpr std::uint32_t kBurst = 1000, kBursts = 4;
    // The stored part: written before the follower starts.
    write_events(*a.provider, kProviderA, 1, 0, kBurst);
    write_events(*b.provider, kProviderB, 2, 0, kBurst);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200)); // a flush tick: in the stream

    const std::string out = srv.dir() + "/out.jsonl", err = srv.dir() + "/err.txt";
    Child dump;
    dump.pid = fork();
    if (dump.pid == 0) {
        freopen(out.c_str(), "w", stdout);
        freopen(err.c_str(), "w", stderr);
        execl(etwdump, etwdump, "--follow", "--format", "jsonl", "--payload", url.c_str(), (char *)nullptr);
        _exit(127);
    }
    // The live part: written while it follows, the sessions interleaved.
    for (std::uint32_t burst = 1; burst < kBursts; ++burst) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        write_events(*a.provider, kProviderA, 1, burst * kBurst, kBurst);
        write_events(*b.provider, kProviderB, 2, burst * kBurst, kBurst);
    }
    // Every event within the flush tick and the lateness window (3 s), bounded.
    const auto deadline = Clock::now() + std::chrono::seconds(9);
    Dumped got;
    while (Clock::now() < deadline) {
        got = parse_jsonl(read_text(out));
        if (got.events.size() >= 2 * kBurst * kBursts)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_EQ(got.events.size(), 2 * kBurst * kBursts) << read_text(err);
    kill(dump.pid, SIGINT);
    const int code = wait_exit(dump.pid, 3000);
    dump.pid = code == -1 ? dump.pid : -1;
    EXPECT_EQ(code, 0) << "SIGINT ends the follow cleanly: " << read_text(err);

    got = parse_jsonl(read_text(out));
    ASSERT_EQ(got.events.size(), 2 * kBurst * kBursts) << "nothing more, nothing twice after the SIGINT";
    std::map<std::uint32_t, std::uint32_t> next; // by session tag
    for (const auto &[tag, counter] : got.events) {
        ASSERT_TRUE(tag == 1 || tag == 2) << tag;
        ASSERT_EQ(counter, next[tag]) << "session " << tag << ": each event once, in order";
        ++next[tag];
    }
    EXPECT_EQ(next[1], kBurst * kBursts);
    EXPECT_EQ(next[2], kBurst * kBursts);
    // The two sessions merged in time order.
    for (std::size_t i = 1; i < got.times.size(); ++i)
        ASSERT_LE(got.times[i - 1], got.times[i]) << "record " << i << " of " << got.times.size();
}

namespace {

struct Held {
    std::mutex m;
    std::condition_variable cv;
    bool first = false, release = false;
    std::uint32_t events = 0, last = 0, buffers = 0;
    std::uint64_t lost = 0;
};

} // namespace

TEST(ExportNatsFollow, AFollowerHeldBackCountsWhatTheStreamsRetentionRemovedAndGoesOn)
{
    NatsServer srv;
    add_limited_stream(srv, "BEHIND", 12); // the export uses it as it is
    const std::string url = srv.url("BEHIND");
    Held held;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.user_data = &held;
    o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
        auto *h = static_cast<Held *>(ud);
        if (std::memcmp(&e->header.Guid, &kProviderA, sizeof kProviderA) != 0)
            return 0;
        std::unique_lock<std::mutex> lock(h->m);
        ++h->events;
        std::memcpy(&h->last, e->payload + 4, 4);
        if (!h->first) {
            h->first = true;
            h->cv.notify_all();
            h->cv.wait(lock, [h] { return h->release; }); // the follower stops reading here
        }
        return 0;
    };
    o.buffer = [](void *ud, const etw_buffer_info *) -> std::int32_t {
        auto *h = static_cast<Held *>(ud);
        std::lock_guard<std::mutex> lock(h->m);
        ++h->buffers;
        return 0;
    };
    auto session = std::make_unique<Exporting>("Behind", srv.dir() + "/behind.etl", url, kProviderA);
    write_events(*session->provider, kProviderA, 1, 0, 10);
    const std::string followed = url + "?follow=1";
    const char *paths[] = {followed.c_str()};
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_consumer_set_loss_callback(c,
                                             [](void *ud, const etw_loss_info *l) -> std::int32_t {
                                                 auto *h = static_cast<Held *>(ud);
                                                 std::lock_guard<std::mutex> lock(h->m);
                                                 h->lost += l->buffers_lost;
                                                 return 0;
                                             }),
              ETW_OK);
    etw_status processed = ETW_OK;
    std::thread worker([&] { processed = etw_consumer_process(c); });
    {
        std::unique_lock<std::mutex> lock(held.m);
        ASSERT_TRUE(held.cv.wait_for(lock, std::chrono::seconds(8), [&] { return held.first; }))
            << "the first event is delivered (flush tick + lateness window)";
    }
    // While it is held: about 60 buffers, the stream keeping the last 12.
    constexpr std::uint32_t kMore = 5000;
    write_events(*session->provider, kProviderA, 1, 10, kMore);
    session.reset(); // stopped: every buffer and the final header acknowledged
    const std::uint64_t last = last_sequence(srv, "BEHIND");
    ASSERT_GT(last, 40u);
    {
        std::lock_guard<std::mutex> lock(held.m);
        held.release = true;
    }
    held.cv.notify_all();
    const auto deadline = Clock::now() + std::chrono::seconds(8);
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(held.m);
            if (held.last == 10 + kMore - 1 || Clock::now() > deadline)
                break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    // Its last event comes 3 s after its final header arrived, which was read then.
    EXPECT_EQ(etw_consumer_cancel(c), ETW_OK);
    worker.join();
    EXPECT_EQ(processed, ETW_ERROR_CANCELLED) << etw_last_error_message();
    etw_logfile_info info{};
    info.struct_size = sizeof info;
    EXPECT_EQ(etw_consumer_logfile_header(&info, c, 0), ETW_OK) << etw_last_error_message();
    EXPECT_NE(info.header.EndTime, 0) << "the final header's counts are the file's";
    EXPECT_EQ(info.header.BuffersWritten, last - 1) << "the header buffer and every data buffer";
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
    std::lock_guard<std::mutex> lock(held.m);
    EXPECT_EQ(held.last, 10 + kMore - 1) << "it went on after the gap, up to the last event";
    EXPECT_GT(held.lost, 0u);
    // Every message of the stream was either read (the header buffer and
    // the data buffers, delivered as buffers; the final header, not
    // delivered again) or counted as removed unread.
    EXPECT_EQ(held.buffers + held.lost + 1, last) << held.buffers << " buffers read, " << held.lost << " lost";
    EXPECT_LT(held.events, 10 + kMore);
}

TEST(ExportNatsFollow, CloseEndsAFollowThatWaitsAndTheOpenChecksItsArguments)
{
    NatsServer srv;
    add_limited_stream(srv, "EMPTY", -1);
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    const std::string followed = srv.url("EMPTY") + "?follow=1";
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open_stream(&c, followed.c_str(), nullptr, &o), ETW_OK)
        << "an empty stream is followed: " << etw_last_error_message();
    etw_status processed = ETW_OK;
    std::thread worker([&] { processed = etw_consumer_process(c); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto closing = Clock::now();
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
    worker.join();
    EXPECT_LT(Clock::now() - closing, std::chrono::seconds(2)) << "close ends the wait";
    EXPECT_EQ(processed, ETW_ERROR_CANCELLED);

    const std::string missing = srv.url("NOSUCH") + "?follow=1";
    const char *one[] = {missing.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, one, 1, &o), ETW_ERROR_FILE_NOT_FOUND) << etw_last_error_message();
    const char *two[] = {followed.c_str(), followed.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, two, 2, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("is read alone"), std::string::npos)
        << etw_last_error_message();
    // The flag follows a stream as the query does, and only a stream.
    o.flags = ETW_CONSUMER_FOLLOW;
    const std::string plain = srv.url("EMPTY");
    ASSERT_EQ(etw_consumer_open_stream(&c, plain.c_str(), nullptr, &o), ETW_OK) << etw_last_error_message();
    processed = ETW_OK;
    std::thread flagged([&] { processed = etw_consumer_process(c); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
    flagged.join();
    EXPECT_EQ(processed, ETW_ERROR_CANCELLED) << "followed, not read to the end";
    const std::string file = srv.dir() + "/none.etl";
    const char *not_a_stream[] = {file.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, not_a_stream, 1, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("ETW_CONSUMER_FOLLOW follows a stream"), std::string::npos)
        << etw_last_error_message();
    o.flags = 0;
    const std::string bad = srv.url("EMPTY") + "?follow=yes";
    EXPECT_EQ(etw_consumer_open_stream(&c, bad.c_str(), nullptr, &o), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::string(etw_last_error_message()).find("follow=yes"), std::string::npos) << etw_last_error_message();
}

TEST(ExportNatsFollow, ACancelDeliversWhatWasFetchedBeforeItEnds)
{
    NatsServer srv;
    const std::string url = srv.url("DRAIN");
    Exporting s("Drain", srv.dir() + "/drain.etl", url, kProviderA);
    std::atomic<std::uint32_t> events{0};
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.user_data = &events;
    o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
        if (std::memcmp(&e->header.Guid, &kProviderA, sizeof kProviderA) == 0)
            static_cast<std::atomic<std::uint32_t> *>(ud)->fetch_add(1);
        return 0;
    };
    const std::string followed = url + "?follow=1";
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open_stream(&c, followed.c_str(), nullptr, &o), ETW_OK) << etw_last_error_message();
    etw_status processed = ETW_OK;
    std::thread worker([&] { processed = etw_consumer_process(c); });
    write_events(*s.provider, kProviderA, 1, 0, 500);
    ASSERT_EQ(etw_session_flush(s.session, nullptr), ETW_OK) << etw_last_error_message(); // published now
    // Fetched within a poll (200 ms), due only 3 s after they were written.
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    const std::uint32_t before = events.load();
    EXPECT_EQ(etw_consumer_cancel(c), ETW_OK);
    worker.join();
    EXPECT_EQ(before, 0u) << "the events were still in the lateness window when cancelled";
    EXPECT_EQ(events.load(), 500u) << "what was fetched is delivered before the follow ends";
    EXPECT_EQ(processed, ETW_ERROR_CANCELLED);
    EXPECT_EQ(etw_consumer_close(c), ETW_OK);
}

TEST(ExportNatsFollow, SinceChoosesWhereTheFollowStarts)
{
    NatsServer srv;
    const std::string url = srv.url("SINCEF");
    {
        Exporting s("SinceF", srv.dir() + "/since.etl", url, kProviderA);
        write_events(*s.provider, kProviderA, 1, 0, 300);
    } // stopped: all of it stored
    // Counts our events until cancelled after ms.
    auto follow = [&](const std::string &query, int ms) {
        std::atomic<std::uint32_t> events{0};
        etw_consumer_options o{};
        o.struct_size = sizeof o;
        o.user_data = &events;
        o.flags = ETW_CONSUMER_ORDER_FILE; // as they come: no window to wait out
        o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
            if (std::memcmp(&e->header.Guid, &kProviderA, sizeof kProviderA) == 0)
                static_cast<std::atomic<std::uint32_t> *>(ud)->fetch_add(1);
            return 0;
        };
        const std::string followed = url + query;
        etw_consumer *c = nullptr;
        EXPECT_EQ(etw_consumer_open_stream(&c, followed.c_str(), nullptr, &o), ETW_OK) << etw_last_error_message();
        if (c == nullptr)
            return ~0u;
        etw_status processed = ETW_OK;
        std::thread worker([&] { processed = etw_consumer_process(c); });
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        etw_consumer_close(c);
        worker.join();
        EXPECT_EQ(processed, ETW_ERROR_CANCELLED);
        return events.load();
    };
    EXPECT_EQ(follow("?since=2000-01-01T00:00:00Z&follow=1", 1500), 300u) << "everything stored since 2000";
    EXPECT_EQ(follow("?since=2100-01-01T00:00:00Z&follow=1", 1000), 0u) << "nothing is stored after 2100";
}
