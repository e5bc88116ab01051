// Sessions exported to a real nats-server (JetStream) and read back: nothing
// lost across a server killed with SIGKILL, the stream equal to the file
// buffer by buffer, a resend stored once, a full spool counted, refused
// credentials and absent servers reported with their reasons.
#include "../engine/engine_test_util.hpp"
#include "../engine/etl_test_decoder.hpp"
#include "export/nats_export.hpp"
#include "export/spool.hpp"
#include "platform/process.hpp"
#include "nats_server.hpp"

#include <openetw/openetw.h>

#include <nats/nats.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

using namespace openetw;
using namespace enginetest;
using natstest::NatsServer;

namespace {

const etw_guid kProvider = make_guid(0x7a75e001);

// Messages the stream holds now (duplicates included, were there any).
std::uint64_t stream_messages(const NatsServer &srv, const std::string &stream)
{
    natsConnection *nc = nullptr;
    jsCtx *js = nullptr;
    jsStreamInfo *si = nullptr;
    std::uint64_t n = ~0ull;
    const std::string server = "nats://127.0.0.1:" + std::to_string(srv.port());
    if (natsConnection_ConnectTo(&nc, server.c_str()) == NATS_OK &&
        natsConnection_JetStream(&js, nc, nullptr) == NATS_OK &&
        js_GetStreamInfo(&si, js, stream.c_str(), nullptr, nullptr) == NATS_OK)
        n = si->State.Msgs;
    jsStreamInfo_Destroy(si);
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    return n;
}

void write_events(etw_provider *p, std::uint32_t count, std::uint32_t first)
{
    Event ev(kProvider, 100);
    for (std::uint32_t i = 0; i < count; ++i) {
        std::memcpy(ev.bytes + 0x30, &first, 4);
        ++first;
        ASSERT_EQ(etw_provider_trace_event(p, ev.h()), ETW_OK);
    }
}

struct Started {
    SessionHandle session;
    std::unique_ptr<Props> props;
    std::unique_ptr<Provider> provider;
};

// An in-process session exporting to url (a file session unless mode says
// otherwise), with the test's provider enabled.
void start_exporting(Started &s, const std::string &name, const std::string &file, const std::string &url,
                     std::uint32_t mode = 0, std::uint32_t flags = 0)
{
    s.props = std::make_unique<Props>(name, file);
    ASSERT_EQ(etw_properties_set_export(*s.props, url.c_str(), nullptr), ETW_OK) << etw_last_error_message();
    if (mode != 0) {
        ASSERT_EQ(etw_properties_set_log_file_mode(*s.props, mode), ETW_OK) << etw_last_error_message();
        ASSERT_EQ(etw_properties_set_minimum_buffers(*s.props, 64), ETW_OK); // a buffering ring that keeps all
    }
    etw_session_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = ETW_SESSION_IN_PROCESS | flags;
    opt.lossless_timeout_ms = 60000;
    ASSERT_EQ(etw_session_start_ex(&s.session.s, *s.props, &opt), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(
        etw_session_enable_provider(s.session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
        ETW_OK);
    s.provider = std::make_unique<Provider>(kProvider);
}

std::uint32_t count_events(const std::string &url)
{
    struct Count {
        std::uint32_t n = 0;
    } count;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.user_data = &count;
    o.event = [](void *ud, const etw_classic_event *e) -> std::int32_t {
        if (std::memcmp(&e->header.Guid, &kProvider, sizeof kProvider) == 0)
            ++static_cast<Count *>(ud)->n;
        return 0;
    };
    etw_consumer *c = nullptr;
    const char *paths[] = {url.c_str()};
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, &o), ETW_OK) << etw_last_error_message();
    if (c == nullptr)
        return 0;
    EXPECT_EQ(etw_consumer_process(c), ETW_OK) << url << ": " << etw_last_error_message();
    etw_consumer_close(c);
    return count.n;
}

} // namespace

TEST(ExportNats, AServerKilledMidRunLosesNothingAndTheStreamEqualsTheFileBufferByBuffer)
{
    NatsServer srv;
    const std::string file = temp_file("export-kill");
    const std::string url = srv.url("KILL");
    Started s;
    start_exporting(s, unique_name("ExportKill"), file, url);
    write_events(*s.provider, 20000, 0);
    ASSERT_EQ(etw_session_flush(s.session, nullptr), ETW_OK);
    srv.kill9();
    // Written while the server is gone: these wait in the spool.
    write_events(*s.provider, 20000, 20000);
    ASSERT_EQ(etw_session_flush(s.session, nullptr), ETW_OK);
    srv.start();
    write_events(*s.provider, 10000, 40000);
    ASSERT_EQ(etw_session_stop(s.session, *s.props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.session.s);
    s.session.s = nullptr;
    const etw_event_trace_properties final = s.props->rec();
    EXPECT_EQ(final.EventsLost, 0u);
    EXPECT_EQ(final.RealTimeBuffersLost, 0u);

    const std::vector<std::uint8_t> etl = etltest::read_all(file);
    const std::size_t bs = std::size_t(final.BufferSize) * 1024;
    ASSERT_EQ(etl.size() % bs, 0u);
    const std::size_t file_buffers = etl.size() / bs;
    ASSERT_GT(file_buffers, 3u);

    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    const exporter::StreamTrace &t = traces[0];
    EXPECT_TRUE(t.stopped);
    EXPECT_EQ(t.tag.session, s.props ? std::string(etw_properties_session_name(*s.props)) : "");
    ASSERT_EQ(t.buffers + 1, file_buffers) << "every buffer of the file is in the stream, once";
    ASSERT_EQ(t.etl.size(), etl.size());
    for (std::size_t b = 0; b < file_buffers; ++b)
        EXPECT_EQ(std::memcmp(t.etl.data() + b * bs, etl.data() + b * bs, bs), 0) << "buffer " << b << " differs";
    // The header, the data buffers and the final header: nothing twice.
    EXPECT_EQ(stream_messages(srv, "KILL"), file_buffers + 1);
    // And read through the consumer as a file is.
    EXPECT_EQ(count_events(url), 50000u);
}

TEST(ExportNats, SendingTheSameBuffersAgainStoresThemOnce)
{
    NatsServer srv;
    const std::string url = srv.url("AGAIN");
    std::vector<std::uint8_t> header(4096, 0x11), data(4096, 0x22);
    for (int run = 0; run < 2; ++run) {
        exporter::ExportTarget target;
        target.url = url;
        target.session = "Again";
        target.buffer_size = 4096;
        target.spool_folder = srv.dir() + "/spool" + std::to_string(run);
        std::unique_ptr<engine::BufferExport> exp;
        const Status st = exporter::open_nats_export(target, &exp);
        ASSERT_TRUE(st) << st.message;
        // The same instance (start time) and sequences: what a host sends
        // again when an acknowledgement was lost.
        ASSERT_TRUE(exp->begin(header.data(), 4096, 133000000000000000));
        for (int i = 0; i < 5; ++i) {
            data[0] = std::uint8_t(i);
            ASSERT_EQ(exp->publish(data.data(), 4096, 0, false), engine::BufferExport::Offer::Queued);
        }
        const Status done = exp->finish(header.data(), 4096);
        ASSERT_TRUE(done) << done.message;
    }
    EXPECT_EQ(stream_messages(srv, "AGAIN"), 7u) << "header, five buffers, final header: each stored once";
}

namespace {

// The bytes the spool's segment files in folder hold now.
std::uint64_t segment_bytes(const std::string &folder)
{
    std::uint64_t n = 0;
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(folder, ec))
        if (e.path().filename().string().rfind("seg-", 0) == 0) {
            const std::uintmax_t size = e.file_size(ec);
            if (!ec) // removed meanwhile: holds nothing
                n += size;
        }
    return n;
}

// Publishes `count` 64 KiB buffers to a new export of `session` (eight
// buffers of memory), offering each again while the export says Full and
// the caller may wait, as a lossless session does, and stops it; returns the
// most the spool's segments held at any time. kill_after: the server is killed after this
// many buffers (and started again before the stop).
std::uint64_t publish_buffers(NatsServer &srv, const std::string &session, std::int64_t room_wait_ms,
                              std::int64_t stall_ms, std::uint32_t count, std::uint32_t kill_after = ~0u)
{
    exporter::ExportTarget target;
    target.url = srv.url("HOLD");
    target.session = session;
    target.buffer_size = 65536;
    target.memory_bytes = 8 * (65536 + 256);
    target.stall_ms = stall_ms;
    target.spool_folder = srv.dir() + "/spool-" + session;
    std::unique_ptr<engine::BufferExport> exp;
    const Status st = exporter::open_nats_export(target, &exp);
    EXPECT_TRUE(st) << st.message;
    if (!st)
        return 0;
    std::vector<std::uint8_t> header(65536, 0x11), data(65536, 0x22);
    EXPECT_TRUE(exp->begin(header.data(), 65536, 7));
    // Looked at after every publish, and all the time (the stop's final
    // header too) by a thread.
    std::atomic<std::uint64_t> spooled{0};
    std::atomic<bool> done{false};
    std::thread watch([&] {
        while (!done) {
            const std::uint64_t now = segment_bytes(target.spool_folder);
            if (now > spooled)
                spooled = now;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    });
    for (std::uint32_t i = 0; i < count; ++i) {
        if (i == kill_after)
            srv.kill9();
        std::memcpy(data.data(), &i, 4);
        engine::BufferExport::Offer r = exp->publish(data.data(), 65536, room_wait_ms, false);
        while (r == engine::BufferExport::Offer::Full && room_wait_ms > 0)
            r = exp->publish(data.data(), 65536, room_wait_ms, true);
        EXPECT_EQ(r, engine::BufferExport::Offer::Queued) << "buffer " << i;
        if (const std::uint64_t now = segment_bytes(target.spool_folder); now > spooled)
            spooled = now;
    }
    if (kill_after < count)
        srv.start();
    const Status finished = exp->finish(header.data(), 65536);
    EXPECT_TRUE(finished) << finished.message;
    done = true;
    watch.join();
    return spooled;
}

} // namespace

// While the server acknowledges, slower than the logger but steadily, a
// logger that may wait (lossless) waits for the memory queue instead of
// writing the spool (a write and a read back of every buffer on the host);
// one that may not wait spools what memory cannot hold; and a server that
// stops answering for stall_ms sends the held logger to the spool after all.
TEST(ExportNats, ALosslessLoggerWaitsForMemoryWhileTheServerAcknowledgesAndSpoolsOnceItStalls)
{
    NatsServer srv;
    // A stall time no loaded test machine reaches between two acknowledgements.
    EXPECT_EQ(publish_buffers(srv, "Waits", 100, 10000, 200), 0u)
        << "the server kept acknowledging: nothing should have touched the spool";
    EXPECT_GT(publish_buffers(srv, "NoWait", 0, 10000, 200), 0u)
        << "a logger that may not wait spools what the eight buffers of memory cannot hold";
    EXPECT_GT(publish_buffers(srv, "Stalled", 100, 200, 60, 20), 0u)
        << "the server was killed: the held logger spools after the stall time";
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(srv.url("HOLD"), "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 3u);
    for (const exporter::StreamTrace &t : traces) {
        EXPECT_TRUE(t.stopped) << t.tag.session;
        EXPECT_EQ(t.buffers, t.tag.session == "Stalled" ? 60u : 200u) << t.tag.session;
    }
}

TEST(ExportNats, BuffersAFullSpoolCannotTakeCountInRealTimeBuffersLost)
{
    NatsServer srv;
    const std::string file = temp_file("export-full");
    const std::string url = srv.url("FULL");
    // Room for three 64 KiB buffers with their tags.
    ASSERT_EQ(setenv("OPENETW_SPOOL_BYTES", std::to_string(3 * (65536 + 200)).c_str(), 1), 0);
    Started s;
    start_exporting(s, unique_name("ExportFull"), file, url);
    unsetenv("OPENETW_SPOOL_BYTES");
    srv.kill9();
    write_events(*s.provider, 30000, 0); // about 60 buffers
    ASSERT_EQ(etw_session_flush(s.session, nullptr), ETW_OK);
    ASSERT_EQ(etw_session_query(s.session, *s.props), ETW_OK);
    const std::uint32_t lost_while_down = s.props->rec().RealTimeBuffersLost;
    EXPECT_GT(lost_while_down, 0u) << "the spool is full: what it cannot take is counted";
    srv.start();
    ASSERT_EQ(etw_session_stop(s.session, *s.props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.session.s);
    s.session.s = nullptr;
    const etw_event_trace_properties final = s.props->rec();
    EXPECT_EQ(final.EventsLost, 0u) << "the file has every event";
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    // Every data buffer written is either in the stream or counted lost.
    EXPECT_EQ(traces[0].buffers + final.RealTimeBuffersLost, final.BuffersWritten);
    EXPECT_GE(final.RealTimeBuffersLost, lost_while_down);
}

// Lossless extends to the export: a full spool holds the logger (and then
// the writers) instead of dropping buffers from the stream.
TEST(ExportNats, ALosslessSessionHoldsItsBuffersWhileTheSpoolIsFullAndLosesNone)
{
    NatsServer srv;
    const std::string file = temp_file("export-lossless");
    const std::string url = srv.url("LOSSLESS");
    ASSERT_EQ(setenv("OPENETW_SPOOL_BYTES", std::to_string(3 * (65536 + 200)).c_str(), 1), 0);
    Started s;
    start_exporting(s, unique_name("ExportLossless"), file, url, 0, ETW_SESSION_LOSSLESS);
    unsetenv("OPENETW_SPOOL_BYTES");
    srv.kill9();
    std::thread writer([&] { write_events(*s.provider, 30000, 0); }); // about 60 buffers: the pool fills
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ASSERT_EQ(etw_session_query(s.session, *s.props), ETW_OK);
    EXPECT_EQ(s.props->rec().RealTimeBuffersLost, 0u) << "a full spool holds the logger, lossless";
    srv.start();
    writer.join();
    ASSERT_EQ(etw_session_stop(s.session, *s.props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.session.s);
    s.session.s = nullptr;
    const etw_event_trace_properties final = s.props->rec();
    EXPECT_EQ(final.EventsLost, 0u);
    EXPECT_EQ(final.RealTimeBuffersLost, 0u);
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].buffers, final.BuffersWritten);
    EXPECT_EQ(count_events(url), 30000u);
}

// Buffering mode writes only when flushed: each flush's buffers go to the
// stream as to the file, and a buffer two flushes write is published once,
// so the stream holds every event once (docs/FLEET.md, "Buffering mode").
TEST(ExportNats, ABufferingSessionPublishesWhatEachFlushWritesOnce)
{
    NatsServer srv;
    const std::string url = srv.url("RING");
    const std::string first = temp_file("export-ring1"), second = temp_file("export-ring2");
    Started s;
    start_exporting(s, unique_name("ExportRing"), first, url, ETW_BUFFERING_MODE);
    write_events(*s.provider, 3000, 0);
    ASSERT_EQ(etw_session_flush(s.session, nullptr), ETW_OK) << etw_last_error_message();
    write_events(*s.provider, 3000, 3000);
    ASSERT_EQ(etw_session_flush_to_file(s.session, second.c_str(), nullptr), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_stop(s.session, *s.props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.session.s);
    s.session.s = nullptr;
    EXPECT_EQ(count_events(first), 3000u);
    EXPECT_EQ(count_events(second), 6000u) << "the ring kept every buffer: the second flush writes them all";
    const std::size_t bs = std::size_t(s.props->rec().BufferSize) * 1024;
    const std::size_t second_buffers = etltest::read_all(second).size() / bs - 1;
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_TRUE(traces[0].stopped);
    EXPECT_EQ(traces[0].buffers, second_buffers) << "each buffer once";
    EXPECT_EQ(count_events(url), 6000u);
}

// A real-time session without a file publishes every buffer it would
// deliver, a consumer attached or not (none is here: its EventsLost counts
// the backlog nobody read, the stream has it all).
TEST(ExportNats, ARealTimeSessionWithoutAFileExportsEveryBuffer)
{
    NatsServer srv;
    const std::string url = srv.url("LIVE");
    Started s;
    start_exporting(s, unique_name("ExportLive"), "", url, ETW_REAL_TIME_MODE);
    write_events(*s.provider, 2000, 0);
    ASSERT_EQ(etw_session_stop(s.session, *s.props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.session.s);
    s.session.s = nullptr;
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_TRUE(traces[0].stopped);
    EXPECT_GT(traces[0].buffers, 0u);
    EXPECT_EQ(count_events(url), 2000u);
}

TEST(ExportNats, ARefusedPasswordFailsTheStartWithTheServersReason)
{
    NatsServer srv({"--user", "alice", "--pass", "right-one"});
    const std::string creds = temp_dir() + "/" + unique_name("creds");
    {
        std::ofstream f(creds);
        f << "user = alice\npassword = wrong-one\n";
    }
    Props props(unique_name("ExportRefused"), temp_file("export-refused"));
    ASSERT_EQ(etw_properties_set_export(props, srv.url("AUTH").c_str(), creds.c_str()), ETW_OK);
    etw_session_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = ETW_SESSION_IN_PROCESS;
    SessionHandle s;
    EXPECT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_ERROR_ACCESS_DENIED);
    const std::string why = etw_last_error_message();
    EXPECT_NE(why.find("refused the connection"), std::string::npos) << why;
    EXPECT_NE(why.find("uthorization"), std::string::npos) << "the server's reason: " << why;
    EXPECT_EQ(why.find("wrong-one"), std::string::npos) << why;

    // The right password, from the file the environment names.
    {
        std::ofstream f(creds);
        f << "user = alice\npassword = right-one\n";
    }
    Props ok(unique_name("ExportAllowed"), temp_file("export-allowed"));
    ASSERT_EQ(etw_properties_set_export(ok, srv.url("AUTH").c_str(), nullptr), ETW_OK);
    ASSERT_EQ(setenv("OPENETW_NATS_CREDENTIALS", creds.c_str(), 1), 0);
    SessionHandle s2;
    EXPECT_EQ(etw_session_start_ex(&s2.s, ok, &opt), ETW_OK) << etw_last_error_message();
    unsetenv("OPENETW_NATS_CREDENTIALS");
    EXPECT_EQ(etw_session_stop(s2, nullptr), ETW_OK) << etw_last_error_message();
}

TEST(ExportNats, NoServerAtTheUrlFailsTheStartWithFileNotFound)
{
    const int port = natstest::free_port(); // nothing listens there
    Props props(unique_name("ExportNobody"), temp_file("export-nobody"));
    const std::string url = "nats://127.0.0.1:" + std::to_string(port) + "/NOBODY";
    ASSERT_EQ(etw_properties_set_export(props, url.c_str(), nullptr), ETW_OK);
    etw_session_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = ETW_SESSION_IN_PROCESS;
    SessionHandle s;
    EXPECT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_ERROR_FILE_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("no NATS server answers at nats://127.0.0.1:"),
              std::string::npos)
        << etw_last_error_message();
    EXPECT_EQ(s.s, nullptr);
}

TEST(ExportNats, AStreamThatDoesNotExistIsFileNotFoundForAReader)
{
    NatsServer srv;
    std::vector<exporter::StreamTrace> traces;
    const Status st = exporter::read_nats_stream(srv.url("NONE"), "", &traces);
    EXPECT_EQ(st.code, ETW_ERROR_FILE_NOT_FOUND) << st.message;
    EXPECT_NE(st.message.find("has no stream NONE"), std::string::npos) << st.message;
}

TEST(ExportNats, AStopWithTheServerGoneSaysWhatStaysSpooledAndTheNextExportSendsIt)
{
    NatsServer srv;
    const std::string url = srv.url("LATER");
    const std::vector<std::uint8_t> header(4096, 0x11), data(4096, 0x22);
    exporter::ExportTarget target;
    target.url = url;
    target.session = "First";
    target.buffer_size = 4096;
    target.spool_folder = srv.dir() + "/spool";
    target.finish_wait_ms = 300; // the server stays away through it
    std::unique_ptr<engine::BufferExport> exp;
    Status st = exporter::open_nats_export(target, &exp);
    ASSERT_TRUE(st) << st.message;
    ASSERT_TRUE(exp->begin(header.data(), 4096, 1));
    for (int i = 0; i < 400 && stream_messages(srv, "LATER") != 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10)); // the header acknowledged, then the kill
    ASSERT_EQ(stream_messages(srv, "LATER"), 1u);
    srv.kill9();
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(exp->publish(data.data(), 4096, 0, false), engine::BufferExport::Offer::Queued);
    st = exp->finish(header.data(), 4096);
    EXPECT_EQ(st.code, ETW_ERROR_TIMEOUT);
    EXPECT_NE(st.message.find("4 buffers"), std::string::npos) << st.message;
    EXPECT_NE(st.message.find("stay spooled in " + target.spool_folder), std::string::npos) << st.message;
    exp.reset();

    // The next export on that folder (a host started again) sends them first.
    srv.start();
    target.session = "Second";
    target.finish_wait_ms = 0;
    st = exporter::open_nats_export(target, &exp);
    ASSERT_TRUE(st) << st.message;
    ASSERT_TRUE(exp->begin(header.data(), 4096, 2));
    st = exp->finish(header.data(), 4096);
    ASSERT_TRUE(st) << st.message;
    std::vector<exporter::StreamTrace> traces;
    st = exporter::read_nats_stream(url, "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 2u);
    EXPECT_EQ(traces[0].tag.session, "First");
    EXPECT_EQ(traces[0].buffers, 3u);
    EXPECT_TRUE(traces[0].stopped);
    EXPECT_EQ(traces[1].tag.session, "Second");
    EXPECT_EQ(traces[1].buffers, 0u);
    EXPECT_FALSE(std::filesystem::exists(target.spool_folder))
        << "an export that finished with nothing left removes it";
}

// Run alone (meson test export-nats-hosted): it chooses its own namespace
// before anything of the session host is used in the process.
TEST(ExportNatsHosted, ASessionOfTheSessionHostExportsWhatThisProcessWrites)
{
    ASSERT_NE(std::getenv("OPENETW_HOSTD"), nullptr) << "run by meson, which names openetw-hostd";
    const std::string ns = temp_dir() + "/" + unique_name("ns");
    ASSERT_TRUE(std::filesystem::create_directory(ns));
    std::filesystem::permissions(ns, std::filesystem::perms::owner_all);
    ASSERT_EQ(setenv("OPENETW_REGISTRY", (ns + "/registry").c_str(), 1), 0);
    NatsServer srv;
    const std::string url = srv.url("HOSTED");
    const std::string file = temp_file("export-hosted");
    Props props(unique_name("ExportHosted"), file);
    ASSERT_EQ(etw_properties_set_export(props, url.c_str(), nullptr), ETW_OK);
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    etw_session_host_info host{};
    host.struct_size = sizeof host;
    ASSERT_EQ(etw_session_get_host_info(&host, s), ETW_OK);
    EXPECT_EQ(host.is_local, 0u) << "the session host runs it, and its logger exports";
    ASSERT_EQ(etw_session_enable_provider(s, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
              ETW_OK);
    {
        Provider p(kProvider);
        write_events(p, 5000, 0);
    }
    ASSERT_EQ(etw_session_stop(s, props), ETW_OK) << etw_last_error_message();
    etw_session_close(s.s);
    s.s = nullptr;
    EXPECT_EQ(count_events(url), 5000u);
}

TEST(ExportNats, AHostStartedLaterSendsWhatTheSpoolOfAHostThatIsGoneHolds)
{
    NatsServer srv;
    const std::string url = srv.url("ORPHAN");
    const std::string root = srv.dir() + "/spools";
    const char *was = std::getenv("OPENETW_SPOOL_DIR");
    const std::string saved = was ? was : "";
    ASSERT_EQ(setenv("OPENETW_SPOOL_DIR", root.c_str(), 1), 0);
    const pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    waitpid(dead, nullptr, 0);
    const std::string gone = root + "/Gone-" + std::to_string(dead) + "-12345-1";
    const std::string mine = root + "/Mine-" + std::to_string(getpid()) + "-" +
                             std::to_string(platform::process_start_time(std::uint32_t(getpid()))) + "-1";
    for (const std::string &folder : {gone, mine}) {
        std::unique_ptr<exporter::Spool> spool;
        ASSERT_TRUE(exporter::Spool::open(folder, 1 << 20, &spool));
        const std::vector<std::uint8_t> bytes(4096, 0x33);
        exporter::BufferTag tag;
        tag.machine = "m";
        tag.session = folder == gone ? "Gone" : "Mine";
        tag.start_time = 7;
        std::string why;
        for (std::uint64_t seq = 0; seq < 4; ++seq) {
            tag.sequence = seq;
            tag.kind = seq == 0 ? exporter::BufferTag::Kind::Header : exporter::BufferTag::Kind::Buffer;
            ASSERT_EQ(spool->push(exporter::encode_record(tag, bytes.data(), 4096), &why),
                      exporter::Spool::Push::Stored);
        }
        std::ofstream(folder + "/target") << url << "\n\n";
    }
    std::vector<std::string> report;
    exporter::resend_orphaned_spools(&report);
    if (saved.empty())
        unsetenv("OPENETW_SPOOL_DIR");
    else
        setenv("OPENETW_SPOOL_DIR", saved.c_str(), 1);
    ASSERT_EQ(report.size(), 1u) << "only the spool whose host is gone";
    EXPECT_NE(report[0].find(": sent to " + url), std::string::npos) << report[0];
    EXPECT_EQ(stream_messages(srv, "ORPHAN"), 4u);
    EXPECT_FALSE(std::filesystem::exists(gone));
    EXPECT_TRUE(std::filesystem::exists(mine)) << "a live host's spool is its own";
    std::vector<exporter::StreamTrace> traces;
    ASSERT_TRUE(exporter::read_nats_stream(url, "", &traces));
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].tag.session, "Gone");
    EXPECT_EQ(traces[0].buffers, 3u);
    EXPECT_FALSE(traces[0].stopped) << "its host died before the stop: the header as it started";
}

TEST(ExportNats, SinceReadsWhatTheStreamGotFromThatTimeOn)
{
    NatsServer srv;
    const std::string url = srv.url("SINCE");
    exporter::ExportTarget target;
    target.url = url;
    target.session = "Since";
    target.buffer_size = 4096;
    target.spool_folder = srv.dir() + "/spool";
    std::unique_ptr<engine::BufferExport> exp;
    Status st = exporter::open_nats_export(target, &exp);
    ASSERT_TRUE(st) << st.message;
    const std::vector<std::uint8_t> header(4096, 0x11), data(4096, 0x22);
    ASSERT_TRUE(exp->begin(header.data(), 4096, 5));
    ASSERT_EQ(exp->publish(data.data(), 4096, 0, false), engine::BufferExport::Offer::Queued);
    ASSERT_TRUE(exp->finish(header.data(), 4096));
    std::vector<exporter::StreamTrace> traces;
    st = exporter::read_nats_stream(url + "?since=2000-01-01T00:00:00Z", "", &traces);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(traces.size(), 1u);
    EXPECT_EQ(traces[0].buffers, 1u);
    st = exporter::read_nats_stream(url + "?since=2100-01-01T00:00:00Z", "", &traces);
    EXPECT_EQ(st.code, ETW_ERROR_HANDLE_EOF) << "nothing was stored after 2100: " << st.message;
    EXPECT_TRUE(traces.empty());
}
