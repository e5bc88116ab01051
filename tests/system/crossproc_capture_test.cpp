// Capture state and the provider listing across processes (issue #31 items
// 5 and 6): a provider process's callback gets is_enabled 2 from a session
// another process hosts and its rundown event reaches the session's file;
// the listing shows the provider processes and the sessions enabling them,
// and forgets a process when it exits or is SIGKILLed.
#include "crossproc_fixtures.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace crossproc {
namespace {

// Polls cond every millisecond for up to ms; true when it held.
template <class F>
bool eventually(int ms, F cond)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(ms);
    while (!cond()) {
        if (Clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

struct Listing {
    etw_status st = ETW_OK;
    std::vector<etw_provider_process> procs;
    std::vector<etw_provider_session> sessions;
    bool has_pid(std::uint32_t pid) const
    {
        return std::any_of(procs.begin(), procs.end(),
                           [&](const etw_provider_process &p) { return p.process_id == pid; });
    }
};

Listing query(const etw_guid &g)
{
    Listing l;
    l.procs.resize(16);
    l.sessions.resize(16);
    std::uint32_t np = 0, ns = 0;
    l.st = etw_provider_query(&g, l.procs.data(), 16, &np, l.sessions.data(), 16, &ns);
    l.procs.resize(std::min<std::uint32_t>(np, 16));
    l.sessions.resize(std::min<std::uint32_t>(ns, 16));
    return l;
}

// A capture-state request reaches the provider of another process once, with
// the request's level and keywords, without changing its enablement; the
// rundown event it writes from the callback is in the file. A session that
// does not enable a GUID refuses a capture of it.
TEST(CrossProcess, CaptureStateReachesAProviderInAnotherProcessOnceAndItsRundownReachesTheFile)
{
    const std::string file = g_ns.path("capture.etl");
    Provider p;
    ASSERT_TRUE(p.start(0, 1, {"events=10", "level=1"}));
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpCapture", "file=" + file, "level=4", "any=0xF0"}));
    ASSERT_TRUE(p.wait_enabled(3000));
    const std::uint64_t enables = p.counters->get(&xp_shared::enable_calls);

    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_open(&s, "XpCapture"), ETW_OK) << etw_last_error_message();
    const etw_guid g = xp_guid(0), other = xp_guid(1);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_CAPTURE_STATE, 5, 0x3, 0), ETW_OK)
        << etw_last_error_message();
    EXPECT_TRUE(eventually(3000, [&] { return p.counters->get(&xp_shared::capture_calls) >= 1; }))
        << "no capture-state callback within 3 s";
    EXPECT_EQ(p.counters->get(&xp_shared::capture_level), 5u);
    EXPECT_EQ(p.counters->get(&xp_shared::capture_any), 0x3u);
    EXPECT_EQ(p.counters->get(&xp_shared::rundown_status), std::uint64_t(ETW_OK));
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_CAPTURE_STATE, 4, 0xF0, 0), ETW_OK)
        << etw_last_error_message();
    EXPECT_TRUE(eventually(3000, [&] { return p.counters->get(&xp_shared::capture_calls) >= 2; }));
    std::this_thread::sleep_for(300ms); // a second delivery of either would come meanwhile
    EXPECT_EQ(p.counters->get(&xp_shared::capture_calls), 2u) << "each request is delivered once";
    // The enablement did not change: no enable callback, the level is the session's.
    EXPECT_EQ(p.counters->get(&xp_shared::enable_calls), enables);
    EXPECT_EQ(p.counters->get(&xp_shared::enabled), 1u);
    EXPECT_EQ(p.counters->get(&xp_shared::last_level), 4u);

    EXPECT_EQ(etw_session_enable_provider(s, &other, ETW_CONTROL_CODE_CAPTURE_STATE, 0, 0, 0),
              ETW_ERROR_WMI_GUID_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("does not enable"), std::string::npos)
        << etw_last_error_message();
    EXPECT_EQ(etw_session_enable_provider(s, &g, 3, 0, 0, 0), ETW_ERROR_INVALID_PARAMETER);
    etw_session_close(s);

    p.run();
    ASSERT_TRUE(p.wait_done(30000));
    ASSERT_TRUE(p.pause());
    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpCapture", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(5000));
    EXPECT_EQ(p.quit(), 0);
    const Scan scan = scan_file(file);
    info("file: " + scan.str() + ", rundown events " + std::to_string(scan.rundown));
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    EXPECT_EQ(scan.bad_payload, 0u);
    EXPECT_EQ(scan.rundown, 2u) << "one rundown event per capture request";
    EXPECT_EQ(scan.keys.size(), 10u);
}

// etw_provider_query lists each process registering a GUID and each session
// enabling it (name, level, keywords); a process that exits, or is
// SIGKILLed, is no longer listed; a GUID nobody registers or enables is
// ERROR_WMI_GUID_NOT_FOUND.
TEST(CrossProcess, ProviderListingShowsProcessesAndSessionsAndForgetsProcessesThatEnd)
{
    const std::string file = g_ns.path("listing.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpListing", "file=" + file, "level=3", "any=0xF0", "all=0x30"}));
    Provider a, b;
    ASSERT_TRUE(a.start(0, 1, {"events=1"}));
    ASSERT_TRUE(b.start(1, 1, {"events=1"}));
    ASSERT_TRUE(a.wait_enabled(3000));
    ASSERT_TRUE(b.wait_enabled(3000));
    const etw_guid g = xp_guid(0);
    const auto pa = std::uint32_t(a.proc.pid), pb = std::uint32_t(b.proc.pid);

    // Listed after the pass that enabled them (their file is written right after).
    Listing l;
    EXPECT_TRUE(eventually(3000,
                           [&] {
                               l = query(g);
                               return l.has_pid(pa) && l.has_pid(pb);
                           }))
        << l.procs.size() << " processes listed";
    ASSERT_EQ(l.st, ETW_OK) << etw_last_error_message();
    for (const etw_provider_process &pr : l.procs)
        EXPECT_EQ(pr.registrations, 1u);
    ASSERT_EQ(l.sessions.size(), 1u);
    EXPECT_STREQ(l.sessions[0].session_name, "XpListing");
    EXPECT_EQ(l.sessions[0].level, 3u);
    EXPECT_EQ(l.sessions[0].match_any_keyword, 0xF0u);
    EXPECT_EQ(l.sessions[0].match_all_keyword, 0x30u);
    EXPECT_EQ(l.sessions[0].filter_count, 0u);

    std::uint32_t n = 0;
    EXPECT_EQ(etw_provider_list(nullptr, 0, &n), ETW_ERROR_MORE_DATA);
    std::vector<etw_guid> all(n + 4);
    ASSERT_EQ(etw_provider_list(all.data(), std::uint32_t(all.size()), &n), ETW_OK);
    all.resize(n);
    EXPECT_TRUE(
        std::any_of(all.begin(), all.end(), [&](const etw_guid &x) { return std::memcmp(&x, &g, sizeof g) == 0; }));
    std::uint32_t np = 0, ns = 0;
    EXPECT_EQ(etw_provider_query(&g, nullptr, 0, &np, nullptr, 0, &ns), ETW_ERROR_MORE_DATA);
    EXPECT_EQ(np, 2u);
    EXPECT_EQ(ns, 1u);
    const etw_guid nobody = xp_guid(7);
    EXPECT_EQ(etw_provider_query(&nobody, nullptr, 0, &np, nullptr, 0, &ns), ETW_ERROR_WMI_GUID_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("no live process"), std::string::npos);

    EXPECT_EQ(a.quit(), 0);
    EXPECT_TRUE(eventually(3000, [&] { return !query(g).has_pid(pa); })) << "a process that exited is still listed";
    EXPECT_TRUE(query(g).has_pid(pb));
    b.proc.kill9();
    EXPECT_TRUE(eventually(3000, [&] { return !query(g).has_pid(pb); })) << "a SIGKILLed process is still listed";
    l = query(g);
    EXPECT_EQ(l.st, ETW_OK) << "the session still enables the GUID";
    EXPECT_TRUE(l.procs.empty());
    EXPECT_EQ(l.sessions.size(), 1u);

    Props fin;
    std::string why;
    ASSERT_EQ(stop_by_name("XpListing", fin.p, &why), ETW_OK) << why;
    EXPECT_TRUE(host.wait(5000));
    EXPECT_EQ(query(g).st, ETW_ERROR_WMI_GUID_NOT_FOUND) << "nothing registers or enables it any more";
}

} // namespace
} // namespace crossproc
