"""The LTTng-UST peer's session daemon: LTTng cannot trace without
lttng-sessiond, and bench/run must leave the machine as it found it, so it
starts `lttng-sessiond --no-kernel` only when none is running and stops
exactly the process it started, by its id."""

import os
import shutil
import signal
import subprocess
import time

class SessionDaemon:
    """lttng-sessiond --no-kernel, started by us and stopped by its pid."""

    def __init__(self, log_path):
        self.proc = None
        self.log_path = log_path
        self.note = ""

    @staticmethod
    def running_pids():
        pids = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open("/proc/%s/stat" % d) as f:
                        st = f.read()
                    comm = st[st.index("(") + 1:st.rindex(")")]
                    state = st[st.rindex(")") + 2:].split()[0]
                    if comm == "lttng-sessiond" and state != "Z":
                        pids.append(int(d))
                except (OSError, ValueError):
                    pass
        return pids

    def start(self):
        if not shutil.which("lttng-sessiond"):
            self.note = "lttng-sessiond not installed"
            return False
        existing = self.running_pids()
        if existing:
            self.note = "using the lttng-sessiond already running (pid %s); not stopped by bench/run" % existing[0]
            return True
        self.logf = open(self.log_path, "w")
        self.proc = subprocess.Popen(["lttng-sessiond", "--no-kernel"], stdout=self.logf, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.note = "lttng-sessiond exited with %s (see %s)" % (self.proc.returncode, self.log_path)
                self.proc = None
                return False
            r = subprocess.run(["lttng", "list"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode == 0:
                self.note = "lttng-sessiond --no-kernel started by bench/run (pid %d)" % self.proc.pid
                return True
            time.sleep(0.2)
        self.note = "lttng-sessiond did not answer within 15 s"
        self.stop()
        return False

    def stop(self):
        if self.proc is None:
            return
        pid = self.proc.pid
        try:
            os.kill(pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        except ProcessLookupError:
            pass
        self.proc = None


class NatsServer:
    """A nats-server with JetStream on 127.0.0.1 (a free port, storage in the
    work folder) for the export rows, started by us and stopped by its pid.
    Without nats-server the rows say so (na) and the rest of the run goes on."""

    def __init__(self, work):
        self.proc = None
        self.work = work
        self.url = None
        self.note = ""

    def start(self):
        if not shutil.which("nats-server"):
            self.note = "nats-server is not installed (Debian: nats-server)"
            return False
        import socket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        store = os.path.join(self.work, "nats-js")
        self.log_path = os.path.join(self.work, "nats-server.log")
        self.logf = open(self.log_path, "w")
        self.proc = subprocess.Popen(["nats-server", "-js", "-sd", store, "-a", "127.0.0.1", "-p", str(port)],
                                     stdout=self.logf, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 15
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.note = "nats-server exited with %s (see %s)" % (self.proc.returncode, self.log_path)
                self.proc = None
                return False
            with open(self.log_path) as f:
                if "Server is ready" in f.read():
                    self.url = "nats://127.0.0.1:%d" % port
                    self.note = "nats-server -js started by bench/run at %s (pid %d)" % (self.url, self.proc.pid)
                    return True
            time.sleep(0.1)
        self.note = "nats-server was not ready within 15 s (see %s)" % self.log_path
        self.stop()
        return False

    def stop(self):
        if self.proc is None:
            return
        try:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
        except ProcessLookupError:
            pass
        self.proc = None
