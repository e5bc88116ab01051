// Access control: session regions are owner-only files, and a second user
// gets no more than the rights granted to it.
#include "crossproc_fixtures.hpp"

#include <array>
#include <cstdlib>
#include <map>
#include <pwd.h>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace crossproc {
namespace {

std::string region_modes()
{
    std::ostringstream o;
    for (const std::string &f : g_ns.region_files()) {
        struct stat st {};
        stat(f.c_str(), &st);
        o << " " << f << " mode 0" << std::oct << (st.st_mode & 0777) << std::dec;
    }
    return o.str();
}

// The region a running session's buffers live in is a file named after the
// registry, readable and writable by its owner only.
TEST(CrossProcess, SessionRegionIsAnOwnerOnlyFileNamedAfterTheRegistry)
{
    const std::string file = g_ns.path("region.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpRegion", "file=" + file}));
    const std::vector<std::string> regions = g_ns.region_files();
    EXPECT_FALSE(regions.empty()) << "no session region file " << g_ns.registry
                                  << ".<slot>.<generation> while a session runs (shared regions missing)";
    for (const std::string &f : regions) {
        struct stat st {};
        ASSERT_EQ(stat(f.c_str(), &st), 0) << f;
        EXPECT_EQ(st.st_mode & 077, 0u) << f << " has mode 0" << std::oct << (st.st_mode & 0777)
                                        << ": a region must be owner-only";
        EXPECT_EQ(st.st_uid, geteuid()) << f;
    }
    info("regions:" + region_modes());
    Props fin;
    EXPECT_EQ(stop_by_name("XpRegion", fin.p), ETW_OK);
    EXPECT_TRUE(host.wait(5000));
}

constexpr const char *kSecondUser = "openetw-test";

// The second user (created when missing); nullptr and a reason otherwise.
const passwd *second_user(std::string *why)
{
    if (geteuid() != 0) {
        *why = "not running as root: the permission tests need to run helpers as a second user";
        return nullptr;
    }
    if (const passwd *pw = getpwnam(kSecondUser))
        return pw;
    const int rc = std::system("useradd --system --no-create-home --shell /usr/sbin/nologin openetw-test "
                               ">/dev/null 2>&1");
    const passwd *pw = getpwnam(kSecondUser);
    if (!pw)
        *why = "cannot create the user openetw-test with useradd (exit status " + std::to_string(rc) + ")";
    return pw;
}

// Runs `crossproc_helper probe` as pw; its "key=value" lines.
std::map<std::string, std::string> probe_as(const passwd *pw, const std::vector<std::string> &args, std::string *raw)
{
    std::vector<std::string> all{"probe"};
    all.insert(all.end(), args.begin(), args.end());
    Child c;
    std::map<std::string, std::string> out;
    if (!c.spawn(all, pw))
        return out;
    *raw = c.read_all(30000);
    c.wait(5000);
    *raw += "[" + c.describe() + "]";
    std::istringstream in(c.output);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t eq = line.find('=');
        if (eq != std::string::npos)
            out[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return out;
}

std::string st(etw_status s) { return std::to_string(s); }

TEST(CrossProcess, PermissionsAsASecondUser)
{
    std::string why;
    const passwd *pw_ = second_user(&why);
    if (!pw_) {
        info("PermissionsAsASecondUser skipped: " + why);
        GTEST_SKIP() << why;
    }
    const passwd pw = *pw_; // getpwnam's storage is reused
    const uid_t uid = pw.pw_uid;
    info("second user " + std::string(kSecondUser) + " uid " + std::to_string(uid));
    const std::string file = g_ns.path("perm.etl");

    // This process (root) hosts an owner-only session.
    Props props("XpPerm");
    ASSERT_EQ(etw_properties_set_log_file_name(props.p, file.c_str()), ETW_OK);
    ASSERT_EQ(etw_properties_set_log_file_mode(props.p, ETW_FILE_MODE_SEQUENTIAL | ETW_REAL_TIME_MODE), ETW_OK);
    ASSERT_EQ(etw_properties_set_buffer_size(props.p, 64), ETW_OK);
    etw_session *s = nullptr;
    ASSERT_EQ(etw_session_start(&s, props.p), ETW_OK) << etw_last_error_message();
    struct StopGuard {
        etw_session *s;
        ~StopGuard()
        {
            etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
    } guard{s};
    const etw_guid g = xp_guid(0);
    ASSERT_EQ(etw_session_enable_provider(s, &g, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0), ETW_OK);
    {
        struct stat rs {};
        EXPECT_EQ(stat(g_ns.registry.c_str(), &rs), 0);
        info("registry mode 0" +
             [&] {
                 std::ostringstream o;
                 o << std::oct << (rs.st_mode & 0777);
                 return o.str();
             }() +
             "; regions:" + region_modes());
        const std::vector<std::string> regions = g_ns.region_files();
        EXPECT_FALSE(regions.empty()) << "no session region file for a running session";
        for (const std::string &f : regions) {
            struct stat st {};
            stat(f.c_str(), &st);
            EXPECT_EQ(st.st_mode & 077, 0u) << f << ": a session region must be owner-only (0600)";
        }
    }
    auto still_running = [&] {
        Props q;
        return etw_session_query(s, q.p) == ETW_OK;
    };
    const std::string denied = st(ETW_ERROR_ACCESS_DENIED), ok = st(ETW_OK);
    std::string raw;

    // 1. No rights: seen in the list, every request denied, its provider
    //    never enabled, its consumer refused.
    auto r = probe_as(
        &pw,
        {"name=XpPerm", "index=1", "wait_ms=1500", "ops=list,open,query,flush,update,enable,grant,consume,log,stop"},
        &raw);
    SCOPED_TRACE("probe output: " + raw);
    EXPECT_EQ(r["end"], "0") << "the probe did not run to its end";
    EXPECT_EQ(r["list_found"], "1") << "another user does not see the session in etw_session_list";
    EXPECT_EQ(r["open"], ok);
    EXPECT_EQ(r["query"], denied);
    EXPECT_EQ(r["flush"], denied);
    EXPECT_EQ(r["update"], denied);
    EXPECT_EQ(r["enable"], denied);
    EXPECT_EQ(r["grant"], denied);
    EXPECT_EQ(r["stop"], denied);
    EXPECT_EQ(r["consume"], denied);
    EXPECT_EQ(r["log_enabled"], "0") << "a provider of a user without the log right was enabled";
    ASSERT_TRUE(still_running()) << "another user without rights stopped the session";
    {
        Props q;
        ASSERT_EQ(etw_session_query(s, q.p), ETW_OK);
        EXPECT_NE(etw_properties_flush_timer(q.p), 3u) << "another user without rights updated the session";
    }

    // 2. Control only.
    ASSERT_EQ(etw_session_grant(s, uid, ETW_SESSION_RIGHT_CONTROL), ETW_OK) << etw_last_error_message();
    r = probe_as(&pw, {"name=XpPerm", "index=2", "wait_ms=1500", "ops=open,query,flush,update,consume,log"}, &raw);
    SCOPED_TRACE("probe output (control): " + raw);
    EXPECT_EQ(r["query"], ok);
    EXPECT_EQ(r["flush"], ok);
    EXPECT_EQ(r["update"], ok);
    EXPECT_EQ(r["consume"], denied);
    EXPECT_EQ(r["log_enabled"], "0");
    ASSERT_TRUE(still_running());

    // 3. Log only: its provider is enabled and logs.
    ASSERT_EQ(etw_session_grant(s, uid, ETW_SESSION_RIGHT_LOG), ETW_OK) << etw_last_error_message();
    r = probe_as(&pw, {"name=XpPerm", "index=3", "wait_ms=3000", "events=100", "ops=open,query,consume,log"}, &raw);
    SCOPED_TRACE("probe output (log): " + raw);
    EXPECT_EQ(r["query"], denied);
    EXPECT_EQ(r["consume"], denied);
    EXPECT_EQ(r["log_enabled"], "1") << "a provider of a user with the log right was not enabled";
    EXPECT_EQ(r["log_ok"], "100");

    // 4. Consume only.
    ASSERT_EQ(etw_session_grant(s, uid, ETW_SESSION_RIGHT_CONSUME), ETW_OK) << etw_last_error_message();
    r = probe_as(&pw, {"name=XpPerm", "index=4", "wait_ms=1500", "ops=open,query,stop,consume,log"}, &raw);
    SCOPED_TRACE("probe output (consume): " + raw);
    EXPECT_EQ(r["query"], denied);
    EXPECT_EQ(r["stop"], denied);
    EXPECT_EQ(r["consume"], ok);
    EXPECT_EQ(r["log_enabled"], "0");
    ASSERT_TRUE(still_running());

    // 5. Control again: the other user stops the session.
    ASSERT_EQ(etw_session_grant(s, uid, ETW_SESSION_RIGHT_CONTROL), ETW_OK) << etw_last_error_message();
    r = probe_as(&pw, {"name=XpPerm", "index=5", "ops=open,stop"}, &raw);
    SCOPED_TRACE("probe output (stop): " + raw);
    EXPECT_EQ(r["stop"], ok);
    EXPECT_FALSE(still_running());
    etw_session_stop(s, nullptr);

    // Only the events of the user with the log right are in the file.
    const Scan scan = scan_file(file);
    ASSERT_EQ(scan.open, ETW_OK) << scan.str();
    EXPECT_EQ(scan.process, ETW_OK) << scan.str();
    std::array<std::uint64_t, 8> per_probe{};
    for (const std::uint64_t k : scan.keys)
        if (key_provider(k) < per_probe.size())
            ++per_probe[key_provider(k)];
    info("events per probe in the file: 1:" + std::to_string(per_probe[1]) + " 2:" + std::to_string(per_probe[2]) +
         " 3:" + std::to_string(per_probe[3]) + " 4:" + std::to_string(per_probe[4]));
    EXPECT_EQ(per_probe[1], 0u);
    EXPECT_EQ(per_probe[2], 0u);
    EXPECT_EQ(per_probe[3], 100u);
    EXPECT_EQ(per_probe[4], 0u);

    // Another user's orphan: stopping it without rights is denied.
    const std::string ofile = g_ns.path("perm-orphan.etl");
    Child host;
    ASSERT_TRUE(start_host(host, {"name=XpPermOrphan", "file=" + ofile}));
    host.kill9();
    r = probe_as(&pw, {"name=XpPermOrphan", "ops=open,query,stop"}, &raw);
    SCOPED_TRACE("probe output (orphan): " + raw);
    EXPECT_EQ(r["stop"], denied) << "another user stopped root's orphan without rights";
    Props fin;
    std::string msg;
    EXPECT_EQ(stop_by_name("XpPermOrphan", fin.p, &msg), ETW_OK)
        << msg << " (root stopping the orphan after the probe)";
}

} // namespace
} // namespace crossproc
