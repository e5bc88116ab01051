"""What a run hands back: the markdown table with its goals (stdout and,
with --update-doc, bench/PERFORMANCE.md), the description of the machine,
and the JSON file that external checks parse. The layout of all three is
the contract of bench/run, so it is written in one place."""

import json
import os
import platform
import subprocess

from .programs import HERE, IMPLS, ROOT, log

def fmt_num(v):
    if v is None:
        return "—"
    a = abs(v)
    if a == 0:
        return "0"
    if a >= 1000:
        return "{:,.0f}".format(v)
    if a >= 100:
        return "%.0f" % v
    if a >= 10:
        return "%.1f" % v
    if a >= 1:
        return "%.2f" % v
    if a >= 0.01:
        return "%.3f" % v
    return "%.2g" % v


def fmt_cell(s):
    if s is None:
        return "—"
    if "median" not in s:
        return s.get("text", "—")
    if s["n"] == 1 or s["min"] == s["max"]:
        return fmt_num(s["median"])
    return "%s (%s–%s)" % (fmt_num(s["median"]), fmt_num(s["min"]), fmt_num(s["max"]))


def markdown(figures, goals, machine, meta):
    out = []
    out.append("Measured %s on %s (%s mode, %d fresh processes per figure and implementation, interleaved; "
               "median (min–max))." % (meta["date"], machine["summary"], meta["mode"], meta["reps"]))
    if machine.get("openetw_library", "").startswith("/"):
        out.append("OpenETW library: %s (--lib-dir)." % machine["openetw_library"])
    out.append("")
    out.append("| Group | Workload | Figure | OpenETW | Floor | LTTng-UST | ours/floor | ours/LTTng |")
    out.append("|---|---|---|---|---|---|---|---|")
    notes = {}
    for f in figures:
        if not f["show"]:
            continue
        cells = []
        for impl in IMPLS:
            v = f["values"][impl]
            c = fmt_cell(v)
            if "reason" in v:
                key = v["reason"]
                if key not in notes:
                    notes[key] = len(notes) + 1
                c += " [%d]" % notes[key]
            cells.append(c)
        arrow = " ↓" if f["better"] == "lower" else " ↑"
        rf = "%.2f" % f["ratio_ours_floor"] if f["ratio_ours_floor"] is not None else "—"
        rl = "%.2f" % f["ratio_ours_lttng"] if f["ratio_ours_lttng"] is not None else "—"
        out.append("| %s | %s | %s (%s)%s | %s | %s | %s | %s | %s |" % (
            f["group"], f["workload"], f["metric"], f["unit"], arrow, cells[0], cells[1], cells[2], rf, rl))
    if notes:
        out.append("")
        for reason, n in sorted(notes.items(), key=lambda kv: kv[1]):
            out.append("[%d] %s" % (n, reason))
    out.append("")
    out.append("| Goal | Target | Measured | Met |")
    out.append("|---|---|---|---|")
    for g in goals:
        met = {True: "yes", False: "**no**", None: "n/a"}[g["met"]]
        out.append("| %s | %s | %s | %s |" % (g["goal"], g["target"], g["measured"], met))
    return "\n".join(out)


def machine_info():
    def first_line(cmd):
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=20)
            return r.stdout.strip().splitlines()[0] if r.stdout.strip() else ""
        except (OSError, subprocess.TimeoutExpired):
            return ""

    def read(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return ""

    cpu = ""
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = ""
    for line in read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal"):
            mem = "%.0f GiB" % (int(line.split()[1]) / 1048576)
    m = {
        "cpu": cpu,
        "cpus": os.cpu_count(),
        "memory": mem,
        "kernel": platform.release(),
        "os": ("Debian " + read("/etc/debian_version")) if read("/etc/debian_version") else platform.platform(),
        "virtualization": first_line(["systemd-detect-virt"]) or "unknown",
        "clocksource": read("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
        "compiler": first_line(["c++", "--version"]),
        "lttng_tools": first_line(["lttng", "--version"]),
        "lttng_ust": first_line(["dpkg-query", "-W", "-f=${Version}", "liblttng-ust-dev"]),
        "babeltrace2": first_line(["babeltrace2", "--version"]),
        "valgrind": first_line(["valgrind", "--version"]),
        "loadavg_start": read("/proc/loadavg"),
        "openetw_git": first_line(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
    }
    m["summary"] = "%s, %d logical CPUs, %s, Linux %s, %s (load average at start %s)" % (
        m["cpu"], m["cpus"], m["memory"], m["kernel"], m["os"], " ".join(m["loadavg_start"].split()[:3]))
    return m


DOC_BEGIN = "<!-- bench/run: begin table -->"
DOC_END = "<!-- bench/run: end table -->"
KERNEL_BEGIN = "<!-- bench/run: begin kernel table -->"
KERNEL_END = "<!-- bench/run: end kernel table -->"


def replace_between(text, begin, end, table):
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        return head + begin + "\n" + table + "\n" + end + tail
    return text + "\n" + begin + "\n" + table + "\n" + end + "\n"


def update_doc(table, kernel_table=None):
    """Replaces the tables a run produced (None: one it did not run, e.g.
    --only kernel leaves the main table as it was)."""
    path = os.path.join(HERE, "PERFORMANCE.md")
    text = open(path).read() if os.path.exists(path) else ""
    if table:
        text = replace_between(text, DOC_BEGIN, DOC_END, table)
    if kernel_table:
        text = replace_between(text, KERNEL_BEGIN, KERNEL_END, kernel_table)
    with open(path, "w") as f:
        f.write(text)
    log("updated " + path)


def write_json(path, doc):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        # Figures, goals and machine readable; one compact line per run.
        head = json.dumps({k: v for k, v in doc.items() if k != "runs"}, indent=1)
        runs = ",\n".join(json.dumps(r, separators=(",", ":")) for r in doc["runs"])
        f.write(head[:-2] + ',\n "runs": [\n' + runs + "\n ]\n}\n")
    log("wrote " + path)
