// A start never reports success for a session that does not outlive its
// starter (docs/SYSTEM_SESSIONS.md, "The session host"): a namespace folder
// another user made first is refused, naming it; a start that finds no
// session host fails with the reason; a session runs in its starter only
// when asked (ETW_SESSION_IN_PROCESS, etwctl start --in-process).
#include "host_test_util.hpp"

#include <openetw/openetw.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>

namespace {

namespace fs = std::filesystem;

using hosttest::env;
using hosttest::Proc;
using hosttest::sh;

// etwctl with args (none of them needs quoting).
Proc etwctl(const std::string &args) { return sh(env("ETWCTL") + " " + args); }

// etwctl as pw in that user's default namespace (no OPENETW_REGISTRY).
Proc etwctl_as(const passwd *pw, const std::string &args)
{
    return sh("setpriv --reuid=" + std::to_string(pw->pw_uid) + " --regid=" + std::to_string(pw->pw_gid) +
              " --clear-groups env -u OPENETW_REGISTRY " + env("ETWCTL") + " " + args);
}

// The second user's default namespace folder, empty for the test: one that
// was there is kept aside and put back afterwards.
struct DefaultFolder {
    std::string path, saved;
    explicit DefaultFolder(const passwd *pw)
        : path("/dev/shm/openetw-5-u" + std::to_string(pw->pw_uid)), saved(path + ".saved-by-test")
    {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(path, ec)))
            fs::rename(path, saved, ec);
    }
    ~DefaultFolder()
    {
        std::error_code ec;
        fs::remove_all(path, ec);
        for (const auto &e : fs::directory_iterator("/dev/shm", ec))
            if (e.path().string().rfind(path + ".squatted-", 0) == 0)
                fs::remove_all(e.path(), ec);
        if (fs::exists(fs::symlink_status(saved, ec)))
            fs::rename(saved, path, ec);
    }
};

// A namespace of this test alone, in folder (made by the caller), its files
// and the folder removed afterwards.
struct Namespace {
    std::string folder, registry;
    std::string saved_hostd = env("OPENETW_HOSTD");
    explicit Namespace(const std::string &f, const std::string &file = "registry") : folder(f), registry(f + "/" + file)
    {
        setenv("OPENETW_REGISTRY", registry.c_str(), 1);
        unsetenv("OPENETW_HOST");
    }
    ~Namespace()
    {
        setenv("OPENETW_HOSTD", saved_hostd.c_str(), 1);
        std::error_code ec;
        if (folder != "/dev/shm")
            fs::remove_all(folder, ec);
        else
            for (const auto &e : fs::directory_iterator(folder, ec))
                if (e.path().string().rfind(registry, 0) == 0)
                    fs::remove(e.path(), ec);
    }
};

std::string unique(const std::string &what) { return "/dev/shm/openetw-" + what + "-" + std::to_string(getpid()); }

TEST(HostNamespace, AFolderAnotherUserMadeFirstIsRefusedNamingIt)
{
    std::string why;
    const passwd *pw = hosttest::second_user(&why);
    if (!pw)
        GTEST_SKIP() << why;
    const std::string folder = unique("squat");
    fs::remove_all(folder);
    // The squatter's folder, writable by everyone: it could replace every file of the namespace.
    ASSERT_EQ(hosttest::as_user(
                  pw, [&] { return mkdir(folder.c_str(), 0777) == 0 && chmod(folder.c_str(), 0777) == 0 ? 0 : 1; }),
              0);
    Namespace ns(folder);
    const std::string file = unique("squat") + ".etl";

    const Proc start = etwctl("start SquatTest --file " + file);
    const bool ran = etwctl("list").out.find("SquatTest") != std::string::npos;
    if (ran)
        etwctl("stop SquatTest");
    std::remove(file.c_str());
    EXPECT_NE(start.status, 0) << "the start in a folder of " << hosttest::kSecondUser << " succeeded: " << start.out;
    EXPECT_FALSE(ran) << "a session runs in a namespace another user controls";
    EXPECT_NE(start.out.find("ERROR_ACCESS_DENIED"), std::string::npos) << start.out;
    EXPECT_NE(start.out.find(folder), std::string::npos) << "the message names the folder: " << start.out;
    EXPECT_NE(start.out.find(hosttest::kSecondUser), std::string::npos) << "and its owner: " << start.out;
    // Refused before anything was made there.
    std::error_code ec;
    EXPECT_TRUE(fs::is_empty(folder, ec)) << "root's files were created in the squatted folder";
}

TEST(HostNamespace, AUsersDefaultFolderMadeByAnotherUserIsRefusedNamingIt)
{
    std::string why;
    const passwd *pw = hosttest::second_user(&why);
    if (!pw)
        GTEST_SKIP() << why;
    DefaultFolder folder(pw);
    // Made first by another user (root here: the second user cannot move it away).
    ASSERT_EQ(mkdir(folder.path.c_str(), 0777), 0);
    ASSERT_EQ(chmod(folder.path.c_str(), 0777), 0);

    const Proc start = etwctl_as(pw, "start SquatUser --real-time");
    const bool ran = etwctl_as(pw, "list").out.find("SquatUser") != std::string::npos;
    if (ran)
        etwctl_as(pw, "stop SquatUser");
    EXPECT_NE(start.status, 0) << "the start in a folder of root's succeeded: " << start.out;
    EXPECT_FALSE(ran) << "a session runs in a namespace another user controls";
    EXPECT_NE(start.out.find("ERROR_ACCESS_DENIED"), std::string::npos) << start.out;
    EXPECT_NE(start.out.find(folder.path), std::string::npos) << "the message names the folder: " << start.out;
    EXPECT_NE(start.out.find("(root)"), std::string::npos) << "and its owner: " << start.out;
}

TEST(HostNamespace, AUsersOwnUnsafeFolderIsMovedAsideAndTheSessionOutlivesItsStarter)
{
    std::string why;
    const passwd *pw = hosttest::second_user(&why);
    if (!pw)
        GTEST_SKIP() << why;
    DefaultFolder folder(pw);
    const std::string marker = folder.path + "/planted";
    // The user's own folder, but writable by everyone: anything in it may have been planted.
    ASSERT_EQ(hosttest::as_user(pw,
                                [&] {
                                    return mkdir(folder.path.c_str(), 0777) == 0 &&
                                                   chmod(folder.path.c_str(), 0777) == 0 &&
                                                   creat(marker.c_str(), 0666) >= 0
                                               ? 0
                                               : 1;
                                }),
              0);

    const Proc start = etwctl_as(pw, "start OwnFolder --real-time");
    EXPECT_EQ(start.status, 0) << start.out;
    EXPECT_EQ(start.out.find("ran in this process"), std::string::npos) << start.out;
    EXPECT_NE(etwctl_as(pw, "list").out.find("OwnFolder"), std::string::npos) << "the session did not outlive etwctl";
    struct stat st {};
    ASSERT_EQ(lstat(folder.path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_uid, pw->pw_uid);
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    EXPECT_FALSE(fs::exists(marker)) << "the planted file is still in the namespace";
    bool moved = false;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator("/dev/shm", ec))
        if (e.path().string().rfind(folder.path + ".squatted-", 0) == 0)
            moved = moved || fs::exists(e.path() / "planted");
    EXPECT_TRUE(moved) << "the unsafe folder was not moved aside with what it held";
    EXPECT_EQ(etwctl_as(pw, "stop OwnFolder").status, 0);
}

TEST(HostNamespace, NoHostProgramFailsTheStartSayingWhyUnlessInProcessIsAsked)
{
    Namespace ns("/dev/shm", "openetw-nohost-" + std::to_string(getpid()) + ".registry");
    setenv("OPENETW_HOSTD", "/nonexistent/openetw-hostd", 1);
    const std::string file = unique("nohost") + ".etl";
    std::remove(file.c_str());

    const Proc refused = etwctl("start NoHost --file " + file);
    EXPECT_NE(refused.status, 0) << "a start without a session host succeeded: " << refused.out;
    EXPECT_NE(refused.out.find("openetw-hostd was not found"), std::string::npos) << refused.out;
    EXPECT_NE(refused.out.find("--in-process"), std::string::npos) << "the message says what to do: " << refused.out;
    EXPECT_FALSE(fs::exists(file)) << "a refused start made the log file";

    const Proc asked = etwctl("start NoHost --in-process --file " + file);
    EXPECT_EQ(asked.status, 0) << asked.out;
    EXPECT_NE(asked.out.find("ran in this process"), std::string::npos) << asked.out;
    EXPECT_TRUE(fs::exists(file)) << "the in-process session wrote no file";
    EXPECT_EQ(etwctl("list").out.find("NoHost"), std::string::npos) << "the in-process session outlived etwctl";
    std::remove(file.c_str());
}

TEST(HostNamespace, TheApiStartsInProcessOnlyWhenAsked)
{
    Namespace ns("/dev/shm", "openetw-nohostapi-" + std::to_string(getpid()) + ".registry");
    setenv("OPENETW_HOSTD", "/nonexistent/openetw-hostd", 1);
    etw_properties *props = nullptr;
    ASSERT_EQ(etw_properties_create(&props, "NoHostApi"), ETW_OK);
    ASSERT_EQ(etw_properties_set_log_file_mode(props, ETW_REAL_TIME_MODE), ETW_OK);
    etw_session *s = nullptr;
    EXPECT_EQ(etw_session_start(&s, props), ETW_ERROR_FILE_NOT_FOUND);
    EXPECT_NE(std::string(etw_last_error_message()).find("ETW_SESSION_IN_PROCESS"), std::string::npos)
        << etw_last_error_message();
    EXPECT_EQ(s, nullptr);

    etw_session_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.flags = ETW_SESSION_IN_PROCESS;
    ASSERT_EQ(etw_session_start_ex(&s, props, &o), ETW_OK) << etw_last_error_message();
    etw_session_host_info h;
    std::memset(&h, 0, sizeof h);
    h.struct_size = sizeof h;
    ASSERT_EQ(etw_session_get_host_info(&h, s), ETW_OK);
    EXPECT_EQ(h.is_local, 1u);
    EXPECT_EQ(h.process_id, std::uint32_t(getpid()));
    EXPECT_EQ(h.state, ETW_SESSION_HOST_RUNNING);
    EXPECT_EQ(etw_session_stop(s, props), ETW_OK);
    etw_session_close(s);
    etw_properties_destroy(props);
}

} // namespace
