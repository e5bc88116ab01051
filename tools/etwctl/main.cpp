// etwctl: control trace sessions from the command line. See etwctl.hpp.
#include "etwctl.hpp"

#include <openetw/session.h>

#include <cstdio>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    const int result = etwctl::run(args, stdout, stderr);
    // Sessions run in the session host (openetw-hostd) and outlive etwctl.
    // Where no host could be reached they ran here: they are stopped so
    // that their log files are complete before the process (and they) end.
    if (const std::size_t n = etwctl::stop_started_sessions())
        std::fprintf(stderr,
                     "etwctl: note: no session host could be reached (openetw-hostd not found: install it or "
                     "set OPENETW_HOSTD), so %zu session(s) ran in this process and were stopped at exit.\n",
                     n);
    return result;
}
