// Helpers of the session host's tests that act as a second user: the user
// openetw-test (created when the tests run as root) and running code as it.
#pragma once

#include <cstdlib>
#include <string>

#include <grp.h>
#include <pwd.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hosttest {

inline constexpr char kSecondUser[] = "openetw-test";

// The second user, created when missing; null (*why says so) when this
// process is not root or cannot create it.
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
