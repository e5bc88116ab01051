// openetw-bench: the OpenETW engine through its public C ABI
// (libopenetw.so.1), one measurement per process; see common.hpp.
#include "common.hpp"
#include "rt_consumer.hpp"

#include <openetw/openetw.h>

#include <fcntl.h>
#include <glob.h>
#include <csignal>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>

extern char **environ;

using namespace bench;

namespace {

constexpr const char *kImpl = "ours";

// The provider every run registers, and the class GUID of its events.
constexpr etw_guid kProvider = {0x4F455442, 0x4245, 0x4E43, {0x48, 0x50, 0x52, 0x4F, 0x56, 0x49, 0x44, 0x31}};
constexpr etw_guid kClass = {0x4F455442, 0x4245, 0x4E43, {0x48, 0x43, 0x4C, 0x41, 0x53, 0x53, 0x30, 0x31}};

struct Event {
    etw_event_trace_header h;
    std::uint8_t payload[512];
};

void make_event(Event &e, std::uint32_t payload)
{
    std::memset(&e, 0, sizeof e);
    e.h.Size = std::uint16_t(sizeof(etw_event_trace_header) + payload);
    e.h.Class.Type = 10;
    e.h.Class.Level = ETW_LEVEL_INFORMATION;
    e.h.Guid = kClass;
    e.h.Flags = ETW_WNODE_FLAG_TRACED_GUID;
    fill_payload(e.payload, payload);
}

std::string status_text(etw_status st)
{
    std::string s = etw_status_name(st);
    const char *m = etw_last_error_message();
    if (m && *m)
        s += std::string(": ") + m;
    return s;
}

// One session of the mode the arguments ask for, with the provider enabled.
struct Setup {
    etw_properties *props = nullptr;
    etw_session *session = nullptr;
    etw_provider *provider = nullptr;
    RtConsumer rt;
    std::string file;
    std::string mode;
    etw_status status = ETW_OK;
    std::string why;        // failure text
    bool not_built = false; // the mode is not available in this build

    ~Setup() { teardown(nullptr); }

    // register_provider false: the session only (--kind=host, whose
    // provider registers in another process).
    bool start(const Args &a, const std::string &mode_, std::uint32_t buffers_per_cpu_default,
               bool register_provider = true)
    {
        mode = mode_;
        if (register_provider)
            if (etw_status st = etw_provider_register(&provider, &kProvider, nullptr, nullptr, nullptr); st != ETW_OK)
                return fail(st, "etw_provider_register");
        if (mode == "disabled")
            return true;
        const std::string name = "oebench-" + std::to_string(getpid()) + "-" + a.str("tag", "0");
        etw_properties_create(&props, name.c_str());
        const std::uint32_t cpus = cpu_count();
        const std::uint32_t per_cpu = std::uint32_t(a.num("buffers-per-cpu", buffers_per_cpu_default));
        etw_properties_set_buffer_size(props, std::uint32_t(a.num("buffer-kb", 64)));
        etw_properties_set_minimum_buffers(props, per_cpu * cpus);
        etw_properties_set_maximum_buffers(props, per_cpu * cpus);
        etw_properties_set_clock_type(props, std::uint32_t(a.num("clock", 1)));
        file = a.str("file", a.str("dir", "/tmp") + "/oebench-" + std::to_string(getpid()) + ".etl");
        std::uint32_t lfm = 0;
        if (mode == "file") {
            lfm = ETW_FILE_MODE_SEQUENTIAL;
            etw_properties_set_log_file_name(props, file.c_str());
        } else if (mode == "realtime") {
            lfm = ETW_REAL_TIME_MODE;
            file.clear();
        } else if (mode == "buffering") {
            lfm = ETW_BUFFERING_MODE;
            file.clear();
        } else {
            why = "unknown --mode=" + mode;
            return false;
        }
        etw_properties_set_log_file_mode(props, lfm);
        if (mode == "realtime" && !RtConsumer::available()) {
            not_built = true;
            why = "real-time consumer API not in this build";
            return false;
        }
        etw_status started;
        if (a.num("lossless", 0)) {
#if defined(OEB_HAVE_SESSION_OPTIONS)
            // Writers wait for a free buffer instead of dropping.
            etw_session_options o{};
            o.struct_size = sizeof o;
            o.flags = ETW_SESSION_LOSSLESS;
            o.lossless_timeout_ms = 10000;
            started = etw_session_start_ex(&session, props, &o);
#else
            not_built = true;
            why = "lossless sessions (etw_session_start_ex) are not in this build";
            return false;
#endif
        } else {
            started = etw_session_start(&session, props);
        }
        if (etw_status st = started; st != ETW_OK) {
            if (st == ETW_ERROR_NOT_SUPPORTED)
                not_built = true;
            return fail(st, "etw_session_start(" + mode + ")");
        }
        if (etw_status st = etw_session_enable_provider(session, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER,
                                                        ETW_LEVEL_VERBOSE, 0, 0);
            st != ETW_OK)
            return fail(st, "etw_session_enable_provider");
        // Writes to a provider no session enables cost a load and a branch:
        // a figure measured so would be meaningless (seen: a session host of
        // another build that the library could not share buffers with).
        if (provider && *etw_provider_enabled_word(provider) == 0) {
            why = "the provider is not enabled after etw_session_enable_provider returned ETW_OK";
            return false;
        }
        if (mode == "realtime") {
            std::string e;
            if (!rt.start(name, &e)) {
                why = "real-time consumer: " + e;
                return false;
            }
        }
        return true;
    }

    bool fail(etw_status st, const std::string &what)
    {
        status = st;
        why = what + ": " + status_text(st);
        return false;
    }

    // Stops the session (props receives the final statistics).
    etw_status teardown(std::uint32_t *events_lost)
    {
        etw_status st = ETW_OK;
        if (session) {
            st = etw_session_stop(session, props);
            rt.stop();
            if (events_lost)
                *events_lost = etw_properties_events_lost(props);
            etw_session_close(session);
            session = nullptr;
        }
        if (provider) {
            etw_provider_unregister(provider);
            provider = nullptr;
        }
        if (props) {
            etw_properties_destroy(props);
            props = nullptr;
        }
        return st;
    }
};

int setup_failure(const Args &a, const Setup &s)
{
    return emit_fail(kImpl, a, s.not_built ? "not_built" : "error", s.why);
}

// The write-cost loop of kind_write on `threads` threads into whatever
// session enables prov.
Json measure_write(const Args &a, etw_provider *prov)
{
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint32_t payload = std::uint32_t(a.num("payload", 64));
    // --check=inline: test the provider's enabled word before calling, as
    // provider.h suggests (and as an LTTng tracepoint does on its own).
    // Two loops, not one with a runtime choice: each writer stays a direct call.
    const std::uint64_t warmup = a.num("warmup", 100000), events = a.num("events", 1000000);
    const std::uint32_t batch = std::uint32_t(a.num("batch", 100));
    return a.str("check", "call") == "inline"
               ? write_cost(threads, warmup, events, batch,
                            [&](unsigned) {
                                auto e = std::make_shared<Event>();
                                make_event(*e, payload);
                                const volatile std::uint32_t *word = etw_provider_enabled_word(prov);
                                return [e, prov, word] {
                                    return *word == 0 || etw_provider_trace_event(prov, &e->h) == ETW_OK;
                                };
                            })
               : write_cost(threads, warmup, events, batch, [&](unsigned) {
                     auto e = std::make_shared<Event>();
                     make_event(*e, payload);
                     return [e, prov] { return etw_provider_trace_event(prov, &e->h) == ETW_OK; };
                 });
}

int kind_write_remote(const Args &a);

int kind_write(const Args &a)
{
    if (a.str("host", "local") == "remote")
        return kind_write_remote(a);
    const std::string mode = a.str("mode", "file");
    Setup s;
    if (!s.start(a, mode, 256))
        return setup_failure(a, s);
    const unsigned threads = unsigned(a.num("threads", 1));
    Json j = measure_write(a, s.provider);
    std::uint32_t lost = 0;
    const etw_status st = s.teardown(&lost);
    j.integer("events_lost", lost)
        .num("lost_fraction", double(lost) / double(threads * (a.num("warmup", 100000) + 2 * a.num("events", 1000000))));
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    if (!s.file.empty())
        ::unlink(s.file.c_str());
    return emit_ok(kImpl, a, j);
}

// A registry file and its "<registry>.*" files (session regions).
void remove_registry_files(const std::string &registry)
{
    ::unlink(registry.c_str());
    for (const char *suffix : {".*", "-*.lock"}) { // session regions; the host's lock files
        glob_t g{};
        if (::glob((registry + suffix).c_str(), GLOB_NOSORT, nullptr, &g) == 0)
            for (std::size_t i = 0; i < g.gl_pathc; ++i)
                ::unlink(g.gl_pathv[i]);
        ::globfree(&g);
    }
}

// ---------------------------------------------------------------- writers in another process
//
// --kind=write --host=remote: the session is hosted by a child process (this
// program again, --kind=host) and this process only registers the provider
// and writes, through the session's shared region (docs/SYSTEM_SESSIONS.md).
// Both use the registry file main() put in OPENETW_REGISTRY before any
// OpenETW call. The child says "ready" (or why not) on fd 3, stops the
// session when fd 4 gives a byte or end of file (this process died), and
// answers with the session's final figures on fd 3.

constexpr int kHostReportFd = 3, kHostControlFd = 4;

// Reads one line from fd within timeout_ms; false on timeout, error or EOF.
bool read_line(int fd, std::string *out, int timeout_ms)
{
    out->clear();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
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

int kind_write_remote(const Args &a)
{
    RemoteWriter r;
    if (!r.start(a))
        return emit_fail(kImpl, a, r.not_built ? "not_built" : "error", r.why);
    const unsigned threads = unsigned(a.num("threads", 1));
    Json j = measure_write(a, r.provider);
    std::uint64_t lost = 0, bytes = 0;
    if (!r.finish(&lost, &bytes))
        return emit_fail(kImpl, a, "error", r.why);
    const std::uint64_t offered = threads * (a.num("warmup", 100000) + 2 * a.num("events", 1000000));
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

// Flat out (throughput) or paced writes to a file session.
int kind_stream(const Args &a, bool paced)
{
    Setup s;
    if (!s.start(a, a.str("mode", "file"), 16))
        return setup_failure(a, s);
    const std::int64_t cpu0 = process_cpu_ns();
    const std::int64_t main0 = thread_cpu_ns();
    const unsigned threads = unsigned(a.num("threads", 1));
    const std::uint32_t payload = std::uint32_t(a.num("payload", 64));
    const std::uint64_t events = a.num("events", 10000000);
    const double rate = a.real("rate", 1e6), seconds = a.real("seconds", 1.0);
    std::vector<std::int64_t> writer_cpu(threads, 0);
    std::vector<PacedThread> pt(threads);
    std::vector<std::uint64_t> failed(threads, 0);
    Team team;
    team.run(threads, [&](unsigned i) {
        Event e;
        make_event(e, payload);
        const std::int64_t c0 = thread_cpu_ns();
        if (paced) {
            paced_loop(pt[i], rate / threads, seconds, [&] { return etw_provider_trace_event(s.provider, &e.h) == ETW_OK; });
            failed[i] = pt[i].failed;
        } else {
            std::uint64_t f = 0;
            for (std::uint64_t k = 0; k < events; ++k)
                f += etw_provider_trace_event(s.provider, &e.h) == ETW_OK ? 0 : 1;
            failed[i] = f;
        }
        writer_cpu[i] = thread_cpu_ns() - c0;
    });
    std::uint32_t lost = 0;
    const etw_status st = s.teardown(&lost);
    const std::int64_t end = now_ns();
    const std::int64_t main_cpu = thread_cpu_ns() - main0;
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    std::uint64_t offered = 0, fails = 0;
    std::int64_t wcpu = 0;
    for (unsigned i = 0; i < threads; ++i) {
        offered += paced ? pt[i].offered : events;
        fails += failed[i];
        wcpu += writer_cpu[i];
    }
    const std::uint64_t recorded = offered - std::min<std::uint64_t>(offered, lost);
    const std::int64_t logger_cpu = process_cpu_ns() - cpu0 - wcpu - main_cpu;
    const std::uint64_t bytes = file_bytes(s.file);
    ::unlink(s.file.c_str());
    StreamCounts c;
    c.offered = offered;
    c.recorded = recorded;
    c.lost = lost;
    c.file_bytes = bytes;
    c.buffer_bytes = std::uint64_t(a.num("buffer-kb", 64)) * 1024 * a.num("buffers-per-cpu", 16) * cpu_count();
    c.start_ns = team.start_ns;
    c.team_end_ns = c.writers_end_ns = team.end_ns;
    c.end_ns = end;
    c.logger_cpu_ns = logger_cpu;
    c.writer_cpu_ns = wcpu;
    Json j = stream_figures(c);
    j.integer("write_failures", fails);
    return emit_ok(kImpl, a, j);
}

// Writes --events events (64-byte payload, one thread) to --file, without
// loss, for the consumer runs.
int kind_gen(const Args &a)
{
    Setup s;
    if (!s.start(a, "file", 1024))
        return setup_failure(a, s);
    Event e;
    make_event(e, std::uint32_t(a.num("payload", 64)));
    const std::uint64_t n = a.num("events", 1000000);
    std::uint64_t failed = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        while (etw_provider_trace_event(s.provider, &e.h) != ETW_OK) {
            ++failed; // out of buffers: give the logger a moment and retry
            usleep(100);
        }
    }
    std::uint32_t lost = 0;
    if (etw_status st = s.teardown(&lost); st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_session_stop: " + status_text(st));
    Json j;
    j.integer("events", n).integer("retries", failed).integer("file_bytes", file_bytes(s.file)).str("file", s.file);
    return emit_ok(kImpl, a, j);
}

struct ConsumerCount {
    std::uint64_t events = 0, payload_bytes = 0, check = 0;
};

int32_t on_event(void *user, const etw_classic_event *ev)
{
    auto *c = static_cast<ConsumerCount *>(user);
    ++c->events;
    c->payload_bytes += ev->payload_size;
    if (ev->payload_size)
        c->check += ev->payload[0];
    return 0;
}

// Callbacks that do nothing: what the consumer itself costs.
int32_t on_event_empty(void *, const etw_classic_event *) { return 0; }
int32_t on_record_empty(void *, const etw_record *) { return 0; }

// Share of the file's pages in the page cache (mincore), -1 if unknown.
double resident_fraction(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return -1;
    const std::uint64_t size = file_bytes(path);
    double share = -1;
    void *map = size ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (map != MAP_FAILED) {
        const long page = ::sysconf(_SC_PAGESIZE);
        std::vector<unsigned char> in((size + page - 1) / page);
        if (::mincore(map, size, in.data()) == 0) {
            std::uint64_t n = 0;
            for (unsigned char c : in)
                n += c & 1;
            share = double(n) / double(in.size());
        }
        ::munmap(map, size);
    }
    ::close(fd);
    return share;
}

int kind_residency(const Args &a)
{
    const std::string path = a.str("file");
    Json j;
    j.integer("bytes", file_bytes(path)).num("resident_fraction", resident_fraction(path));
    return emit_ok(kImpl, a, j);
}

// --callback=event (counts events, reads a payload byte), event-empty,
// record-empty or none; --order=time|file.
int kind_consumer(const Args &a)
{
    const std::string path = a.str("file");
    const std::string callback = a.str("callback", "event");
    ConsumerCount count;
    etw_consumer_options o{};
    o.struct_size = sizeof o;
    o.flags = a.str("order") == "file" ? ETW_CONSUMER_ORDER_FILE : ETW_CONSUMER_ORDER_TIME;
    if (callback == "event")
        o.event = on_event;
    else if (callback == "event-empty")
        o.event = on_event_empty;
    else if (callback == "record-empty")
        o.record = on_record_empty;
    else if (callback != "none")
        return emit_fail(kImpl, a, "error", "unknown --callback=" + callback);
    o.user_data = &count;
    const double resident = resident_fraction(path);
    const char *paths[1] = {path.c_str()};
    const std::int64_t t0 = now_ns(), c0 = thread_cpu_ns();
    etw_consumer *c = nullptr;
    if (etw_status st = etw_consumer_open(&c, paths, 1, &o); st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_consumer_open: " + status_text(st));
    const etw_status st = etw_consumer_process(c);
    const std::int64_t t1 = now_ns(), c1 = thread_cpu_ns();
    etw_consumer_stats stats{};
    stats.struct_size = sizeof stats;
    etw_consumer_get_stats(&stats, c);
    etw_consumer_close(c);
    if (st != ETW_OK)
        return emit_fail(kImpl, a, "error", "etw_consumer_process: " + status_text(st));
    const std::uint64_t bytes = file_bytes(path);
    const double secs = double(t1 - t0) / 1e9, cpu = double(c1 - c0) / 1e9;
    Json j;
    j.integer("bytes", bytes)
        .integer("records", stats.records)
        .integer("events", count.events)
        .integer("check", count.check)
        .num("seconds", secs)
        .num("cpu_seconds", cpu)
        .num("resident_fraction", resident)
        .num("mb_per_s", double(bytes) / 1e6 / secs)
        .num("mb_per_cpu_s", double(bytes) / 1e6 / cpu)
        .num("records_per_s", double(stats.records) / secs);
    return emit_ok(kImpl, a, j);
}

int kind_startstop(const Args &a)
{
    const unsigned iters = unsigned(a.num("iterations", 20));
    std::vector<double> start_us, stop_us;
    etw_provider *provider = nullptr;
    etw_provider_register(&provider, &kProvider, nullptr, nullptr, nullptr);
    // A new file per session (truncating and rewriting one file makes ext4
    // flush it on close, which is not the engine's cost).
    const std::string base = a.str("dir", "/tmp") + "/oebench-ss-" + std::to_string(getpid()) + "-";
    const std::uint32_t cpus = cpu_count();
    const std::uint32_t per_cpu = std::uint32_t(a.num("buffers-per-cpu", 16));
    for (unsigned i = 0; i < iters; ++i) {
        const std::string file = base + std::to_string(i) + ".etl";
        etw_properties *p = nullptr;
        etw_properties_create(&p, ("oebench-ss-" + std::to_string(getpid())).c_str());
        etw_properties_set_buffer_size(p, std::uint32_t(a.num("buffer-kb", 64)));
        etw_properties_set_minimum_buffers(p, per_cpu * cpus);
        etw_properties_set_maximum_buffers(p, per_cpu * cpus);
        etw_properties_set_log_file_mode(p, ETW_FILE_MODE_SEQUENTIAL);
        etw_properties_set_log_file_name(p, file.c_str());
        etw_session *s = nullptr;
        const std::int64_t t0 = now_ns();
        etw_status st = etw_session_start(&s, p);
        if (st == ETW_OK)
            st = etw_session_enable_provider(s, &kProvider, ETW_CONTROL_CODE_ENABLE_PROVIDER, 0, 0, 0);
        const std::int64_t t1 = now_ns();
        if (st != ETW_OK)
            return emit_fail(kImpl, a, "error", "start: " + status_text(st));
        Event e;
        make_event(e, 64);
        etw_provider_trace_event(provider, &e.h);
        const std::int64_t t2 = now_ns();
        st = etw_session_stop(s, p);
        const std::int64_t t3 = now_ns();
        if (st != ETW_OK)
            return emit_fail(kImpl, a, "error", "stop: " + status_text(st));
        etw_session_close(s);
        etw_properties_destroy(p);
        ::unlink(file.c_str());
        start_us.push_back(double(t1 - t0) / 1e3);
        stop_us.push_back(double(t3 - t2) / 1e3);
    }
    etw_provider_unregister(provider);
    const Percentiles s = percentiles(start_us), p = percentiles(stop_us);
    Json j;
    j.num("start_us", s.p50).num("stop_us", p.p50).num("start_us_max", s.max).num("stop_us_max", p.max).integer("iterations",
                                                                                                              iters);
    return emit_ok(kImpl, a, j);
}

// Memory beyond the buffers: PSS growth from before the session starts to
// while it runs with every buffer used, minus the PSS of the buffer region
// (the largest mapping the start created).
int kind_memory(const Args &a)
{
    etw_provider *warm = nullptr;
    etw_provider_register(&warm, &kProvider, nullptr, nullptr, nullptr); // library state that exists anyway
    std::set<std::uintptr_t> before_maps;
    for (const Mapping &m : mappings())
        before_maps.insert(m.start);
    const std::int64_t before = pss_bytes();
    Setup s;
    if (!s.start(a, "file", 16))
        return setup_failure(a, s);
    const std::uint32_t cpus = cpu_count();
    const std::uint64_t buffer_bytes = std::uint64_t(a.num("buffer-kb", 64)) * 1024 * a.num("buffers-per-cpu", 16) * cpus;
    // Use every buffer: write bursts several times the pool from every CPU.
    Team team;
    team.run(cpus, [&](unsigned) {
        Event e;
        make_event(e, 64);
        for (std::uint64_t k = 0; k < 4 * buffer_bytes / 112; ++k)
            etw_provider_trace_event(s.provider, &e.h);
    });
    etw_session_query(s.session, s.props);
    const std::uint64_t allocated = std::uint64_t(etw_properties_number_of_buffers(s.props)) *
                                    etw_properties_buffer_size(s.props) * 1024;
    const std::int64_t after = pss_bytes();
    const Mapping *region = nullptr;
    const auto now = mappings();
    for (const Mapping &m : now)
        if (!before_maps.count(m.start) && (!region || m.end - m.start > region->end - region->start))
            region = &m;
    const std::int64_t region_pss = region ? region->pss : 0;
    Json j;
    j.num("beyond_buffers_kib", double(after - before - region_pss) / 1024.0)
        .num("pss_growth_kib", double(after - before) / 1024.0)
        .num("region_pss_kib", double(region_pss) / 1024.0)
        .num("region_mapping_kib", region ? double(region->end - region->start) / 1024.0 : 0)
        .num("buffer_kib", double(allocated) / 1024.0);
    s.teardown(nullptr);
    ::unlink(s.file.c_str());
    etw_provider_unregister(warm);
    return emit_ok(kImpl, a, j);
}

etw_provider *g_cg_provider = nullptr;
Event g_cg_event;

} // namespace

// The region callgrind counts (--toggle-collect=oe_bench_measured_loop).
extern "C" __attribute__((noinline)) std::uint64_t oe_bench_measured_loop(std::uint64_t n)
{
    std::uint64_t ok = 0;
    for (std::uint64_t i = 0; i < n; ++i)
        ok += etw_provider_trace_event(g_cg_provider, &g_cg_event.h) == ETW_OK ? 1 : 0;
    return ok;
}

namespace {

int kind_cgloop_remote(const Args &a)
{
    RemoteWriter r;
    if (!r.start(a))
        return emit_fail(kImpl, a, r.not_built ? "not_built" : "error", r.why);
    g_cg_provider = r.provider;
    make_event(g_cg_event, std::uint32_t(a.num("payload", 64)));
    for (std::uint64_t i = a.num("warmup", 10000); i > 0; --i)
        etw_provider_trace_event(g_cg_provider, &g_cg_event.h);
    const std::uint64_t n = a.num("events", 100000);
    const std::uint64_t ok = oe_bench_measured_loop(n);
    std::uint64_t lost = 0, bytes = 0;
    if (!r.finish(&lost, &bytes))
        return emit_fail(kImpl, a, "error", r.why);
    Json j;
    j.integer("events", n).integer("written", ok).integer("events_lost", lost);
    return emit_ok(kImpl, a, j);
}

int kind_cgloop(const Args &a)
{
    if (a.str("host", "local") == "remote")
        return kind_cgloop_remote(a);
    Setup s;
    if (!s.start(a, a.str("mode", "file"), 1024))
        return setup_failure(a, s);
    g_cg_provider = s.provider;
    make_event(g_cg_event, std::uint32_t(a.num("payload", 64)));
    for (std::uint64_t i = a.num("warmup", 10000); i > 0; --i)
        etw_provider_trace_event(g_cg_provider, &g_cg_event.h);
    const std::uint64_t n = a.num("events", 100000);
    const std::uint64_t ok = oe_bench_measured_loop(n);
    std::uint32_t lost = 0;
    s.teardown(&lost);
    if (!s.file.empty())
        ::unlink(s.file.c_str());
    Json j;
    j.integer("events", n).integer("written", ok).integer("events_lost", lost);
    return emit_ok(kImpl, a, j);
}

} // namespace

namespace {

// --registry=fresh: this process (and the session host it spawns) uses a
// registry file of its own, /dev/shm/oeb-<pid>.registry, set before the
// first OpenETW call; removed with its "<registry>.*" files at exit.
std::string g_registry;

void remove_registry()
{
    if (!g_registry.empty())
        remove_registry_files(g_registry);
}

int dispatch(const Args &a)
{
    const std::string kind = a.str("kind");
    if (kind == "host")
        return kind_host(a);
    if (kind == "write")
        return kind_write(a);
    if (kind == "throughput")
        return kind_stream(a, false);
    if (kind == "paced")
        return kind_stream(a, true);
    if (kind == "gen")
        return kind_gen(a);
    if (kind == "consumer")
        return kind_consumer(a);
    if (kind == "residency")
        return kind_residency(a);
    if (kind == "startstop")
        return kind_startstop(a);
    if (kind == "memory")
        return kind_memory(a);
    if (kind == "cgloop")
        return kind_cgloop(a);
    if (kind == "info") {
        Json j;
        j.str("version", etw_version_string()).str("cpu", machine_cpu()).integer("cpus", cpu_count()).integer(
            "rt_consumer", RtConsumer::available() ? 1 : 0);
        return emit_ok(kImpl, a, j);
    }
    return emit_fail(kImpl, a, "error", "unknown --kind=" + kind);
}

} // namespace

int main(int argc, char **argv)
{
    Args a(argc, argv);
    if (a.str("registry") == "fresh" && a.str("kind") != "host") {
        g_registry = "/dev/shm/oeb-" + std::to_string(getpid()) + ".registry";
        ::setenv("OPENETW_REGISTRY", g_registry.c_str(), 1);
        remove_registry(); // a file of a dead process with our pid
        // --hosting=daemon: sessions go to the session host (openetw-hostd)
        // as they do for users; otherwise the process that starts a session
        // hosts it (write.local / write.remote compare exactly that).
        if (a.str("hosting", "inprocess") != "daemon")
            ::setenv("OPENETW_HOST", "inprocess", 1);
    }
    const int rc = dispatch(a);
    remove_registry();
    return rc;
}
