// POSIX part of namespace_folder.hpp.
//
// Why a check stays true after it is made: a default folder's entry lives
// in /dev/shm, which is sticky, so once it is this user's nobody but this
// user and root can rename or remove it; a chosen folder must be writable
// by nobody else (or sticky) for the same reason.
#include "platform/namespace_folder.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

constexpr char kDefaultParent[] = "/dev/shm";
constexpr int kAttempts = 4; // a squatter who recreates the folder faster than this wins only a refusal

std::string folder_of(const std::string &path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

std::string user_name(uid_t uid)
{
    passwd pw{}, *found = nullptr;
    char buf[1024];
    std::string s = "user " + std::to_string(uid);
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
        s += std::string(" (") + found->pw_name + ")";
    return s;
}

std::string mode_text(mode_t mode)
{
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
    return buf;
}

// "a folder of user 1001 (mallory), mode 0777"
std::string describe(const struct stat &st)
{
    const char *kind = S_ISDIR(st.st_mode) ? "a folder" : S_ISLNK(st.st_mode) ? "a symbolic link" : "a file";
    return std::string(kind) + " of " + user_name(st.st_uid) + ", mode " + mode_text(st.st_mode);
}

etw_status errno_status(int err)
{
    if (err == ENOENT || err == ENOTDIR)
        return ETW_ERROR_PATH_NOT_FOUND;
    if (err == ENOSPC || err == EDQUOT)
        return ETW_ERROR_DISK_FULL;
    return ETW_ERROR_ACCESS_DENIED;
}

bool writable_by_others(const struct stat &st) { return (st.st_mode & 022) != 0 && (st.st_mode & S_ISVTX) == 0; }

// Moves the entry at folder to a fresh name beside it, never over anything.
bool move_aside(const std::string &folder, std::string *to, std::string *why)
{
    for (unsigned n = 0; n < 100; ++n) {
        *to = folder + ".squatted-" + std::to_string(getpid()) + "-" + std::to_string(n);
        if (renameat2(AT_FDCWD, folder.c_str(), AT_FDCWD, to->c_str(), RENAME_NOREPLACE) == 0)
            return true;
        if (errno == ENOENT)
            return true; // gone meanwhile: nothing to move
        if (const int err = errno; err != EEXIST) {
            *why += "; moving it aside failed: " + std::string(std::strerror(err));
            return false;
        }
    }
    *why += "; no free name to move it aside to";
    return false;
}

etw_status prepare_default(const std::string &folder, std::string *why)
{
    const uid_t me = geteuid();
    const mode_t want = me == 0 ? 0755 : 0700; // the system's sessions are listed for everyone
    struct stat parent;
    if (::stat(kDefaultParent, &parent) != 0 || !S_ISDIR(parent.st_mode) || parent.st_uid != 0 ||
        writable_by_others(parent)) {
        *why = std::string("cannot keep the namespace folder ") + folder + " safe: " + kDefaultParent +
               " is missing, not root's, or writable by every user without the sticky bit; set OPENETW_REGISTRY "
               "to a registry in a folder only this user can write";
        return ETW_ERROR_ACCESS_DENIED;
    }
    std::string unfit;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        if (::mkdir(folder.c_str(), want) != 0 && errno != EEXIST) {
            const int err = errno;
            *why = "cannot create the namespace folder " + folder + ": " + std::strerror(err);
            return errno_status(err);
        }
        struct stat st;
        if (::lstat(folder.c_str(), &st) != 0) {
            const int err = errno;
            if (err == ENOENT)
                continue; // removed meanwhile: made again
            *why = "cannot examine the namespace folder " + folder + ": " + std::strerror(err);
            return errno_status(err);
        }
        if (S_ISDIR(st.st_mode) && st.st_uid == me && (st.st_mode & 022) == 0) {
            // Only its owner can have set another mode, and nobody else could write into it.
            if ((st.st_mode & 07777) != want)
                ::chmod(folder.c_str(), want);
            why->clear();
            return ETW_OK;
        }
        unfit = "the namespace folder " + folder + " is " + describe(st) + ", not a folder of " + user_name(me) +
                " that only it can write";
        if (me != 0 && st.st_uid != me) {
            *why = unfit +
                   ": another user made it first and could replace the namespace's files. Ask root to "
                   "remove it (rm -rf " +
                   folder + "), or set OPENETW_REGISTRY to a registry in a folder only you can write";
            return ETW_ERROR_ACCESS_DENIED;
        }
        // Moved, never deleted: removing a tree that another user can still
        // change is a race not worth running; root may inspect it later.
        std::string to;
        *why = unfit;
        if (!move_aside(folder, &to, why))
            return ETW_ERROR_ACCESS_DENIED;
    }
    *why = unfit + ", and it was made again each time it was moved aside: find out who makes it";
    return ETW_ERROR_ACCESS_DENIED;
}

etw_status check_chosen(const std::string &registry, const std::string &folder, std::string *why)
{
    struct stat st;
    if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        *why = "the folder " + folder + " of the registry " + registry + " does not exist";
        return ETW_ERROR_PATH_NOT_FOUND;
    }
    const uid_t me = geteuid();
    if ((st.st_uid != me && st.st_uid != 0) || writable_by_others(st)) {
        *why = "the folder " + folder + " of the registry " + registry + " is " + describe(st) + ": users other than " +
               (me == 0 ? std::string("root") : user_name(me) + " and root") +
               " could replace the namespace's files there. Choose a folder only this user (or root) can "
               "write, or a sticky one such as /dev/shm";
        return ETW_ERROR_ACCESS_DENIED;
    }
    return ETW_OK;
}

} // namespace

std::string default_registry_path()
{
    const uid_t uid = geteuid();
    const std::string folder = std::string(kDefaultParent) + "/openetw-" + std::to_string(kDefaultNamespaceLayout);
    return (uid == 0 ? folder : folder + "-u" + std::to_string(uid)) + "/registry";
}

etw_status prepare_namespace_folder(const std::string &registry, std::string *why)
{
    why->clear();
    const std::string folder = folder_of(registry);
    if (registry == default_registry_path())
        return prepare_default(folder, why);
    return check_chosen(registry, folder, why);
}

} // namespace openetw::platform
