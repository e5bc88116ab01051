// What crossproc_fixtures.hpp declares, but for reading files (crossproc_scan.cpp).
#include "crossproc_fixtures.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <random>
#include <signal.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>

namespace crossproc {

// ---- Namespace ----

Namespace g_ns;

Namespace::Namespace()
{
    setenv("OPENETW_REGISTRY", registry.c_str(), 1);
    char tmpl[] = "/tmp/openetw-crossproc-XXXXXX";
    if (mkdtemp(tmpl))
        dir = tmpl;
    chmod(dir.c_str(), 0777);
}

Namespace::~Namespace()
{
    for (const std::string &f : systemtest::registry_files(registry))
        unlink(f.c_str());
    unlink(registry.c_str());
    std::error_code ec;
    if (!dir.empty())
        std::filesystem::remove_all(dir, ec);
}

std::vector<std::string> Namespace::region_files() const
{
    std::vector<std::string> out;
    const std::string prefix = registry + ".";
    for (const std::string &f : systemtest::registry_files(registry)) {
        const std::string rest = f.substr(prefix.size());
        const std::size_t dot = rest.find('.');
        auto digits = [](const std::string &s) {
            return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (dot != std::string::npos && digits(rest.substr(0, dot)) && digits(rest.substr(dot + 1)))
            out.push_back(f);
    }
    return out;
}

unsigned base_seed()
{
    static const unsigned seed = [] {
        const char *fixed = std::getenv("CROSSPROC_SEED");
        const unsigned s = fixed ? unsigned(std::strtoul(fixed, nullptr, 10)) : unsigned(std::random_device{}());
        std::printf("[ crossproc ] seed %u (CROSSPROC_SEED=%u replays)\n", s, s);
        return s;
    }();
    return seed;
}

void info(const std::string &text)
{
    std::printf("[ crossproc ] %s\n", text.c_str());
    std::fflush(stdout);
}

std::string status_text(etw_status st) { return std::to_string(st) + " " + etw_status_name(st); }

// ---- Soak ----

double Soak::budget_seconds()
{
    const char *env = std::getenv("CROSSPROC_SOAK_SECONDS");
    return env ? std::strtod(env, nullptr) : 60.0;
}

bool Soak::next()
{
    if (done >= max_rounds || (done >= min_rounds && Clock::now() - t0 >= budget))
        return false;
    ++done;
    return true;
}

bool Soak::next(bool seen)
{
    if (done < max_rounds && done >= min_rounds && Clock::now() - t0 >= budget && !seen) {
        ++done;
        return true;
    }
    return next();
}

double Soak::seconds() const { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string Soak::ran(const std::string &what) const
{
    std::string s = std::to_string(done);
    if (done < max_rounds)
        s += " of " + std::to_string(max_rounds);
    s += " " + what;
    if (done < max_rounds)
        s += " (time budget " + std::to_string(int(budget.count())) + " s spent)";
    return s + " in " + std::to_string(seconds()) + " s";
}

// ---- Child processes ----

Child::~Child()
{
    if (pid > 0)
        kill9();
    if (out >= 0)
        close(out);
}

bool Child::spawn(const std::vector<std::string> &args, const passwd *pw)
{
    const char *helper = std::getenv("CROSSPROC_HELPER");
    if (!helper)
        return false;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return false;
    std::vector<std::string> all{helper};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char *> argv;
    for (std::string &a : all)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    const uid_t uid = pw ? pw->pw_uid : 0;
    const gid_t gid = pw ? pw->pw_gid : 0;
    const pid_t parent = getpid();
    pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        dup2(fds[1], 1);
        if (pw && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) {
            std::perror("crossproc: dropping to the second user");
            _exit(126);
        }
        prctl(PR_SET_PDEATHSIG, SIGKILL); // after setuid, which clears it
        if (getppid() != parent)
            _exit(125);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(fds[1]);
    out = fds[0];
    return true;
}

bool Child::wait_line(const std::string &prefix, int timeout_ms)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
        std::size_t start = 0;
        while (true) {
            const std::size_t nl = output.find('\n', start);
            if (nl == std::string::npos)
                break;
            if (output.compare(start, prefix.size(), prefix) == 0)
                return true;
            start = nl + 1;
        }
        if (!read_some(deadline))
            return false;
    }
}

std::string Child::read_all(int timeout_ms)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (read_some(deadline)) {
    }
    return output;
}

bool Child::read_some(Clock::time_point deadline)
{
    if (out < 0)
        return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0)
        return false;
    pollfd p{out, POLLIN, 0};
    if (poll(&p, 1, int(left)) <= 0)
        return false;
    char buf[4096];
    const ssize_t n = read(out, buf, sizeof buf);
    if (n <= 0)
        return false;
    output.append(buf, std::size_t(n));
    return true;
}

bool Child::running()
{
    if (pid <= 0)
        return false;
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
        record(status);
        return false;
    }
    return true;
}

bool Child::wait(int timeout_ms)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (running()) {
        if (Clock::now() >= deadline)
            return false;
        std::this_thread::sleep_for(1ms);
    }
    return true;
}

void Child::kill9()
{
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    int status = 0;
    if (waitpid(pid, &status, 0) == pid)
        record(status);
    pid = -1;
}

void Child::record(int status)
{
    signaled = WIFSIGNALED(status);
    signal = signaled ? WTERMSIG(status) : 0;
    code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + signal;
    pid = -1;
}

std::string Child::describe() const
{
    return signaled ? "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")"
                    : "exit code " + std::to_string(code);
}

std::string thread_stacks(pid_t pid)
{
    if (std::system("command -v gdb > /dev/null 2>&1") != 0)
        return "(no stacks: gdb is not installed)";
    // timeout: a gdb that cannot attach must not hang the test.
    const std::string cmd = "timeout 60 gdb -p " + std::to_string(pid) +
                            " -batch -nx -ex 'thread apply all bt 40' 2>&1 | grep -E '^(Thread|#)'";
    std::string out;
    if (FILE *f = ::popen(cmd.c_str(), "r")) {
        char line[1024];
        while (std::fgets(line, sizeof line, f))
            out += line;
        ::pclose(f);
    }
    return out.empty() ? "(no stacks: gdb could not attach to pid " + std::to_string(pid) + ")" : out;
}

::testing::AssertionResult start_host(Child &host, const std::vector<std::string> &args)
{
    std::vector<std::string> all{"host"};
    all.insert(all.end(), args.begin(), args.end());
    if (!host.spawn(all))
        return ::testing::AssertionFailure()
               << "cannot spawn the host helper (CROSSPROC_HELPER="
               << (std::getenv("CROSSPROC_HELPER") ? std::getenv("CROSSPROC_HELPER") : "unset") << ")";
    if (!host.wait_line("ready", 10000))
        return ::testing::AssertionFailure()
               << "the host helper did not start its session: output \"" << host.output << "\"";
    return ::testing::AssertionSuccess();
}

// ---- Counters files and provider processes ----

Totals &Totals::operator+=(const Totals &t)
{
    started += t.started;
    ok += t.ok;
    lost += t.lost;
    refused += t.refused;
    other += t.other;
    if (!first_other)
        first_other = t.first_other;
    return *this;
}

Totals Totals::operator-(const Totals &t) const
{
    Totals d;
    d.started = started - t.started;
    d.ok = ok - t.ok;
    d.lost = lost - t.lost;
    d.refused = refused - t.refused;
    d.other = other - t.other;
    d.first_other = first_other;
    return d;
}

std::string Totals::str() const
{
    std::ostringstream o;
    o << "started " << started << ", ok " << ok << ", lost " << lost << ", refused " << refused << ", other " << other;
    if (other)
        o << " (first " << status_text(etw_status(first_other)) << ")";
    return o.str();
}

Counters::Counters(const std::string &p) : path(p)
{
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return;
    fchmod(fd, 0666); // a second user's helper maps it too
    if (ftruncate(fd, sizeof(xp_shared)) == 0) {
        void *m = mmap(nullptr, sizeof(xp_shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m != MAP_FAILED)
            s = static_cast<xp_shared *>(m);
    }
    close(fd);
    if (s)
        xp_store(&s->magic, XP_MAGIC);
}

Counters::~Counters()
{
    if (s)
        munmap(s, sizeof(xp_shared));
    unlink(path.c_str());
}

Totals Counters::thread(int t) const
{
    xp_thread *c = &s->threads[t];
    Totals r;
    r.ok = xp_load(&c->ok); // read the results before started: started >= ok + lost + ...
    r.lost = xp_load(&c->lost);
    r.refused = xp_load(&c->refused);
    r.other = xp_load(&c->other);
    r.first_other = xp_load(&c->first_other);
    r.started = xp_load(&c->started);
    return r;
}

::testing::AssertionResult Provider::start(int idx, int nthreads, std::vector<std::string> args)
{
    index = idx;
    threads = nthreads;
    counters = std::make_unique<Counters>(
        g_ns.path("counters-" + std::to_string(idx) + "-" + std::to_string(reinterpret_cast<std::uintptr_t>(this))));
    if (!counters->s)
        return ::testing::AssertionFailure() << "cannot create counters file " << counters->path;
    args.insert(args.begin(), {"provider", "counters=" + counters->path, "index=" + std::to_string(idx),
                               "threads=" + std::to_string(nthreads)});
    if (!proc.spawn(args))
        return ::testing::AssertionFailure() << "cannot spawn provider " << idx;
    const auto deadline = Clock::now() + 10s;
    while (!counters->get(&xp_shared::registered)) {
        if (!proc.running())
            return ::testing::AssertionFailure()
                   << "provider " << idx << " ended before registering: " << proc.describe() << ", output \""
                   << proc.read_all(100) << "\"";
        if (Clock::now() > deadline)
            return ::testing::AssertionFailure() << "provider " << idx << " did not register within 10 s";
        std::this_thread::sleep_for(1ms);
    }
    if (counters->get(&xp_shared::register_status) != ETW_OK)
        return ::testing::AssertionFailure() << "provider " << idx << ": etw_provider_register returned "
                                             << status_text(etw_status(counters->get(&xp_shared::register_status)));
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult Provider::wait_enabled(int timeout_ms, std::uint64_t calls)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (counters->get(&xp_shared::enable_calls) < calls || !counters->get(&xp_shared::enabled)) {
        if (Clock::now() > deadline)
            return ::testing::AssertionFailure()
                   << "provider process " << index << " (pid " << proc.pid << ") saw no enable callback with "
                   << "is_enabled 1 within " << timeout_ms << " ms (" << counters->get(&xp_shared::enable_calls)
                   << " enable and " << counters->get(&xp_shared::disable_calls)
                   << " disable callbacks so far): the session in another process did not enable it "
                   << "(cross-process provider enabling missing?)";
        std::this_thread::sleep_for(1ms);
    }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult Provider::pause(int timeout_ms)
{
    xp_shared *s = counters->s;
    xp_store(&s->cmd, XP_CMD_WAIT);
    const std::uint64_t seq = xp_add(&s->seq, 1);
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (int t = 0; t < threads; ++t)
        while (xp_load(&s->threads[t].ack) < seq) {
            if (!proc.running())
                return ::testing::AssertionFailure() << "provider " << index << " ended: " << proc.describe();
            if (Clock::now() > deadline)
                return ::testing::AssertionFailure()
                       << "provider " << index << " thread " << t << " stayed inside etw_provider_trace_event for "
                       << timeout_ms << " ms (a writer wedged)";
            std::this_thread::sleep_for(200us);
        }
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult Provider::wait_done(int timeout_ms)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    for (int t = 0; t < threads; ++t)
        while (!xp_load(&counters->s->threads[t].done)) {
            if (!proc.running())
                return ::testing::AssertionFailure() << "provider " << index << " ended: " << proc.describe();
            if (Clock::now() > deadline)
                return ::testing::AssertionFailure() << "provider " << index << " thread " << t
                                                     << " did not finish its events within " << timeout_ms << " ms";
            std::this_thread::sleep_for(1ms);
        }
    return ::testing::AssertionSuccess();
}

int Provider::quit(int timeout_ms)
{
    if (!counters || !counters->s)
        return -1;
    xp_store(&counters->s->cmd, XP_CMD_QUIT);
    if (!proc.wait(timeout_ms)) {
        proc.kill9();
        return -1;
    }
    return proc.code;
}

Totals Provider::totals() const
{
    Totals t;
    for (int i = 0; i < threads; ++i)
        t += counters->thread(i);
    return t;
}

::testing::AssertionResult start_enabled(std::span<Provider> providers, int threads,
                                         const std::vector<std::string> &args, std::vector<Provider *> *all)
{
    for (std::size_t i = 0; i < providers.size(); ++i) {
        if (auto r = providers[i].start(int(i), threads, args); !r)
            return r;
        all->push_back(&providers[i]);
    }
    for (Provider &p : providers)
        if (auto r = p.wait_enabled(3000); !r)
            return r;
    return ::testing::AssertionSuccess();
}

Totals sum(const std::vector<Provider *> &ps)
{
    Totals t;
    for (const Provider *p : ps)
        t += p->totals();
    return t;
}

// ---- Sessions ----

etw_status stop_by_name(const std::string &name, etw_properties *props, std::string *message)
{
    etw_session *s = nullptr;
    etw_status st = etw_session_open(&s, name.c_str());
    if (st == ETW_OK)
        st = etw_session_stop(s, props);
    if (message)
        *message = st == ETW_OK ? "" : status_text(st) + ": " + etw_last_error_message();
    etw_session_close(s);
    return st;
}

std::uint32_t host_state(const std::string &name)
{
    etw_session *s = nullptr;
    if (etw_session_open(&s, name.c_str()) != ETW_OK)
        return 0;
    etw_session_host_info hi{};
    hi.struct_size = sizeof hi;
    etw_session_get_host_info(&hi, s);
    etw_session_close(s);
    return hi.state;
}

} // namespace crossproc
