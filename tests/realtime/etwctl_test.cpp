// etwctl through its library entry points, in this process (where the
// sessions it controls live): every command, text and --json output, exit
// statuses, status names in failures, and sessions started by "another
// program" (this test) being visible to it.
#include "etwctl.hpp"
#include "ctl_run.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace ctltest;

} // namespace

TEST(Etwctl, StartQueryUpdateFlushStopWithJson)
{
    const std::string n = name("ctl-rt");
    CtlRun r = ctl({"--json", "start", n, "--real-time", "--buffer-size", "8", "--min-buffers", "4", "--max-buffers",
                    "16", "--flush-timer", "3", "--clock", "system", "--lossless=250", "--backlog", "5"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"ok\": true")) << r.out;
    EXPECT_TRUE(has(r.out, "\"mode\": \"real-time\""));
    EXPECT_TRUE(has(r.out, "\"buffer_size_kb\": 8"));
    EXPECT_TRUE(has(r.out, "\"maximum_buffers\": 16"));
    EXPECT_TRUE(has(r.out, "\"clock_type\": 2"));
    EXPECT_TRUE(has(r.out, "\"lossless\": true"));
    EXPECT_TRUE(has(r.out, "\"lossless_timeout_ms\": 250"));
    EXPECT_TRUE(has(r.out, "\"realtime_backlog_buffers\": 5"));
    r = ctl({"update", n, "--flush-timer", "7", "--max-buffers", "20"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "flush_timer:             7")) << r.out;
    r = ctl({"--json", "query", n});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"maximum_buffers\": 20"));
    EXPECT_EQ(ctl({"flush", n}).code, 0);
    r = ctl({"--json", "enable", n, "{12345678-1234-5678-9ABC-DEF012345678}", "--level", "4", "--flags", "0x30"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"match_any_keyword\": 48"));
    EXPECT_EQ(ctl({"stop", n}).code, 0);
    r = ctl({"query", n});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "ETW_ERROR_WMI_INSTANCE_NOT_FOUND")) << r.err;
}

TEST(Etwctl, SeesSessionsOtherCodeStartedAndEnablesProviders)
{
    const std::string n = name("ctl-other");
    etw_properties *p = nullptr;
    ASSERT_EQ(etw_properties_create(&p, n.c_str()), ETW_OK);
    etw_properties_set_log_file_mode(p, ETW_REAL_TIME_MODE);
    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_start(&s, p), ETW_OK);
    const etw_guid g = {0xCAFE0001u, 1, 2, {1, 2, 3, 4, 5, 6, 7, 8}};
    etw_provider *prov = nullptr;
    ASSERT_EQ(etw_provider_register(&prov, &g, nullptr, nullptr, nullptr), ETW_OK);
    EXPECT_EQ(etw_provider_is_enabled(prov, 0, 0), 0);
    CtlRun r = ctl({"list"});
    ASSERT_EQ(r.code, 0);
    EXPECT_TRUE(has(r.out, n)) << r.out;
    r = ctl({"enable", n, "CAFE0001-0001-0002-0102-030405060708", "--level", "3"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(etw_provider_is_enabled(prov, 3, 0), 1);
    EXPECT_EQ(etw_provider_is_enabled(prov, 4, 0), 0);
    r = ctl({"enable", n, "CAFE0001-0001-0002-0102-030405060708", "--disable"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(etw_provider_is_enabled(prov, 0, 0), 0);
    r = ctl({"--json", "list"});
    EXPECT_TRUE(has(r.out, "\"count\": ")) << r.out;
    EXPECT_EQ(ctl({"stop", n}).code, 0);
    EXPECT_EQ(etw_session_stop(s, nullptr), ETW_ERROR_WMI_INSTANCE_NOT_FOUND); // etwctl stopped it
    etw_provider_unregister(prov);
    etw_session_close(s);
    etw_properties_destroy(p);
}

TEST(Etwctl, FailuresNameTheStatusAndUsageErrorsExitTwo)
{
    CtlRun r = ctl({"start", name("ctl-bad"), "--buffer-size", "3"});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "ETW_ERROR_INVALID_PARAMETER")) << r.err;
    r = ctl({"--json", "start", name("ctl-bad2"), "--mode", "buffering,real-time"});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.out, "\"status_name\": \"ETW_ERROR_INVALID_PARAMETER\"")) << r.out;
    EXPECT_EQ(ctl({"start", name("ctl-bad3"), "--mode", "sideways"}).code, 2);
    EXPECT_EQ(ctl({"frobnicate"}).code, 2);
    EXPECT_EQ(ctl({"enable", name("x"), "not-a-guid"}).code, 1); // no such session first
    EXPECT_EQ(ctl({}).code, 2);
    EXPECT_EQ(ctl({"help"}).code, 0);
}

TEST(Etwctl, ScriptRunsCommandsInOneProcessAndBufferingFlushWritesAFile)
{
    const std::string n = name("ctl-ring");
    // std::filesystem rather than mkdtemp, which Windows lacks.
    const auto dir = std::filesystem::temp_directory_path() / ("etwctl-" + n);
    std::filesystem::create_directories(dir);
    const std::string file = (dir / "snap.etl").string();
    CtlRun r = script("# a flight recorder\n"
                      "start \"" +
                      n +
                      " ünïcode\" --mode buffering,no-per-processor --min-buffers 4 --buffer-size 4\n"
                      "query \"" +
                      n +
                      " ÜNÏCODE\"\n"
                      "flush \"" +
                      n + " ünïcode\" --file " + file +
                      "\n"
                      "stop \"" +
                      n + " ünïcode\"\n");
    ASSERT_EQ(r.code, 0) << r.err << r.out;
    EXPECT_TRUE(has(r.out, "mode:                    buffering|no-per-processor")) << r.out;
    EXPECT_TRUE(std::filesystem::exists(file));
    // A failing line stops the script with status 1.
    r = script("query " + n + "-missing\nlist\n", true);
    EXPECT_EQ(r.code, 1);
    EXPECT_FALSE(has(r.out, "\"command\": \"list\""));
    EXPECT_EQ(etwctl::stop_started_sessions(), 0u); // the script stopped every session it started
}
