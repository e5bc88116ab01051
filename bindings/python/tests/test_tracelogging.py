"""TraceLogging events from Python: Provider("Name").write("Event", field=value),
read back with the consumer and the Python decoder (names, types, values)."""
import struct
import uuid

import pytest

import openetw
from openetw import Consumer, InType, OutType, Provider, Session, Typed, guid_from_name
from conftest import file_props


def read_back(path):
    events = []
    for _ in Consumer(path, on_event_record=events.append):
        pass
    return events


def test_name_gives_the_eventsource_guid():
    assert guid_from_name("MyCompany.MyComponent") == uuid.UUID("ce5fa4ea-ab00-5402-8b76-9f76ac858fb5")
    assert guid_from_name("mycompany.mycomponent") == guid_from_name("MYCOMPANY.MYCOMPONENT")
    with Provider("MyCompany.MyComponent") as p:
        assert p.guid == uuid.UUID("ce5fa4ea-ab00-5402-8b76-9f76ac858fb5") and p.name == "MyCompany.MyComponent"
    # A GUID's text stays a GUID.
    with Provider("5c6d0a10-3f4e-4b8a-9a51-0c1d2e3f4a5b") as p:
        assert p.guid == uuid.UUID("5c6d0a10-3f4e-4b8a-9a51-0c1d2e3f4a5b") and p.name is None


def test_fields_keep_their_order_names_types_and_values(tmp_path, name):
    provider_name = f"OpenEtw.Tests.Python.{name.replace(' ', '.')}"
    activity = uuid.UUID(int=0xAC71)
    value_guid = uuid.UUID("0a0b0c0d-0e0f-1011-1213-141516171819")
    with Provider(provider_name) as provider, Session(file_props(name, tmp_path / "tl.etl")) as session:
        session.enable_provider(provider.guid, level=5)
        provider.write("OrderShipped", order_id=4711, customer="Fabrikam")
        provider.write("AllTypes", level=4, keyword=0x30, opcode=2, activity_id=activity,
                       flag=True, small=-5, big=2**63 + 1, ratio=0.25, text="h\u00e9llo", blob=b"\x00\xff",
                       id=value_guid, ints=[1, -2, 3], floats=[0.5, 2], pid=Typed(77, InType.UINT32, OutType.PID),
                       port=Typed(4660, InType.UINT16), hex=Typed(0xBEEF, InType.HEXINT32),
                       wide=Typed("w\u00e9", InType.UNICODESTRING), u8s=Typed([1, 2], InType.UINT8 | InType.ARRAY))
        provider.write("Options", fields=[("level", "a field named level")], level=3)
        provider.write("Hidden", level=6)  # above the session's level
        provider.write("Empty")
        session.stop()
    events = read_back(tmp_path / "tl.etl")
    assert [e.event_name for e in events] == ["OrderShipped", "AllTypes", "Options", "Empty"]
    assert {e.provider_name for e in events} == {provider_name}
    first, second, third, empty = events
    assert first.fields == {"order_id": 4711, "customer": "Fabrikam"}
    assert list(first.fields) == ["order_id", "customer"]  # keyword order
    assert (first.level, first.channel) == (5, 11)
    assert (second.level, second.keyword, second.opcode, second.activity_id) == (4, 0x30, 2, activity)
    f = second.fields
    assert list(f) == ["flag", "small", "big", "ratio", "text", "blob", "id", "ints", "floats", "pid", "port",
                       "hex", "wide", "u8s"]
    assert f["flag"] is True and f["small"] == -5 and f["big"] == 2**63 + 1 and f["ratio"] == 0.25
    assert f["text"] == "h\u00e9llo" and f["blob"] == b"\x00\xff" and f["id"] == value_guid
    assert f["ints"] == [1, -2, 3] and f["floats"] == [0.5, 2.0]
    assert f["pid"] == 77 and f["port"] == 4660 and f["wide"] == "w\u00e9" and f["u8s"] == [1, 2]
    assert second.formatted("hex") == "0xBEEF"
    types = {p.name: (p.in_type, p.out_type) for p in second.decoded.properties if p.parent == -1}
    assert types["small"][0] == InType.INT64 and types["big"][0] == InType.UINT64
    assert types["text"][0] == InType.ANSISTRING and types["blob"][0] == InType.BINARY
    assert types["ratio"][0] == InType.DOUBLE and types["flag"][0] == InType.BOOL32
    assert third.level == 3 and third.fields == {"level": "a field named level"}
    assert empty.fields == {}
    # Every event carries its provider's traits and its schema, in Windows' order.
    assert [item[0] for item in first.extended_data] == [openetw.ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS,
                                                         openetw.ETW_EVENT_HEADER_EXT_TYPE_EVENT_SCHEMA_TL]


def test_bad_fields_raise_before_or_in_the_library(tmp_path, name):
    with Provider(f"OpenEtw.Tests.Bad.{name.replace(' ', '.')}") as provider, \
            Session(file_props(name, tmp_path / "bad.etl")) as session:
        session.enable_provider(provider.guid)
        with pytest.raises(TypeError, match="'x'"):
            provider.write("E", x=object())
        with pytest.raises(OverflowError, match="'x'"):
            provider.write("E", x=2**64)
        with pytest.raises(openetw.InvalidParameterError, match="NUL"):
            provider.write("E", s="a\0b")
        with pytest.raises(openetw.InvalidParameterError, match="ETW_TL_MAX_FIELDS"):
            provider.write("E", fields=[(f"f{i}", i) for i in range(129)])
        with pytest.raises(openetw.InvalidParameterError, match="in-type 16"):
            provider.write("E", p=Typed(b"1234", 16))
        with pytest.raises(openetw.Error, match="ETW_TL_MAX_METADATA_SIZE") as info:
            provider.write("E", **{"n" * 5000: 1})
        assert info.value.status == openetw.ETW_ERROR_ARITHMETIC_OVERFLOW
        with pytest.raises(openetw.MoreDataError, match="buffer size"):
            provider.write("E", blob=b"x" * 20000)  # fits 0xFFFF, not the 16 KB buffers
        with pytest.raises(openetw.Error, match="0xFFFF") as info:
            provider.write("E", blob=b"x" * 65500)
        assert info.value.status == openetw.ETW_ERROR_ARITHMETIC_OVERFLOW
        with pytest.raises(TypeError, match="fields="):
            provider.write(b"classic", fields={})
        provider.write(b"classic payload", type=1, level=4)  # the classic write is unchanged
        session.stop()


def test_named_provider_traits_are_set_once(tmp_path, name):
    group = uuid.UUID(int=0x6A)
    with Provider(f"OpenEtw.Tests.Group.{name.replace(' ', '.')}", group=group) as provider, \
            Session(file_props(name, tmp_path / "g.etl")) as session:
        session.enable_provider(provider.guid)
        with pytest.raises(openetw.AlreadyExistsError, match="set once"):
            openetw._native.openetw_provider_set_name(provider._live(), "Other", b"")
        provider.write_event(b"\x01\x02", id=7, level=4)  # an EVENT_HEADER event carries the traits too
        session.stop()
    [event] = read_back(tmp_path / "g.etl")
    [(ext_type, _, _, data)] = event.extended_data
    data = bytes(data)
    assert ext_type == openetw.ETW_EVENT_HEADER_EXT_TYPE_PROV_TRAITS
    size, = struct.unpack_from("<H", data)
    assert size == len(data) and data.endswith(struct.pack("<HB", 19, 1) + group.bytes_le)


def test_a_disabled_provider_encodes_nothing(guid):
    with Provider(guid) as provider:
        provider.write("Unseen", x=object())  # no session: not even the field's type is looked at


def test_a_guid_provider_can_be_named(tmp_path, name, guid):
    with Provider(guid, name="OpenEtw.Tests.ByGuid") as provider, \
            Session(file_props(name, tmp_path / "n.etl")) as session:
        assert provider.guid == guid and provider.name == "OpenEtw.Tests.ByGuid"
        session.enable_provider(guid)
        provider.write("Named", n=1)
        session.stop()
    [event] = read_back(tmp_path / "n.etl")
    assert (event.provider_name, event.event_name, event.fields) == ("OpenEtw.Tests.ByGuid", "Named", {"n": 1})
    with pytest.raises(ValueError, match="give one name"):
        Provider("OpenEtw.A", name="OpenEtw.B")
    with pytest.raises(ValueError, match="group= needs a provider name"):
        Provider(guid, group=uuid.UUID(int=1))
