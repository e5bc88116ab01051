// POSIX part of host.hpp: the namespace's folder, host lock and registry
// file, and starting the host as a daemon.
//
// Trust: the registry is written only by the host (its user's file, 0644);
// everyone else maps it read-only, so another user can neither truncate it
// (SIGBUS) nor lock it (nothing here ever locks a file others can open).
#include "platform/files.hpp"
#include "platform/host.hpp"
#include "platform/namespace_folder.hpp"
#include "platform/posix/file_space.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace openetw::platform {

bool shared_registry_supported() noexcept { return true; }

namespace {

std::string folder_of(const std::string &path)
{
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".") : slash == 0 ? std::string("/") : path.substr(0, slash);
}

etw_status errno_status(int err)
{
    switch (err) {
    case ENOENT:
        return ETW_ERROR_FILE_NOT_FOUND;
    case EACCES:
    case EPERM:
    case ELOOP:
        return ETW_ERROR_ACCESS_DENIED;
    case ENOSPC:
        return ETW_ERROR_DISK_FULL;
    default:
        return ETW_ERROR_OUTOFMEMORY;
    }
}

// Opens (creating) a file this user owns, with mode whatever the umask;
// -1 (*err set) when it cannot, or when another user owns it (squatted).
int open_owned(const std::string &path, mode_t mode, etw_status *err)
{
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, mode);
    if (fd < 0) {
        *err = errno_status(errno);
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
        ::close(fd);
        *err = ETW_ERROR_ACCESS_DENIED;
        return -1;
    }
    fchmod(fd, mode);
    return fd;
}

etw_status registry_create_locked(Region *out, const std::string &path, std::size_t size,
                                  bool (*check)(const void *base), void (*init)(void *base, void *ctx),
                                  void *ctx) noexcept;

} // namespace

std::string registry_path()
{
    const char *v = std::getenv("OPENETW_REGISTRY");
    if (v == nullptr || *v == 0)
        return default_registry_path();
    if (std::strcmp(v, "none") == 0)
        return {};
    return v;
}

etw_status host_lock(const std::string &registry, std::intptr_t *out) noexcept
{
    std::string why; // said by the client, which checks the folder before it starts a host
    if (etw_status st = prepare_namespace_folder(registry, &why); st != ETW_OK)
        return st;
    etw_status err = ETW_OK;
    const int fd =
        open_owned(registry + "-host.lock", 0600, &err); // nobody else may open it, so nobody else can lock it
    if (fd < 0)
        return err;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        ::close(fd);
        return err == EWOULDBLOCK ? ETW_ERROR_ALREADY_EXISTS : errno_status(err);
    }
    *out = fd;
    return ETW_OK;
}

etw_status registry_create(Region *out, const std::string &path, std::size_t size, bool (*check)(const void *base),
                           void (*init)(void *base, void *ctx), void *ctx) noexcept
{
    // Processes of the owner that create it at once (OPENETW_HOST=inprocess)
    // take turns on an owner-only lock file: nobody else can open it, so
    // nobody else can hold them up.
    std::string why; // an unfit folder leaves the registry unmapped: sessions stay process-local
    if (etw_status st = prepare_namespace_folder(path, &why); st != ETW_OK)
        return st;
    etw_status err = ETW_OK;
    const int lk = open_owned(path + "-init.lock", 0600, &err);
    if (lk < 0)
        return err;
    while (flock(lk, LOCK_EX) != 0 && errno == EINTR) {
    }
    const etw_status st = registry_create_locked(out, path, size, check, init, ctx);
    ::close(lk); // releases the lock
    return st;
}

namespace {
etw_status registry_create_locked(Region *out, const std::string &path, std::size_t size,
                                  bool (*check)(const void *base), void (*init)(void *base, void *ctx),
                                  void *ctx) noexcept
{
    etw_status err = ETW_OK;
    const int fd = open_owned(path, 0644, &err); // writable by the host's user only
    if (fd < 0)
        return err;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        ::close(fd);
        return ETW_ERROR_ACCESS_DENIED;
    }
    const bool sized = std::size_t(st.st_size) == size;
    // Every page reserved before it is mapped: one that cannot be backed
    // (a full /dev/shm) would kill the host at its first write (SIGBUS),
    // and the readers at theirs. A file of another size is made anew; it
    // keeps no size until the reservation succeeds, so no reader maps a
    // registry with holes. Where the file system cannot reserve, zeros are
    // written into a new file; one of the right size was written so.
    bool unreservable = false;
    etw_status reserved = !sized && ftruncate(fd, 0) != 0 ? ETW_ERROR_DISK_FULL : ETW_OK;
    if (reserved == ETW_OK)
        reserved = reserve_file_space(fd, 0, size, &unreservable);
    if (reserved == ETW_OK && unreservable && !sized)
        reserved = write_file_zeros(fd, 0, size);
    if (reserved != ETW_OK) {
        // No reader may map what is not backed (reading a hole of a full
        // tmpfs faults too). A file of the right size fails only when it
        // has holes (a creator that died before filling it): nobody can use
        // it anyway; one its host filled reserves again without room.
        (void)ftruncate(fd, 0);
        ::close(fd);
        return reserved;
    }
    void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd); // the mapping keeps the file
    if (p == MAP_FAILED)
        return ETW_ERROR_OUTOFMEMORY;
    if (!sized || !check(p)) {
        std::memset(p, 0, size);
        init(p, ctx);
    }
    out->base = p;
    out->size = size;
    return ETW_OK;
}
} // namespace

etw_status registry_open_readonly(Region *out, const std::string &path, std::size_t size, std::uint32_t *owner) noexcept
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno_status(errno);
    struct stat st;
    etw_status result = ETW_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        result = ETW_ERROR_ACCESS_DENIED;
    else if (st.st_uid != geteuid() && st.st_uid != 0)
        result = ETW_ERROR_ACCESS_DENIED; // another user's: its contents are not for us to trust
    else if (std::size_t(st.st_size) != size)
        result = ETW_ERROR_BAD_LENGTH;
    void *p = MAP_FAILED;
    if (result == ETW_OK) {
        // The owner can still shrink it (only the host's own user or root):
        // that user may harm their own processes, nobody else's.
        p = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            result = ETW_ERROR_OUTOFMEMORY;
    }
    ::close(fd);
    if (result != ETW_OK)
        return result;
    out->base = p;
    out->size = size;
    *owner = std::uint32_t(st.st_uid);
    return ETW_OK;
}

etw_status spawn_daemon(const std::vector<std::string> &args) noexcept
{
    if (args.empty() || !is_executable(args[0]))
        return ETW_ERROR_FILE_NOT_FOUND;
    // Everything the child needs is built before fork: after it, only
    // async-signal-safe calls (this process may have other threads).
    std::vector<char *> argv;
    for (const std::string &a : args)
        argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    const pid_t child = fork();
    if (child < 0)
        return ETW_ERROR_NO_SYSTEM_RESOURCES;
    if (child == 0) {
        setsid(); // no controlling terminal: a shell's hangup does not reach the host
        if (fork() != 0)
            _exit(0); // the host is re-parented to init: nobody has to reap it
        const int null = ::open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        // No descriptor of the caller (pipes a test runner waits on, sockets).
        if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
            for (int fd = 3; fd < 65536; ++fd)
                ::close(fd);
        execv(argv[0], argv.data());
        _exit(127);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return ETW_OK;
}

std::string code_directory()
{
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&code_directory), &info) == 0 || info.dli_fname == nullptr)
        return {};
    char resolved[PATH_MAX];
    if (realpath(info.dli_fname, resolved) == nullptr)
        return {};
    return folder_of(resolved);
}

} // namespace openetw::platform
