// etwctl providers and capture-state against a session and a provider of
// this process: the listing names the process and the enabling session
// with its level and keywords; capture-state reaches the provider's callback
// with is_enabled 2 and is refused for a GUID the session does not enable.
#include "ctl_run.hpp"
#include "etwctl.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <string>
#include <unistd.h>
#include <vector>

namespace {

using namespace ctltest;

struct Calls {
    std::vector<etw_provider_enable_info> all;
};

void record(const etw_provider_enable_info *info, void *user) { static_cast<Calls *>(user)->all.push_back(*info); }

TEST(EtwctlProviders, ListsTheProcessAndSessionAndCapturesState)
{
    const std::string n = name("ctl-providers");
    const std::string guid = "6f1c2a3b-4d5e-4f60-8172-93a4b5c6d7e8", other = "6f1c2a3b-4d5e-4f60-8172-93a4b5c6d7e9";
    const etw_guid g = {0x6f1c2a3b, 0x4d5e, 0x4f60, {0x81, 0x72, 0x93, 0xa4, 0xb5, 0xc6, 0xd7, 0xe8}};
    Calls calls;
    etw_provider *p = nullptr;
    ASSERT_EQ(etw_provider_register(&p, &g, record, &calls, nullptr), ETW_OK);
    ASSERT_EQ(ctl({"start", n, "--real-time"}).code, 0);
    ASSERT_EQ(ctl({"enable", n, guid, "--level", "4", "--flags", "0xF0"}).code, 0);
    ASSERT_EQ(calls.all.size(), 1u);

    CtlRun r = ctl({"providers", guid});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "process " + std::to_string(getpid()))) << r.out;
    EXPECT_TRUE(has(r.out, "1 registration\n")) << r.out;
    EXPECT_TRUE(has(r.out, "enabled by " + n + ": level 4, keywords any 0xf0 all 0x0")) << r.out;
    r = ctl({"--json", "providers"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(has(r.out, "\"provider\": \"6F1C2A3B-4D5E-4F60-8172-93A4B5C6D7E8\"")) << r.out;
    EXPECT_TRUE(has(r.out, "\"registrations\": 1")) << r.out;

    r = ctl({"capture-state", n, guid, "--level", "5", "--flags", "0x3"});
    ASSERT_EQ(r.code, 0) << r.err;
    ASSERT_EQ(calls.all.size(), 2u);
    EXPECT_EQ(calls.all[1].is_enabled, ETW_CONTROL_CODE_CAPTURE_STATE);
    EXPECT_EQ(calls.all[1].level, 5u);
    EXPECT_EQ(calls.all[1].match_any_keyword, 0x3u);
    r = ctl({"capture-state", n, other});
    EXPECT_EQ(r.code, 1);
    EXPECT_TRUE(has(r.err, "does not enable")) << r.err;
    EXPECT_EQ(ctl({"capture-state", n}).code, 2);
    EXPECT_EQ(ctl({"providers", "not-a-guid"}).code, 2);

    EXPECT_EQ(ctl({"stop", n}).code, 0);
    // The handle `start` kept (as etwctl's main does at its end): already stopped.
    EXPECT_EQ(etwctl::stop_started_sessions(), 0u);
    etw_provider_unregister(p);
    r = ctl({"providers", guid});
    EXPECT_EQ(r.code, 1) << "nothing registers or enables it: " << r.out;
}

} // namespace
