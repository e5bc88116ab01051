"""Filters at the source and enable properties (EnableTraceEx2's ENABLE_TRACE_PARAMETERS).

Each filter is a small frozen dataclass that packs its EVENT_FILTER_DESCRIPTOR
payload as Windows lays it out (include/openetw/filter.h); Session.enable_provider
takes a list of them, Session(..., filters=[...]) the session's own (PID and
executable name only). Windows' limits (8 pids, 1 to 64 ids, one filter of a
type, 13 filters, sizes) are the library's to check: a bad filter raises the
library's InvalidParameterError / NotSupportedError with its message naming
the filter by index. docs/FILTERS.md says what each filter does.

>>> session.enable_provider(guid, level=Level.VERBOSE,
...     properties=EnableProperty.STACK_TRACE | EnableProperty.SID,
...     filters=[EventIdFilter([3, 5]), PidFilter([os.getpid()])])
"""
from __future__ import annotations

import dataclasses
import enum
import struct
from typing import Iterable, Tuple, Union

from . import _native


class EnableProperty(enum.IntFlag):
    """EVENT_ENABLE_PROPERTY_*: what a session asks of a provider's events
    (extended data items: SID, TS_ID, STACK_TRACE, PROCESS_START_KEY, EVENT_KEY;
    IGNORE_KEYWORD_0 drops events of keyword 0)."""
    SID = _native.ETW_EVENT_ENABLE_PROPERTY_SID
    TS_ID = _native.ETW_EVENT_ENABLE_PROPERTY_TS_ID
    STACK_TRACE = _native.ETW_EVENT_ENABLE_PROPERTY_STACK_TRACE
    PSM_KEY = _native.ETW_EVENT_ENABLE_PROPERTY_PSM_KEY
    IGNORE_KEYWORD_0 = _native.ETW_EVENT_ENABLE_PROPERTY_IGNORE_KEYWORD_0
    PROVIDER_GROUP = _native.ETW_EVENT_ENABLE_PROPERTY_PROVIDER_GROUP
    ENABLE_KEYWORD_0 = _native.ETW_EVENT_ENABLE_PROPERTY_ENABLE_KEYWORD_0
    PROCESS_START_KEY = _native.ETW_EVENT_ENABLE_PROPERTY_PROCESS_START_KEY
    EVENT_KEY = _native.ETW_EVENT_ENABLE_PROPERTY_EVENT_KEY
    EXCLUDE_INPRIVATE = _native.ETW_EVENT_ENABLE_PROPERTY_EXCLUDE_INPRIVATE
    ENABLE_SILOS = _native.ETW_EVENT_ENABLE_PROPERTY_ENABLE_SILOS
    SOURCE_CONTAINER_TRACKING = _native.ETW_EVENT_ENABLE_PROPERTY_SOURCE_CONTAINER_TRACKING


class FilterType(enum.IntEnum):
    """EVENT_FILTER_DESCRIPTOR.Type."""
    SCHEMATIZED = _native.ETW_EVENT_FILTER_TYPE_SCHEMATIZED
    SYSTEM_FLAGS = _native.ETW_EVENT_FILTER_TYPE_SYSTEM_FLAGS
    TRACEHANDLE = _native.ETW_EVENT_FILTER_TYPE_TRACEHANDLE
    PID = _native.ETW_EVENT_FILTER_TYPE_PID
    EXECUTABLE_NAME = _native.ETW_EVENT_FILTER_TYPE_EXECUTABLE_NAME
    PACKAGE_ID = _native.ETW_EVENT_FILTER_TYPE_PACKAGE_ID
    PACKAGE_APP_ID = _native.ETW_EVENT_FILTER_TYPE_PACKAGE_APP_ID
    PAYLOAD = _native.ETW_EVENT_FILTER_TYPE_PAYLOAD
    EVENT_ID = _native.ETW_EVENT_FILTER_TYPE_EVENT_ID
    EVENT_NAME = _native.ETW_EVENT_FILTER_TYPE_EVENT_NAME
    STACKWALK = _native.ETW_EVENT_FILTER_TYPE_STACKWALK
    STACKWALK_NAME = _native.ETW_EVENT_FILTER_TYPE_STACKWALK_NAME
    STACKWALK_LEVEL_KW = _native.ETW_EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW
    CONTAINER = _native.ETW_EVENT_FILTER_TYPE_CONTAINER


class PayloadOperator(enum.IntEnum):
    """PAYLOAD_OPERATOR: how a PayloadPredicate compares its field with the value."""
    EQ = _native.ETW_PAYLOADFIELD_EQ
    NE = _native.ETW_PAYLOADFIELD_NE
    LE = _native.ETW_PAYLOADFIELD_LE
    GT = _native.ETW_PAYLOADFIELD_GT
    LT = _native.ETW_PAYLOADFIELD_LT
    GE = _native.ETW_PAYLOADFIELD_GE
    BETWEEN = _native.ETW_PAYLOADFIELD_BETWEEN
    NOTBETWEEN = _native.ETW_PAYLOADFIELD_NOTBETWEEN
    MODULO = _native.ETW_PAYLOADFIELD_MODULO
    CONTAINS = _native.ETW_PAYLOADFIELD_CONTAINS
    DOESNTCONTAIN = _native.ETW_PAYLOADFIELD_DOESNTCONTAIN
    IS = _native.ETW_PAYLOADFIELD_IS
    ISNOT = _native.ETW_PAYLOADFIELD_ISNOT


def _freeze(obj, name: str, values) -> None:
    # Lists become tuples so that a frozen filter is hashable and cannot change under a session.
    object.__setattr__(obj, name, tuple([values] if isinstance(values, (str, int)) else values))


def _ids_payload(ids: Tuple[int, ...], include: bool) -> bytes:
    """EVENT_FILTER_EVENT_ID: FilterIn, Reserved, Count, then Count 16-bit ids."""
    try:
        return struct.pack(f"<BBH{len(ids)}H", 1 if include else 0, 0, len(ids) & 0xFFFF, *ids)
    except struct.error as e:
        raise ValueError(f"event ids are 16-bit unsigned integers: {list(ids)}") from e


@dataclasses.dataclass(frozen=True)
class EventIdFilter:
    """EVENT_ID: only the events of these ids are written (include=False: all but them).
    1 to 64 ids."""
    ids: Tuple[int, ...]
    include: bool = True

    def __post_init__(self) -> None:
        _freeze(self, "ids", self.ids)

    def descriptor(self) -> Tuple[int, bytes]:
        return FilterType.EVENT_ID, _ids_payload(self.ids, self.include)


@dataclasses.dataclass(frozen=True)
class StackwalkFilter:
    """STACKWALK: with EnableProperty.STACK_TRACE, only events of these ids carry a
    stack (include=False: all but them). 1 to 64 ids."""
    ids: Tuple[int, ...]
    include: bool = True

    def __post_init__(self) -> None:
        _freeze(self, "ids", self.ids)

    def descriptor(self) -> Tuple[int, bytes]:
        return FilterType.STACKWALK, _ids_payload(self.ids, self.include)


@dataclasses.dataclass(frozen=True)
class PidFilter:
    """PID: only these processes write to the session (at most 8); Windows has
    no exclude form. Also a session-level filter."""
    pids: Tuple[int, ...]

    def __post_init__(self) -> None:
        _freeze(self, "pids", self.pids)

    def descriptor(self) -> Tuple[int, bytes]:
        try:
            return FilterType.PID, struct.pack(f"<{len(self.pids)}I", *self.pids)
        except struct.error as e:
            raise ValueError(f"process ids are 32-bit unsigned integers: {list(self.pids)}") from e


@dataclasses.dataclass(frozen=True)
class ExecutableNameFilter:
    """EXECUTABLE_NAME: only processes running one of these executables (file
    names, "python3"; Windows' form is one "a.exe;b.exe" string, which is
    taken too). Also a session-level filter."""
    names: Tuple[str, ...]

    def __post_init__(self) -> None:
        _freeze(self, "names", self.names)

    def descriptor(self) -> Tuple[int, bytes]:
        return FilterType.EXECUTABLE_NAME, (";".join(self.names) + "\0").encode("utf-16-le")


@dataclasses.dataclass(frozen=True)
class EventNameFilter:
    """EVENT_NAME: TraceLogging events of these names are written (include=False:
    all but them), among those of level <= level (0: every level) matching the
    keywords; other events pass as the session's level and keywords decide."""
    names: Tuple[str, ...]
    include: bool = True
    level: int = 0
    match_any_keyword: int = 0
    match_all_keyword: int = 0

    def __post_init__(self) -> None:
        _freeze(self, "names", self.names)

    def descriptor(self) -> Tuple[int, bytes]:
        head = struct.pack("<QQBBH", self.match_any_keyword, self.match_all_keyword, self.level,
                           1 if self.include else 0, len(self.names) & 0xFFFF)
        return FilterType.EVENT_NAME, head + b"".join(n.encode("utf-8") + b"\0" for n in self.names)


@dataclasses.dataclass(frozen=True)
class PayloadPredicate:
    """One comparison of a TraceLogging field: field op value (value as text:
    "42", "0x2A", "low,high" for BETWEEN, a substring for CONTAINS)."""
    field: str
    op: PayloadOperator
    value: Union[str, int]


@dataclasses.dataclass(frozen=True)
class PayloadFilter:
    """PAYLOAD: TraceLogging events whose fields satisfy every predicate
    (match_all=False: any one); events without field metadata pass. 1 to 8 predicates."""
    predicates: Tuple[PayloadPredicate, ...]
    match_all: bool = True

    def __post_init__(self) -> None:
        preds = self.predicates
        _freeze(self, "predicates", [preds] if isinstance(preds, PayloadPredicate) else preds)

    def descriptor(self) -> Tuple[int, bytes]:
        out = bytearray(struct.pack("<HBB", len(self.predicates) & 0xFFFF, 1 if self.match_all else 0, 0))
        for p in self.predicates:
            out += b"\0" * (-len(out) % 4)  # each predicate starts on a 4-byte boundary
            name, value = p.field.encode("utf-8") + b"\0", str(p.value).encode("utf-8") + b"\0"
            out += struct.pack("<HHHH", int(p.op), len(name), len(value), 0) + name + value
        return FilterType.PAYLOAD, bytes(out)


@dataclasses.dataclass(frozen=True)
class RawFilter:
    """Any filter as its type and payload bytes: a SCHEMATIZED filter for the
    providers' enable callbacks, or a type the classes above do not cover."""
    type: int
    data: bytes

    def descriptor(self) -> Tuple[int, bytes]:
        return int(self.type), bytes(self.data)


Filter = Union[EventIdFilter, StackwalkFilter, PidFilter, ExecutableNameFilter, EventNameFilter,
               PayloadFilter, RawFilter]


def descriptors(filters: Iterable[Filter]) -> list:
    """[(type, payload bytes)] as the native layer takes them."""
    out = []
    for f in filters:
        if not hasattr(f, "descriptor"):
            raise TypeError(f"{f!r} is not a filter (EventIdFilter, PidFilter, ... or RawFilter)")
        out.append(f.descriptor())
    return out
