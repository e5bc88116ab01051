// openetw-bench: the OpenETW engine through its public C ABI
// (libopenetw.so.1), one measurement per process; see common.hpp. This file
// chooses the workload (--kind) and the registry; each workload is in an
// openetw_*.cpp file of its own.
#include "openetw_bench.hpp"

#include <glob.h>
#include <unistd.h>

using namespace bench;
using namespace bench::ours;

namespace bench::ours {

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

} // namespace bench::ours

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
    if (kind == "syslogger")
        return kind_syslogger(a);
    if (kind == "kernel-count")
        return kind_kernel_count(a);
    if (kind == "info") {
        Json j;
        j.str("version", etw_version_string())
            .str("cpu", machine_cpu())
            .integer("cpus", cpu_count())
            .integer("rt_consumer", RtConsumer::available() ? 1 : 0);
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
