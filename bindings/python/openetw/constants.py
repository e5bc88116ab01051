"""Every ETW_* constant of the C headers, and enums over the main groups.

The values come from the generated module (the headers), never retyped here.
Enum members drop the ETW_ prefix: LogFileMode.REAL_TIME_MODE,
LogFileMode.FILE_MODE_CIRCULAR, Clock.SYSTEM_TIME, Level.VERBOSE.
"""
from __future__ import annotations

import enum

from . import _native

_ALL = {name: value for name, value in vars(_native).items()
        if name.startswith(("ETW_", "OPENETW_")) and isinstance(value, (int, str))}
globals().update(_ALL)
__all__ = sorted(_ALL) + ["LogFileMode", "Clock", "Level", "EventType", "WnodeFlag",
                          "KernelFlag", "SessionRights"]


def _group(prefix: str, names=None) -> dict[str, int]:
    return {name.removeprefix(prefix): value for name, value in _ALL.items()
            if (name.startswith(prefix) if names is None else name in names)}


# LogFileMode mixes several spellings in evntrace.h, so its members are listed.
_MODE_NAMES = {n for n in _ALL if n.startswith("ETW_FILE_MODE_") or
               (n.endswith("_MODE") and n not in ("ETW_FILE_MODE_NONE",))} | {
    "ETW_USE_KBYTES_FOR_SIZE", "ETW_USE_GLOBAL_SEQUENCE", "ETW_USE_LOCAL_SEQUENCE",
    "ETW_PRIVATE_IN_PROC", "ETW_MODE_RESERVED", "ETW_STOP_ON_HYBRID_SHUTDOWN",
    "ETW_PERSIST_ON_HYBRID_SHUTDOWN", "ETW_USE_PAGED_MEMORY", "ETW_NO_PER_PROCESSOR_BUFFERING",
    "ETW_ADDTO_TRIAGE_DUMP"}

LogFileMode = enum.IntFlag("LogFileMode", _group("ETW_", _MODE_NAMES), module=__name__)
Clock = enum.IntEnum("Clock", _group("ETW_CLOCK_"), module=__name__)
Level = enum.IntEnum("Level", _group("ETW_LEVEL_"), module=__name__)
EventType = enum.IntEnum("EventType", _group("ETW_TYPE_"), module=__name__)
WnodeFlag = enum.IntFlag("WnodeFlag", _group("ETW_WNODE_FLAG_"), module=__name__)
KernelFlag = enum.IntFlag("KernelFlag", _group("ETW_FLAG_"), module=__name__)
# Rights over a system-wide session (Session.grant): CONTROL, LOG, CONSUME, ALL.
SessionRights = enum.IntFlag("SessionRights", _group("ETW_SESSION_RIGHT_"), module=__name__)
