"""Read-only snapshots of the Windows-layout records (records.h).

The SWIG layer wraps each record as a mutable proxy over C memory; the
idiomatic API hands out frozen dataclasses instead, with the Windows field
names, GUIDs as uuid.UUID and nested records as nested snapshots. The field
lists come from the generated proxies, so new records need no code here.
"""
from __future__ import annotations

import dataclasses
import datetime
import functools
import struct
import uuid

from . import _native
from .extended import ExtendedItemsMixin
from .fields import DecodedMixin


def guid_from_proxy(guid) -> uuid.UUID:
    return uuid.UUID(bytes_le=struct.pack("<IHH", guid.Data1, guid.Data2, guid.Data3) +
                     guid.Data4)


def _fields(proxy_type) -> list[str]:
    # SWIG emits one property per struct member, in declaration order.
    return [name for name, value in vars(proxy_type).items()
            if isinstance(value, property) and name != "thisown"]


@functools.cache
def _snapshot_type(proxy_type):
    name = "".join(part.capitalize() for part in
                   proxy_type.__name__.removeprefix("etw_").split("_"))
    cls = dataclasses.make_dataclass(name, _fields(proxy_type), frozen=True)
    cls.__module__ = __name__
    return cls


def snapshot(proxy):
    """A frozen dataclass copy of a SWIG record proxy (recursively)."""
    if isinstance(proxy, _native.etw_guid):
        return guid_from_proxy(proxy)
    proxy_type = type(proxy)
    values = {}
    for name in _fields(proxy_type):
        value = getattr(proxy, name)
        values[name] = snapshot(value) if hasattr(type(value), "thisown") else value
    return _snapshot_type(proxy_type)(**values)


# ---- Consumer records: copies made while the callback runs ----
# The native callbacks pass non-owning proxies of borrowed structs plus bytes
# copies of the memory they point at (bindings/swig/python.i); everything
# below copies at once, so no object handed to user code refers to library
# memory after the callback returns.

_ZERO_GUID = uuid.UUID(int=0)
_SKIP = {"struct_size", "reserved0", "reserved1", "reserved_pad32"}
# Pointer members become the bytes the trampolines copied (or a Record).
_POINTERS = {"bytes", "payload", "extended", "data", "image", "record"}
# GUID members read only when `present` says they hold data (each costs a UUID).
_RECORD_GUIDS = {"guid": 0x0004, "activity_id": 0x0080, "parent_guid": 0x0100}


def _copy_fields(proxy_type) -> list[str]:
    return [n for n in _fields(proxy_type) if n not in _SKIP and n not in _POINTERS]


def _timestamp_datetime(self):
    """timestamp as an aware UTC datetime (FILETIME: 100 ns since 1601)."""
    return (datetime.datetime(1601, 1, 1, tzinfo=datetime.timezone.utc) +
            datetime.timedelta(microseconds=self.timestamp // 10))


def _kind_name(self) -> str:
    """The record kind's canonical name ("full", "event", ...)."""
    return _native.etw_record_kind_name(self.kind)


_RECORD_FIELDS = _copy_fields(_native.etw_record)
Record = dataclasses.make_dataclass(
    "Record", _RECORD_FIELDS + ["payload", "raw", "extended"], bases=(DecodedMixin, ExtendedItemsMixin),
    frozen=True,
    namespace={"datetime": property(_timestamp_datetime), "kind_name": property(_kind_name),
               "__doc__": "One record of any kind: the etw_record facts (consumer.h), "
                          "payload and raw (the whole record) as bytes, extended as "
                          "(ext_type, linkage, item_size, data) tuples (stack, sid, ts_id, "
                          "process_start_key and event_key read them). Decoded on demand: "
                          "fields, record[\"Name\"], event_name, provider_name (openetw.fields)."})
Record.__module__ = __name__


def record_from_proxy(proxy, payload: bytes, raw: bytes, extended: tuple) -> Record:
    values = {}
    present = proxy.present
    for name in _RECORD_FIELDS:
        bit = _RECORD_GUIDS.get(name)
        if bit is None:
            values[name] = getattr(proxy, name)
        else:
            values[name] = guid_from_proxy(getattr(proxy, name)) if present & bit else _ZERO_GUID
    return Record(payload=payload, raw=raw, extended=extended, **values)


_EVENT_FIELDS = _copy_fields(_native.etw_classic_event)
ClassicEvent = dataclasses.make_dataclass(
    "ClassicEvent", _EVENT_FIELDS + ["payload", "record"], bases=(DecodedMixin,), frozen=True,
    namespace={"_decoded_record": lambda self: self.record,
               "__doc__": "A classic event as ProcessTrace's EventCallback sees it: header "
                          "(an EventTraceHeader snapshot), payload bytes and the Record; "
                          "decoded on demand like Record (fields, event[\"Name\"], ...)."})
ClassicEvent.__module__ = __name__


def event_from_proxy(proxy, payload: bytes, raw: bytes, extended: tuple) -> ClassicEvent:
    values = {name: getattr(proxy, name) for name in _EVENT_FIELDS}
    values = {name: snapshot(v) if hasattr(type(v), "thisown") else v for name, v in values.items()}
    return ClassicEvent(payload=payload, record=record_from_proxy(proxy.record, payload, raw, extended),
                        **values)


_EVENT_RECORD_POINTERS = {"extended_data", "user_data", "record"}
_EVENT_RECORD_FIELDS = [n for n in _copy_fields(_native.etw_event_record) if n not in _EVENT_RECORD_POINTERS]
EventRecord = dataclasses.make_dataclass(
    "EventRecord", _EVENT_RECORD_FIELDS + ["extended_data", "user_data", "record"],
    bases=(DecodedMixin, ExtendedItemsMixin), frozen=True,
    namespace={"_decoded_record": lambda self: self.record, "datetime": property(_timestamp_datetime),
               "_extended_items": lambda self: self.extended_data,
               "__doc__": "An EVENT_HEADER record (manifest-based, TraceLogging) as ProcessTrace's "
                          "EventRecordCallback sees its EVENT_RECORD: the EVENT_HEADER fields (flags, "
                          "event_property, thread_id, process_id, timestamp, provider_id and "
                          "activity_id as uuid.UUID, kernel_time, user_time), the EVENT_DESCRIPTOR "
                          "(id, version, channel, level, opcode, task, keyword), extended_data as "
                          "(ext_type, linkage, item_size, data) tuples (stack, sid, ... read them), "
                          "user_data bytes and the "
                          "Record; decoded on demand like Record (fields, event[\"Name\"], ...)."})
EventRecord.__module__ = __name__


def event_record_from_proxy(proxy, user_data: bytes, record_proxy, payload: bytes, raw: bytes,
                            extended: tuple) -> EventRecord:
    values = {name: getattr(proxy, name) for name in _EVENT_RECORD_FIELDS}
    values["provider_id"] = guid_from_proxy(values["provider_id"])
    values["activity_id"] = guid_from_proxy(values["activity_id"])
    record = None if record_proxy is None else record_from_proxy(record_proxy, payload, raw, extended)
    return EventRecord(extended_data=extended, user_data=user_data, record=record, **values)


_BUFFER_FIELDS = _copy_fields(_native.etw_buffer_info)
BufferInfo = dataclasses.make_dataclass(
    "BufferInfo", _BUFFER_FIELDS + ["data", "image"], frozen=True,
    namespace={"__doc__": "One buffer (etw_buffer_info): data is the bytes as stored, image "
                          "what records were read from (the same object unless decompressed)."})
BufferInfo.__module__ = __name__


def buffer_from_proxy(proxy, data: bytes, image) -> BufferInfo:
    values = {name: getattr(proxy, name) for name in _BUFFER_FIELDS}
    return BufferInfo(data=data, image=data if image is None else image, **values)
