"""The peer of the system-logger figure: Debian's `perf record` collecting
the same tracepoints system-wide into a file. Installed with apt-get when
missing (not in smoke mode, which never installs); started disabled and
enabled through its control FIFO (so its start-up, which synthesizes every
running task, is over before the workload starts); stopped with SIGINT as a
user stops it; its samples and lost samples read back with
`perf report --stats` and the workload's samples counted with `perf script`."""

import os
import re
import select
import shutil
import signal
import subprocess
import time

from .programs import log


def perf_works():
    """(True, version) or (False, why): Debian's /usr/bin/perf is a wrapper
    that fails when no perf of a matching version is installed."""
    if not shutil.which("perf"):
        return False, "perf not installed"
    r = subprocess.run(["perf", "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return False, "perf --version failed: " + r.stdout.strip()[-200:]
    return True, r.stdout.strip()


def ensure_perf(install):
    """(ok, note). install: apt-get install linux-perf when missing (root,
    or sudo without a password), as scripts/deps.sh installs the build's."""
    ok, note = perf_works()
    if ok or not install:
        return ok, note if ok else note + " (bench/run --quick or --full installs linux-perf)"
    sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
    if not shutil.which("apt-get"):
        return False, note + "; no apt-get to install linux-perf"
    log("bench/run: %s: apt-get install linux-perf" % note)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(sudo + ["apt-get", "update", "-q"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    r = subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends", "linux-perf"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode != 0:
        return False, "apt-get install linux-perf failed: " + r.stdout.strip()[-300:]
    return perf_works()


class PerfRecord:
    """perf record -a -e TRACEPOINTS -m PAGES -o FILE, enabled by us."""

    def __init__(self, tracepoints, pages, path, work, exclude_perf=False):
        self.tracepoints, self.pages, self.path = tracepoints, pages, path
        self.exclude_perf = exclude_perf
        self.ctl = os.path.join(work, "perf-ctl.%d" % os.getpid())
        self.ack = os.path.join(work, "perf-ack.%d" % os.getpid())
        self.proc = None
        self.ctl_fd = self.ack_fd = None
        self.pid = None

    def command(self):
        # -B: no build-id pass over the file at the end (OpenETW's logger does
        # nothing like it); -D -1: start disabled until "enable" on the FIFO.
        events = []
        for t in self.tracepoints:
            # --exclude-perf filters the event given before it.
            events += ["-e", t] + (["--exclude-perf"] if self.exclude_perf else [])
        return ["perf", "record", "-a", "-B", "-q"] + events + ["-m", str(self.pages), "-o", self.path,
                                                               "--control=fifo:%s,%s" % (self.ctl, self.ack), "-D", "-1"]

    def start(self, timeout=60):
        """Starts perf and enables its events; returns None, or why not."""
        for p in (self.ctl, self.ack):
            if os.path.exists(p):
                os.unlink(p)
            os.mkfifo(p)
        # The ack FIFO opened for reading first: perf opens it for writing
        # and would block without a reader.
        self.ack_fd = os.open(self.ack, os.O_RDONLY | os.O_NONBLOCK)
        self.errf = open(self.path + ".stderr", "w+")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=self.errf, stderr=self.errf,
                                     start_new_session=True)
        self.pid = self.proc.pid
        deadline = time.time() + timeout
        while self.ctl_fd is None:
            try:
                self.ctl_fd = os.open(self.ctl, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: perf has not opened it yet
                if self.proc.poll() is not None or time.time() > deadline:
                    return "perf record did not start: " + self.stderr_text()
                time.sleep(0.02)
        os.write(self.ctl_fd, b"enable\n")
        got = b""
        while b"ack" not in got:
            left = deadline - time.time()
            if left <= 0 or self.proc.poll() is not None:
                return "perf record did not acknowledge 'enable': " + self.stderr_text()
            r, _, _ = select.select([self.ack_fd], [], [], min(left, 0.5))
            if r:
                try:
                    got += os.read(self.ack_fd, 64)
                except BlockingIOError:
                    pass
        return None

    def stderr_text(self):
        try:
            self.errf.seek(0)
            return self.errf.read().strip()[-400:]
        except (OSError, ValueError):
            return ""

    def interrupt(self):
        """SIGINT, as a user stops it: perf drains its rings and finishes the
        file. The caller reaps it (wait4, for its CPU time) and calls close()."""
        if self.proc is not None and self.proc.returncode is None:
            os.kill(self.pid, signal.SIGINT)

    def close(self, returncode):
        """Why the run failed (None: it did not), and the FIFOs removed."""
        why = None
        if self.proc is not None:
            self.proc.returncode = returncode
            if returncode not in (0, 130, -signal.SIGINT):
                why = "perf record exited with %s: %s" % (returncode, self.stderr_text())
        for fd in (self.ctl_fd, self.ack_fd):
            if fd is not None:
                os.close(fd)
        self.ctl_fd = self.ack_fd = None
        self.errf.close()
        for p in (self.ctl, self.ack, self.path + ".stderr"):
            if os.path.exists(p):
                os.unlink(p)
        return why


def perf_stats(path):
    """Samples and lost samples per event of a perf.data file, from
    `perf report --stats`: {"samples": {event: n}, "lost": n}. The lost
    count is the sum of every event's LOST_SAMPLES (perf's dummy side-band
    event included): perf 6.1 turns the kernel's PERF_RECORD_LOST counts
    into these, and their sum equals the sum of the LOST records'."""
    r = subprocess.run(["perf", "report", "-i", path, "--stats"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if r.returncode != 0:
        raise RuntimeError("perf report --stats: " + r.stdout.strip()[-300:])
    samples, lost, lost_records, section = {}, 0, 0, None
    for line in r.stdout.splitlines():
        m = re.match(r"^(\S+) stats:\s*$", line.strip())
        if m:
            section = m.group(1)
            continue
        m = re.match(r"^\s*(\w+) events:\s+(\d+)", line)
        if not m:
            continue
        kind, n = m.group(1), int(m.group(2))
        if section is None:
            if kind == "LOST":
                lost_records = n
        elif kind == "SAMPLE":
            samples[section] = samples.get(section, 0) + n
        elif kind == "LOST_SAMPLES":
            lost += n
    if lost_records and not lost:
        lost = lost_from_script(path)
    return {"samples": samples, "lost": lost, "lost_records": lost_records}


def lost_from_script(path):
    """The sum of the PERF_RECORD_LOST records' counts (when no LOST_SAMPLES
    summary is in the file)."""
    p = subprocess.Popen(["perf", "script", "-i", path, "--show-lost-events", "-F", "tid"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    total = 0
    for line in p.stdout:
        if "PERF_RECORD_LOST" in line:
            total += int(line.split()[-1])
    p.wait()
    return total


def samples_of_threads(path, tids):
    """Samples in the file whose thread is one of tids (`perf script -F tid`):
    the workload's own, for the cross-check against its count."""
    want = set(str(t) for t in tids)
    p = subprocess.Popen(["perf", "script", "-i", path, "-F", "tid"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    n = 0
    for line in p.stdout:
        if line.strip() in want:
            n += 1
    p.wait()
    return n
