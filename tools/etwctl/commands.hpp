// etwctl's session commands: each takes the command's context (name, output)
// and its split arguments, and returns the exit status (0 ok, 1 a call
// failed, 2 a usage error).
#pragma once

#include "options.hpp"
#include "output.hpp"

namespace etwctl::detail {

int cmd_start(Ctx &c, const Args &a);
int cmd_simple(Ctx &c, const Args &a); // stop, query, flush and update
int cmd_list(Ctx &c, const Args &a);
int cmd_enable(Ctx &c, const Args &a);
int cmd_grant(Ctx &c, const Args &a);
// providers [GUID]; capture-state NAME GUID [--level L] [--flags F] [--all-flags F] (providers.cpp)
int cmd_providers(Ctx &c, const Args &a);
int cmd_capture_state(Ctx &c, const Args &a);
// collect URL --output DIR [--machine M] [--session S] [--force] [--credentials FILE]
// (collect.cpp, in etwctl_collect: it needs the library's internal part).
int cmd_collect(Ctx &c, const Args &a);
int cmd_sleep(Ctx &c, const std::vector<std::string> &a); // a: the command line, "sleep" first

} // namespace etwctl::detail
