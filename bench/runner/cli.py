"""The command line of bench/run and the order of a run: build (or find)
the programs, choose the experiments, start the LTTng daemon, write the
consumer inputs, run, run the system-logger figure (kernel_logger.py),
stop the daemon, and report. It owns the exit code:
1 only when a smoke run had a failed measurement, so that the bench-smoke
test fails on a broken program and a measuring run does not."""

import argparse
import datetime
import os
import shutil
import signal
import tempfile

from . import programs
from .build import build
from .consumer_files import note_large_residency, prepare_consumer_files, prepare_large_file
from .experiments import NA, plan
from .goals import evaluate_goals
from .kernel_logger import markdown as kernel_markdown
from .kernel_logger import run_kernel_figure
from .peers import NatsServer, SessionDaemon
from .programs import HERE, PROGRAM, ROOT, log
from .report import machine_info, markdown, update_doc, write_json
from .scheduling import run_all
from .statistics import build_figures

def parse_args(usage):
    ap = argparse.ArgumentParser(description=usage, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", action="store_const", dest="mode", const="quick")
    g.add_argument("--full", action="store_const", dest="mode", const="full")
    g.add_argument("--smoke", action="store_const", dest="mode", const="smoke")
    ap.add_argument("--reps", type=int, help="fresh processes per figure and implementation")
    ap.add_argument("--bin-dir", help="use the programs in this folder (no build)")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--work-dir", help="folder for trace files (default: a new folder under /var/tmp)")
    ap.add_argument("--json", help="JSON output (default bench/results/latest.json; smoke: none)")
    ap.add_argument("--update-doc", action="store_true", help="write the table into bench/PERFORMANCE.md")
    ap.add_argument("--lib-dir", help="run the OpenETW figures against the libopenetw.so.1 in this folder")
    ap.add_argument("--no-lttng", action="store_true")
    ap.add_argument("--no-callgrind", action="store_true")
    ap.add_argument("--no-kernel", action="store_true",
                    help="leave out the system-logger figure (OpenETW's NT Kernel Logger against perf record)")
    ap.add_argument("--only", help="run only experiments whose id contains this text (comma-separated)")
    ap.add_argument("--etwdump", help="the etwdump program (default: tools/etwdump/etwdump of the build)")
    ap.add_argument("--consumer-baseline", metavar="BUILD_DIR",
                    help="another tree's build folder (libopenetw.so.1, tools/etwdump/etwdump): the 1 GB consumer "
                         "rows are measured with it too, interleaved")
    return ap.parse_args()


def choose_experiments(opt, mode, work):
    """The experiments of the mode, narrowed by --only and to what can run."""
    # The 1 GB consumer file is part of --full, or asked for by name.
    large = mode == "full" or bool(opt.only and "consumer.large" in opt.only)
    exps = plan(mode, work, large)
    if opt.only:
        keys = opt.only.split(",")
        chosen = [e for e in exps if any(k in e.id for k in keys)]
        # Partners come along (write.remote with its in-process reference).
        pairs = {getattr(e, "partner", None) for e in chosen} - {None}
        exps = [e for e in exps if e in chosen or getattr(e, "partner", None) in pairs]
    if opt.no_callgrind or mode == "smoke" or not shutil.which("valgrind"):
        exps = [e for e in exps if not e.callgrind]
    return exps


def kernel_wanted(opt):
    """(run it, why not): the system-logger figure runs in every mode (its
    smoke form: one short step) unless --no-kernel, or --only names other
    experiments alone."""
    if opt.no_kernel:
        return False, "--no-kernel"
    if opt.only and not any("kernel" in k for k in opt.only.split(",")):
        return False, "--only %s does not name it (--only kernel)" % opt.only
    return True, ""


def available_programs(opt, mode, bin_dir):
    """impl -> whether it runs; "lttng_why" says why LTTng does not."""
    have = {"ours": os.path.exists(os.path.join(bin_dir, PROGRAM["ours"])),
            "floor": os.path.exists(os.path.join(bin_dir, PROGRAM["floor"])),
            "lttng": os.path.exists(os.path.join(bin_dir, PROGRAM["lttng"])) and not opt.no_lttng and mode != "smoke"}
    if not os.path.exists(os.path.join(bin_dir, PROGRAM["lttng"])):
        have["lttng_why"] = "not built (liblttng-ust-dev / liblttng-ctl-dev missing)"
    elif mode == "smoke" or opt.no_lttng:
        have["lttng_why"] = "LTTng not run in this mode"
    return have


def main(usage):
    """usage: the text --help prints (bench/run's own docstring)."""
    opt = parse_args(usage)
    mode = opt.mode or "quick"
    programs.LIB_DIR = os.path.abspath(opt.lib_dir) if opt.lib_dir else None
    reps = opt.reps or {"full": 5, "quick": 3, "smoke": 1}[mode]

    bin_dir = opt.bin_dir or build(opt.build_dir)
    work = opt.work_dir or tempfile.mkdtemp(prefix="openetw-bench-", dir="/var/tmp")
    os.makedirs(work, exist_ok=True)
    programs.BASELINE_DIR = os.path.abspath(opt.consumer_baseline) if opt.consumer_baseline else None
    programs.ETWDUMP = os.path.abspath(opt.etwdump) if opt.etwdump else None
    exps = choose_experiments(opt, mode, work)
    have = available_programs(opt, mode, bin_dir)

    machine = machine_info()
    machine["openetw_library"] = programs.LIB_DIR or "built from this tree"
    daemon = SessionDaemon(os.path.join(work, "lttng-sessiond.log"))
    nats = NatsServer(work)
    raw = []
    started = datetime.datetime.now().astimezone()

    def on_signal(signum, frame):
        daemon.stop()
        nats.stop()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        if have["lttng"]:
            if not daemon.start():
                have["lttng"] = False
                have["lttng_why"] = daemon.note
            log(daemon.note)
        export_rows = [e for e in exps if getattr(e, "needs_nats", False)]
        if export_rows:
            nats.start()
            log(nats.note)
            for e in export_rows:
                if nats.url:
                    e.impl_args["ours"]["export-server"] = nats.url
                    e.impl_args["ours"]["server-pid"] = str(nats.proc.pid)
                else:
                    e.na["ours"] = NA(nats.note)
        prepare_consumer_files(exps, bin_dir, work, have, raw)
        prepare_large_file(exps, bin_dir, work, raw)
        elapsed = run_all(exps, bin_dir, work, reps, have, raw)
        note_large_residency(exps)
        run_kernel, why_not = kernel_wanted(opt)
        if run_kernel:
            kernel = run_kernel_figure(mode, bin_dir, work, reps, raw)
            elapsed += kernel.get("seconds", 0)
        else:
            kernel = {"skipped": why_not, "steps": []}
            log("bench/run: the system-logger figure is not run: " + why_not)
    finally:
        daemon.stop()
        nats.stop()
    machine["lttng_sessiond"] = daemon.note
    if nats.note:
        machine["nats_server"] = nats.note
    machine["loadavg_end"] = open("/proc/loadavg").read().strip()
    if not opt.work_dir:
        shutil.rmtree(work, ignore_errors=True)

    figures = build_figures(exps)
    goals = evaluate_goals(figures)
    meta = {"mode": mode, "reps": reps, "date": started.strftime("%Y-%m-%d %H:%M %Z"), "seconds": round(elapsed, 1)}
    table = markdown(figures, goals, machine, meta) if exps else None
    kernel_table = kernel_markdown(kernel, machine, meta)
    print("\n\n".join(t for t in (table, kernel_table) if t))
    doc = {"meta": meta, "machine": machine, "figures": figures, "goals": goals, "kernel": kernel, "runs": raw}
    json_path = opt.json or (None if mode == "smoke" else os.path.join(HERE, "results", "latest.json"))
    if json_path:
        write_json(json_path, doc)
    if opt.update_doc:
        update_doc(table, kernel_table if not kernel.get("skipped") else None)
    log("bench/run: %s mode, %.0f s of measurements" % (mode, elapsed))
    failed = [r for r in raw if not r.get("ok") and r.get("status") != "not_built"]
    if failed:
        log("bench/run: %d run(s) failed:" % len(failed))
        for r in failed[:10]:
            log("  %s: %s" % (r.get("experiment"), r.get("message")))
    return 1 if (failed and mode == "smoke") else 0
