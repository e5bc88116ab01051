// etwctl as a library: the command interpreter behind the etwctl program,
// usable from tests (and any program) so that its commands can act on the
// sessions of the calling process. Uses only the public C API.
//
// Sessions are in-process today: an etwctl process sees only the sessions
// it started itself. `etwctl script FILE` (or `-` for stdin) runs many
// commands in one process; a program can call etwctl_run to drive its own
// sessions. Cross-process visibility comes with the shared-memory registry.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace etwctl {

// Runs one command line (args without the program name). Output goes to out,
// errors (the status name and message) to err. Returns 0 on success, 1 on
// failure, 2 on a usage error.
int run(const std::vector<std::string> &args, std::FILE *out, std::FILE *err);

// Runs every line of a script (blank lines and lines starting with # are
// skipped; words split on blanks, "double quotes" group). Stops at the first
// failing line unless keep_going. Returns 0 when every line succeeded.
int run_script(std::FILE *in, std::FILE *out, std::FILE *err, bool json, bool keep_going);

// Names of the sessions started by run() in this process and not yet
// stopped by it (the program stops them at exit so their files are complete).
std::vector<std::string> started_sessions();

} // namespace etwctl
