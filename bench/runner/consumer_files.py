"""The files the consumer figures read, written once per run before any
figure is measured (the consumer row's input, and the file of at least
1 GB), and the etwdump run on that file, which is a program of its own
rather than a bench program. Writing the inputs up front keeps their cost
out of the figures; a file that cannot be written turns its rows into n/a
with the reason."""

import os
import subprocess
import time

from . import programs
from .experiments import NA
from .programs import PROGRAM, log, ours_env, parse_output

LARGE_BYTES = 1000000000   # the file must hold at least this many bytes
LARGE_EVENTS = 9300000     # 112-byte records, 584 per 64 KiB buffer: ~1.04 GB


def run_preparation(cmd, env, timeout, raw, experiment):
    """Runs a program that prepares an input; its answer joins the run's raw
    results under the name `experiment`."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout, env=env)
    res = parse_output(r.stdout) or {"ok": False, "message": r.stderr[-400:]}
    raw.append(dict(res, experiment=experiment))
    return res


def write_etl(bin_dir, work, events, etl, timeout, raw, experiment):
    """Writes `events` events to the file etl with the engine, without loss."""
    return run_preparation([os.path.join(bin_dir, PROGRAM["ours"]), "--kind=gen", "--events=%d" % events,
                            "--file=" + etl, "--dir=" + work, "--buffers-per-cpu=1024"],
                           ours_env(dict(os.environ)), timeout, raw, experiment)


def prepare_consumer_files(exps, bin_dir, work, have, raw):
    """Writes the files the consumer runs read (once per run)."""
    for exp in exps:
        if exp.id != "consumer":
            continue
        n = exp.gen_events
        etl = os.path.join(work, "consumer-input.etl")
        res = write_etl(bin_dir, work, n, etl, 600, raw, "consumer.gen.ours")
        if res.get("ok"):
            exp.impl_args["ours"] = {"file": etl}
            exp.impl_args["floor"] = {"file": etl}
        else:
            exp.na["ours"] = exp.na["floor"] = NA("could not write the input file: " + res.get("message", "?"))
        if have.get("lttng"):
            tdir = os.path.join(work, "consumer-input-lttng")
            res = run_preparation([os.path.join(bin_dir, PROGRAM["lttng"]), "--kind=gen", "--events=%d" % n,
                                   "--trace-dir=" + tdir, "--dir=" + work, "--blocking=1", "--buffers-per-cpu=64"],
                                  dict(os.environ, LTTNG_UST_ALLOW_BLOCKING="1"), 600, raw, "consumer.gen.lttng")
            if res.get("ok"):
                exp.impl_args["lttng"] = {"trace-dir": tdir}
            else:
                exp.na["lttng"] = NA("could not write the LTTng trace: " + res.get("message", "?"))


def prepare_large_file(exps, bin_dir, work, raw):
    """Writes the >= 1 GB file with the engine (lossless --kind=gen), checks
    its size, and reads it once (which counts its records and warms the page
    cache)."""
    large = [e for e in exps if getattr(e, "large", False)]
    if not large:
        return
    etl = os.path.join(work, "consumer-large.etl")
    log("writing the 1 GB consumer file " + etl)
    res = write_etl(bin_dir, work, LARGE_EVENTS, etl, 1800, raw, "consumer.large.gen")
    why = None
    if not res.get("ok"):
        why = "could not write the 1 GB file: " + res.get("message", "?")
    elif os.path.getsize(etl) < LARGE_BYTES:
        why = "the file holds %d bytes, less than %d" % (os.path.getsize(etl), LARGE_BYTES)
    records = None
    if not why:
        cres = run_preparation([os.path.join(bin_dir, PROGRAM["ours"]), "--kind=consumer", "--callback=none",
                                "--file=" + etl], ours_env(dict(os.environ)), 900, raw, "consumer.large.count")
        if cres.get("ok"):
            records = cres["result"]["records"]
        else:
            why = "could not read the 1 GB file: " + cres.get("message", "?")
    size = os.path.getsize(etl) if os.path.exists(etl) else 0
    for e in large:
        e.records = records
        e.file_bytes = size
        if why:
            e.na["ours"] = NA(why)
            e.na.setdefault("floor", NA(why))
            continue
        e.impl_args["ours"] = {"file": etl}
        e.impl_args["floor"] = {"file": etl}
        e.label = "%s; %.2f GB file, %d records" % (e.label, size / 1e9, records)


def note_large_residency(exps):
    """Says in each large row whether the file was in the page cache at every start."""
    for e in exps:
        if not getattr(e, "large", False) or not e.samples["ours"]:
            continue
        shares = [r.get("resident_fraction", -1) for r in e.samples["ours"]]
        for r in e.samples["ours"]:
            if r.get("resident_pct") is None and r.get("resident_fraction", -1) >= 0:
                r["resident_pct"] = 100.0 * r["resident_fraction"]
        if min(shares) < 0:
            e.label += "; page cache: unknown"
        elif min(shares) >= 0.99:
            e.label += "; warm (at least %.0f%% of the file in the page cache at every start)" % (100 * min(shares))
        else:
            e.label += "; NOT fully warm (page cache %.0f%%-%.0f%% at start)" % (100 * min(shares), 100 * max(shares))


def residency(bin_dir, path):
    r = subprocess.run([os.path.join(bin_dir, PROGRAM["ours"]), "--kind=residency", "--file=" + path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=120)
    res = parse_output(r.stdout)
    return res["result"]["resident_fraction"] if res and res.get("ok") else -1


def run_etwdump(exp, bin_dir):
    """etwdump --format jsonl FILE > /dev/null: wall and CPU time of the process."""
    path = exp.impl_args["ours"]["file"]
    prog = programs.etwdump_path(bin_dir, exp.baseline)
    cmd = [prog, "--format", "jsonl", path]
    if not os.path.exists(prog):
        return {"ok": False, "status": "not_built", "message": "no etwdump at " + prog, "cmd": " ".join(cmd)}
    resident = residency(bin_dir, path)
    env = dict(os.environ)
    if exp.baseline:
        env["LD_LIBRARY_PATH"] = programs.BASELINE_DIR
    else:
        ours_env(env)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    secs = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        return {"ok": False, "status": "error", "message": "etwdump exit %d: %s" % (proc.returncode, err[-400:]),
                "cmd": " ".join(cmd)}
    size = os.path.getsize(path)
    records = exp.records
    cpu = usage.ru_utime + usage.ru_stime
    return {"ok": True, "cmd": " ".join(cmd), "result": {
        "bytes": size, "records": records, "seconds": secs, "cpu_seconds": cpu, "resident_fraction": resident,
        "resident_pct": 100.0 * resident, "mb_per_s": size / 1e6 / secs, "mb_per_cpu_s": size / 1e6 / cpu,
        "records_per_s": records / secs if records else None}}
