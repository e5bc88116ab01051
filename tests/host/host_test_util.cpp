#include "host_test_util.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/stat.h>

namespace hosttest {

namespace {
// Every host host_of saw; never destroyed, for namespaces destroyed after this file's statics.
std::set<pid_t> &hosts_seen()
{
    static auto *hosts = new std::set<pid_t>();
    return *hosts;
}
} // namespace

Namespace::Namespace() : registry("/dev/shm/openetw-hosttest-" + std::to_string(getpid()) + ".registry")
{
    setenv("OPENETW_REGISTRY", registry.c_str(), 1);
    unsetenv("OPENETW_HOST");
    char tmpl[] = "/tmp/openetw-hosttest-XXXXXX";
    if (mkdtemp(tmpl))
        dir = tmpl;
    chmod(dir.c_str(), 0755);
}
Namespace::~Namespace()
{
    for (pid_t h : hosts_seen())
        kill(h, SIGKILL);
    const std::filesystem::path p(registry);
    const std::string prefix = p.filename().string();
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(p.parent_path(), ec))
        if (e.path().filename().string().rfind(prefix, 0) == 0)
            std::filesystem::remove(e.path(), ec);
    std::filesystem::remove_all(dir, ec);
}

// Runs argv as a new process (as pw when given), collecting stdout+stderr,
// killing it after timeout.
Proc sh(const std::string &command, std::chrono::seconds timeout)
{
    return run({"/bin/sh", "-c", command}, nullptr, timeout);
}

Proc run(std::vector<std::string> argv, const passwd *pw, std::chrono::milliseconds timeout)
{
    Proc r;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return r;
    std::vector<char *> args;
    for (std::string &a : argv)
        args.push_back(a.data());
    args.push_back(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (pw && (setgroups(0, nullptr) != 0 || setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0))
            _exit(126);
        execv(args[0], args.data());
        _exit(127);
    }
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    bool done = false, timed_out = false;
    while (!done) {
        char buf[4096];
        ssize_t n;
        while ((n = read(fds[0], buf, sizeof buf)) > 0)
            r.out.append(buf, std::size_t(n));
        if (waitpid(pid, &status, WNOHANG) == pid) {
            done = true;
        } else if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            timed_out = done = true;
        } else {
            std::this_thread::sleep_for(2ms);
        }
    }
    char buf[4096];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0)
        r.out.append(buf, std::size_t(n));
    close(fds[0]);
    r.status = timed_out ? -2 : WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::string env(const char *name)
{
    const char *v = std::getenv(name);
    return v ? v : "";
}

Proc etwctl(std::vector<std::string> args, const passwd *pw)
{
    args.insert(args.begin(), env("ETWCTL"));
    return run(args, pw);
}

Proc provider(unsigned events, unsigned threads, const passwd *pw)
{
    return run({env("HOST_HELPER"), "write", kGuid, std::to_string(events), std::to_string(threads)}, pw, 60s);
}

pid_t host_of(const std::string &name, bool *orphaned)
{
    etw_session *s = nullptr;
    if (etw_session_open(&s, name.c_str()) != ETW_OK)
        return 0;
    etw_session_host_info h;
    std::memset(&h, 0, sizeof h);
    h.struct_size = sizeof h;
    const etw_status st = etw_session_get_host_info(&h, s);
    etw_session_close(s);
    if (st != ETW_OK)
        return 0;
    if (orphaned)
        *orphaned = h.state == ETW_SESSION_HOST_ORPHANED;
    hosts_seen().insert(pid_t(h.process_id));
    return pid_t(h.process_id);
}

FileCount count_file(const std::string &path, const etw_guid &provider)
{
    FileCount fc;
    fc.provider = provider;
    etw_consumer_options o;
    std::memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.user_data = &fc;
    o.event = [](void *ctx, const etw_classic_event *e) -> int32_t {
        auto *c = static_cast<FileCount *>(ctx);
        if (std::memcmp(&e->header.Guid, &c->provider, sizeof c->provider) == 0) {
            ++c->events;
            std::uint64_t n = 0;
            if (e->payload_size >= sizeof n)
                std::memcpy(&n, e->payload, sizeof n);
            c->numbers.insert(n);
            c->by_process[e->header.ProcessId].insert(n);
        }
        return 0;
    };
    const char *paths[] = {path.c_str()};
    etw_consumer *c = nullptr;
    fc.open = etw_consumer_open(&c, paths, 1, &o);
    if (fc.open != ETW_OK)
        return fc;
    fc.process = etw_consumer_process(c);
    etw_consumer_close(c);
    return fc;
}

bool listed(const std::string &name)
{
    const Proc r = etwctl({"list"});
    return r.status == 0 && r.out.find(name) != std::string::npos;
}

std::vector<std::string> Namespace::region_files() const
{
    std::vector<std::string> out;
    const std::filesystem::path p(registry);
    const std::string prefix = p.filename().string() + ".";
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(p.parent_path(), ec)) {
        const std::string f = e.path().filename().string();
        if (f.rfind(prefix, 0) == 0 && f.find_first_not_of("0123456789.", prefix.size()) == std::string::npos)
            out.push_back(f);
    }
    return out;
}

} // namespace hosttest
