"""Read-only snapshots of the Windows-layout records (records.h).

The SWIG layer wraps each record as a mutable proxy over C memory; the
idiomatic API hands out frozen dataclasses instead, with the Windows field
names, GUIDs as uuid.UUID and nested records as nested snapshots. The field
lists come from the generated proxies, so new records need no code here.
"""
from __future__ import annotations

import dataclasses
import functools
import struct
import uuid

from . import _native


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
