// `etwctl collect` against a real nats-server: the rebuilt file equals the
// file the session wrote, byte for byte (also when the session was stopped
// with the server down and its spool sent when the server came back); a
// file is never replaced with other contents unasked; a session still
// running is reported as incomplete, with the status saying so.
#include "../engine/engine_test_util.hpp"
#include "../engine/etl_test_decoder.hpp"
#include "export/stream_collect.hpp"
#include "nats_server.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

using namespace openetw;
using namespace enginetest;
using natstest::NatsServer;

namespace {

const etw_guid kProvider = make_guid(0x7a75e0c1);

void write_events(etw_provider *p, std::uint32_t count)
{
    Event ev(kProvider, 100);
    for (std::uint32_t i = 0; i < count; ++i) {
        std::memcpy(ev.bytes + 0x30, &i, 4);
        ASSERT_EQ(etw_provider_trace_event(p, ev.h()), ETW_OK);
    }
}

// An in-process file session exporting to url, its provider enabled.
struct Exporting {
    SessionHandle session;
    std::unique_ptr<Props> props;
    std::unique_ptr<Provider> provider;
    std::string file;

    Exporting(const std::string &name, const std::string &url)
    {
        file = temp_file(name.c_str());
        props = std::make_unique<Props>(unique_name(name.c_str()), file);
        EXPECT_EQ(etw_properties_set_export(*props, url.c_str(), nullptr), ETW_OK) << etw_last_error_message();
        etw_session_options opt{};
        opt.struct_size = sizeof opt;
        opt.flags = ETW_SESSION_IN_PROCESS;
        EXPECT_EQ(etw_session_start_ex(&session.s, *props, &opt), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(
            etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
            ETW_OK);
        provider = std::make_unique<Provider>(kProvider);
    }
    std::string name() const { return etw_properties_session_name(*props); }
    etw_status stop()
    {
        provider.reset();
        const etw_status st = etw_session_stop(session, *props);
        etw_session_close(session.s);
        session.s = nullptr;
        return st;
    }
};

std::string fresh_dir(const std::string &what)
{
    const std::string d = temp_dir() + "/" + unique_name(what.c_str());
    std::filesystem::create_directories(d);
    return d;
}

// Runs the etwctl meson built (OPENETW_ETWCTL) and returns its exit status
// and standard output.
int etwctl(const std::string &args, std::string *out)
{
    const char *tool = std::getenv("OPENETW_ETWCTL");
    if (tool == nullptr) {
        ADD_FAILURE() << "run by meson, which names etwctl in OPENETW_ETWCTL";
        return -1;
    }
    FILE *p = popen((std::string(tool) + " " + args + " 2>&1").c_str(), "r");
    char chunk[4096];
    out->clear();
    for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, p)) > 0;)
        out->append(chunk, n);
    const int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace

TEST(CollectNats, TheCollectedFileEqualsTheSessionsOwnByteForByte)
{
    NatsServer srv;
    const std::string url = srv.url("COLLECT");
    Exporting s("collect-same", url);
    write_events(*s.provider, 30000);
    ASSERT_EQ(s.stop(), ETW_OK) << etw_last_error_message();
    const std::vector<std::uint8_t> local = etltest::read_all(s.file);
    ASSERT_GT(local.size(), 4u * 65536);

    const std::string out = fresh_dir("collected");
    std::string text;
    ASSERT_EQ(etwctl("collect " + url + " --output " + out, &text), 0) << text;
    const std::vector<std::string> files = [&] {
        std::vector<std::string> v;
        for (const auto &e : std::filesystem::directory_iterator(out))
            v.push_back(e.path().string());
        return v;
    }();
    ASSERT_EQ(files.size(), 1u) << text;
    EXPECT_NE(files[0].find("." + s.name() + "."), std::string::npos) << files[0];
    const std::vector<std::uint8_t> collected = etltest::read_all(files[0]);
    ASSERT_EQ(collected.size(), local.size());
    EXPECT_TRUE(collected == local) << "the collected file differs from the session's own";
    EXPECT_NE(text.find("written"), std::string::npos) << text;

    // Again: the same bytes are there, nothing to do and nothing to report.
    ASSERT_EQ(etwctl("collect " + url + " --output " + out, &text), 0) << text;
    EXPECT_NE(text.find("unchanged"), std::string::npos) << text;
    // Other contents are never replaced unasked.
    std::ofstream(files[0], std::ios::binary | std::ios::trunc) << "mine";
    EXPECT_EQ(etwctl("collect " + url + " --output " + out, &text), 1) << text;
    EXPECT_NE(text.find("ETW_ERROR_ALREADY_EXISTS"), std::string::npos) << text;
    EXPECT_EQ(etltest::read_all(files[0]).size(), 4u) << "kept";
    ASSERT_EQ(etwctl("collect " + url + " --output " + out + " --force", &text), 0) << text;
    EXPECT_NE(text.find("replaced"), std::string::npos) << text;
    EXPECT_TRUE(etltest::read_all(files[0]) == local);
}

TEST(CollectNats, ASessionStoppedWhileTheServerWasDownIsWholeOnceItsSpoolIsSent)
{
    NatsServer srv;
    const std::string url = srv.url("DOWN");
    Exporting s("collect-down", url);
    write_events(*s.provider, 10000);
    ASSERT_EQ(etw_session_flush(s.session, nullptr), ETW_OK);
    srv.kill9();
    write_events(*s.provider, 10000); // spooled
    // The stop begins with the server gone and waits for the spool to be
    // acknowledged; the server comes back during that wait.
    std::thread back([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        srv.start();
    });
    const etw_status stopped = s.stop();
    back.join();
    ASSERT_EQ(stopped, ETW_OK) << etw_last_error_message();
    EXPECT_EQ(s.props->rec().RealTimeBuffersLost, 0u);

    exporter::CollectOptions o;
    o.folder = fresh_dir("collected-down");
    exporter::CollectReport report;
    const Status st = exporter::collect_stream(url, o, &report);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(report.files.size(), 1u);
    EXPECT_TRUE(report.files[0].trace.complete());
    EXPECT_TRUE(etltest::read_all(report.files[0].path) == etltest::read_all(s.file)) << "the collected file differs";
}

TEST(CollectNats, ARunningSessionIsReportedIncompleteAndTheFiltersSelectOne)
{
    NatsServer srv;
    const std::string url = srv.url("RUNNING");
    Exporting done("collect-done", url);
    write_events(*done.provider, 2000);
    ASSERT_EQ(done.stop(), ETW_OK) << etw_last_error_message();
    Exporting running("collect-running", url);
    write_events(*running.provider, 2000);
    ASSERT_EQ(etw_session_flush(running.session, nullptr), ETW_OK);
    // Flushed buffers are acknowledged by the export's sender in its own time.
    for (int i = 0; i < 500; ++i) {
        exporter::CollectOptions probe;
        probe.folder = fresh_dir("probe");
        probe.filter.session = running.name();
        exporter::CollectReport r;
        exporter::collect_stream(url, probe, &r);
        if (r.files.size() == 1 && r.files[0].trace.buffers > 0)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }

    const std::string out = fresh_dir("collected-running");
    std::string text;
    EXPECT_EQ(etwctl("--json collect " + url + " --output " + out, &text), 1) << text;
    EXPECT_NE(text.find("\"status_name\": \"ETW_ERROR_HANDLE_EOF\""), std::string::npos) << text;
    EXPECT_NE(text.find("1 of 2 session(s) are incomplete"), std::string::npos) << text;
    EXPECT_NE(text.find("the final header: the session was not stopped"), std::string::npos) << text;

    // One session by name (in another case): the complete one alone.
    exporter::CollectOptions o;
    o.folder = fresh_dir("collected-one");
    o.filter.session = done.name();
    for (char &c : o.filter.session)
        c = char(std::toupper(static_cast<unsigned char>(c)));
    exporter::CollectReport report;
    Status st = exporter::collect_stream(url, o, &report);
    ASSERT_TRUE(st) << st.message;
    ASSERT_EQ(report.files.size(), 1u);
    EXPECT_EQ(report.skipped, 1u);
    EXPECT_TRUE(etltest::read_all(report.files[0].path) == etltest::read_all(done.file));
    // A machine that never exported: nothing matches, said so.
    o.filter = {};
    o.filter.machine = "no-such-machine";
    st = exporter::collect_stream(url, o, &report);
    EXPECT_EQ(st.code, ETW_ERROR_NO_MORE_ITEMS) << st.message;
    EXPECT_EQ(running.stop(), ETW_OK) << etw_last_error_message();
}
