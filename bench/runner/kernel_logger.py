"""The system-logger figure: an OpenETW system logger (NT Kernel Logger,
docs/KERNEL_LOGGER.md) against `perf record` collecting the same
tracepoints, on the same kernel-event load, interleaved in one run.

A load (kernel-workload: getppid() calls for the `systemcall` flag,
raw_syscalls:sys_enter/sys_exit; a pipe ping-pong for `cswitch`,
sched:sched_switch) is stepped through offered rates; at each step each
collector records it system-wide into a file, one after the other, `reps`
times. Per run: the collector starts (and is ready: OpenETW's start returned
after its rundown, perf acknowledged "enable"), its CPU time is read from
/proc, the workload runs, 0.3 s later (a few of the logger's 20 ms drains)
the CPU time is read again, the collector stops, and its file is counted.

Reported per step and collector: the workload's own rate (its count of
calls or switches), the events recorded per workload second (every record
of those tracepoints in the file, the machine's background included), the
events lost (EventsLost; perf's lost samples), the collector's CPU per
recorded event and as a share of one processor, the file bytes per recorded
event, and the workload's events found in the file over its own count (the
cross-check). The sustained rate with nothing lost is the highest recorded
rate of a step at which no run of the collector lost anything."""

import glob
import os
import statistics
import subprocess
import time

from . import programs
from .perf_record import PerfRecord, ensure_perf, perf_stats, samples_of_threads
from .programs import PROGRAM, args_list, log, ours_env, parse_output

COLLECTORS = ("ours", "perf", "perf-x")
NAMES = {"ours": "OpenETW system logger", "perf": "perf record", "perf-x": "perf record --exclude-perf"}
WORKLOAD = "kernel-workload"
SETTLE_S = 0.3

# perf records its own system calls, as the system logger does; but perf
# writes what it reads at once and polls again, and recording system calls
# system-wide those writes and polls are new samples to read: it keeps
# itself busy (seen: 46 % of a processor with a 40 k events/s workload).
# So system calls are also recorded with --exclude-perf (an in-kernel filter
# common_pid != perf's pid), the way perf users trace system calls.
# OpenETW's logger drains every 20 ms, so its own calls are a few hundred a second.
def applies(coll, load):
    return coll != "perf-x" or load == "syscall"


# Per load: the OpenETW flag, perf's tracepoints, and perf's ring pages a
# processor matched to the rings the system logger opens for them
# (src/kernel/system_logger.cpp: 1024 pages for each system-call
# tracepoint, 256 for sched_switch; perf shares one ring a processor among
# its events).
LOADS = {
    "syscall": {"flags": "systemcall", "tracepoints": ["raw_syscalls:sys_enter", "raw_syscalls:sys_exit"],
                "perf_pages": 2048, "unit": "getppid() calls", "what": "system calls"},
    "cswitch": {"flags": "cswitch", "tracepoints": ["sched:sched_switch"], "perf_pages": 256,
                "unit": "pipe round trips", "what": "context switches"},
}
BUFFER_KB, BUFFERS_PER_CPU = 64, 32  # the system logger's own buffers: 2 MB a processor


class Step:
    """One offered load: threads (or thread pairs) and a rate (0: flat out)."""

    def __init__(self, load, threads, rate, seconds):
        self.load, self.threads, self.rate, self.seconds = load, threads, rate, seconds
        self.runs = {c: [] for c in COLLECTORS}
        self.failed = {c: None for c in COLLECTORS}

    @property
    def id(self):
        return "kernel.%s.t%d.%s" % (self.load, self.threads, "max" if not self.rate else "%dk" % (self.rate / 1000))

    @property
    def label(self):
        unit = "calls" if self.load == "syscall" else "round trips"
        pace = "flat out" if not self.rate else "%s %s/s" % (fmt_rate(self.rate), unit)
        who = "thread" if self.load == "syscall" else "pair"
        return "%s, %d %s%s" % (pace, self.threads, who, "s" * (self.threads > 1))


def plan(mode):
    """The steps of a mode: paced rates, then flat out with 1 and 2 threads."""
    if mode == "smoke":
        return [Step("syscall", 1, 20000, 0.3)]
    secs = 2.0
    calls = (50e3, 100e3, 200e3, 400e3) if mode == "full" else (100e3, 300e3)
    # A round trip is two switches on one processor: 50 k/s is 100 k
    # switches a second there, about what 1 MB rings drained every 100 ms hold.
    trips = (10e3, 25e3, 40e3, 50e3) if mode == "full" else (20e3, 35e3, 50e3)
    steps = [Step("syscall", 1, r, secs) for r in calls]
    steps += [Step("syscall", 1, 0, secs), Step("syscall", 2, 0, secs)]
    steps += [Step("cswitch", 1, r, secs) for r in trips]
    steps += [Step("cswitch", 1, 0, secs), Step("cswitch", 2, 0, secs)]
    return steps


def fmt_rate(v):
    if v is None:
        return "—"
    if v >= 1e6:
        return "%.2f M" % (v / 1e6)
    if v >= 1e3:
        return "%.0f k" % (v / 1e3)
    return "%.0f" % v


# ---------------------------------------------------------------- CPU time

def cpu_ns(pid, tid=None):
    """CPU time (user + system) of a process's living threads, or of one
    thread, in ns: /proc/PID/task/TID/schedstat's first field (the
    scheduler's exact runtime); utime + stime of /proc/.../stat (10 ms
    ticks) where schedstat is missing."""
    tasks = [str(tid)] if tid else os.listdir("/proc/%d/task" % pid)
    total = 0
    for t in tasks:
        base = "/proc/%d/task/%s/" % (pid, t)
        try:
            with open(base + "schedstat") as f:
                total += int(f.read().split()[0])
                continue
        except (OSError, ValueError, IndexError):
            pass
        try:
            with open(base + "stat") as f:
                st = f.read()
            fields = st[st.rindex(")") + 2:].split()
            total += (int(fields[11]) + int(fields[12])) * 1000000000 // os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
    return total


# ---------------------------------------------------------------- one run

def run_workload(bin_dir, step):
    a = {"load": step.load, "threads": step.threads, "rate": int(step.rate), "seconds": step.seconds}
    r = subprocess.run([os.path.join(bin_dir, WORKLOAD)] + args_list(a), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=step.seconds + 60)
    res = parse_output(r.stdout)
    if not res or not res.get("ok"):
        raise RuntimeError("kernel-workload failed: %s" % (res.get("message") if res else r.stderr[-300:]))
    return res["result"]


def measured(collector_pid, step, bin_dir, logger_tid=None):
    """Runs the workload while the collector records; the collector's CPU
    time when it is ready (before the workload) and the workload's figures.
    The CPU is counted to the collector's exit (reaped()): perf, woken by
    nothing but a ring's watermark, may read most of its ring at the stop."""
    m = {"cpu0_ns": cpu_ns(collector_pid), "t0": time.monotonic()}
    if logger_tid:
        m["logger0_ns"] = cpu_ns(collector_pid, logger_tid)
    m["workload"] = run_workload(bin_dir, step)
    time.sleep(SETTLE_S)
    if logger_tid:
        # The logger thread while the workload ran (it ends at the stop).
        m["logger_thread_cpu_ns"] = cpu_ns(collector_pid, logger_tid) - m["logger0_ns"]
    return m


def reaped(pid, m, timeout=120):
    """Waits for the collector (a child) to exit and completes m with its
    CPU from ready to exit (wait4's rusage: every thread, ended ones too)."""
    deadline = time.monotonic() + timeout
    while True:
        got, status, ru = os.wait4(pid, os.WNOHANG)
        if got == pid:
            break
        if time.monotonic() > deadline:
            raise RuntimeError("collector %d did not exit within %d s" % (pid, timeout))
        time.sleep(0.01)
    total = int((ru.ru_utime + ru.ru_stime) * 1e9)
    m["cpu_ns"] = total - m["cpu0_ns"]
    m["window_s"] = time.monotonic() - m["t0"]
    m["collector_total_cpu_ns"] = total
    return os.waitstatus_to_exitcode(status)


def run_ours(bin_dir, step, path):
    spec = LOADS[step.load]
    a = {"kind": "syslogger", "flags": spec["flags"], "file": path, "buffer-kb": BUFFER_KB,
         "buffers-per-cpu": BUFFERS_PER_CPU, "registry": "fresh"}
    prog = os.path.join(bin_dir, PROGRAM["ours"])
    p = subprocess.Popen([prog] + args_list(a), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=ours_env(dict(os.environ)))
    ready = p.stdout.readline()
    hello = parse_output(ready) or {}
    if not hello.get("ready"):
        out, err = p.communicate(timeout=60)
        res = parse_output(ready + out) or {}
        if res.get("status") == "not_built":
            return {"na": res.get("message", "not available")}
        raise RuntimeError("system logger did not start: %s" % (res.get("message") or err.strip()[-300:]))
    m = {"cpu0_ns": 0, "t0": time.monotonic()}  # reaped even when the workload fails
    try:
        m = measured(p.pid, step, bin_dir, int(hello.get("logger_tid", 0)) or None)
    finally:
        p.stdin.write("stop\n")
        p.stdin.close()
        out, err = p.stdout.read(), p.stderr.read()
        p.returncode = reaped(p.pid, m)
    res = parse_output(out)
    if not res or not res.get("ok"):
        raise RuntimeError("system logger stop: %s" % (res.get("message") if res else err.strip()[-300:]))
    st = res["result"]
    wl = m["workload"]
    count_args = {"kind": "kernel-count", "file": path, "tids": wl["tids"], "syscall": wl["getppid_nr"]}
    r = subprocess.run([prog] + args_list(count_args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=ours_env(dict(os.environ)), timeout=600)
    cnt = parse_output(r.stdout)
    if not cnt or not cnt.get("ok"):
        raise RuntimeError("counting the file: %s" % (cnt.get("message") if cnt else r.stderr[-300:]))
    c = cnt["result"]
    recorded = c["sysclenter"] + c["sysclexit"] if step.load == "syscall" else c["cswitch"]
    # The workload's records: its getppid calls' SysClEnter (SysClExit does
    # not name the call), or the switches away from its threads.
    if step.load == "syscall":
        found, expected = c["sysclenter_matched"], wl["units"]
    else:
        found, expected = c["cswitch_matched"], wl["switches"]
    return figures(step, m, recorded, st["events_lost"], st["file_bytes"], found, expected,
                   extra={"counts": c, "session": st, "start_ms": hello.get("start_ms")})


def run_perf(bin_dir, step, path, work, exclude_perf):
    spec = LOADS[step.load]
    rec = PerfRecord(spec["tracepoints"], spec["perf_pages"], path, work, exclude_perf)
    why = rec.start()
    if why:
        rec.interrupt()
        if rec.proc is not None and rec.proc.poll() is None:
            rec.proc.wait(timeout=60)
        rec.close(rec.proc.returncode if rec.proc else None)
        # perf that cannot record here (rights, a kernel without the
        # tracepoints) is not available, as OpenETW's refused start is.
        return {"na": why}
    m = {"cpu0_ns": 0, "t0": time.monotonic()}  # reaped even when the workload fails
    try:
        m = measured(rec.pid, step, bin_dir)
    finally:
        rec.interrupt()
        why = rec.close(reaped(rec.pid, m))
    if why:
        raise RuntimeError(why)
    st = perf_stats(path)
    recorded = sum(st["samples"].get(t, 0) for t in spec["tracepoints"])
    wl = m["workload"]
    tids = wl["tids"].split(",")
    found = samples_of_threads(path, tids)
    # perf's samples name the thread: every system call of the workload's
    # threads (2 records each, pacing sleeps included), or its switches.
    expected = wl["records_expected"]
    return figures(step, m, recorded, st["lost"], os.path.getsize(path), found, expected,
                   extra={"perf_samples": st["samples"], "perf_lost_records": st["lost_records"],
                          "perf_cmd": " ".join(rec.command())})


def figures(step, m, recorded, lost, file_bytes, found, expected, extra):
    wl = m["workload"]
    r = {"offered_per_s": wl["records_per_s"], "units_per_s": wl["units_per_s"],
         "recorded": recorded, "recorded_per_s": recorded / wl["seconds"],
         "lost": lost, "lost_fraction": lost / (recorded + lost) if recorded + lost else 0.0,
         "cpu_ns_per_event": m["cpu_ns"] / recorded if recorded else None,
         "cpu_share": m["cpu_ns"] / 1e9 / m["window_s"],
         "bytes_per_event": file_bytes / recorded if recorded else None,
         "file_bytes": file_bytes, "found": found, "expected": expected,
         "found_ratio": found / expected if expected else None,
         # Workload events missing from the file beyond every event the
         # collector says it lost: a loss it did not count (a defect).
         "unaccounted": max(0, expected - found - lost),
         "workload": wl, "collector_cpu_ns": m["cpu_ns"], "window_s": m["window_s"]}
    if "logger_thread_cpu_ns" in m:
        r["logger_thread_cpu_ns"] = m["logger_thread_cpu_ns"]
    r.update(extra)
    return r


# ---------------------------------------------------------------- the run

def run_kernel_figure(mode, bin_dir, work, reps, raw):
    """Runs every step, collectors interleaved; returns the figure (a dict
    for the JSON and the markdown), or None when it cannot run at all."""
    steps = plan(mode)
    have = {c: None for c in COLLECTORS}  # None: runs; else why not
    if not os.path.exists(os.path.join(bin_dir, WORKLOAD)):
        return {"skipped": "kernel-workload not built", "steps": []}
    ok, note = ensure_perf(install=mode != "smoke")
    if not ok:
        have["perf"] = have["perf-x"] = note
    # At most 3: a step's runs take 5-10 s each, and --full's 5 would add 15 minutes.
    reps = 1 if mode == "smoke" else min(reps, 3)
    log("[kernel] the system logger against perf record: %d steps x %d reps (%s)" % (
        len(steps), reps, "perf: " + note if ok else "perf n/a: " + note))
    t_start = time.time()
    for rep in range(reps):
        for step in steps:
            for coll in COLLECTORS:
                if not applies(coll, step.load) or have[coll] is not None or step.failed[coll]:
                    continue
                path = os.path.join(work, "k-%s-%s-%d.%s" % (coll, step.id.replace(".", "_"), rep,
                                                              "etl" if coll == "ours" else "data"))
                res = {"experiment": step.id, "impl": coll, "rep": rep}
                try:
                    r = (run_ours(bin_dir, step, path) if coll == "ours" else
                         run_perf(bin_dir, step, path, work, coll == "perf-x"))
                    if "na" in r:
                        have[coll] = r["na"]
                        res.update(ok=False, status="not_built", message=r["na"])
                        log("   %s: n/a: %s" % (NAMES[coll], r["na"]))
                    else:
                        step.runs[coll].append(r)
                        res.update(ok=True, result=r)
                        log("   rep %d %s %-14s offered %s/s recorded %s/s lost %d cpu %.0f ns/ev (%.0f%% of a CPU) "
                            "%.1f B/ev found %.4f" % (
                                rep, step.id, coll, fmt_rate(r["offered_per_s"]), fmt_rate(r["recorded_per_s"]),
                                r["lost"], r["cpu_ns_per_event"] or 0, 100 * r["cpu_share"],
                                r["bytes_per_event"] or 0, r["found_ratio"] or 0))
                except (RuntimeError, OSError, subprocess.TimeoutExpired, ValueError, KeyError) as e:
                    step.failed[coll] = str(e)
                    res.update(ok=False, status="error", message=str(e))
                    log("   %s %s failed: %s" % (step.id, coll, e))
                finally:
                    for f in glob.glob(path + "*"):
                        os.unlink(f)
                raw.append(res)
    return summarize(steps, have, reps, time.time() - t_start)


def med(runs, key):
    vals = [r[key] for r in runs if isinstance(r.get(key), (int, float))]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def summarize(steps, have, reps, seconds):
    keys = ("offered_per_s", "recorded_per_s", "lost", "lost_fraction", "cpu_ns_per_event", "cpu_share",
            "bytes_per_event", "found_ratio")
    rows, sustained = [], {}
    for step in steps:
        row = {"id": step.id, "load": step.load, "label": step.label, "values": {}}
        for c in COLLECTORS:
            if not applies(c, step.load):
                continue
            if have[c] is not None:
                row["values"][c] = {"na": have[c]}
            elif step.failed[c]:
                row["values"][c] = {"failed": step.failed[c]}
            else:
                row["values"][c] = {k: med(step.runs[c], k) for k in keys}
                row["values"][c]["max_lost"] = max((r["lost"] for r in step.runs[c]), default=None)
                row["values"][c]["unaccounted"] = [r["unaccounted"] for r in step.runs[c]]
        rows.append(row)
    for load in LOADS:
        for c in COLLECTORS:
            if not applies(c, load):
                continue
            best, lossy = None, []
            for row in rows:
                v = row["values"].get(c, {})
                if row["load"] != load or not v.get("recorded_per_s"):
                    continue
                rate = v["recorded_per_s"]["median"]
                if v["max_lost"] != 0:
                    lossy.append(v["offered_per_s"]["median"])
                elif best is None or rate > best["recorded_per_s"]:
                    best = {"recorded_per_s": rate, "offered_per_s": v["offered_per_s"]["median"],
                            "step": row["id"], "label": row["label"]}
            if best:
                # A limit only when a step offering more lost events; else
                # the workload (the processors it had) was the limit.
                best["limit"] = any(o > best["offered_per_s"] for o in lossy)
            sustained["%s.%s" % (load, c)] = best
    return {"steps": rows, "sustained": sustained, "reps": reps, "seconds": round(seconds, 1),
            "collectors": {c: have[c] or "ran" for c in COLLECTORS},
            "buffers": {"ours": "%d KiB x %d buffers a processor (+ the tracepoint rings)" % (BUFFER_KB, BUFFERS_PER_CPU),
                        "perf": {k: "-m %d (%d MiB a processor)" % (v["perf_pages"], v["perf_pages"] * 4 // 1024)
                                 for k, v in LOADS.items()}}}


# ---------------------------------------------------------------- markdown

def cell(v, fmt):
    if v is None:
        return "—"
    s = fmt(v["median"])
    if v["n"] > 1 and v["min"] != v["max"]:
        s += " (%s–%s)" % (fmt(v["min"]), fmt(v["max"]))
    return s


def markdown(fig, machine, meta):
    if fig.get("skipped"):
        return "System logger figure: not run (%s)." % fig["skipped"]
    out = ["System logger (NT Kernel Logger) against `perf record` on the same tracepoints, measured %s on %s "
           "(%d run%s per step and collector, interleaved; median (min–max)). Kernel rings: perf `-m` as "
           "the system logger's own rings (systemcall %s, cswitch %s); the system logger's buffers %s." % (
               meta["date"], machine["summary"], fig["reps"], "s" * (fig["reps"] > 1), fig["buffers"]["perf"]["syscall"],
               fig["buffers"]["perf"]["cswitch"], fig["buffers"]["ours"]), ""]
    for c, st in fig["collectors"].items():
        if st != "ran":
            out += ["%s: n/a (%s)." % (NAMES[c], st), ""]
    pct = lambda v: "%.0f%%" % (100 * v)
    ratio = lambda v: "%.4f" % v
    num = lambda v: "%.0f" % v if v >= 10 else "%.1f" % v
    lost = lambda v: "%d" % v
    out.append("| Load (flag) | Offered (the workload's count) | Collector | offered events/s | recorded events/s ↑ | "
               "events lost ↓ | collector CPU, share of a processor | CPU ns per event ↓ | file bytes per event ↓ | "
               "workload's events found / its count |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for row in fig["steps"]:
        spec = LOADS[row["load"]]
        for c in COLLECTORS:
            if c not in row["values"]:
                continue
            v = row["values"][c]
            head = "| %s (`%s`) | %s | %s |" % (spec["what"], spec["flags"], row["label"], NAMES[c])
            if "na" in v or "failed" in v:
                out.append(head + " %s | | | | | | |" % ("n/a" if "na" in v else "failed: " + v["failed"][:120]))
                continue
            out.append(head + " %s | %s | %s | %s | %s | %s | %s |" % (
                cell(v["offered_per_s"], fmt_rate), cell(v["recorded_per_s"], fmt_rate), cell(v["lost"], lost),
                cell(v["cpu_share"], pct), cell(v["cpu_ns_per_event"], num), cell(v["bytes_per_event"], num),
                cell(v["found_ratio"], ratio)))
    silent = ["%s, %s: %s" % (row["label"], NAMES[c], ", ".join(str(n) for n in v["unaccounted"]))
              for row in fig["steps"] for c, v in row["values"].items() if any(v.get("unaccounted", []))]
    out.append("")
    out.append("Workload events missing from a file beyond the events its collector counted as lost (a loss not "
               "counted): %s." % ("; ".join(silent) if silent else "none, in every run"))
    out.append("")
    out.append("| Sustained with nothing lost (highest recorded rate of a step where no run lost an event) | "
               "OpenETW system logger | perf record | perf record --exclude-perf |")
    out.append("|---|---|---|---|")
    for load, spec in LOADS.items():
        cells = []
        for c in COLLECTORS:
            if not applies(c, load):
                cells.append("(not run)")
                continue
            b = fig["sustained"].get("%s.%s" % (load, c))
            if b is None:
                cells.append("— (every step lost events)")
            else:
                cells.append("%s%s events/s (%s)%s" % (
                    "" if b["limit"] else "≥ ", fmt_rate(b["recorded_per_s"]), b["label"],
                    "" if b["limit"] else "; nothing lost at any step"))
        if any(r["load"] == load for r in fig["steps"]):
            out.append("| %s (`%s`) | %s | %s | %s |" % (spec["what"], spec["flags"], cells[0], cells[1], cells[2]))
    return "\n".join(out)
