// openetw/collect.h and etw_consumer_open_stream against a real nats-server:
// a consumer reads with the credentials file it is given; the collect report lists each file
// with its names, start, outcome and buffers, the file equals the session's
// own, the flags and filters work, and every bad argument has its status
// and sentence.
#include "../engine/engine_test_util.hpp"
#include "../engine/etl_test_decoder.hpp"
#include "nats_server.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

using namespace enginetest;
using natstest::NatsServer;

namespace {

const etw_guid kProvider = make_guid(0x7a75e0c2);

struct Report {
    etw_collect_report *r = nullptr;
    Report() { EXPECT_EQ(etw_collect_report_create(&r), ETW_OK); }
    ~Report() { etw_collect_report_destroy(r); }
    operator etw_collect_report *() const { return r; }
    uint32_t count() const
    {
        uint32_t n = 99;
        EXPECT_EQ(etw_collect_report_file_count(&n, r), ETW_OK);
        return n;
    }
    uint64_t skipped() const
    {
        uint64_t n = 99;
        EXPECT_EQ(etw_collect_report_skipped(&n, r), ETW_OK);
        return n;
    }
    etw_collected_file file(uint32_t i) const
    {
        etw_collected_file f{};
        f.struct_size = sizeof f;
        EXPECT_EQ(etw_collect_report_file(&f, r, i), ETW_OK) << etw_last_error_message();
        return f;
    }
};

// An in-process file session that exported events to url, stopped unless
// asked to keep running (until the object goes).
struct Exported {
    std::string file, name;
    std::unique_ptr<Props> props;
    SessionHandle session;
    Exported(const std::string &what, const std::string &url, uint32_t events, bool stop = true)
    {
        file = temp_file(what.c_str());
        props = std::make_unique<Props>(unique_name(what.c_str()), file);
        EXPECT_EQ(etw_properties_set_export(*props, url.c_str(), nullptr), ETW_OK) << etw_last_error_message();
        etw_session_options opt{};
        opt.struct_size = sizeof opt;
        opt.flags = ETW_SESSION_IN_PROCESS;
        EXPECT_EQ(etw_session_start_ex(&session.s, *props, &opt), ETW_OK) << etw_last_error_message();
        EXPECT_EQ(
            etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_VERBOSE, 0, 0),
            ETW_OK);
        {
            Provider p(kProvider);
            Event ev(kProvider, 100);
            for (uint32_t i = 0; i < events; ++i)
                EXPECT_EQ(etw_provider_trace_event(p, ev.h()), ETW_OK);
        }
        name = etw_properties_session_name(*props);
        if (stop) {
            EXPECT_EQ(etw_session_stop(session, *props), ETW_OK) << etw_last_error_message();
            etw_session_close(session.s);
            session.s = nullptr;
        }
    }
};

// The StartTime of the file's logfile header: the instance's start.
int64_t start_time(const std::string &file)
{
    const char *paths[] = {file.c_str()};
    etw_consumer *c = nullptr;
    EXPECT_EQ(etw_consumer_open(&c, paths, 1, nullptr), ETW_OK) << etw_last_error_message();
    etw_logfile_info info{};
    info.struct_size = sizeof info;
    EXPECT_EQ(etw_consumer_logfile_header(&info, c, 0), ETW_OK);
    etw_consumer_close(c);
    return info.header.StartTime;
}

std::string fresh_dir(const char *what)
{
    const std::string d = temp_dir() + "/" + unique_name(what);
    std::filesystem::create_directories(d);
    return d;
}

} // namespace

TEST(CollectApi, BadArgumentsHaveTheirStatusAndSentence)
{
    EXPECT_EQ(etw_collect_report_create(nullptr), ETW_ERROR_INVALID_PARAMETER);
    etw_collect_report_destroy(nullptr);
    Report r;
    const std::string dir = fresh_dir("collect-api-args");
    EXPECT_EQ(etw_collect_stream(nullptr, "nats://127.0.0.1:1/S", dir.c_str(), nullptr, nullptr, nullptr, 0),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "report is NULL");
    EXPECT_EQ(etw_collect_stream(r, nullptr, dir.c_str(), nullptr, nullptr, nullptr, 0), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "url is NULL");
    EXPECT_EQ(etw_collect_stream(r, "nats://127.0.0.1:1/S", nullptr, nullptr, nullptr, nullptr, 0),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_collect_stream(r, "nats://127.0.0.1:1/S", dir.c_str(), nullptr, nullptr, nullptr, 0x6),
              ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "flags has unknown bits 0x6 (only ETW_COLLECT_OVERWRITE is defined)");
    EXPECT_EQ(etw_collect_stream(r, "nats://127.0.0.1:1/S", (dir + "/absent").c_str(), nullptr, nullptr, nullptr, 0),
              ETW_ERROR_PATH_NOT_FOUND);
    EXPECT_NE(std::strstr(etw_last_error_message(), "/absent does not exist"), nullptr) << etw_last_error_message();
    EXPECT_EQ(etw_collect_stream(r, "http://127.0.0.1:1/S", dir.c_str(), nullptr, nullptr, nullptr, 0),
              ETW_ERROR_INVALID_PARAMETER);

    uint32_t n = 0;
    uint64_t skipped = 0;
    EXPECT_EQ(etw_collect_report_file_count(nullptr, r), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_collect_report_file_count(&n, nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_collect_report_skipped(nullptr, r), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_EQ(etw_collect_report_skipped(&skipped, nullptr), ETW_ERROR_INVALID_PARAMETER);
    etw_collected_file f{};
    f.struct_size = sizeof f;
    EXPECT_EQ(etw_collect_report_file(&f, r, 0), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "index 0 is past the report's 0 file(s)");
    f.struct_size = sizeof f - 1;
    EXPECT_EQ(etw_collect_report_file(&f, r, 0), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_NE(std::strstr(etw_last_error_message(), "set it to sizeof(etw_collected_file)"), nullptr);
    EXPECT_STREQ(etw_collect_outcome_name(ETW_COLLECT_NO_FILE), "no file");
    EXPECT_STREQ(etw_collect_outcome_name(ETW_COLLECT_FAILED + 1), "unknown");
}

TEST(CollectApi, TheReportNamesEachFileAndTheFlagsAndFiltersApply)
{
    NatsServer srv;
    const std::string url = srv.url("CAPI");
    Exported a("collect-api-a", url, 3000);
    Exported b("collect-api-b", url, 10);
    const std::string dir = fresh_dir("collect-api");

    Report r;
    ASSERT_EQ(etw_collect_stream(r, url.c_str(), dir.c_str(), nullptr, nullptr, nullptr, 0), ETW_OK)
        << etw_last_error_message();
    ASSERT_EQ(r.count(), 2u);
    EXPECT_EQ(r.skipped(), 0u);
    etw_collected_file fa{}, fb{};
    for (uint32_t i = 0; i < 2; ++i) {
        const etw_collected_file f = r.file(i);
        (std::string(f.session) == a.name ? fa : fb) = f;
    }
    // A caller built against a later, longer struct gets what this library knows.
    struct {
        etw_collected_file f;
        char later[16];
    } longer{};
    longer.f.struct_size = sizeof longer;
    ASSERT_EQ(etw_collect_report_file(&longer.f, r, 0), ETW_OK);
    EXPECT_EQ(longer.f.struct_size, sizeof(etw_collected_file));
    ASSERT_EQ(std::string(fa.session), a.name);
    ASSERT_EQ(std::string(fb.session), b.name);
    EXPECT_EQ(fa.outcome, ETW_COLLECT_WRITTEN);
    EXPECT_EQ(fa.complete, 1u);
    EXPECT_EQ(fa.missing_count, 0u);
    EXPECT_STREQ(fa.missing, "");
    EXPECT_STREQ(fa.error, "");
    EXPECT_EQ(fa.start_time, start_time(a.file));
    EXPECT_GT(fa.data_buffers, 1u);
    EXPECT_EQ(std::string(fa.path).rfind(dir + "/", 0), 0u) << fa.path;
    EXPECT_TRUE(etltest::read_all(fa.path) == etltest::read_all(a.file)) << "the file differs from the session's";
    EXPECT_TRUE(etltest::read_all(fb.path) == etltest::read_all(b.file));
    EXPECT_GT(std::strlen(fa.machine), 0u);
    // The start as the file name gives it: UTC YYYYMMDDTHHMMSS.fffffffZ.
    EXPECT_EQ(std::strlen(fa.start_utc), 24u) << fa.start_utc;
    EXPECT_NE(std::string(fa.path).find(std::string(".") + fa.start_utc + ".etl"), std::string::npos) << fa.path;

    // Again: unchanged. Then other contents: kept, unless overwrite. (The
    // strings of fa belong to the report: kept here before it is filled again.)
    const std::string path_a = fa.path;
    const std::string machine = fa.machine;
    ASSERT_EQ(etw_collect_stream(r, url.c_str(), dir.c_str(), nullptr, a.name.c_str(), nullptr, 0), ETW_OK);
    ASSERT_EQ(r.count(), 1u);
    EXPECT_EQ(r.skipped(), 1u);
    EXPECT_EQ(r.file(0).outcome, ETW_COLLECT_UNCHANGED);
    std::ofstream(path_a, std::ios::binary | std::ios::trunc) << "mine";
    EXPECT_EQ(etw_collect_stream(r, url.c_str(), dir.c_str(), nullptr, a.name.c_str(), nullptr, 0),
              ETW_ERROR_ALREADY_EXISTS);
    ASSERT_EQ(r.count(), 1u) << "the report is filled on failure too";
    EXPECT_EQ(r.file(0).outcome, ETW_COLLECT_KEPT);
    EXPECT_NE(std::strstr(r.file(0).error, "not overwritten"), nullptr) << r.file(0).error;
    EXPECT_EQ(etltest::read_all(path_a).size(), 4u);
    ASSERT_EQ(etw_collect_stream(r, url.c_str(), dir.c_str(), nullptr, a.name.c_str(), nullptr, ETW_COLLECT_OVERWRITE),
              ETW_OK);
    EXPECT_EQ(r.file(0).outcome, ETW_COLLECT_REPLACED);
    EXPECT_TRUE(etltest::read_all(path_a) == etltest::read_all(a.file));

    // The machine filter: the one that exported, and one that never did.
    ASSERT_EQ(etw_collect_stream(r, url.c_str(), dir.c_str(), machine.c_str(), nullptr, nullptr, 0), ETW_OK);
    EXPECT_EQ(r.count(), 2u);
    EXPECT_EQ(etw_collect_stream(r, url.c_str(), dir.c_str(), "no-such-machine", nullptr, nullptr, 0),
              ETW_ERROR_NO_MORE_ITEMS);
    EXPECT_NE(std::strstr(etw_last_error_message(), "machine no-such-machine"), nullptr) << etw_last_error_message();
    EXPECT_EQ(r.count(), 0u);
}

TEST(CollectApi, AnIncompleteSessionIsReportedWithWhatIsMissing)
{
    NatsServer srv;
    const std::string url = srv.url("CAPIRUN");
    Exported running("collect-api-running", url, 10, /*stop=*/false);
    const std::string dir = fresh_dir("collect-api-running");
    Report r;
    // The header buffer is acknowledged by the export's sender in its own
    // time; until then the stream is empty (HANDLE_EOF too, with no file).
    etw_status st = ETW_ERROR_NO_MORE_ITEMS;
    std::string message; // etw_last_error_message of the collect (the report's calls set their own)
    for (int i = 0; i < 500 && (st != ETW_ERROR_HANDLE_EOF || r.count() == 0); ++i) {
        st = etw_collect_stream(r, url.c_str(), dir.c_str(), nullptr, nullptr, nullptr, 0);
        message = etw_last_error_message();
        if (st != ETW_ERROR_HANDLE_EOF || r.count() == 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(st, ETW_ERROR_HANDLE_EOF) << message;
    EXPECT_EQ(message, "1 of 1 session(s) are incomplete in the stream");
    ASSERT_EQ(r.count(), 1u);
    const etw_collected_file f = r.file(0);
    EXPECT_EQ(f.complete, 0u);
    EXPECT_GE(f.missing_count, 1u);
    EXPECT_EQ(std::string(f.missing).rfind("the final header: the session was not stopped", 0), 0u) << f.missing;
    EXPECT_EQ(f.outcome, ETW_COLLECT_WRITTEN);
}

TEST(ConsumerOpenStream, ReadsWithTheCredentialsFileItIsGiven)
{
    NatsServer srv({"--user", "openetw", "--pass", "c-secret"});
    const std::string url = srv.url("CAPICREDS");
    const std::string creds = temp_file("stream-creds"), wrong = temp_file("stream-wrong");
    std::ofstream(creds) << "user = openetw\npassword = c-secret\n";
    std::ofstream(wrong) << "user = openetw\npassword = nope\n";
    {
        Props props(unique_name("stream-creds"), temp_file("stream-creds-etl"));
        ASSERT_EQ(etw_properties_set_export(props, url.c_str(), creds.c_str()), ETW_OK);
        etw_session_options opt{};
        opt.struct_size = sizeof opt;
        opt.flags = ETW_SESSION_IN_PROCESS;
        SessionHandle s;
        ASSERT_EQ(etw_session_start_ex(&s.s, props, &opt), ETW_OK) << etw_last_error_message();
        ASSERT_EQ(etw_session_stop(s, props), ETW_OK) << etw_last_error_message();
    }
    unsetenv("OPENETW_NATS_CREDENTIALS");
    etw_consumer *c = nullptr;
    ASSERT_EQ(etw_consumer_open_stream(&c, url.c_str(), creds.c_str(), nullptr), ETW_OK) << etw_last_error_message();
    uint32_t files = 0;
    EXPECT_EQ(etw_consumer_file_count(&files, c), ETW_OK);
    EXPECT_EQ(files, 1u);
    EXPECT_EQ(etw_consumer_process(c), ETW_OK) << etw_last_error_message();
    etw_consumer_close(c);

    // Without the file (none in the environment either) and with a wrong one: refused.
    c = reinterpret_cast<etw_consumer *>(1);
    EXPECT_EQ(etw_consumer_open_stream(&c, url.c_str(), nullptr, nullptr), ETW_ERROR_ACCESS_DENIED);
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::strstr(etw_last_error_message(), "Authorization Violation"), nullptr) << etw_last_error_message();
    EXPECT_EQ(etw_consumer_open_stream(&c, url.c_str(), wrong.c_str(), nullptr), ETW_ERROR_ACCESS_DENIED);
    // The environment's file when none is given.
    setenv("OPENETW_NATS_CREDENTIALS", creds.c_str(), 1);
    EXPECT_EQ(etw_consumer_open_stream(&c, url.c_str(), "", nullptr), ETW_OK) << etw_last_error_message();
    etw_consumer_close(c);
    unsetenv("OPENETW_NATS_CREDENTIALS");

    EXPECT_EQ(etw_consumer_open_stream(&c, nullptr, creds.c_str(), nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "url is NULL");
    EXPECT_EQ(etw_consumer_open_stream(&c, "/tmp/a.etl", creds.c_str(), nullptr), ETW_ERROR_INVALID_PARAMETER);
    EXPECT_STREQ(etw_last_error_message(), "url \"/tmp/a.etl\" is not a stream URL (nats://HOST[:PORT]/STREAM)");
    EXPECT_EQ(etw_consumer_open_stream(nullptr, url.c_str(), creds.c_str(), nullptr), ETW_ERROR_INVALID_PARAMETER);
    const std::string absent = creds + ".absent";
    EXPECT_EQ(etw_consumer_open_stream(&c, url.c_str(), absent.c_str(), nullptr), ETW_ERROR_FILE_NOT_FOUND)
        << etw_last_error_message();
}
