// etwctl as a library: the command interpreter behind the etwctl program,
// usable from tests (and any program) so that its commands can act on the
// sessions of the calling process. Uses only the public C API.
//
// Sessions run in the session host (openetw-hostd): `etwctl start` returns
// and the session keeps running; every command works on the sessions of
// the namespace from any process. `etwctl script FILE` (or `-`) runs many
// commands in one process.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace etwctl {

// Runs one command line (args without the program name). Output goes to out,
// errors (the status name and message) to err. Returns 0 on success, 1 on
// failure, 2 on a usage error.
int run(const std::vector<std::string> &args, std::FILE *out, std::FILE *err);

// Runs every line of a script (blank lines and lines starting with # are
// skipped; words split on blanks, "double quotes" group), each as it is read
// (see script.hpp). Stops at the first failing line unless keep_going.
// Returns 0 when every line succeeded, else the status of the last failing
// line (1 also for an unbalanced quote or a stream that cannot be read).
// Stops with 2, whatever keep_going says, at a line that is refused whole
// before any of it runs: one over script::kMaxLineBytes (1 MiB), one holding
// a NUL byte, or a `script` command in any form (scripts do not nest).
int run_script(std::FILE *in, std::FILE *out, std::FILE *err, bool json, bool keep_going);

// Stops the sessions run() started that run in this process (no session
// host was reached), through the handles start kept, so that their files
// are complete before the process ends; returns how many were running.
std::size_t stop_started_sessions();

} // namespace etwctl
