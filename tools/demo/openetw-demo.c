/*
 * openetw-demo: writes events from several threads through the demo
 * provider into a session and prints what became of them. It starts its
 * own session (file, real-time or buffering mode) or, with --attach,
 * writes into a running session that another process controls.
 */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    fprintf(stderr,
            "usage: openetw-demo [--mode sequential|circular|newfile|append|realtime|buffering] [--output FILE]\n"
            "                    [--session NAME] [--events N] [--threads T] [--payload BYTES] [--buffer-kb K]\n"
            "                    [--min-buffers N] [--max-buffers N] [--max-file-mb M] [--clock 1|2|3]\n"
            "       openetw-demo --attach NAME [--events N] [--threads T] [--payload BYTES]\n"
            "\n"
            "Starts a session, enables the demo provider (" DEMO_PROVIDER_TEXT "),\n"
            "writes N events from T threads, stops the session and prints the statistics.\n"
            "  --mode sequential|circular|newfile|append  a log file session (default sequential)\n"
            "  --mode realtime   a real-time session consumed live by a consumer thread of this\n"
            "                    process; prints events delivered and lost and checks that\n"
            "                    delivered + lost == written (exit 1 on a mismatch). No log file\n"
            "                    unless --output is given (then file + lost == written is checked)\n"
            "  --mode buffering  an in-memory flight recorder: after writing, flushes the buffers\n"
            "                    it holds (the newest) to --output and counts the events there\n"
            "  --output FILE     the log file (default openetw-demo.etl; newfile needs a %%d)\n"
            "  --session NAME    the session name (default openetw-demo)\n"
            "  --attach NAME     be a provider process only: write into the running session NAME,\n"
            "                    which must enable the demo provider within 5 s (etwctl enable);\n"
            "                    the session is neither started nor stopped; exit 0 only if every\n"
            "                    event was written (ETW_OK while a session enabled the provider;\n"
            "                    once it stops, events are not written and counted as not logged)\n"
            "  --events N        events to write, in all (default 100000)\n"
            "  --threads T       writer threads, 1..256 (default 2)\n"
            "  --payload BYTES   payload bytes per event, at most 65000 (default 64)\n"
            "  --buffer-kb K     BufferSize in KB (default 64)\n"
            "  --min-buffers N, --max-buffers N  MinimumBuffers, MaximumBuffers (0: the engine's)\n"
            "  --max-file-mb M   MaximumFileSize in MB (0: none)\n"
            "  --clock 1|2|3     ClientContext: 1 QPC, 2 system time, 3 CPU cycle counter\n");
}

static int parse_mode(struct demo_options *o)
{
    static const struct {
        const char *name;
        uint32_t mode;
    } modes[] = {{"sequential", ETW_FILE_MODE_SEQUENTIAL}, {"circular", ETW_FILE_MODE_CIRCULAR},
                 {"newfile", ETW_FILE_MODE_NEWFILE},       {"append", ETW_FILE_MODE_APPEND},
                 {"realtime", ETW_REAL_TIME_MODE},         {"buffering", ETW_BUFFERING_MODE}};
    size_t i;
    for (i = 0; i < sizeof modes / sizeof modes[0]; ++i) {
        if (strcmp(o->mode_name, modes[i].name) == 0) {
            o->mode = modes[i].mode;
            return 1;
        }
    }
    return 0;
}

/* 1 when parsed; else the exit status (0 for --help, 2 for bad usage) in *exit_code. */
static int parse(int argc, char **argv, struct demo_options *o, int *exit_code)
{
    int i;
    memset(o, 0, sizeof *o);
    o->session = "openetw-demo";
    o->output = "openetw-demo.etl";
    o->mode_name = "sequential";
    o->events = 100000;
    o->threads = 2;
    o->buffer_kb = 64;
    o->clock = 1;
    o->payload = 64;
    *exit_code = 2;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *exit_code = 0;
            return 0;
        }
        if (!v)
            return 0;
        ++i;
        if (strcmp(a, "--output") == 0) {
            o->output = v;
            o->output_given = 1;
        } else if (strcmp(a, "--mode") == 0)
            o->mode_name = v;
        else if (strcmp(a, "--session") == 0)
            o->session = v;
        else if (strcmp(a, "--attach") == 0)
            o->attach = v;
        else if (strcmp(a, "--events") == 0)
            o->events = strtoul(v, NULL, 10);
        else if (strcmp(a, "--threads") == 0)
            o->threads = strtoul(v, NULL, 10);
        else if (strcmp(a, "--buffer-kb") == 0)
            o->buffer_kb = strtoul(v, NULL, 10);
        else if (strcmp(a, "--min-buffers") == 0)
            o->min_buffers = strtoul(v, NULL, 10);
        else if (strcmp(a, "--max-buffers") == 0)
            o->max_buffers = strtoul(v, NULL, 10);
        else if (strcmp(a, "--max-file-mb") == 0)
            o->max_file_mb = strtoul(v, NULL, 10);
        else if (strcmp(a, "--clock") == 0)
            o->clock = strtoul(v, NULL, 10);
        else if (strcmp(a, "--payload") == 0)
            o->payload = strtoul(v, NULL, 10);
        else
            return 0;
    }
    return parse_mode(o);
}

int main(int argc, char **argv)
{
    struct demo_options o;
    int code;
    if (!parse(argc, argv, &o, &code)) {
        usage();
        return code;
    }
    if (o.threads < 1 || o.threads > DEMO_MAX_THREADS || o.payload > 65000) {
        fprintf(stderr, "openetw-demo: --threads must be 1..%d and --payload at most 65000\n", DEMO_MAX_THREADS);
        return 2;
    }
    if (o.attach)
        return demo_run_attach(&o);
    if (o.mode == ETW_REAL_TIME_MODE)
        return demo_run_realtime(&o);
    if (o.mode == ETW_BUFFERING_MODE)
        return demo_run_buffering(&o);
    return demo_run_file_mode(&o);
}
