"""Running the experiments: each figure in fresh processes, repetition by
repetition, the implementations (and the experiments of one interleave
group) taking turns within each repetition, so that the drift of a shared
machine hits all of them alike. Also how one process is run, under
callgrind where the figure counts instructions."""

import os
import subprocess
import time

from . import programs
from .consumer_files import run_etwdump
from .experiments import NA
from .programs import IMPLS, PROGRAM, args_list, log, ours_env, parse_output


def callgrind_run(cmd, env, work, timeout):
    out = os.path.join(work, "callgrind.%d.out" % os.getpid())
    vg = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, "--toggle-collect=oe_bench_measured_loop",
          "--collect-atstart=no"]
    r = subprocess.run(vg + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=timeout)
    res = parse_output(r.stdout)
    total = None
    try:
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    total = int(line.split()[1])
                    break
    except OSError:
        pass
    finally:
        if os.path.exists(out):
            os.unlink(out)
    if res and res.get("ok") and total is not None:
        n = int(res["result"]["events"])
        res["result"]["instructions"] = total
        res["result"]["instr_per_event"] = total / n
    elif res and res.get("ok"):
        res = {"ok": False, "status": "error", "message": "no callgrind totals: " + r.stderr[-500:]}
    return res, r


def run_one(exp, impl, bin_dir, work, tag):
    a = dict(exp.args)
    a.update(exp.impl_args.get(impl, {}))
    a["tag"] = tag
    prog = os.path.join(bin_dir, PROGRAM[impl])
    cmd = [prog] + args_list(a)
    env = dict(os.environ)
    env.update(exp.env)
    if impl == "lttng":
        env.setdefault("LTTNG_UST_REGISTER_TIMEOUT", "30000" if exp.callgrind else "5000")
    if impl == "ours" and getattr(exp, "etwdump", False):
        return run_etwdump(exp, bin_dir)
    if impl == "ours" and getattr(exp, "baseline", False):
        env["LD_LIBRARY_PATH"] = programs.BASELINE_DIR
    elif impl == "ours":
        ours_env(env)
    try:
        if exp.callgrind:
            res, r = callgrind_run(cmd, env, work, exp.timeout)
        else:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               timeout=exp.timeout)
            res = parse_output(r.stdout)
        if res is None:
            res = {"ok": False, "status": "error",
                   "message": "exit %s, no JSON; stderr: %s" % (r.returncode, r.stderr.strip()[-400:])}
    except subprocess.TimeoutExpired:
        res = {"ok": False, "status": "error", "message": "timed out after %d s" % exp.timeout}
    res["cmd"] = " ".join(cmd)
    return res


def run_all(exps, bin_dir, work, reps, have, raw):
    """Runs every experiment, repetition by repetition. Experiments of one
    interleave group (consecutive) take turns within each repetition."""
    t_start = time.time()
    groups = []
    for exp in exps:
        key = getattr(exp, "interleave", None)
        if key and groups and getattr(groups[-1][0], "interleave", None) == key:
            groups[-1].append(exp)
        else:
            groups.append([exp])
    n = 0
    for group in groups:
        for exp in group:
            n += 1
            for impl in IMPLS:
                if impl not in exp.na and not have.get(impl):
                    exp.na[impl] = NA(have.get(impl + "_why", "not available"))
            exp.active = [i for i in IMPLS if i not in exp.na]
            log("[%d/%d] %s: %s  (%s)" % (n, len(exps), exp.id, exp.label, ", ".join(exp.active) or "nothing to run"))
        for rep in range(max(min(reps, e.reps) if e.reps else reps for e in group)):
            for exp in group:
                if exp.reps and rep >= exp.reps:
                    continue
                for impl in exp.active:
                    if exp.status[impl] is not None:
                        continue  # not built or failed: do not retry
                    res = run_one(exp, impl, bin_dir, work, "%s-%d" % (exp.id.replace(".", "_"), rep))
                    res["experiment"] = exp.id
                    res["rep"] = rep
                    raw.append(res)
                    lost = None
                    if res.get("ok") and getattr(exp, "exclude_lost", False):
                        r = res["result"]
                        if r.get("events_lost", 0) or r.get("dropped", 0):
                            lost = "%d lost, %d dropped" % (r.get("events_lost", 0), r.get("dropped", 0))
                            res["excluded"] = "events lost: " + lost
                            exp.excluded = getattr(exp, "excluded", 0) + 1
                    if len(group) > 1:
                        r = res.get("result", {})
                        what = ("%.0f MB/s" % r["mb_per_s"] if "mb_per_s" in r else
                                "%.1f instructions/event" % r["instr_per_event"] if "instr_per_event" in r else
                                "%.1f ns/event, p99.9 %.0f ns" % (r["ns_cpu"], r["ns_p999"]) if "ns_cpu" in r else "ok")
                        log("   rep %d %s %s: %s%s" % (rep, exp.id, impl, what if res.get("ok") else res.get("message", "?"),
                                                     " (left out: %s)" % lost if lost else ""))
                    if res.get("ok"):
                        if not lost:
                            exp.samples[impl].append(res["result"])
                    elif res.get("status") == "not_built":
                        exp.status[impl] = NA("not built: " + res.get("message", ""))
                    else:
                        exp.status[impl] = "error: " + res.get("message", "?")
                        log("   %s failed: %s" % (impl, res.get("message", "?")))
    for exp in exps:
        n = getattr(exp, "excluded", 0)
        if n:
            exp.label += "; %d run%s left out (events lost)" % (n, "s" * (n > 1))
    return time.time() - t_start
