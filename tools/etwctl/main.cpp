// etwctl: control trace sessions from the command line. See etwctl.hpp.
#include "etwctl.hpp"

#include <openetw/session.h>

#include <cstdio>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    const int result = etwctl::run(args, stdout, stderr);
    // Sessions run in the session host (openetw-hostd) and outlive etwctl,
    // unless this process hosts them (asked for, or no hosts on this
    // system): they are stopped so that
    // their log files are complete before the process (and they) end.
    if (const std::size_t n = etwctl::stop_started_sessions())
        std::fprintf(stderr,
                     "etwctl: note: %zu session(s) ran in this process (--in-process, a private session, "
                     "OPENETW_HOST=inprocess, OPENETW_REGISTRY=none, or no session hosts on this system) and "
                     "were stopped at exit.\n",
                     n);
    return result;
}
