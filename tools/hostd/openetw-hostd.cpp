// openetw-hostd: the session host. Started on demand by the first
// etw_session_start of a namespace (one per user, one system-wide for root),
// or at boot by systemd (openetw-hostd.service / .socket); it owns every
// session of its namespace until they are stopped.
#include "host_server.hpp"
#include "host/system_registry.hpp"
#include "platform/host.hpp"
#include "platform/process.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int usage()
{
    std::fprintf(stderr, "usage: openetw-hostd [--registry PATH] [--idle-exit SECONDS] [--print-channel]\n"
                         "  --registry PATH      the namespace (default: $OPENETW_REGISTRY, or this user's default)\n"
                         "  --idle-exit SECONDS  exit after that long with no session (default 12 when started on\n"
                         "                       demand; 0 = never, the default under systemd)\n"
                         "  --print-channel      print the abstract socket name the host listens under and exit\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    openetw::host::HostConfig config;
    config.registry = openetw::platform::registry_path();
    config.idle_exit_ms = 12000;
    bool print = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--registry" && i + 1 < argc) {
            config.registry = argv[++i];
        } else if (a == "--idle-exit" && i + 1 < argc) {
            char *end = nullptr;
            const long s = std::strtol(argv[++i], &end, 10);
            if (*end != 0 || s < 0 || s > 86400 * 365)
                return usage();
            config.idle_exit_ms = s * 1000;
        } else if (a == "--print-channel") {
            print = true;
        } else {
            return usage();
        }
    }
    if (config.registry.empty() || config.registry == "none") {
        std::fprintf(stderr,
                     "openetw-hostd: sessions are process-local here (OPENETW_REGISTRY=none): nothing to host\n");
        return 1;
    }
    if (print) {
        std::printf("@openetw:%s\n", openetw::host::SystemRegistry::host_channel_name(config.registry).c_str());
        return 0;
    }
    // systemd socket activation: the listening socket is descriptor 3.
    const char *fds = std::getenv("LISTEN_FDS");
    const char *pid = std::getenv("LISTEN_PID");
    if (fds && pid && std::strcmp(fds, "1") == 0 && std::strtoul(pid, nullptr, 10) == openetw::platform::process_id()) {
        config.listener = 3;
        config.idle_exit_ms = 0;
    }
    return openetw::host::run_host(config);
}
