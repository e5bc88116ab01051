"""Sessions exported to a real nats-server (JetStream on temporary storage,
a user and password), the stream read back with each record's machine and
session, and collected into files equal to the sessions' own."""
import os
import shutil
import socket
import subprocess
import threading
import time

import pytest

import openetw
from conftest import file_props


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def nats(tmp_path, monkeypatch):
    """A nats-server asking for a password; yields (url prefix, credentials file).
    A missing nats-server fails the test: scripts/bindings-tests.sh installs it."""
    server = shutil.which("nats-server") or shutil.which("nats-server", path="/usr/sbin:/usr/bin")
    if server is None:
        pytest.fail("nats-server is not installed (scripts/deps.sh bindings installs it)")
    port = _free_port()
    log = tmp_path / "nats.log"
    proc = subprocess.Popen([server, "-js", "-sd", str(tmp_path / "js"), "-a", "127.0.0.1", "-p", str(port),
                             "--user", "openetw", "--pass", "py-secret"],
                            stdout=open(log, "w"), stderr=subprocess.STDOUT)
    try:
        for _ in range(400):
            if "Server is ready" in log.read_text():
                break
            time.sleep(0.025)
        else:
            pytest.fail("nats-server did not get ready:\n" + log.read_text())
        creds = tmp_path / "nats.conf"
        creds.write_text("user = openetw\npassword = py-secret\n")
        # Only the file each call is given; spools stay in the test's folder.
        monkeypatch.delenv("OPENETW_NATS_CREDENTIALS", raising=False)
        monkeypatch.setenv("OPENETW_SPOOL_DIR", str(tmp_path / "spool"))
        yield f"nats://127.0.0.1:{port}", creds
    finally:
        proc.terminate()
        proc.wait()


def _export(stream, path, name, guid, count):
    with openetw.Provider(guid) as provider, \
            openetw.Session(stream.export(file_props(name, path)), in_process=True) as session:
        session.enable_provider(guid)
        for i in range(count):
            provider.write(i.to_bytes(4, "little"), type=10)
        return session.stop()


def test_an_exported_session_reads_back_and_collects_as_its_file(nats, tmp_path, name, guid):
    base, creds = nats
    stream = openetw.Stream(f"{base}/PYEXPORT", credentials_file=creds)
    stats = _export(stream, tmp_path / "local.etl", name, guid, 2000)
    assert stats.real_time_buffers_lost == 0

    with stream.open(order="file") as consumer:
        assert consumer.file_count == 1
        (source,) = consumer.sources
        assert source.session == name
        assert source.machine == socket.gethostname()
        seen = [int.from_bytes(r.payload, "little") for s, r in consumer.events()
                if r.kind_name == "full" and s == source]
    assert seen == list(range(2000))
    with stream.open(since="2000-01-01T00:00:00Z") as since:
        assert since.sources == (source,)
    with pytest.raises(openetw.Error) as later:  # nothing that recent
        stream.open(since="2100-01-01T00:00:00Z")
    assert later.value.status == openetw.Status.HANDLE_EOF

    out = tmp_path / "collected"
    out.mkdir()
    report = stream.collect(out)
    assert report.skipped == 0
    (f,) = report.files
    assert (f.session, f.outcome, f.complete, f.missing, f.error) == (name, "written", True, (), "")
    assert f.machine == source.machine and f.start_time == source.start_time
    assert f.data_buffers > 0
    assert f.path.endswith(f".{f.start_utc}.etl")
    assert open(f.path, "rb").read() == (tmp_path / "local.etl").read_bytes()
    assert openetw.collect(stream.url, out, credentials_file=creds, session=name.upper()).files[0].outcome \
        == "unchanged"


def test_a_kept_file_and_a_wrong_password_raise_with_their_status(nats, tmp_path, name, guid):
    base, creds = nats
    stream = openetw.Stream(f"{base}/PYKEPT", credentials_file=creds)
    _export(stream, tmp_path / "local.etl", name, guid, 10)
    out = tmp_path / "collected"
    out.mkdir()
    path = stream.collect(out).files[0].path
    with open(path, "wb") as f:
        f.write(b"mine")
    with pytest.raises(openetw.AlreadyExistsError) as kept:
        stream.collect(out)
    assert kept.value.report.files[0].outcome == "kept"
    assert "not overwritten" in kept.value.report.files[0].error
    assert open(path, "rb").read() == b"mine"
    assert stream.collect(out, overwrite=True).files[0].outcome == "replaced"
    with pytest.raises(openetw.Error) as none:
        stream.collect(out, machine="no-such-machine")
    assert none.value.status == openetw.Status.NO_MORE_ITEMS
    assert none.value.report.files == ()  # the server filters by subject: nothing to skip

    wrong = tmp_path / "wrong.conf"
    wrong.write_text("user = openetw\npassword = nope\n")
    with pytest.raises(openetw.AccessDeniedError):
        openetw.Stream(f"{base}/PYKEPT", credentials_file=wrong).collect(out)
    with pytest.raises(openetw.AccessDeniedError):
        openetw.Stream(f"{base}/PYKEPT", credentials_file=wrong).open()
    with pytest.raises(openetw.AccessDeniedError):
        openetw.Stream(f"{base}/PYKEPT").open()  # no file here or in the environment
    with pytest.raises(openetw.AccessDeniedError):
        with openetw.Session(openetw.Stream(f"{base}/PYKEPT", credentials_file=wrong)
                             .export(file_props(name + " w", tmp_path / "w.etl")), in_process=True):
            pass


def _wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_followed_stream_gives_what_it_holds_then_what_comes_until_cancelled(nats, tmp_path, name, guid):
    base, creds = nats
    stream = openetw.Stream(f"{base}/PYFOLLOW", credentials_file=creds)
    with openetw.Provider(guid) as provider, \
            openetw.Session(stream.export(file_props(name, tmp_path / "local.etl")), in_process=True) as session:
        session.enable_provider(guid)

        def write(first, count):
            for i in range(first, first + count):
                provider.write(i.to_bytes(4, "little"), type=10)
            session.flush()  # published now, not when the buffer fills

        write(0, 300)
        consumer = stream.open(follow=True, order="file")  # order="file": no 3 s window to wait out
        assert consumer.follow and consumer.sources == ()  # instances become files as they arrive
        seen, outcome = [], []

        def follow():
            try:
                for source, record in consumer.events():
                    if record.kind_name == "full":
                        seen.append((source, int.from_bytes(record.payload, "little")))
            except openetw.CancelledError:
                outcome.append("cancelled")
            except BaseException as error:  # reported by the assertion below
                outcome.append(error)

        thread = threading.Thread(target=follow)
        thread.start()
        try:
            assert _wait_for(lambda: len(seen) >= 300, 4), f"{len(seen)} of the 300 stored events"
            write(300, 200)
            assert _wait_for(lambda: len(seen) >= 500, 4), f"{len(seen)} of the 500 events"
            time.sleep(0.3)  # a record delivered twice would come now
        finally:
            consumer.cancel()
            thread.join(4)
        assert not thread.is_alive(), "cancel ends the follow"
        assert outcome == ["cancelled"]
        assert [v for _, v in seen] == list(range(500))  # each once, in order
        (source,) = {s for s, _ in seen}
        assert (source.session, source.machine) == (name, socket.gethostname())
        assert consumer.sources == (source,)
        consumer.close()

    with pytest.raises(openetw.NotFoundError):  # a followed stream must exist
        openetw.Stream(f"{base}/PYNOSUCH", credentials_file=creds).open(follow=True)
