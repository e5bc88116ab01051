"""Decoded fields: the shared Windows samples (values checked by hand in the
C++ tests, tests/decode/) and a trace this binding writes itself."""
import datetime
import os
import pathlib
import struct
import uuid

import pytest

import openetw
from openetw.fields import Property, convert
from conftest import file_props

SAMPLES = pathlib.Path(os.environ.get("OPENETW_SAMPLES_DIR") or
                       pathlib.Path(__file__).resolve().parents[4] / "shared" / "etl-samples")
FILE_IO = uuid.UUID("90cbdc39-4a3e-11d1-84f4-0000f80464e3")  # the kernel's FileIo class


def decoded(name, source=None):
    """The records of a sample that decode (from source, if given), in file order."""
    with openetw.Consumer(SAMPLES / name, order="file") as consumer:
        return [r for r in consumer if r.decoded is not None and source in (None, r.decoded.source_name)]


def test_lxcore_tracelogging_fields_have_python_types():
    events = decoded("etlparser_lxcore_kernel.etl", "tracelogging")
    assert len(events) == 2
    first, second = events
    assert first.event_name == "BreakPoint"
    assert first.provider_name == "Microsoft.Windows.Subsystem.LxCore"
    assert first.fields == {"ErrorLevel": 2, "instanceId": uuid.UUID(int=0), "LxPid": -1, "LxTid": -1,
                            "LxNs": 0, "ExecutablePath": "", "Function": "LxpInstanceStart", "Line": 2659,
                            "Message": "[0xc0000034] LxpInstanceInitialize\n"}
    assert list(first.fields) == ["ErrorLevel", "instanceId", "LxPid", "LxTid", "LxNs", "ExecutablePath",
                                  "Function", "Line", "Message"]  # payload order
    assert first["Line"] == 2659 and second["Line"] == 10528
    assert second["Function"] == "LxpDrvFsTypeMount"
    assert first.formatted("instanceId") == "{00000000-0000-0000-0000-000000000000}"


def test_absent_names_raise_key_error_naming_the_event():
    event = [r for r in decoded("etlparser_lxcore_kernel.etl") if r.event_name == "BreakPoint"][0]
    with pytest.raises(KeyError, match="BreakPoint has no field 'Nope'"):
        event["Nope"]
    with pytest.raises(KeyError, match="BreakPoint has no field 'Nope'"):
        event.formatted("Nope")
    assert event.fields.get("Nope") is None


def test_undecodable_records_have_no_fields():
    with openetw.Consumer(SAMPLES / "tx_BondEtwSample.etl") as consumer:
        records = [r for r in consumer if r.kind_name == "event"]
    assert records and all(r.decoded is None for r in records)
    r = records[0]
    assert (r.fields, r.event_name, r.provider_name, r.task_name) == ({}, "", "", "")
    with pytest.raises(KeyError, match="no schema describes it"):
        r["x"]


def test_kernel_header_class_decodes():
    header = decoded("etlparser_lxcore_kernel.etl", "kernel")
    assert [h.event_name for h in header] == ["EventTrace/Header"]
    f = header[0].fields
    assert (f["BufferSize"], f["NumberOfProcessors"], f["PointerSize"], f["CPUSpeed"]) == (8192, 6, 8, 3000)
    assert f["SessionNameString"] == "lxcore_kernel"
    assert f["LogFileNameString"] == "C:\\Prog\\lxcore_kernel.etl"
    assert header[0].formatted("Version") == "0x501000A"
    assert isinstance(f["TimeZoneInformation"], bytes) and len(f["TimeZoneInformation"]) == 176


def test_struct_members_nest_as_a_dict():
    (event,) = decoded("pv_SelfDescribingSingleEvent.etl", "tracelogging")
    assert (event.event_name, event.provider_name) == ("TestEvent", "MySource")
    assert event.fields == {"a": {"b": "Hello", "c": "World!"}}
    assert [p.name for p in event.decoded.properties] == ["a", "b", "c"]


def test_amsi_counted_character_arrays_are_strings():
    events = decoded("etlparser_AMSITrace.etl", "tracelogging")
    assert len(events) == 19
    assert {e.event_name for e in events} == {"AmsiScript"}
    assert events[1]["Script"] == "$global:?" and events[1]["Raw Script"] == "$global:?"
    assert sum(e["Engine"] == "VBScript" for e in events) == 4


def test_classic_events_in_callbacks_decode_lazily_and_cache(tmp_path, name, guid):
    path = tmp_path / "fileio.etl"
    file_name = "\\Device\\x.txt\0".encode("utf-16-le")
    with openetw.Provider(guid) as provider, openetw.Session(file_props(name, path), lossless=True) as session:
        session.enable_provider(guid)
        provider.write(struct.pack("<Q", 0x1234) + file_name, guid=FILE_IO, type=0, version=2)
        provider.write(b"\x01\x02\x03\x04", guid=FILE_IO, type=0, version=2)  # FileObject needs 8 bytes
        provider.write(b"x", guid=FILE_IO, type=99, version=2)  # no such FileIo type
        session.stop()
    events = []
    with openetw.Consumer(path, on_event=events.append) as consumer:
        consumer.process()
    assert len(events) == 3
    named = events[0]
    assert "_decoded" not in named.__dict__  # nothing decoded until asked
    assert (named.event_name, named.decoded.source_name) == ("FileIo/Name", "kernel")
    assert named.decoded is named.decoded  # decoded once
    assert named.fields == {"FileObject": 0x1234, "FileName": "\\Device\\x.txt"}
    assert named.formatted("FileObject") == "0x1234"
    with pytest.raises(openetw.InvalidDataError, match="FileObject"):
        events[1].fields
    assert events[2].decoded is None and events[2].fields == {}


@pytest.mark.parametrize("in_type,out_type,data,want", [
    (4, 13, b"\x01", True),                       # TraceLogging BOOL8
    (13, 0, b"\x00\x00\x00\x00", False),
    (5, 0, struct.pack("<h", -2), -2),
    (12, 0, struct.pack("<d", 1.5), 1.5),
    (14, 0, b"\x09\x08", b"\x09\x08"),
    (15, 0, uuid.UUID(int=5).bytes_le, uuid.UUID(int=5)),
    (17, 0, struct.pack("<q", 132392018832816874),
     datetime.datetime(2020, 7, 14, 12, 4, 43, 281687, tzinfo=datetime.timezone.utc)),
    (18, 0, struct.pack("<8H", 2024, 2, 4, 29, 23, 59, 58, 123), datetime.datetime(2024, 2, 29, 23, 59, 58, 123000)),
    (18, 0, bytes(16), "text"),                   # not a date: the formatted text
    (8, 23, b"\x0a\x00\x00\x01", "text"),         # IPv4: the formatted text
    (8, 0, b"\x01\x02", "text"),                  # wrong size: the formatted text
])
def test_values_convert_by_tdh_type(in_type, out_type, data, want):
    value = convert(Property("F", "text", data, -1, 0, 0, in_type, out_type, 0))
    assert value == want and type(value) is type(want)
