// EVENT_CONTROL_CODE_CAPTURE_STATE in one process (etw_session_enable_provider
// with ETW_CONTROL_CODE_CAPTURE_STATE): every registration the session
// enables is called once, on the calling thread, with is_enabled 2 and the
// request's level and keywords; the enablement does not change; a session
// that does not enable the GUID refuses it; a private session captures its
// own provider. The listing (etw_provider_query) sees this process's
// registrations and sessions.
#include <openetw/openetw.h>

#include "engine_test_util.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace enginetest;

namespace {

struct Calls {
    std::vector<etw_provider_enable_info> calls;
    std::vector<std::thread::id> threads;
};

void record(const etw_provider_enable_info *info, void *user)
{
    auto *c = static_cast<Calls *>(user);
    c->calls.push_back(*info);
    c->threads.push_back(std::this_thread::get_id());
}

struct Registered {
    etw_provider *p = nullptr;
    Calls calls;
    explicit Registered(const etw_guid &g)
    {
        EXPECT_EQ(etw_provider_register(&p, &g, record, &calls, nullptr), ETW_OK);
    }
    ~Registered() { etw_provider_unregister(p); }
};

TEST(CaptureState, CallsEveryRegistrationTheSessionEnablesOnceWithoutChangingTheEnablement)
{
    const etw_guid g = make_guid(0x5C00), other = make_guid(0x5C01);
    Props props(unique_name("capture"), temp_file("capture"));
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK) << etw_last_error_message();
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, ETW_LEVEL_WARNING, 0x5, 0x1),
              ETW_OK);
    Registered a(g), b(g), c(other);
    ASSERT_EQ(a.calls.calls.size(), 1u);
    ASSERT_EQ(b.calls.calls.size(), 1u);
    EXPECT_TRUE(c.calls.calls.empty());

    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_CAPTURE_STATE, ETW_LEVEL_VERBOSE, 0xF0, 0x10), ETW_OK)
        << etw_last_error_message();
    for (Registered *r : {&a, &b}) {
        ASSERT_EQ(r->calls.calls.size(), 2u) << "one capture-state callback per registration";
        const etw_provider_enable_info &info = r->calls.calls[1];
        EXPECT_EQ(info.is_enabled, ETW_CONTROL_CODE_CAPTURE_STATE);
        EXPECT_EQ(info.level, ETW_LEVEL_VERBOSE);
        EXPECT_EQ(info.match_any_keyword, 0xF0u);
        EXPECT_EQ(info.match_all_keyword, 0x10u);
        EXPECT_EQ(info.session_handle, etw_session_handle(s));
        EXPECT_EQ(r->calls.threads[1], std::this_thread::get_id());
        // The session's own level and keywords still decide.
        EXPECT_TRUE(etw_provider_is_enabled(r->p, ETW_LEVEL_WARNING, 0x5));
        EXPECT_FALSE(etw_provider_is_enabled(r->p, ETW_LEVEL_VERBOSE, 0));
        EXPECT_FALSE(etw_provider_is_enabled(r->p, ETW_LEVEL_WARNING, 0x10));
    }
    EXPECT_TRUE(c.calls.calls.empty()) << "another GUID's registration was called";

    // A GUID the session does not enable: refused, nobody called.
    EXPECT_EQ(etw_session_enable_provider(s, &other, ETW_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0),
              ETW_ERROR_WMI_GUID_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("does not enable"), std::string::npos)
        << etw_last_error_message();
    EXPECT_TRUE(c.calls.calls.empty());
    // Disabled: refused too, and the disable was the last callback.
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_DISABLE_PROVIDER, 0, 0, 0), ETW_OK);
    EXPECT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0),
              ETW_ERROR_WMI_GUID_NOT_FOUND);
    ASSERT_EQ(a.calls.calls.size(), 3u);
    EXPECT_EQ(a.calls.calls[2].is_enabled, 0u);
    EXPECT_EQ(etw_session_enable_provider(s, &g, 3, 0, 0, 0), ETW_ERROR_INVALID_PARAMETER);
}

TEST(CaptureState, AStoppedSessionIsNotFound)
{
    const etw_guid g = make_guid(0x5C02);
    Props props(unique_name("capture-stop"), temp_file("capture-stop"));
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    EXPECT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0),
              ETW_ERROR_WMI_INSTANCE_NOT_FOUND);
}

TEST(ProviderListing, ListsThisProcesssRegistrationsAndSessions)
{
    const etw_guid g = make_guid(0x5C03), pre = make_guid(0x5C04);
    Props props(unique_name("listing"), temp_file("listing"));
    SessionHandle s;
    ASSERT_EQ(etw_session_start(&s.s, props), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 4, 0xAB, 0x3), ETW_OK);
    ASSERT_EQ(etw_session_enable_provider(s, &pre, ETW_CONTROL_CODE_ENABLE_PROVIDER, 2, 0, 0), ETW_OK);
    {
        Registered a(g), b(g);
        etw_provider_process procs[4];
        etw_provider_session sessions[4];
        std::uint32_t np = 0, ns = 0;
        ASSERT_EQ(etw_provider_query(&g, procs, 4, &np, sessions, 4, &ns), ETW_OK) << etw_last_error_message();
        ASSERT_EQ(np, 1u);
        EXPECT_EQ(procs[0].process_id, std::uint32_t(getpid()));
        EXPECT_EQ(procs[0].registrations, 2u);
        ASSERT_EQ(ns, 1u);
        EXPECT_EQ(sessions[0].session_handle, etw_session_handle(s));
        EXPECT_EQ(sessions[0].level, 4u);
        EXPECT_EQ(sessions[0].match_any_keyword, 0xABu);
        EXPECT_EQ(sessions[0].match_all_keyword, 0x3u);
        EXPECT_STREQ(sessions[0].session_name, etw_properties_session_name(props));
        // Too small: both counts, what fits.
        EXPECT_EQ(etw_provider_query(&g, procs, 0, &np, sessions, 1, &ns), ETW_ERROR_MORE_DATA);
        EXPECT_EQ(np, 1u);
        EXPECT_EQ(ns, 1u);
        // Enabled ahead of any registration: listed with no process.
        ASSERT_EQ(etw_provider_query(&pre, procs, 4, &np, sessions, 4, &ns), ETW_OK);
        EXPECT_EQ(np, 0u);
        EXPECT_EQ(ns, 1u);
        EXPECT_EQ(etw_provider_query(nullptr, procs, 4, &np, sessions, 4, &ns), ETW_ERROR_INVALID_PARAMETER);
        EXPECT_EQ(etw_provider_query(&g, nullptr, 4, &np, sessions, 4, &ns), ETW_ERROR_INVALID_PARAMETER);
        EXPECT_EQ(etw_provider_list(nullptr, 3, &np), ETW_ERROR_INVALID_PARAMETER);
        EXPECT_EQ(etw_provider_list(nullptr, 0, nullptr), ETW_ERROR_INVALID_PARAMETER);
    }
    std::uint32_t np = 0, ns = 0;
    etw_provider_process procs[4];
    ASSERT_EQ(etw_provider_query(&g, procs, 4, &np, nullptr, 0, &ns), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(np, 0u) << "unregistered providers are not listed";
    ASSERT_EQ(etw_session_stop(s, nullptr), ETW_OK);
    EXPECT_EQ(etw_provider_query(&g, nullptr, 0, &np, nullptr, 0, &ns), ETW_ERROR_WMI_GUID_NOT_FOUND);
}

} // namespace
