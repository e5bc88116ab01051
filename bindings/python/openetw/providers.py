"""The provider listing (EnumerateTraceGuidsEx): which providers are registered
or enabled, by which processes and which sessions, as etw_provider_list and
etw_provider_query (provider.h) report them.

>>> for p in openetw.list_providers():
...     print(p.guid, [x.process_id for x in p.processes],
...           [(s.session_name, s.level, s.filter_count) for s in p.sessions])
"""
from __future__ import annotations

import dataclasses
import uuid
from typing import Tuple, Union

from . import _native
from .errors import NotFoundError
from .filters import EnableProperty
from .properties import _guid_bytes


@dataclasses.dataclass(frozen=True)
class ProviderProcess:
    """A process registering the provider (TRACE_PROVIDER_INSTANCE_INFO)."""
    process_id: int
    registrations: int  # its registrations of the GUID not yet unregistered


@dataclasses.dataclass(frozen=True)
class ProviderSession:
    """A session enabling the provider, as it did (TRACE_ENABLE_INFO)."""
    session_handle: int  # Session.handle (Wnode.HistoricalContext)
    session_name: str
    level: int  # 0 = every level
    match_any_keyword: int
    match_all_keyword: int
    properties: EnableProperty
    filter_count: int  # filters at the source the session attached (0: none)


@dataclasses.dataclass(frozen=True)
class RegisteredProvider:
    """A provider GUID with who registers it (by process id) and which sessions
    enable it. The listing names no provider: a GUID carries no name until an
    event of it does (TraceLogging metadata, a manifest)."""
    guid: uuid.UUID
    processes: Tuple[ProviderProcess, ...]
    sessions: Tuple[ProviderSession, ...]


def _provider(guid: uuid.UUID, processes: list, sessions: list) -> RegisteredProvider:
    return RegisteredProvider(
        guid, tuple(ProviderProcess(*p) for p in processes),
        tuple(ProviderSession(handle, name, level, any_kw, all_kw, EnableProperty(props), count)
              for handle, name, level, any_kw, all_kw, props, count in sessions))


def query_provider(guid: Union[uuid.UUID, str, bytes]) -> RegisteredProvider:
    """Who registers provider guid and which sessions enable it (this process's
    sessions and the session host's). NotFoundError (ETW_ERROR_WMI_GUID_NOT_FOUND)
    when no live process registers it and no running session enables it."""
    data = _guid_bytes(guid)
    processes, sessions = _native.openetw_provider_query(data)
    return _provider(uuid.UUID(bytes_le=data), processes, sessions)


def provider_guids() -> list[uuid.UUID]:
    """Every provider GUID a live process registers or a running session
    enables, each once (EnumerateTraceGuidsEx TraceGuidQueryList)."""
    return [uuid.UUID(bytes_le=g) for g in _native.openetw_provider_list()]


def list_providers() -> list[RegisteredProvider]:
    """provider_guids() with each one's query_provider(): a snapshot, in which
    a provider gone between the two calls is left out."""
    out = []
    for guid in provider_guids():
        try:
            out.append(query_provider(guid))
        except NotFoundError:
            pass  # unregistered and disabled meanwhile
    return out
