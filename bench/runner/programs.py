"""The three benchmark programs and the libraries they run against: where
they are, how one is called and how its answer is read. Every module that
starts a program goes through here, so that --lib-dir, --consumer-baseline
and --etwdump (set once by the command line) reach every run alike."""

import json
import os
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bench/
ROOT = os.path.dirname(HERE)
IMPLS = ("ours", "floor", "lttng")
PROGRAM = {"ours": "openetw-bench", "floor": "floor-bench", "lttng": "lttng-bench"}

LIB_DIR = None       # --lib-dir: another libopenetw.so.1 for the OpenETW runs
BASELINE_DIR = None  # --consumer-baseline: a build folder of another tree
ETWDUMP = None       # --etwdump, else <build>/tools/etwdump/etwdump next to the bench programs


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def args_list(d):
    return ["--%s=%s" % (k, v) for k, v in d.items()]


def parse_output(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def ours_env(env):
    if LIB_DIR:
        env["LD_LIBRARY_PATH"] = LIB_DIR + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    return env


def etwdump_path(bin_dir, baseline):
    if baseline:
        return os.path.join(BASELINE_DIR, "tools", "etwdump", "etwdump")
    return ETWDUMP or os.path.join(os.path.dirname(os.path.abspath(bin_dir)), "tools", "etwdump", "etwdump")
