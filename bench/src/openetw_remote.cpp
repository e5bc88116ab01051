// Writers in another process, for openetw-bench: the session is hosted by
// a child process (this program again, --kind=host) and this process only
// registers the provider and writes, through the session's shared region
// (docs/SYSTEM_SESSIONS.md). --kind=write and --kind=cgloop with
// --host=remote measure those writes with the loops of openetw_write.cpp.
//
// Both processes use the registry file main() put in OPENETW_REGISTRY
// before any OpenETW call. The child says "ready" (or why not) on fd 3,
// stops the session when fd 4 gives a byte or end of file (this process
// died), and answers with the session's final figures on fd 3.
#include "openetw_bench.hpp"

#include <fcntl.h>
#include <csignal>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>

extern char **environ;

namespace bench::ours {

namespace {

constexpr int kHostReportFd = 3, kHostControlFd = 4;

// Reads one line from fd within timeout_ms; false on timeout, error or EOF.
bool read_line(int fd, std::string *out, int timeout_ms)
{
    out->clear();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0)
            return false;
        pollfd p{fd, POLLIN, 0};
        const int r = ::poll(&p, 1, int(left.count()));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        char c;
        const ssize_t n = ::read(fd, &c, 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        if (c == '\n')
            return true;
        *out += c;
    }
}

void write_text(int fd, const std::string &s)
{
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += std::size_t(n);
    }
}

struct EnableWait {
    std::mutex m;
    std::condition_variable cv;
    bool enabled = false;
    static void callback(const etw_provider_enable_info *info, void *user)
    {
        auto *w = static_cast<EnableWait *>(user);
        std::lock_guard<std::mutex> lock(w->m);
        w->enabled = info->is_enabled != 0;
        w->cv.notify_all();
    }
};

// The child hosting the session: spawned, told to stop, reaped.
struct HostProcess {
    pid_t pid = -1;
    int report = -1;  // its fd 3, read here
    int control = -1; // its fd 4, written here

    bool spawn(const Args &a, std::string *why)
    {
        int rep[2], ctl[2];
        if (::pipe2(rep, O_CLOEXEC) != 0 || ::pipe2(ctl, O_CLOEXEC) != 0) {
            *why = std::string("pipe: ") + std::strerror(errno);
            return false;
        }
        std::vector<std::string> args = {"/proc/self/exe", "--kind=host"};
        for (const auto &[k, v] : a.all())
            if (k != "kind" && k != "host")
                args.push_back("--" + k + "=" + v);
        std::vector<char *> argv;
        for (std::string &s : args)
            argv.push_back(s.data());
        argv.push_back(nullptr);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        // dup2 clears FD_CLOEXEC on the new descriptors only.
        posix_spawn_file_actions_adddup2(&fa, rep[1], kHostReportFd);
        posix_spawn_file_actions_adddup2(&fa, ctl[0], kHostControlFd);
        // The child's stdout is not ours to parse.
        posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
        char exe[4096];
        const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = 0;
        const int r = posix_spawn(&pid, exe, &fa, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        ::close(rep[1]);
        ::close(ctl[0]);
        report = rep[0];
        control = ctl[1];
        if (r != 0) {
            pid = -1;
            *why = std::string("posix_spawn: ") + std::strerror(r);
            return false;
        }
        return true;
    }

    // Tells the child to stop its session and reads its answer.
    bool stop(std::string *answer)
    {
        if (control >= 0) {
            write_text(control, "S");
            ::close(control);
            control = -1;
        }
        const bool ok = read_line(report, answer, 60000);
        reap();
        return ok;
    }

    void reap()
    {
        if (control >= 0) {
            ::close(control); // end of file: the child stops
            control = -1;
        }
        if (pid > 0) {
            int status = 0;
            for (int i = 0; i < 600; ++i) { // at most 60 s, then it is killed
                const pid_t r = ::waitpid(pid, &status, WNOHANG);
                if (r == pid || (r < 0 && errno != EINTR))
                    break;
                if (i == 599) {
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, &status, 0);
                    break;
                }
                ::usleep(100000);
            }
            pid = -1;
        }
        if (report >= 0) {
            ::close(report);
            report = -1;
        }
    }

    ~HostProcess() { reap(); }
};

// This process's provider, enabled by a session a child process hosts
// (--kind=host): the setup of --host=remote.
struct RemoteWriter {
    HostProcess host;
    EnableWait wait;
    etw_provider *provider = nullptr;
    std::string why;
    bool not_built = false;
    double enable_wait_ms = 0;

    bool start(const Args &a)
    {
        ::signal(SIGPIPE, SIG_IGN); // a host that died: an error, not a signal
        const char *reg = std::getenv("OPENETW_REGISTRY");
        if (!reg || !*reg || std::strcmp(reg, "none") == 0) {
            why = "--host=remote needs a registry (--registry=fresh)";
            return false;
        }
        if (!host.spawn(a, &why))
            return false;
        std::string line;
        if (!read_line(host.report, &line, 30000)) {
            why = "the host process did not start its session";
            return false;
        }
        if (line != "R") {
            not_built = line.rfind("N ", 0) == 0;
            why = "host process: " + (line.size() > 2 ? line.substr(2) : line);
            return false;
        }
        if (etw_status st = etw_provider_register(&provider, &kProvider, EnableWait::callback, &wait, nullptr);
            st != ETW_OK) {
            provider = nullptr;
            why = "etw_provider_register: " + status_text(st);
            return false;
        }
        const std::int64_t t0 = now_ns();
        bool enabled;
        {
            std::unique_lock<std::mutex> lock(wait.m);
            enabled = wait.cv.wait_for(lock, std::chrono::seconds(10), [&] { return wait.enabled; });
        }
        enable_wait_ms = double(now_ns() - t0) / 1e6;
        if (!enabled || !etw_provider_is_enabled(provider, ETW_LEVEL_INFORMATION, 0)) {
            why = "the provider was not enabled by the other process's session within 10 s";
            return false;
        }
        return true;
    }

    // Stops the session through the child: its events lost and file bytes.
    bool finish(std::uint64_t *lost, std::uint64_t *bytes)
    {
        std::string answer;
        const bool stopped = host.stop(&answer);
        etw_provider_unregister(provider);
        provider = nullptr;
        unsigned long long l = 0, b = 0;
        if (!stopped || std::sscanf(answer.c_str(), "S %llu %llu", &l, &b) != 2) {
            why = "host process: " + (stopped ? (answer.size() > 2 ? answer.substr(2) : answer) : "no answer to stop");
            return false;
        }
        *lost = l;
        *bytes = b;
        return true;
    }

    ~RemoteWriter()
    {
        if (provider)
            etw_provider_unregister(provider);
    }
};

} // namespace

// The hidden --kind=host: starts the session the arguments describe,
// enables the provider GUID, reports, and stops when told.
int kind_host(const Args &a)
{
    auto line = [](const std::string &s) {
        std::string t = s;
        for (char &c : t)
            if (c == '\n')
                c = ' ';
        return t + "\n";
    };
    ::signal(SIGPIPE, SIG_IGN);
    Setup s;
    if (!s.start(a, a.str("mode", "file"), 256, false)) {
        write_text(kHostReportFd, line(std::string(s.not_built ? "N " : "E ") + s.why));
        return 1;
    }
    write_text(kHostReportFd, "R\n");
    char c;
    ssize_t got;
    while ((got = ::read(kHostControlFd, &c, 1)) < 0 && errno == EINTR)
        ;
    std::uint32_t lost = 0;
    const etw_status st = s.teardown(&lost);
    // End of file: the measuring process died (e.g. a timeout) before it
    // could remove the registry it made for the two of us.
    const char *reg = std::getenv("OPENETW_REGISTRY");
    if (got == 0 && reg && std::strncmp(reg, "/dev/shm/oeb-", 13) == 0)
        remove_registry_files(reg);
    const std::uint64_t bytes = s.file.empty() ? 0 : file_bytes(s.file);
    if (!s.file.empty())
        ::unlink(s.file.c_str());
    if (st != ETW_OK) {
        write_text(kHostReportFd, line("E etw_session_stop: " + status_text(st)));
        return 1;
    }
    write_text(kHostReportFd, "S " + std::to_string(lost) + " " + std::to_string(bytes) + "\n");
    return 0;
}

int kind_write_remote(const Args &a)
{
    RemoteWriter r;
    if (!r.start(a))
        return emit_fail(kImpl, a, r.not_built ? "not_built" : "error", r.why);
    Json j = measure_write(a, r.provider);
    std::uint64_t lost = 0, bytes = 0;
    if (!r.finish(&lost, &bytes))
        return emit_fail(kImpl, a, "error", r.why);
    const std::uint64_t offered = offered_events(a);
    // The events must be in the host's file: each is a record of 48 + payload
    // bytes rounded up to 8 (offered minus lost of them).
    const std::uint64_t record = (sizeof(etw_event_trace_header) + a.num("payload", 64) + 7) / 8 * 8;
    const std::uint64_t recorded = offered - std::min<std::uint64_t>(offered, lost);
    if (a.str("mode", "file") == "file" && bytes < recorded * record)
        return emit_fail(kImpl, a, "error",
                         "the host's file holds " + std::to_string(bytes) + " bytes, less than the " +
                             std::to_string(recorded) + " events recorded");
    j.integer("events_lost", lost)
        .num("lost_fraction", double(lost) / double(offered))
        .integer("host_file_bytes", bytes)
        .num("enable_wait_ms", r.enable_wait_ms);
    return emit_ok(kImpl, a, j);
}

int kind_cgloop_remote(const Args &a)
{
    RemoteWriter r;
    if (!r.start(a))
        return emit_fail(kImpl, a, r.not_built ? "not_built" : "error", r.why);
    const std::uint64_t written = counted_writes(a, r.provider);
    std::uint64_t lost = 0, bytes = 0;
    if (!r.finish(&lost, &bytes))
        return emit_fail(kImpl, a, "error", r.why);
    return emit_counted(a, written, lost);
}

} // namespace bench::ours
