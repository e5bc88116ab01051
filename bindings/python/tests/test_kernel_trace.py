"""KernelTrace: the system logger live (runs as root, as CI): a child's
Process/Start and End arrive decoded through the callbacks; leaving the with
block stops the session and its thread; failures raise with the status."""
import os
import subprocess
import sys
import threading

import pytest

import openetw
from openetw import KernelFlag, KernelTrace, Session


def trace_threads(name):
    return [t for t in threading.enumerate() if t.name == f"KernelTrace {name}"]


def run_true():
    """Runs /bin/true; returns its pid."""
    child = subprocess.Popen(["/bin/true"])
    assert child.wait() == 0
    return child.pid


def test_a_child_process_arrives_decoded_through_the_filtered_callbacks(name):
    starts, ends, every, processes = [], [], [], []
    trace = KernelTrace(KernelFlag.PROCESS, name=name, on_event=every.append)
    trace.on("process/start", starts.append)       # names compare case-insensitively
    trace.on(("Process", 2), ends.append)          # Class.Type 2: End
    trace.on("Process")(processes.append)          # decorator form: every Process event
    with trace as kt:
        assert kt is trace and kt.running and trace_threads(name)
        assert Session.open(name).query().enable_flags == KernelFlag.PROCESS
        pid = run_true()
    assert not trace.running and trace.properties.events_lost == 0

    mine = [e for e in starts if e["ProcessId"] == pid]
    assert mine, f"no Process/Start of the child {pid} among {len(starts)}"
    # The exec's start (after the fork's) names the new image. Real-time
    # delivery goes buffer by buffer, not in time order across processors.
    started = max(mine, key=lambda e: e.timestamp)
    assert (started.event_name, started.task_name, started.opcode_name) == ("Process/Start", "Process", "Start")
    assert started["ImageFileName"] == "true" and started["ParentId"] == os.getpid()
    assert started.process_id == pid and started.thread_id == pid
    assert started.timestamp > 0 and started.datetime.year >= 2024
    ended = [e for e in ends if e["ProcessId"] == pid and e["ImageFileName"] == "true"]
    assert ended and ended[-1]["ExitStatus"] == 0
    assert {e.event_name for e in starts} == {"Process/Start"}
    assert {e.event_name for e in ends} == {"Process/End"}
    # The rundowns: what ran at the start (this process), and at the stop.
    assert any(e.event_name == "Process/DCStart" and e["ProcessId"] == os.getpid() for e in processes)
    assert any(e.event_name == "Process/DCEnd" for e in processes)
    # Every event is a Process one but the machine's SystemConfig, which ends every kernel trace.
    assert [e.event_name for e in every if e.task_name != "SystemConfig"] == [e.event_name for e in processes]
    assert any(e.event_name == "SystemConfig/CPU" for e in every)
    assert len(processes) >= len(starts) + len(ends)


def test_flag_names_select_the_flags_and_leaving_scope_stops_everything(name):
    seen = []
    with KernelTrace("process,thread", name=name, on_event=seen.append) as trace:
        assert trace.flags == KernelFlag.PROCESS | KernelFlag.THREAD
        assert trace.session.query().enable_flags == KernelFlag.PROCESS | KernelFlag.THREAD
        run_true()
    with pytest.raises(openetw.NotFoundError):
        Session.open(name)
    assert trace.session is None and not trace_threads(name)
    assert {"Process/Start", "Thread/Start"} <= {e.event_name for e in seen}
    count = len(seen)
    run_true()
    assert len(seen) == count  # no callback after the stop
    trace.stop()  # idempotent


def test_two_traces_with_their_own_names_run_at_once(name):
    a, b = [], []
    with KernelTrace("process", name=name + " a", on_event=a.append), \
            KernelTrace("process", name=name + " b", on_event=b.append):
        pid = run_true()
    for seen in (a, b):
        assert any(e.event_name == "Process/Start" and e["ProcessId"] == pid for e in seen)


def test_an_unknown_flag_name_raises_invalid_parameter_naming_it(name):
    with pytest.raises(openetw.InvalidParameterError, match='"bogus"') as caught:
        KernelTrace("process,bogus", name=name)
    assert caught.value.status == openetw.Status.INVALID_PARAMETER
    with pytest.raises(TypeError):
        KernelTrace(1.5, name=name)
    with pytest.raises(TypeError):
        KernelTrace(KernelFlag.PROCESS, name=name).on(42, print)


def test_a_flag_this_system_does_not_serve_raises_not_supported_and_leaves_nothing(name):
    trace = KernelTrace(KernelFlag.PROCESS | KernelFlag.REGISTRY, name=name)
    with pytest.raises(openetw.NotSupportedError, match="registry") as caught:
        with trace:
            pytest.fail("started")
    assert caught.value.status == openetw.Status.NOT_SUPPORTED
    assert caught.value.status_name == "ETW_ERROR_NOT_SUPPORTED"
    assert not trace.running and not trace_threads(name)
    with pytest.raises(openetw.NotFoundError):
        Session.open(name)


def test_a_name_in_use_raises_already_exists(name):
    with KernelTrace("process", name=name):
        with pytest.raises(openetw.AlreadyExistsError):
            KernelTrace("process", name=name).start()


def test_a_callback_exception_comes_back_from_the_stop(name):
    def boom(event):
        raise LookupError("from the callback")
    trace = KernelTrace("process", name=name)
    trace.on("Process/DCStart", boom)
    with pytest.raises(LookupError, match="from the callback"):
        with trace:
            pass
    assert not trace_threads(name)
    with pytest.raises(openetw.NotFoundError):
        Session.open(name)


_DENIED = """
import sys, openetw
try:
    openetw.KernelTrace("process", name=sys.argv[1]).start()
except openetw.AccessDeniedError as e:
    print(int(e.status), e.message)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="drops from root to nobody")
def test_a_user_without_the_right_gets_access_denied(name):
    if int(open("/proc/sys/kernel/perf_event_paranoid").read()) <= 0:
        pytest.skip("kernel.perf_event_paranoid lets every user read kernel events")
    package = os.path.dirname(os.path.dirname(openetw.__file__))
    out = subprocess.run([sys.executable, "-P", "-c", _DENIED, name], user=65534, group=65534, extra_groups=[],
                         env={**os.environ, "PYTHONPATH": package}, capture_output=True, text=True, check=True)
    status, _, message = out.stdout.strip().partition(" ")
    assert int(status) == openetw.Status.ACCESS_DENIED, out.stdout + out.stderr
    assert "CAP_PERFMON" in message and "perf_event_paranoid" in message
