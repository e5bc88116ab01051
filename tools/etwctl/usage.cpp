// etwctl's help text. See usage.hpp.
#include "usage.hpp"

namespace etwctl::detail {

const char kUsage[] = // external: declared in usage.hpp
    "usage: etwctl [--json] COMMAND ...\n"
    "  start NAME [--file PATH] [--mode MODES] [--real-time] [--buffering]\n"
    "             [--buffer-size KB] [--min-buffers N] [--max-buffers N] [--max-file-size N]\n"
    "             [--flush-timer S] [--enable-flags F] [--flush-threshold N] [--guid GUID]\n"
    "             [--clock qpc|system|cycle|N] [--lossless[=MS]] [--backlog N] [--in-process]\n"
    "             [--stackwalk EVENTS] [--profile-interval N]\n"
    "             [--export nats://HOST:PORT/STREAM [--export-credentials FILE]]\n"
    "  stop NAME          query NAME          list\n"
    "  flush NAME [--file PATH]   (a buffering session writes its buffers to PATH)\n"
    "  update NAME [--file PATH] [--flush-timer S] [--max-buffers N] [--enable-flags F]\n"
    "             [--stackwalk EVENTS] [--profile-interval N]\n"
    "  enable NAME PROVIDER-GUID [--level L] [--flags F] [--all-flags F] [--disable]\n"
    "  grant NAME UID RIGHTS   RIGHTS: control,log,consume joined by , or all, none\n"
    "  script FILE|- [--keep-going]   run one command per line in this process\n"
    "  sleep MS                       (scripts) wait\n"
    "MODES: a list joined by , or | of sequential circular append newfile preallocate\n"
    "  real-time buffering private private-in-proc no-per-processor kbytes system-logger\n"
    "  nonstoppable secure delay-open add-header global-sequence local-sequence\n"
    "  independent, or numbers (0x...).\n"
    "F (--enable-flags, system loggers: \"NT Kernel Logger\" or --mode system-logger): kernel\n"
    "  flags joined by , + or |: process thread image_load disk_io cswitch network_tcpip ...\n"
    "  (documented names and xperf groups too, docs/KERNEL_LOGGER.md), or a number.\n"
    "EVENTS (--stackwalk, system loggers): kernel events whose records carry their call stack,\n"
    "  xperf's -stackwalk names joined by , + or |: Profile CSwitch SyscallEnter ... or 0xmmnn\n"
    "  (group mm, type nn); none turns stacks off. N (--profile-interval): the sampled\n"
    "  profile's interval in 100 ns units, 1221 to 10000000 (default 10000, 1 ms).\n"
    "Sessions are system-wide (docs/SYSTEM_SESSIONS.md): `start` hands the session to the\n"
    "session host (openetw-hostd, started on demand), so it runs until someone stops it;\n"
    "every command works from any process. When no host can be reached or started, `start`\n"
    "fails and says why. --in-process runs the session in etwctl instead: it is stopped\n"
    "when etwctl exits (in a `script`, after the last line).\n"
    "--export also publishes every buffer to a NATS JetStream stream (docs/FLEET.md); its\n"
    "credentials come from FILE or the file $OPENETW_NATS_CREDENTIALS names, never the command\n"
    "line. `etwdump nats://HOST:PORT/STREAM` reads the stream back.\n";

} // namespace etwctl::detail
