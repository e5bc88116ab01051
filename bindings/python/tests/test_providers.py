"""The provider listing from Python: openetw.list_providers(), provider_guids()
and query_provider() over etw_provider_list / etw_provider_query."""
import os

import pytest

import openetw
from openetw import EnableProperty, EventIdFilter, PidFilter, Provider, Session, query_provider
from conftest import file_props


def test_a_registered_provider_and_its_enabling_session_are_listed(tmp_path, name, guid):
    with pytest.raises(openetw.NotFoundError):
        query_provider(guid)
    assert guid not in openetw.provider_guids()
    with Provider(guid), Provider(guid), Session(file_props(name, tmp_path / "l.etl")) as session:
        session.enable_provider(guid, 4, 0xF0, 0x10, properties=EnableProperty.SID | EnableProperty.EVENT_KEY,
                                filters=[EventIdFilter([3, 5]), PidFilter([os.getpid()])])
        info = query_provider(str(guid))
        assert info.guid == guid
        assert [(p.process_id, p.registrations) for p in info.processes] == [(os.getpid(), 2)]
        [s] = info.sessions
        assert (s.session_handle, s.session_name, s.level, s.match_any_keyword, s.match_all_keyword) == \
            (session.handle, name, 4, 0xF0, 0x10)
        assert s.properties == EnableProperty.SID | EnableProperty.EVENT_KEY and s.filter_count == 2
        listed = {p.guid: p for p in openetw.list_providers()}
        assert listed[guid] == info
        # Enabling again replaces the properties and filters.
        session.enable_provider(guid, 5)
        [s] = query_provider(guid).sessions
        assert (s.level, s.properties, s.filter_count) == (5, EnableProperty(0), 0)
        session.stop()
        assert query_provider(guid).sessions == ()
    with pytest.raises(openetw.NotFoundError):
        query_provider(guid)


def test_a_guid_only_a_session_enables_has_no_process(tmp_path, name, guid):
    with Session(file_props(name, tmp_path / "e.etl")) as session:
        session.enable_provider(guid, 2)
        info = query_provider(guid)
        assert info.processes == () and [s.level for s in info.sessions] == [2]
        assert guid in openetw.provider_guids()


def test_a_guid_must_be_16_bytes():
    with pytest.raises(ValueError, match="16 bytes"):
        query_provider(b"short")
