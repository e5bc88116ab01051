// What the session host's system tests share (tests/host): a private
// namespace, running tools as other processes (and as a second user),
// counting a file's events.
#pragma once

#include <openetw/openetw.h>

#include <chrono>
#include <cstdlib>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <grp.h>
#include <pwd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hosttest {

using namespace std::chrono_literals;

inline constexpr char kGuid[] = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab";
inline constexpr etw_guid kProvider = {0x6f2c1a3e, 0x9b4d, 0x4e21, {0x8c, 0x7a, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab}};
inline constexpr char kSecondUser[] = "openetw-test";

// A program's own namespace (every helper and host inherits it), and a
// scratch folder; the hosts host_of saw are killed at the end. A test
// program that wants one defines it once (OPENETW_REGISTRY is set when it
// is made).
struct Namespace {
    std::string registry;
    std::string dir;
    Namespace();
    ~Namespace();
    std::string path(const std::string &name) const { return dir + "/" + name; }
    // The region files of its sessions.
    std::vector<std::string> region_files() const;
};

struct Proc {
    int status = -1; // exit status; 128 + signal; -2 when it timed out (killed)
    std::string out;
};

// Runs a shell command line in a new process (stdout and stderr together),
// killed after timeout.
Proc sh(const std::string &command, std::chrono::seconds timeout = 30s);
// Runs argv as a new process (as pw when given), collecting stdout+stderr,
// killing it after timeout.
Proc run(std::vector<std::string> argv, const passwd *pw = nullptr, std::chrono::milliseconds timeout = 30s);
std::string env(const char *name);
Proc etwctl(std::vector<std::string> args, const passwd *pw = nullptr);
// host_helper writing events of kProvider (numbered) from threads.
Proc provider(unsigned events, unsigned threads, const passwd *pw = nullptr);
// The host process of a running session, as this process sees it (0: none).
pid_t host_of(const std::string &name, bool *orphaned = nullptr);

struct FileCount {
    etw_guid provider{};
    etw_status open = ETW_OK, process = ETW_OK;
    std::uint64_t events = 0; // of provider
    std::set<std::uint64_t> numbers;
    std::map<std::uint32_t, std::set<std::uint64_t>> by_process; // numbers by writer process id
};
// The events of provider in a file (their numbers: the first 8 payload bytes).
FileCount count_file(const std::string &path, const etw_guid &provider = kProvider);
bool listed(const std::string &name);

// The second user (openetw-test, created when missing); null, with why, when
// this process cannot act as another user.
inline const passwd *second_user(std::string *why)
{
    if (geteuid() != 0) {
        *why = "not root: cannot act as a second user";
        return nullptr;
    }
    if (!getpwnam(kSecondUser)) {
        const int rc = std::system("useradd --system --no-create-home --shell /usr/sbin/nologin openetw-test "
                                   ">/dev/null 2>&1");
        (void)rc;
    }
    static passwd pw;
    const passwd *p = getpwnam(kSecondUser);
    if (!p) {
        *why = "cannot create the user openetw-test";
        return nullptr;
    }
    pw = *p;
    return &pw;
}

// Runs fn as the second user in a child; its exit status.
template <class Fn>
int as_user(const passwd *pw, Fn fn)
{
    const pid_t pid = fork();
    if (pid == 0) {
        if (setgroups(0, nullptr) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
            _exit(126);
        _exit(fn());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace hosttest
