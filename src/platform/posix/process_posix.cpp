// POSIX (Linux first) part of process.hpp: the processor number without
// rseq (the vDSO's getcpu, TSC_AUX), cached process and thread ids reset in
// a forked child, user ids and a process's start time.
#include "platform/process.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <sys/types.h>
#include <unistd.h>

namespace openetw::platform {

namespace {

void reset_pid_after_fork()
{
    detail::g_pid.store(0, std::memory_order_relaxed);
    detail::t_tid = 0;
}

} // namespace

bool run_in_forked_child(void (*fn)()) noexcept { return pthread_atfork(nullptr, nullptr, fn) == 0; }

std::string executable_name()
{
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0)
        return {};
    const std::string full(path, std::size_t(n));
    const std::size_t slash = full.rfind('/');
    return slash == std::string::npos ? full : full.substr(slash + 1);
}

std::uint32_t processor_count() noexcept
{
    static const std::uint32_t n = [] {
        long v = sysconf(_SC_NPROCESSORS_CONF);
        return v < 1 ? 1u : std::uint32_t(v);
    }();
    return n;
}

namespace {
using GetCpu = long (*)(unsigned *cpu, unsigned *node, void *cache);

// The vDSO's getcpu, looked up once. Without rseq, sched_getcpu() would
// check the rseq area again and then call it (or make the system call
// where there is no vDSO: aarch64, valgrind); calling it directly leaves
// out that wrapper, on the write path of every event.
GetCpu vdso_getcpu() noexcept
{
#if defined(__linux__)
    void *vdso = dlopen("linux-vdso.so.1", RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
    if (vdso != nullptr)
        if (void *f = dlsym(vdso, "__vdso_getcpu"))
            return reinterpret_cast<GetCpu>(f);
#endif
    return nullptr;
}
// Looked up as the library loads, not at the first event: a lazy lookup
// would take a guard and the loader's lock on the write path, where a
// signal handler writing an event could re-enter it. (Before this runs it
// is null: the system call, which is as correct.)
const GetCpu g_vdso_getcpu = vdso_getcpu();

unsigned getcpu_call() noexcept
{
    unsigned cpu = 0;
    if (const GetCpu getcpu = g_vdso_getcpu) [[likely]] {
        if (getcpu(&cpu, nullptr, nullptr) != 0)
            cpu = 0;
        return cpu;
    }
#if defined(__linux__) && defined(__x86_64__)
    // The system call itself, as glibc makes it without a vDSO (its
    // variadic syscall() wrapper costs more than the call's setup).
    long rc;
    asm volatile("syscall" : "=a"(rc) : "0"(long(SYS_getcpu)), "D"(&cpu), "S"(0L), "d"(0L) : "rcx", "r11", "memory");
    if (rc != 0)
        cpu = 0;
#elif defined(__linux__) && defined(SYS_getcpu)
    if (syscall(SYS_getcpu, &cpu, nullptr, nullptr) != 0)
        cpu = 0;
#else
    const int c = sched_getcpu();
    cpu = c < 0 ? 0u : unsigned(c);
#endif
    return cpu;
}

#if defined(__linux__) && defined(__x86_64__)
// Which read of TSC_AUX this machine allows (detail::g_aux_read), if any.
int aux_read() noexcept
{
    unsigned a = 0, b = 0, c = 0, d = 0;
    int how = 0;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (c >> 22) & 1)
        how = 1;
    else if (__get_cpuid(0x80000001, &a, &b, &c, &d) && (d >> 27) & 1)
        how = 2;
    if (how == 0 || processor_count() > 4096)
        return 0; // (12 bits of processor number)
    // Trusted where it agrees with the kernel's answer, read between two
    // that agree (the thread did not move meanwhile).
    for (int i = 0; i < 64; ++i) {
        const unsigned before = getcpu_call(), aux = detail::read_aux(how), after = getcpu_call();
        if (before == after)
            return aux == before ? how : 0;
    }
    return 0;
}
#endif
} // namespace

#if defined(__linux__) && defined(__x86_64__)
int detail::g_aux_read = aux_read(); // (at load, as g_vdso_getcpu; 0 before)
#endif

std::uint32_t current_processor_slow() noexcept { return getcpu_call(); }

namespace detail {

// The cached ids are reset in a forked child (registered at the first use).
static void reset_ids_after_fork_once() noexcept
{
    static const bool registered = run_in_forked_child(reset_pid_after_fork);
    (void)registered;
}

std::uint32_t process_id_first() noexcept
{
    reset_ids_after_fork_once();
    const std::uint32_t pid = std::uint32_t(getpid());
    g_pid.store(pid, std::memory_order_relaxed);
    return pid;
}

std::uint32_t thread_id_first() noexcept
{
    reset_ids_after_fork_once();
#if defined(SYS_gettid)
    t_tid = std::uint32_t(syscall(SYS_gettid));
#else
    t_tid = std::uint32_t(reinterpret_cast<std::uintptr_t>(pthread_self()));
#endif
    return t_tid;
}

} // namespace detail

std::uint32_t effective_user_id() noexcept { return std::uint32_t(geteuid()); }
std::uint32_t user_id() noexcept { return std::uint32_t(getuid()); }

std::uint32_t session_id() noexcept
{
    const pid_t sid = getsid(0);
    return sid > 0 ? std::uint32_t(sid) : 0;
}

std::uint64_t process_start_time(std::uint32_t pid) noexcept
{
    if (pid == 0)
        return 0;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%u/stat", pid);
    FILE *f = std::fopen(path, "re");
    if (!f)
        return 0;
    char buf[1024];
    const std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = 0;
    // Field 2 (comm) may hold spaces and parentheses: count from the last ')'.
    const char *p = std::strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    // A zombie is dead for our purpose: its state (field 3) is 'Z' or 'X'.
    if (p[2] == 'Z' || p[2] == 'X')
        return 0;
    int field = 2; // after ')', each space starts the next field; starttime is field 22
    for (++p; *p && field < 22; ++p)
        if (*p == ' ')
            ++field;
    const std::uint64_t t = std::strtoull(p, nullptr, 10);
    return t + 1; // never 0 for a live process
}

} // namespace openetw::platform
