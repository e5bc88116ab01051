"""Decoded events: named fields of TraceLogging, manifest and kernel (MOF) events.

Every Record (and ClassicEvent) has .decoded, .fields, ["Name"],
.event_name, .provider_name and the task/opcode/level/keywords names,
computed on first use (iteration that never asks pays nothing) by a
decoder of the reading thread (decode.h: one decoder per thread).

Values take natural Python types: int, float, bool, str, bytes, uuid.UUID,
datetime (FILETIME as aware UTC, SYSTEMTIME naive as stored), lists for
arrays and dicts for structs. IP addresses, SIDs and other texts TDH
formats are the formatted str. formatted(name) is the library's text
(docs/DECODING.md), e.g. a value map's name instead of the number.
"""
from __future__ import annotations

import datetime
import struct
import uuid
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from . import _native

# TDH in-types and out-types (tdh.h values) the conversion looks at.
_IN_UNICODESTRING, _IN_ANSISTRING = 1, 2
_INTS = {3: "<b", 4: "<B", 5: "<h", 6: "<H", 7: "<i", 8: "<I", 9: "<q", 10: "<Q", 20: "<I", 21: "<Q"}
_IN_FLOAT, _IN_DOUBLE, _IN_BOOLEAN, _IN_BINARY, _IN_GUID = 11, 12, 13, 14, 15
_IN_POINTER, _IN_FILETIME, _IN_SYSTEMTIME, _IN_SIZET = 16, 17, 18, 308
_BYTES_IN = {14, 25, 309}  # BINARY, manifest counted binary, HEXDUMP
_OUT_STRING, _OUT_BOOLEAN = 1, 13
_OUT_TEXT = {23, 24, 25, 28, 34, 35}  # IPv4, IPv6, socket address, XML, JSON, UTF-8

_FILETIME_EPOCH = datetime.datetime(1601, 1, 1, tzinfo=datetime.timezone.utc)

SOURCE_NAMES = {_native.ETW_DECODE_SOURCE_TRACELOGGING: "tracelogging",
                _native.ETW_DECODE_SOURCE_KERNEL: "kernel",
                _native.ETW_DECODE_SOURCE_MANIFEST: "manifest"}


class Property(NamedTuple):
    """One property as decode.h gives it (etw_event_property)."""
    name: str
    formatted: str      # the library's text ("" for arrays and structs)
    data: bytes         # its payload bytes
    parent: int         # index of the enclosing array/struct, or -1
    child_count: int
    kind: int           # ETW_PROPERTY_KIND_*
    in_type: int        # TDH_INTYPE_*
    out_type: int       # TDH_OUTTYPE_*
    flags: int          # ETW_PROPERTY_JSON_*


def _int(data: bytes, signed: bool = False) -> int:
    return int.from_bytes(data, "little", signed=signed)


def convert(p: Property) -> Any:
    """The natural Python value of a VALUE property."""
    t, data = p.in_type, p.data
    if t in (_IN_UNICODESTRING, _IN_ANSISTRING) or t in (22, 23, 300, 301, 302, 303, 304, 305, 306, 307):
        return p.formatted
    if p.out_type == _OUT_STRING or p.out_type in _OUT_TEXT:
        return p.formatted  # character arrays shown as one string; addresses, documents
    if t in _INTS and len(data) == struct.calcsize(_INTS[t]):
        value = struct.unpack(_INTS[t], data)[0]
        return bool(value) if p.out_type == _OUT_BOOLEAN else value
    if t == _IN_BOOLEAN:
        return _int(data) != 0
    if t == _IN_FLOAT and len(data) == 4:
        return struct.unpack("<f", data)[0]
    if t == _IN_DOUBLE and len(data) == 8:
        return struct.unpack("<d", data)[0]
    if t in (_IN_POINTER, _IN_SIZET):
        return _int(data)
    if t == _IN_GUID and len(data) == 16:
        return uuid.UUID(bytes_le=data)
    if t == _IN_FILETIME and len(data) == 8:
        return _FILETIME_EPOCH + datetime.timedelta(microseconds=_int(data, True) // 10)
    if t == _IN_SYSTEMTIME and len(data) == 16:
        year, month, _, day, hour, minute, second, ms = struct.unpack("<8H", data)
        try:
            return datetime.datetime(year, month, day, hour, minute, second, ms * 1000)
        except ValueError:
            return p.formatted  # not a date (e.g. all zeros): the library's text
    if t in _BYTES_IN:
        return data
    if t == 0:
        return None
    return p.formatted  # SIDs and whatever has no closer Python type


def _tree(props: List[Property]) -> Dict[str, Any]:
    """Nests arrays (lists) and structs (dicts) as the parent indexes say."""
    values: List[Any] = [None] * len(props)
    top: Dict[str, Any] = {}
    for i, p in enumerate(props):
        if p.kind == _native.ETW_PROPERTY_KIND_ARRAY:
            values[i] = []
        elif p.kind == _native.ETW_PROPERTY_KIND_STRUCT:
            values[i] = {}
        else:
            values[i] = convert(p)
        if p.parent < 0:
            top.setdefault(p.name, values[i])  # a repeated name keeps its first value
            continue
        container = values[p.parent]
        if isinstance(container, list):
            container.append(values[i])
        else:
            container.setdefault(p.name, values[i])
    return top


class DecodedEvent:
    """A decoded event: names, properties in payload order, fields as a dict."""

    __slots__ = ("source", "event_name", "provider_name", "task_name", "opcode_name",
                 "level_name", "keywords_name", "payload_used", "properties", "_fields")

    def __init__(self, raw: Tuple) -> None:
        (self.source, self.event_name, self.provider_name, self.task_name, self.opcode_name,
         self.level_name, self.keywords_name, self.payload_used, props) = raw
        self.properties: List[Property] = [
            Property(n, v, d, -1 if parent == _native.ETW_PROPERTY_NO_PARENT else parent, c, k, i, o, f)
            for n, v, d, parent, c, k, i, o, f in props]
        self._fields: Optional[Dict[str, Any]] = None

    @property
    def source_name(self) -> str:
        """"tracelogging", "kernel" or "manifest"."""
        return SOURCE_NAMES.get(self.source, "")

    @property
    def fields(self) -> Dict[str, Any]:
        if self._fields is None:
            self._fields = _tree(self.properties)
        return self._fields

    def formatted(self, name: str) -> Optional[str]:
        """The formatted text of the top-level field name (None when absent)."""
        for p in self.properties:
            if p.parent < 0 and p.name == name:
                return p.formatted
        return None

    def __repr__(self) -> str:
        return f"DecodedEvent({self.provider_name}/{self.event_name} {self.fields!r})"


def decode(record) -> Optional[DecodedEvent]:
    """Decodes a Record with this thread's decoder of the default schemas
    (openetw.schemas): None when no schema describes it; raises
    InvalidDataError when its payload or TraceLogging metadata does not
    match (the message names the field)."""
    from .schemas import schemas  # schemas.py imports this module
    return schemas.decode(record)


class _Missing:
    """Cached "no schema" marker (distinct from "not decoded yet")."""


_MISSING = _Missing()


class DecodedMixin:
    """What Record and ClassicEvent gain: lazily decoded names and fields.
    The result is cached on the (frozen) object the first time it is asked for."""

    def _decoded_record(self):
        return self

    @property
    def decoded(self) -> Optional[DecodedEvent]:
        """The DecodedEvent, or None when no schema describes the event."""
        cached = self.__dict__.get("_decoded")
        if cached is None:
            record = self._decoded_record()
            # A consumer given schemas= marks its records with them; else the default.
            schemas = record.__dict__.get("_schemas")
            cached = (decode(record) if schemas is None else schemas.decode(record)) or _MISSING
            self.__dict__["_decoded"] = cached  # frozen dataclass: not a field, no setattr
        return None if cached is _MISSING else cached

    @property
    def fields(self) -> Dict[str, Any]:
        """Field name -> natural value ({} when no schema describes the event)."""
        d = self.decoded
        return d.fields if d is not None else {}

    def __getitem__(self, name: str) -> Any:
        fields = self.fields
        if name not in fields:
            raise KeyError(f"{self.event_name or 'this event'} has no field {name!r}"
                           + ("" if self.decoded else " (no schema describes it)"))
        return fields[name]

    def formatted(self, name: str) -> str:
        """The library's formatted text of field name; KeyError when absent."""
        d = self.decoded
        text = d.formatted(name) if d is not None else None
        if text is None:
            raise KeyError(f"{self.event_name or 'this event'} has no field {name!r}")
        return text

    def _name(self, attr: str) -> str:
        d = self.decoded
        return getattr(d, attr) if d is not None else ""

    event_name = property(lambda self: self._name("event_name"), doc="The event's name, or \"\".")
    provider_name = property(lambda self: self._name("provider_name"), doc="The provider's name, or \"\".")
    task_name = property(lambda self: self._name("task_name"), doc="The task's name where known, or \"\".")
    opcode_name = property(lambda self: self._name("opcode_name"), doc="The opcode's name where known, or \"\".")
    level_name = property(lambda self: self._name("level_name"), doc="The level's name where known, or \"\".")
    keywords_name = property(lambda self: self._name("keywords_name"), doc="The keywords' names where known, or \"\".")
