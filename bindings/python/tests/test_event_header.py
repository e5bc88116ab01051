"""EVENT_HEADER events (Provider.write_event) and activity ids."""
import threading
import uuid

import pytest

import openetw
from openetw import Consumer, Provider, Session, activity_id_control
from conftest import file_props


def test_write_event_keeps_its_descriptor_and_activity_ids(tmp_path, name, guid):
    activity, related = uuid.UUID(int=0xA1), uuid.UUID(int=0xB2)
    with Provider(guid) as provider, Session(file_props(name, tmp_path / "e.etl")) as session:
        session.enable_provider(guid, level=4, match_any_keyword=0x10)
        provider.write_event(b"shipped", id=4711, version=2, channel=0x10, level=4, opcode=1, task=9,
                             keyword=0x8000000000000010, activity_id=activity, related_activity_id=related)
        provider.write_event(b"not taken", id=1, level=4, keyword=0x20)  # no MatchAnyKeyword bit
        provider.write_event(b"not taken", id=2, level=5, keyword=0x10)  # above the session's level
        mine = activity_id_control(openetw.ETW_ACTIVITY_CTRL_CREATE_ID)
        activity_id_control(openetw.ETW_ACTIVITY_CTRL_SET_ID, mine)
        provider.write_event(memoryview(b"xyz"), id=3, level=4)  # keyword 0: every session takes it
        session.stop()
    events = []
    for _ in Consumer(tmp_path / "e.etl", on_event_record=events.append):
        pass
    assert [e.id for e in events] == [4711, 3]
    first, second = events
    assert (first.version, first.channel, first.level, first.opcode, first.task, first.keyword) == (
        2, 0x10, 4, 1, 9, 0x8000000000000010)
    assert first.provider_id == guid and first.activity_id == activity and first.user_data == b"shipped"
    assert first.flags & 0x1  # EVENT_HEADER_FLAG_EXTENDED_INFO
    [(ext_type, _, _, data)] = first.extended_data
    assert ext_type == 1 and uuid.UUID(bytes_le=bytes(data)) == related
    assert second.activity_id == mine and second.extended_data == () and second.user_data == b"xyz"
    assert first.record.kind == openetw.ETW_RECORD_KIND_EVENT


def test_activity_id_control_is_per_thread():
    code = openetw
    a = uuid.UUID(int=0x1234)
    assert activity_id_control(code.ETW_ACTIVITY_CTRL_SET_ID, a) == a
    assert activity_id_control(code.ETW_ACTIVITY_CTRL_GET_ID) == a
    b = uuid.UUID(int=0x5678)
    assert activity_id_control(code.ETW_ACTIVITY_CTRL_GET_SET_ID, b) == a
    assert activity_id_control(code.ETW_ACTIVITY_CTRL_CREATE_SET_ID) == b
    new = activity_id_control(code.ETW_ACTIVITY_CTRL_GET_ID)
    assert new not in (b, uuid.UUID(int=0))
    assert activity_id_control(code.ETW_ACTIVITY_CTRL_CREATE_ID) != activity_id_control(code.ETW_ACTIVITY_CTRL_CREATE_ID)
    seen = []
    t = threading.Thread(target=lambda: seen.append(activity_id_control(code.ETW_ACTIVITY_CTRL_GET_ID)))
    t.start()
    t.join()
    assert seen == [uuid.UUID(int=0)]
    with pytest.raises(openetw.InvalidParameterError, match="control code 9"):
        activity_id_control(9)


def test_write_event_errors_say_what_happened(tmp_path, name, guid):
    with Provider(guid) as provider, Session(file_props(name, tmp_path / "w.etl", buffer_size=8)) as s:
        s.enable_provider(guid)
        with pytest.raises(openetw.MoreDataError, match="buffer size minus 72"):
            provider.write_event(b"y" * 8100)
        with pytest.raises(openetw.Error, match="0xFFFF") as info:
            provider.write_event(b"z" * 65500)
        assert info.value.status == openetw.ETW_ERROR_ARITHMETIC_OVERFLOW
        with pytest.raises(openetw.InvalidParameterError, match="16"):
            provider.write_event(b"", activity_id=b"short")
