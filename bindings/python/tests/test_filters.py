"""Filters at the source and enable properties from Python (openetw.filters):
Session.enable_provider(..., properties=, filters=), Session(..., filters=),
the records' stack/sid/ts_id/process_start_key/event_key, and the library's
statuses for bad filters."""
import os
import sys

import pytest

import openetw
from openetw import (Consumer, EnableProperty, EventIdFilter, EventNameFilter, ExecutableNameFilter,
                     FilterType, PayloadFilter, PayloadOperator, PayloadPredicate, PidFilter, Provider,
                     RawFilter, Session, StackwalkFilter)
from conftest import file_props


def event_records(path):
    events = []
    for _ in Consumer(path, on_event_record=events.append):
        pass
    return events


def trace_ids(tmp_path, name, guid, ids, **enable):
    """A file session enabling guid with `enable`, one EVENT_HEADER event of each id; the records."""
    path = tmp_path / "f.etl"
    with Provider(guid) as provider, Session(file_props(name, path)) as session:
        session.enable_provider(guid, 5, **enable)
        for event_id in ids:
            provider.write_event(b"x", id=event_id, level=4)
        session.stop()
    return event_records(path)


def test_event_id_filter_admits_or_excludes_the_ids(tmp_path, name, guid):
    ids = [1, 3, 7] * 4
    kept = trace_ids(tmp_path, name, guid, ids, filters=[EventIdFilter([3, 7])])
    assert sorted(e.id for e in kept) == [3] * 4 + [7] * 4
    dropped = trace_ids(tmp_path, name + "x", guid, ids, filters=[EventIdFilter([3], include=False)])
    assert sorted(e.id for e in dropped) == [1] * 4 + [7] * 4
    # The old call, without filters, still takes every event.
    assert len(trace_ids(tmp_path, name + "y", guid, ids)) == 12


def test_pid_and_executable_filters_decide_per_process(tmp_path, name, guid):
    exe = os.path.basename(os.readlink("/proc/self/exe"))
    assert len(trace_ids(tmp_path, name + "a", guid, [1, 2], filters=[PidFilter([os.getpid()])])) == 2
    assert trace_ids(tmp_path, name + "b", guid, [1, 2], filters=[PidFilter([1])]) == []
    assert len(trace_ids(tmp_path, name + "c", guid, [1], filters=[ExecutableNameFilter(["nope", exe])])) == 1
    assert trace_ids(tmp_path, name + "d", guid, [1], filters=[ExecutableNameFilter("not-this-one")]) == []


def test_session_level_filters_apply_to_every_provider(tmp_path, name, guid):
    for pids, want in (([os.getpid()], 1), ([1], 0)):
        path = tmp_path / f"s{want}.etl"
        with Provider(guid) as provider, \
                Session(file_props(f"{name} {want}", path), filters=[PidFilter(pids)]) as session:
            session.enable_provider(guid, 5)
            provider.write_event(b"x", id=9)
            session.stop()
        assert len(event_records(path)) == want
    with pytest.raises(openetw.NotSupportedError, match="PID and EXECUTABLE_NAME only"):
        Session(file_props(name + " bad", tmp_path / "bad.etl"), filters=[EventIdFilter([1])])


def test_event_name_filter_keeps_named_tracelogging_events(tmp_path, name):
    path = tmp_path / "n.etl"
    with Provider(f"OpenEtw.Tests.Filters.{os.getpid()}") as provider, \
            Session(file_props(name, path)) as session:
        session.enable_provider(provider.guid, 5, filters=[EventNameFilter(["Kept"])])
        for _ in range(3):
            provider.write("Kept", n=1)
            provider.write("Dropped", n=2)
        session.stop()
    assert [e.event_name for e in event_records(path)] == ["Kept"] * 3


def test_payload_filter_compares_fields(tmp_path, name):
    path = tmp_path / "p.etl"
    with Provider(f"OpenEtw.Tests.Payload.{os.getpid()}") as provider, Session(file_props(name, path)) as session:
        session.enable_provider(provider.guid, 5, filters=[PayloadFilter(
            [PayloadPredicate("n", PayloadOperator.GT, 5), PayloadPredicate("who", PayloadOperator.CONTAINS, "b")])])
        for n, who in ((1, "abc"), (6, "abc"), (7, "xyz"), (9, "b")):
            provider.write("Item", n=n, who=who)
        session.stop()
    assert [e["n"] for e in event_records(path)] == [6, 9]


def test_properties_add_items_the_records_read(tmp_path, name, guid):
    props = (EnableProperty.STACK_TRACE | EnableProperty.SID | EnableProperty.TS_ID |
             EnableProperty.PROCESS_START_KEY | EnableProperty.EVENT_KEY)
    events = trace_ids(tmp_path, name, guid, [5, 5, 5], properties=props)
    assert len(events) == 3
    for e in events:
        assert e.stack and all(isinstance(a, int) and a for a in e.stack)
        assert e.sid == f"S-1-22-1-{os.geteuid()}"
        assert e.ts_id == os.getsid(0)
        assert e.process_start_key and e.process_start_key & ((1 << 22) - 1) == os.getpid()
        assert e.record.stack == e.stack and e.record.sid == e.sid  # the Record reads the same items
    assert len({e.event_key for e in events}) == 3 and all(events[i].event_key for i in range(3))
    plain = trace_ids(tmp_path, name + "x", guid, [5])
    assert (plain[0].stack, plain[0].sid, plain[0].ts_id, plain[0].process_start_key,
            plain[0].event_key) == (None,) * 5


def test_stackwalk_filter_picks_the_ids_with_stacks(tmp_path, name, guid):
    events = trace_ids(tmp_path, name, guid, [3, 4, 3, 4], properties=EnableProperty.STACK_TRACE | EnableProperty.SID,
                       filters=[StackwalkFilter([3])])
    assert [(e.id, e.stack is not None) for e in events] == [(3, True), (4, False), (3, True), (4, False)]
    events = trace_ids(tmp_path, name + "x", guid, [3, 4], properties=EnableProperty.STACK_TRACE | EnableProperty.SID,
                       filters=[StackwalkFilter([3], include=False)])
    assert [(e.id, e.stack is not None) for e in events] == [(3, False), (4, True)]


def test_stackwalk_filter_with_stacks_as_the_only_property(tmp_path, name, guid):
    events = trace_ids(tmp_path, name, guid, [3, 4], properties=EnableProperty.STACK_TRACE,
                       filters=[StackwalkFilter([3])])
    assert [(e.id, e.stack is not None) for e in events] == [(3, True), (4, False)]


def test_filters_are_frozen_and_hashable():
    f = EventIdFilter([3, 5])
    assert f.ids == (3, 5) and hash(f) == hash(EventIdFilter((3, 5)))
    with pytest.raises(AttributeError):
        f.include = False
    assert PidFilter([1, 2]).descriptor() == (FilterType.PID, b"\1\0\0\0\2\0\0\0")
    assert ExecutableNameFilter(["a", "b"]).descriptor() == (FilterType.EXECUTABLE_NAME,
                                                             "a;b\0".encode("utf-16-le"))


@pytest.mark.parametrize("filters, error, words", [
    ([EventIdFilter([])], openetw.InvalidParameterError, "Count is 0"),
    ([PidFilter(range(100, 109))], openetw.InvalidParameterError, "9 ids; at most MAX_EVENT_FILTER_PID_COUNT (8)"),
    ([EventIdFilter([1]), PidFilter([1]), EventIdFilter([2])], openetw.InvalidParameterError,
     "the type is given twice (filter 0 too)"),
    ([RawFilter(0x80000040, b"\0\0\0\0")], openetw.InvalidParameterError, "not a filter type"),
    ([RawFilter(FilterType.CONTAINER, b"\0\0\0\0")], openetw.NotSupportedError, "does not implement"),
    ([EventNameFilter([])], openetw.InvalidParameterError, "NameCount is 0"),
    ([ExecutableNameFilter([])], openetw.InvalidParameterError, "not empty"),
    ([PayloadFilter([PayloadPredicate("n", PayloadOperator.IS, 2)])], openetw.NotSupportedError, "IS, ISNOT"),
    ([PayloadFilter([PayloadPredicate("n", PayloadOperator.MODULO, 0)])], openetw.InvalidParameterError, "MODULO"),
    ([EventIdFilter([i]) for i in range(14)], openetw.InvalidParameterError, "14 filters"),
])
def test_bad_filters_raise_the_library_status_and_message(tmp_path, name, guid, filters, error, words):
    with Session(file_props(name, tmp_path / "bad.etl")) as session:
        with pytest.raises(error) as raised:
            session.enable_provider(guid, 5, filters=filters)
        assert words in raised.value.message
        session.enable_provider(guid, 5, filters=[EventIdFilter([1])])  # a good one still goes through


def test_bad_properties_and_non_filters_are_refused(tmp_path, name, guid):
    with Session(file_props(name, tmp_path / "bad.etl")) as session:
        with pytest.raises(openetw.InvalidParameterError):
            session.enable_provider(guid, 5, properties=0x10000)
        with pytest.raises(TypeError, match="not a filter"):
            session.enable_provider(guid, 5, filters=[(FilterType.PID, b"\1\0\0\0")])
        with pytest.raises(ValueError, match="16-bit"):
            session.enable_provider(guid, 5, filters=[EventIdFilter([70000])])


def test_a_live_trace_enables_with_properties_and_filters(name, guid):
    seen = []
    with Provider(guid) as provider:
        trace = openetw.LiveTrace(name, [openetw.Enable(guid, 5, properties=EnableProperty.EVENT_KEY,
                                                        filters=[EventIdFilter([2])])],
                                  on_event=lambda e: None, on_event_record=seen.append)
        with trace:
            for event_id in (1, 2, 1, 2):
                provider.write_event(b"x", id=event_id)
    assert [e.id for e in seen] == [2, 2] and all(e.event_key for e in seen)


def test_the_filter_typemap_keeps_no_reference_and_releases_every_buffer(tmp_path, name, guid):
    payload = bytes([1, 0, 1, 0, 3, 0])  # EVENT_ID admitting id 3
    pid = bytearray(b"\1\0\0\0")  # a bytearray cannot be resized while a buffer view is held
    before = sys.getrefcount(payload), sys.getrefcount(pid)
    with Session(file_props(name, tmp_path / "r.etl")) as session:
        handle, raw_guid = session._handle, guid.bytes_le
        enable = openetw._native.openetw_session_enable_provider_ex
        for _ in range(200):
            enable(handle, raw_guid, 1, 5, 0, 0, 0, [(FilterType.EVENT_ID, payload), (FilterType.PID, pid)])
            with pytest.raises(TypeError):  # the second entry is no (type, bytes) pair: the first is released
                enable(handle, raw_guid, 1, 5, 0, 0, 0, [(FilterType.PID, pid), (FilterType.EVENT_ID, 5)])
            with pytest.raises(openetw.InvalidParameterError):
                enable(handle, raw_guid, 1, 5, 0, 0, 0, [(FilterType.PID, pid), (FilterType.PID, pid)])
    assert (sys.getrefcount(payload), sys.getrefcount(pid)) == before
    pid += b"\2\0\0\0"  # BufferError if a view were still held
