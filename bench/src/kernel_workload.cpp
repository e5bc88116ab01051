// kernel-workload: a known load of kernel events for the system-logger
// figure (bench/runner/kernel_logger.py), the same process whichever
// collector records it (an OpenETW system logger, or perf record), so it
// links nothing of OpenETW.
//
//   --load=syscall  --threads=N  each thread calls getppid() in a loop:
//                   2 records a call (raw_syscalls:sys_enter and sys_exit).
//                   getppid because little else on a machine calls it, so a
//                   trace's SysClEnter records of its number are the workload's.
//   --load=cswitch  --threads=N  N pairs of threads, both of a pair pinned to
//                   one processor (pair i to processor i mod CPUs), passing a
//                   byte back and forth over two pipes: each hand-over is a
//                   switch from one to the other (sched:sched_switch).
//   --rate=R        units a second in all (calls, or round trips), paced in
//                   1 ms ticks with clock_nanosleep; 0: as fast as it goes.
//   --seconds=S     how long.
//
// Prints one JSON object (common.hpp) with what it did, counted by itself:
// the calls made, the context switches of its threads (getrusage
// RUSAGE_THREAD: every switch away from a thread is one sched_switch record
// naming it as the previous task), the threads' ids and the time span.
#include "common.hpp"

#include <atomic>
#include <thread>

#include <sys/resource.h>

using namespace bench;

namespace {

constexpr const char *kImpl = "workload";

struct PerThread {
    std::uint64_t units = 0;    // calls, or round trips (the pinger of a pair)
    std::uint64_t sleeps = 0;   // pacing sleeps (each a clock_nanosleep call and a switch)
    std::uint64_t switches = 0; // voluntary + involuntary, over the loop
    pid_t tid = 0;
};

std::uint64_t thread_switches()
{
    rusage ru{};
    ::getrusage(RUSAGE_THREAD, &ru);
    return std::uint64_t(ru.ru_nvcsw) + std::uint64_t(ru.ru_nivcsw);
}

// Paces a loop at `rate` units a second in 1 ms ticks: returns how many
// units to do now (sleeping until the next tick when ahead). rate 0: a
// burst of 64 without a clock read.
class Pacer {
public:
    Pacer(double rate, std::int64_t start) : rate_(rate), start_(start) {}
    std::uint64_t next(std::uint64_t done, std::int64_t end, std::uint64_t &sleeps)
    {
        if (rate_ <= 0)
            return 64;
        for (;;) {
            const std::int64_t now = now_ns();
            if (now >= end)
                return 0;
            const double due = rate_ * double(now - start_) / 1e9;
            if (double(done) < due)
                return std::uint64_t(due - double(done)) + 1;
            // Ahead: sleep to the next 1 ms tick (or the end).
            const std::int64_t wake = std::min(end, start_ + ((now - start_) / 1000000 + 1) * 1000000);
            timespec ts{time_t(wake / 1000000000), long(wake % 1000000000)};
            ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
            ++sleeps;
        }
    }

private:
    double rate_;
    std::int64_t start_;
};

void pin(unsigned cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu % cpu_count(), &set);
    ::sched_setaffinity(0, sizeof set, &set);
}

void syscall_loop(PerThread &me, double rate, std::int64_t start, std::int64_t end)
{
    me.tid = pid_t(::syscall(SYS_gettid));
    Pacer pacer(rate, start);
    const std::uint64_t sw0 = thread_switches();
    for (;;) {
        const std::uint64_t n = pacer.next(me.units, end, me.sleeps);
        if (n == 0 || (rate <= 0 && now_ns() >= end))
            break;
        for (std::uint64_t i = 0; i < n; ++i)
            ::syscall(SYS_getppid);
        me.units += n;
    }
    me.switches = thread_switches() - sw0;
}

// The pinger of a pair: sends a byte, waits for it to come back. A zero
// byte tells the ponger to stop.
void ping_loop(PerThread &me, int to, int from, unsigned cpu, double rate, std::int64_t start, std::int64_t end)
{
    pin(cpu);
    me.tid = pid_t(::syscall(SYS_gettid));
    Pacer pacer(rate, start);
    const std::uint64_t sw0 = thread_switches();
    char b = 1;
    for (;;) {
        const std::uint64_t n = pacer.next(me.units, end, me.sleeps);
        if (n == 0 || (rate <= 0 && now_ns() >= end))
            break;
        for (std::uint64_t i = 0; i < n; ++i)
            if (::write(to, &b, 1) != 1 || ::read(from, &b, 1) != 1)
                return;
        me.units += n;
    }
    me.switches = thread_switches() - sw0;
    b = 0;
    (void)!::write(to, &b, 1);
}

void pong_loop(PerThread &me, int from, int to, unsigned cpu, std::atomic<int> &ready)
{
    pin(cpu);
    me.tid = pid_t(::syscall(SYS_gettid));
    ready.fetch_add(1);
    std::uint64_t sw0 = 0;
    bool first = true;
    char b = 0;
    while (::read(from, &b, 1) == 1 && b != 0) {
        if (first) { // the switches from the first ping on
            sw0 = thread_switches();
            first = false;
        }
        if (::write(to, &b, 1) != 1)
            break;
        ++me.units;
    }
    me.switches = first ? 0 : thread_switches() - sw0;
}

} // namespace

int main(int argc, char **argv)
{
    Args a(argc, argv);
    const std::string load = a.str("load", "syscall");
    const unsigned threads = unsigned(std::max<std::uint64_t>(1, a.num("threads", 1)));
    const double rate = a.real("rate", 0);
    const double seconds = a.real("seconds", 1.0);
    if (load != "syscall" && load != "cswitch")
        return emit_fail(kImpl, a, "error", "unknown --load=" + load + " (syscall or cswitch)");

    std::vector<PerThread> ping(threads), pong(load == "cswitch" ? threads : 0);
    std::vector<std::thread> ts;
    std::vector<int> fds;
    std::atomic<int> pongs_ready{0};
    if (load == "cswitch") {
        for (unsigned i = 0; i < threads; ++i) {
            int p1[2], p2[2];
            if (::pipe(p1) != 0 || ::pipe(p2) != 0)
                return emit_fail(kImpl, a, "error", std::string("pipe: ") + std::strerror(errno));
            fds.insert(fds.end(), {p1[0], p1[1], p2[0], p2[1]});
            ts.emplace_back(pong_loop, std::ref(pong[i]), p1[0], p2[1], i, std::ref(pongs_ready));
        }
        while (pongs_ready.load() < int(threads))
            std::this_thread::yield();
    }
    // Every thread paces from one start, a little ahead so all have started.
    const std::int64_t start = now_ns() + 5000000;
    const std::int64_t end = start + std::int64_t(seconds * 1e9);
    const double per_thread = rate / threads;
    for (unsigned i = 0; i < threads; ++i) {
        if (load == "syscall")
            ts.emplace_back([&, i] {
                while (now_ns() < start) {
                }
                syscall_loop(ping[i], per_thread, start, end);
            });
        else
            ts.emplace_back([&, i] {
                while (now_ns() < start) {
                }
                ping_loop(ping[i], fds[4 * i + 1], fds[4 * i + 2], i, per_thread, start, end);
            });
    }
    for (auto &t : ts)
        t.join();
    const std::int64_t finished = now_ns();
    for (int fd : fds)
        ::close(fd);

    std::uint64_t units = 0, sleeps = 0, switches = 0;
    std::string tids;
    for (const auto *v : {&ping, &pong})
        for (const PerThread &t : *v) {
            units += v == &ping ? t.units : 0;
            sleeps += t.sleeps;
            switches += t.switches;
            if (!tids.empty())
                tids += ',';
            tids += std::to_string(t.tid);
        }
    const double secs = double(finished - start) / 1e9;
    // The records the workload makes by its own count: 2 a system call
    // (its pacing sleeps are calls too), or one a switch of its threads.
    const std::uint64_t records = load == "syscall" ? 2 * (units + sleeps) : switches;
    Json r;
    r.str("load", load)
        .integer("threads", threads)
        .num("rate_asked", rate)
        .integer("units", units)
        .integer("sleeps", sleeps)
        .integer("switches", switches)
        .integer("records_expected", records)
        .num("seconds", secs)
        .num("units_per_s", double(units) / secs)
        .num("records_per_s", double(records) / secs)
        .integer("getppid_nr", SYS_getppid)
        .str("tids", tids);
    return emit_ok(kImpl, a, r);
}
