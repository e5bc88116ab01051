"""TraceLogging: self-describing events (tracelogging.h), written by
Provider.write("EventName", field=value, ...).

Python values map to TraceLogging types as follows (keyword order is field
order):

  bool            -> BOOL32
  int             -> INT64 (UINT64 from 2**63 up to 2**64 - 1; beyond: OverflowError)
  float           -> DOUBLE
  str             -> a UTF-8 string (no NUL characters)
  bytes, bytearray, memoryview -> BINARY (at most 65535 bytes)
  uuid.UUID       -> GUID
  list/tuple of int   -> an INT64 array (UINT64 when an element needs it)
  list/tuple of float (or floats and ints) -> a DOUBLE array
  Typed(value, InType.X, OutType.Y) -> exactly that in-type and out-type

INT64 for every int keeps any value a reader sees unchanged; give a
narrower type with Typed (e.g. Typed(42, InType.UINT32, OutType.PID)).
"""
from __future__ import annotations

import enum
import struct
import uuid
from typing import Any, Iterable, List, Mapping, Tuple, Union

from . import _native

__all__ = ["InType", "OutType", "Typed", "guid_from_name", "encode_fields"]


class InType(enum.IntEnum):
    """How a field's bytes are laid out (ETW_TL_IN_*, TraceLogging's TlgIn_t)."""
    UNICODESTRING = 1
    ANSISTRING = 2
    INT8 = 3
    UINT8 = 4
    INT16 = 5
    UINT16 = 6
    INT32 = 7
    UINT32 = 8
    INT64 = 9
    UINT64 = 10
    FLOAT = 11
    DOUBLE = 12
    BOOL32 = 13
    BINARY = 14
    GUID = 15
    FILETIME = 17
    SYSTEMTIME = 18
    SID = 19
    HEXINT32 = 20
    HEXINT64 = 21
    COUNTEDSTRING = 22
    COUNTEDANSISTRING = 23
    COUNTEDBINARY = 25
    POINTER = 21 if struct.calcsize("P") == 8 else 20
    ARRAY = 0x40  # OR'ed into a fixed-size in-type


class OutType(enum.IntEnum):
    """How a reader shows a field (ETW_TL_OUT_*, TraceLogging's TlgOut_t)."""
    DEFAULT = 0
    NOPRINT = 1
    STRING = 2
    BOOLEAN = 3
    HEX = 4
    PID = 5
    TID = 6
    PORT = 7
    IPV4 = 8
    IPV6 = 9
    SOCKETADDRESS = 10
    XML = 11
    JSON = 12
    WIN32ERROR = 13
    NTSTATUS = 14
    HRESULT = 15
    FILETIME = 16
    SIGNED = 17
    UNSIGNED = 18
    UTF8 = 35
    PKCS7_WITH_TYPE_INFO = 36
    CODE_POINTER = 37
    DATETIME_UTC = 38


# struct formats of the fixed-size in-types.
_FORMATS = {InType.INT8: "b", InType.UINT8: "B", InType.INT16: "h", InType.UINT16: "H",
            InType.INT32: "i", InType.UINT32: "I", InType.INT64: "q", InType.UINT64: "Q",
            InType.FLOAT: "f", InType.DOUBLE: "d", InType.BOOL32: "i", InType.FILETIME: "Q",
            InType.HEXINT32: "I", InType.HEXINT64: "Q"}


class Typed:
    """A value with an explicit in-type (and out-type): Typed(80, InType.UINT16, OutType.PORT),
    Typed([1, 2], InType.INT32 | InType.ARRAY), Typed("x", InType.UNICODESTRING)."""
    __slots__ = ("value", "in_type", "out_type")

    def __init__(self, value: Any, in_type: int, out_type: int = OutType.DEFAULT) -> None:
        self.value, self.in_type, self.out_type = value, int(in_type), int(out_type)

    def __repr__(self) -> str:
        return f"Typed({self.value!r}, {self.in_type}, {self.out_type})"


def _bytes_of(value: Any, in_type: int) -> bytes:
    """The bytes of value as in_type (the library adds count prefixes and NULs)."""
    base, array = in_type & ~InType.ARRAY, bool(in_type & InType.ARRAY)
    if array:
        fmt = _FORMATS.get(base) if base != InType.GUID else None
        if base == InType.GUID:
            return b"".join(uuid.UUID(str(v)).bytes_le if not isinstance(v, uuid.UUID) else v.bytes_le
                            for v in value)
        if fmt is None:
            return bytes(value)  # the library says what is wrong
        return struct.pack("<%d%s" % (len(value), fmt), *value)
    if base in _FORMATS:
        return struct.pack("<" + _FORMATS[base], value)
    if base == InType.GUID:
        return (value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))).bytes_le
    if base in (InType.ANSISTRING, InType.COUNTEDANSISTRING) and isinstance(value, str):
        return value.encode("utf-8")
    if base in (InType.UNICODESTRING, InType.COUNTEDSTRING) and isinstance(value, str):
        return value.encode("utf-16-le")
    return bytes(value)


def _int_type(values: Iterable[int]) -> int:
    for v in values:
        if v >= 1 << 63:
            return InType.UINT64
    return InType.INT64


def _typed(name: str, value: Any) -> Tuple[int, int, bytes]:
    """(in_type, out_type, bytes) of one field's Python value."""
    if isinstance(value, Typed):
        return value.in_type, value.out_type, _bytes_of(value.value, value.in_type)
    if isinstance(value, bool):
        return InType.BOOL32, 0, struct.pack("<i", 1 if value else 0)
    if isinstance(value, int):
        if not -(1 << 63) <= value < 1 << 64:
            raise OverflowError(f"field {name!r}: {value} does not fit 64 bits")
        t = _int_type((value,))
        return t, 0, struct.pack("<q" if t == InType.INT64 else "<Q", value)
    if isinstance(value, float):
        return InType.DOUBLE, 0, struct.pack("<d", value)
    if isinstance(value, str):
        return InType.ANSISTRING, OutType.UTF8, value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return InType.BINARY, 0, bytes(value)
    if isinstance(value, uuid.UUID):
        return InType.GUID, 0, value.bytes_le
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
            for v in value:
                if not -(1 << 63) <= v < 1 << 64:
                    raise OverflowError(f"field {name!r}: {v} does not fit 64 bits")
            t = _int_type(value)
            return t | InType.ARRAY, 0, struct.pack("<%d%s" % (len(value), "q" if t == InType.INT64 else "Q"),
                                                    *value)
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return InType.DOUBLE | InType.ARRAY, 0, struct.pack("<%dd" % len(value), *value)
        raise TypeError(f"field {name!r}: a list must hold only ints or only numbers (use Typed)")
    raise TypeError(f"field {name!r}: no TraceLogging type for {type(value).__name__} (use Typed)")


def encode_fields(fields: Iterable[Tuple[str, Any]]) -> Tuple[bytes, bytes]:
    """The (layout, values) pair openetw_provider_write_tracelogging unpacks."""
    layout: List[bytes] = []
    values: List[bytes] = []
    for name, value in fields:
        if not isinstance(name, str):
            raise TypeError(f"a field name must be a str, not {type(name).__name__}")
        in_type, out_type, data = _typed(name, value)
        if not 0 <= in_type <= 255 or not 0 <= out_type <= 255:
            raise ValueError(f"field {name!r}: in-type {in_type} / out-type {out_type} is not a byte")
        layout.append(name.encode("utf-8") + b"\0" + struct.pack("<BBI", in_type, out_type, len(data)))
        values.append(data)
    return b"".join(layout), b"".join(values)


def guid_from_name(name: str) -> uuid.UUID:
    """The provider GUID TraceLogging and .NET EventSource derive from a provider name."""
    return uuid.UUID(bytes_le=bytes(_native.openetw_provider_guid_from_name(name)))


FieldsLike = Union[Mapping[str, Any], Iterable[Tuple[str, Any]], None]


def field_items(fields: FieldsLike, more: Mapping[str, Any]) -> List[Tuple[str, Any]]:
    items = list(fields.items()) if isinstance(fields, Mapping) else list(fields or ())
    items.extend(more.items())
    return items


def write(handle, event_name: str, fields: List[Tuple[str, Any]], level: int, keyword: int, opcode: int,
          channel: int, activity: bytes, related: bytes) -> None:
    layout, values = encode_fields(fields)
    _native.openetw_provider_write_tracelogging(handle, event_name, level, keyword, opcode, channel,
                                                activity, related, layout, values)
