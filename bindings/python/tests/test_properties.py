"""Tests of the idiomatic Python API over properties.h (run with Debian's pytest)."""
import copy
import dataclasses
import threading
import uuid

import pytest

import openetw
from openetw import LogFileMode, Clock, Properties


def sequential(**members):
    members.setdefault("log_file_mode", LogFileMode.FILE_MODE_SEQUENTIAL)
    return Properties("Py Sequential", log_file_name="/tmp/py.etl", **members)


def test_defaults_follow_the_header():
    p = Properties("Py Defaults")
    assert p.session_name == "Py Defaults"
    assert p.log_file_name is None
    assert p.buffer_size == openetw.ETW_DEFAULT_BUFFER_SIZE_KB == 64
    assert p.clock_type is Clock.QPC
    assert p.log_file_mode == 0
    assert p.guid == uuid.UUID(int=0)
    assert p.events_lost == 0 and p.historical_context == 0


def test_keyword_members_and_enums():
    p = sequential(buffer_size=8, minimum_buffers=4, flush_threshold=-3)
    assert p.buffer_size == 8 and p.minimum_buffers == 4 and p.age_limit == -3
    assert p.log_file_mode is LogFileMode.FILE_MODE_SEQUENTIAL
    p.log_file_mode = LogFileMode.REAL_TIME_MODE | LogFileMode.FILE_MODE_SEQUENTIAL
    assert LogFileMode.REAL_TIME_MODE in p.log_file_mode
    assert int(LogFileMode.REAL_TIME_MODE) == openetw.ETW_REAL_TIME_MODE == 0x100
    with pytest.raises(TypeError, match="no member"):
        Properties("x", bufer_size=8)


def test_block_round_trip_through_any_bytes_like():
    p = sequential(buffer_size=8)
    block = p.to_bytes()
    assert isinstance(block, bytes) and len(block) == p.block_size == 120 + 2 * 14 + 2 * 12
    for form in (block, bytearray(block), memoryview(block)):
        back = Properties.from_bytes(form)
        assert (back.session_name, back.log_file_name, back.buffer_size) == \
            ("Py Sequential", "/tmp/py.etl", 8)
        assert back.to_bytes() == block


def test_record_is_a_frozen_snapshot_with_windows_names():
    p = sequential(buffer_size=8)
    p.guid = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab"
    rec = p.record()
    assert rec.Wnode.BufferSize == p.block_size
    assert rec.Wnode.Flags & openetw.ETW_WNODE_FLAG_TRACED_GUID
    assert rec.Wnode.Guid == uuid.UUID("6f2c1a3e-9b4d-4e21-8c7a-0123456789ab")
    assert rec.LoggerNameOffset == 120 and rec.BufferSize == 8
    with pytest.raises(dataclasses.FrozenInstanceError):
        rec.BufferSize = 9


def test_errors_carry_status_name_and_message():
    p = Properties("Py Errors")
    with pytest.raises(openetw.InvalidParameterError) as info:
        p.buffer_size = 3
    e = info.value
    assert isinstance(e, openetw.Error) and isinstance(e, ValueError)
    assert e.status == openetw.Status.INVALID_PARAMETER == 87
    assert e.status_name == "ETW_ERROR_INVALID_PARAMETER"
    assert "BufferSize 3" in e.message and "ETW_ERROR_INVALID_PARAMETER (87)" in str(e)
    assert p.buffer_size == 64  # a failing setter leaves the object unchanged


def test_export_url_is_checked_and_keeps_credentials_out():
    p = Properties("Py Export")
    with pytest.raises(openetw.InvalidParameterError, match="credentials file") as info:
        p.set_export("nats://alice:s3cret@127.0.0.1:4222/ETW")
    assert "s3cret" not in str(info.value)
    with pytest.raises(openetw.InvalidNameError, match="may hold only letters"):
        p.set_export("nats://127.0.0.1:4222/a.b")
    assert p.export_url is None
    try:
        p.set_export("nats://127.0.0.1:4222/ETW", "/etc/openetw/nats.conf")
    except openetw.NotSupportedError as e:
        pytest.skip(f"this build has no NATS support: {e.message}")
    assert p.export_url == "nats://127.0.0.1:4222/ETW"
    assert p.export_credentials == "/etc/openetw/nats.conf"
    p.set_export(None)
    assert p.export_url is None and p.export_credentials is None


def test_each_status_class():
    with pytest.raises(openetw.InvalidNameError):
        Properties("")
    with pytest.raises(openetw.InvalidNameError, match="1025"):
        Properties("x" * 1025)
    block = sequential().to_bytes()
    with pytest.raises(openetw.BadLengthError, match="Wnode.BufferSize"):
        Properties.from_bytes(block[:-1])
    with pytest.raises(openetw.MoreDataError):
        sequential().export_into(bytearray(10))
    with pytest.raises(openetw.InvalidNameError):  # BAD_PATHNAME: NEWFILE without %d
        sequential(log_file_mode=LogFileMode.FILE_MODE_NEWFILE, maximum_file_size=1).validate()
    unknown = openetw.errors.from_status(99999, "")
    assert type(unknown) is openetw.Error and unknown.status_name == "ETW_ERROR_UNKNOWN"


def test_strings_are_utf8_and_checked():
    p = Properties("Sitzung Ü € 😀")
    assert p.session_name == "Sitzung Ü € 😀"
    with pytest.raises(openetw.NoUnicodeTranslationError):
        p.session_name = "bad \ud800 surrogate"  # the library, not Python, refuses it
    with pytest.raises(ValueError, match="NUL"):
        p.session_name = "a\0b"
    with pytest.raises(TypeError):
        p.session_name = 5
    assert p.session_name == "Sitzung Ü € 😀"
    p.log_file_name = "/tmp/x.etl"
    p.log_file_name = None
    assert p.log_file_name is None


def test_output_members_are_read_only():
    with pytest.raises(AttributeError, match="read-only"):
        Properties("x").events_lost = 1


def test_values_outside_uint32_are_refused():
    p = Properties("x")
    with pytest.raises(OverflowError):
        p.minimum_buffers = 1 << 32
    with pytest.raises(OverflowError):
        p.minimum_buffers = -1


def test_copies_are_independent():
    p = sequential(buffer_size=8)
    for q in (p.copy(), copy.copy(p), copy.deepcopy(p)):
        q.buffer_size = 16
        assert p.buffer_size == 8 and q.session_name == p.session_name


def test_validate_reports_the_first_rule_broken():
    p = Properties("x", log_file_mode=LogFileMode.FILE_MODE_CIRCULAR, log_file_name="/tmp/c.etl")
    with pytest.raises(openetw.InvalidParameterError, match="MaximumFileSize"):
        p.validate()
    p.maximum_file_size = 1
    p.validate()


def test_messages_are_per_thread():
    # Each thread's failure carries its own message, whatever the others do.
    results = {}

    def worker(size):
        p = Properties(f"thread {size}")
        for _ in range(2000):
            try:
                p.buffer_size = size
                p.buffer_size = 1
            except openetw.Error as e:
                results.setdefault(size, set()).add(e.message)

    threads = [threading.Thread(target=worker, args=(s,)) for s in (8, 16, 32, 64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(messages == {"BufferSize 1 KB is outside 4..16384 KB"}
               for messages in results.values()) and len(results) == 4


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_objects_and_errors_do_not_leak():
    def churn(n):
        for i in range(n):
            p = sequential(buffer_size=8)
            Properties.from_bytes(p.to_bytes()).copy()
            try:
                p.session_name = ""
            except openetw.InvalidNameError:
                pass
    churn(2000)  # warm up allocators and caches
    before = rss_kb()
    churn(20000)
    # A leaked object (~0.5 KB with its names) per iteration would add ~10 MB.
    assert rss_kb() - before < 2048


def test_version_and_status_helpers():
    assert openetw.version() == openetw.__version__
    assert openetw.status_name(234) == "ETW_ERROR_MORE_DATA"
    assert openetw.status_string(87)
    Properties("x").buffer_size = 8
    assert openetw.last_error() == (openetw.Status.OK, "")


def test_the_readme_example_runs(capsys):
    # bindings/README.md's Python example, executed as written.
    import pathlib
    import re
    readme = pathlib.Path(__file__).resolve().parents[2] / "README.md"
    example = re.search(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S).group(1)
    exec(compile(example, str(readme), "exec"), {})
    out = capsys.readouterr().out
    assert out.startswith("My Session\n") and "ETW_ERROR_INVALID_PARAMETER" in out
