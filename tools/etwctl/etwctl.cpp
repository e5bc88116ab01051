// etwctl: start, stop, query, list, flush, update and enable trace sessions.
// See etwctl.hpp and `etwctl help`. This file dispatches a command line to
// its command: options.cpp parses words, output.cpp prints, commands.cpp
// acts on sessions, script.cpp runs scripts, usage.cpp holds the help text.
#include "etwctl.hpp"

#include "commands.hpp"
#include "options.hpp"
#include "output.hpp"
#include "script.hpp"
#include "usage.hpp"

namespace etwctl {

int run(const std::vector<std::string> &args, std::FILE *out, std::FILE *err)
{
    using namespace detail;
    Ctx c{out, err, false, {}};
    const std::vector<std::string> a = strip_global(args, &c.json);
    if (a.empty() || a[0] == "help" || a[0] == "--help" || a[0] == "-h") {
        std::fprintf(a.empty() ? err : out, "%s", kUsage);
        return a.empty() ? 2 : 0;
    }
    c.command = a[0];
    if (c.command == "start") {
        Args p = split(a, 1, {"real-time", "realtime", "buffering", "lossless", "in-process"});
        return p.error.empty() ? cmd_start(c, p) : c.usage(p.error);
    }
    if (c.command == "stop" || c.command == "query" || c.command == "flush" || c.command == "update") {
        Args p = split(a, 1, {});
        if (!p.error.empty())
            return c.usage(p.error);
        if ((c.command == "stop" || c.command == "query") && !p.options.empty())
            return c.usage(c.command + " takes no options");
        return cmd_simple(c, p);
    }
    if (c.command == "list") {
        Args p = split(a, 1, {});
        return cmd_list(c, p);
    }
    if (c.command == "enable") {
        Args p = split(a, 1, {"disable"});
        return p.error.empty() ? cmd_enable(c, p) : c.usage(p.error);
    }
    if (c.command == "providers") {
        Args p = split(a, 1, {});
        return p.error.empty() ? cmd_providers(c, p) : c.usage(p.error);
    }
    if (c.command == "capture-state") {
        Args p = split(a, 1, {});
        return p.error.empty() ? cmd_capture_state(c, p) : c.usage(p.error);
    }
    if (c.command == "grant") {
        Args p = split(a, 1, {});
        return p.error.empty() ? cmd_grant(c, p) : c.usage(p.error);
    }
    if (c.command == "collect") {
        Args p = split(a, 1, {"force"});
        return p.error.empty() ? cmd_collect(c, p) : c.usage(p.error);
    }
    if (c.command == "sleep")
        return cmd_sleep(c, a);
    if (c.command == "script")
        return script::cmd_script(c, a);
    return c.usage("unknown command \"" + c.command + "\"");
}

} // namespace etwctl
