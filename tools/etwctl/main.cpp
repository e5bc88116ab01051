// etwctl: control trace sessions from the command line. See etwctl.hpp.
#include "etwctl.hpp"

#include <openetw/session.h>

#include <cstdio>

int main(int argc, char **argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    const int result = etwctl::run(args, stdout, stderr);
    // Sessions are in-process: stop the ones this run started so that their
    // log files are complete before the process (and the sessions) end.
    const auto left = etwctl::started_sessions();
    if (!left.empty())
        std::fprintf(stderr, "etwctl: note: sessions live in the process that starts them (for now); stopping %zu "
                             "session(s) started here before exiting. Run several commands in one process with "
                             "`etwctl script FILE`.\n", left.size());
    for (const std::string &name : left) {
        etw_session *s = nullptr;
        if (etw_session_open(&s, name.c_str()) == ETW_OK) {
            etw_session_stop(s, nullptr);
            etw_session_close(s);
        }
    }
    return result;
}
