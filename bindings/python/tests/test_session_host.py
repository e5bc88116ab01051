"""The logman workflow across processes: in a system-wide namespace of its own,
one process starts a detached file session and exits; the session host keeps it
running until a later process opens it by name and stops it."""
import glob
import itertools
import os
import subprocess
import sys

import pytest

import openetw

EVENTS = 2000
_namespaces = itertools.count()

_CHILD = """
import os, sys, uuid
import openetw
from openetw import LogFileMode, Properties, Session
mode, name, path, guid = sys.argv[1], sys.argv[2], sys.argv[3], uuid.UUID(sys.argv[4])
if mode in ("start-detached", "start-dropped"):
    session = Session(Properties(name, log_file_name=path, log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL,
                                 buffer_size=16, maximum_buffers=64), lossless=True)
    if mode == "start-detached":
        session.detach()
    session.enable_provider(guid)
    with openetw.Provider(guid) as provider:
        for i in range(int(sys.argv[5])):
            provider.write(b"event %d" % i, type=7)
    print("started by", os.getpid())
    del session  # dropped: stops the session unless detached; then the process exits
elif mode == "open-and-stop":
    session = Session.open(name)
    host = session.host_info()
    assert host.state == openetw.ETW_SESSION_HOST_RUNNING, host.state
    print("hosted by", host.process_id)
    assert session.query().session_name == name
    print("stopped:", session.stop().events_lost, "lost")
elif mode == "open-missing":
    try:
        Session.open(name)
        print("open: ok")
    except openetw.NotFoundError as e:
        print("open:", e.status_name)
"""


@pytest.fixture
def namespace():
    """A registry of this process's own for the children, its files removed afterwards."""
    registry = f"/dev/shm/openetw-bind-host-{os.getpid()}-{next(_namespaces)}.registry"
    remove = lambda: [os.remove(p) for p in glob.glob(glob.escape(registry) + "*")]
    remove()
    yield registry
    remove()


def _run(registry, mode, name, path, guid):
    env = dict(os.environ, OPENETW_REGISTRY=registry, PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("OPENETW_HOST", None)  # a real session host, not the child itself
    # OPENETW_HOSTD, when set (scripts/bindings-tests.sh names the build's), is
    # inherited; otherwise the library finds the host daemon beside itself.
    run = subprocess.run([sys.executable, "-c", _CHILD, mode, name, str(path), str(guid), str(EVENTS)],
                         env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"{mode}: {run.stdout}{run.stderr}"
    return run.stdout


def _line(stdout, prefix):
    found = [line[len(prefix):] for line in stdout.splitlines() if line.startswith(prefix)]
    assert found, f"no {prefix!r} in {stdout!r}"
    return found[0]


def test_a_detached_session_outlives_its_starter_until_another_process_stops_it(
        namespace, tmp_path, name, guid):
    path = tmp_path / "detached.etl"
    starter = int(_line(_run(namespace, "start-detached", name, path, guid), "started by "))
    stopped = _run(namespace, "open-and-stop", name, path, guid)
    assert int(_line(stopped, "hosted by ")) != starter  # the session host ran it
    assert _line(stopped, "stopped: ") == "0 lost"
    assert os.path.exists(namespace)  # the children did use it
    assert _line(_run(namespace, "open-missing", name, path, guid), "open: ") == \
        "ETW_ERROR_WMI_INSTANCE_NOT_FOUND"
    records = [r for r in openetw.Consumer(path) if r.kind == openetw.ETW_RECORD_KIND_FULL]
    assert [r.payload for r in records] == [b"event %d" % i for i in range(EVENTS)]
    assert {(r.guid, r.opcode) for r in records} == {(guid, 7)}


def test_dropping_a_started_session_stops_it_for_the_next_process(namespace, tmp_path, name, guid):
    path = tmp_path / "dropped.etl"
    _run(namespace, "start-dropped", name, path, guid)
    assert os.path.exists(namespace)  # the child did use it
    assert _line(_run(namespace, "open-missing", name, path, guid), "open: ") == \
        "ETW_ERROR_WMI_INSTANCE_NOT_FOUND"
