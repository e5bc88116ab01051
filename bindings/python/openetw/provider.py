"""openetw.Provider: a classic event provider (RegisterTraceGuids, TraceEvent).

Enable callbacks run on the thread that enables or disables the provider
(Session.enable_provider / disable_provider / stop, or Provider() itself
when a session already enables the GUID), with the GIL held. An exception
raised by one is re-raised from that call once the library call has finished
(its effect is kept: the provider was enabled, the session stopped), or, when
the notification comes from a thread that is not inside such a call (native
code), reported through sys.unraisablehook. A Provider() whose callback
raises is unregistered before the exception propagates.
"""
from __future__ import annotations

import dataclasses
import threading
import uuid
from typing import Callable, Optional, Union

from . import _native
from .properties import _guid_bytes

GuidLike = Union[uuid.UUID, str, bytes]


@dataclasses.dataclass(frozen=True)
class EnableInfo:
    """The provider's state after a change (etw_provider_enable_info)."""
    is_enabled: bool
    level: int               # highest level any session takes; 0 = every level
    match_any_keyword: int   # OR of the sessions' flags (all bits when one gave 0)
    match_all_keyword: int
    session_handle: int      # the session whose change caused the call (0 at registration)
    # A capture-state request (is_enabled 2, ETW_CONTROL_CODE_CAPTURE_STATE): log your
    # state; level and keywords are the request's, the enablement is unchanged.
    capture_state: bool = False


_pending = threading.local()


class reraise_enable_errors:
    """Around a library call that may run enable callbacks on this thread:
    keeps the first exception one raises and re-raises it at the end."""

    def __enter__(self) -> "reraise_enable_errors":
        self._outer = getattr(_pending, "errors", None)
        self.errors: list[BaseException] = []
        _pending.errors = self.errors
        return self

    def __exit__(self, *exc_info) -> None:
        _pending.errors = self._outer
        if self.errors:
            raise self.errors[0]  # a failing library call becomes its __context__


def _enable_callable(callback: Callable[[EnableInfo], object]) -> Callable:
    # No reference to the Provider: the library holds this callable until
    # unregister, and a cycle through it would be invisible to the GC.
    def call(is_enabled: int, level: int, any_kw: int, all_kw: int, session: int) -> None:
        try:
            callback(EnableInfo(bool(is_enabled), level, any_kw, all_kw, session, is_enabled == 2))
        except BaseException as error:
            errors = getattr(_pending, "errors", None)
            if errors is None or errors:
                raise  # no call to re-raise it from: the trampoline reports it
            errors.append(error)
    return call


class Provider:
    """A registered provider of classic events.

    >>> with Provider(uuid.UUID("5c6d0a10-3f4e-4b8a-9a51-0c1d2e3f4a5b"),
    ...               lambda info: print(info.is_enabled, info.level)) as provider:
    ...     if provider.is_enabled(Level.INFORMATION):
    ...         provider.write(b"payload", type=EventType.INFO, level=Level.INFORMATION)

    The callback is kept alive until close() (or the end of the with block, or
    garbage collection of the Provider) and released exactly once.
    """

    __slots__ = ("_handle", "_guid", "__weakref__")

    def __init__(self, guid: GuidLike,
                 callback: Optional[Callable[[EnableInfo], object]] = None) -> None:
        self._handle = None
        self._guid = _guid_bytes(guid)
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable or None")
        with reraise_enable_errors():
            self._handle = _native.etw_provider_register(
                self._guid, None if callback is None else _enable_callable(callback))
            handle = self._handle
            self._handle = None  # unregistered if the callback raises ...
        self._handle = handle    # ... kept otherwise

    @property
    def guid(self) -> uuid.UUID:
        return uuid.UUID(bytes_le=self._guid)

    def _live(self):
        if self._handle is None:
            raise ValueError("the provider is unregistered")
        return self._handle

    def is_enabled(self, level: int = 0, flags: int = 0) -> bool:
        """True if a session enables the provider for level (0 = any) and, if
        flags is not 0, for one of these flags. False once unregistered."""
        return self._handle is not None and bool(_native.etw_provider_is_enabled(self._handle, level, flags))

    def write(self, payload=b"", *, type: int = 0, level: int = 0, version: int = 0,
              guid: Optional[GuidLike] = None) -> None:
        """Writes a classic event (TraceEvent) to every session that enables the provider.

        payload: any bytes-like object (not copied: the library gathers it);
        type: Class.Type (EventType or a user type from 10); level: Class.Level;
        version: Class.Version; guid: the event class GUID (default: the
        provider's). Raises MoreDataError when the event does not fit a
        session's buffer, InvalidParameterError past 0xFFFF bytes in all,
        an Error with NOT_ENOUGH_MEMORY / LOG_FILE_FULL when a session dropped
        it. Returns normally (and writes nothing) when no session enables it.
        """
        _native.openetw_provider_write(self._live(), self._guid if guid is None else _guid_bytes(guid),
                                       type, level, version, payload)

    def write_event(self, payload=b"", *, id: int = 0, version: int = 0, channel: int = 0, level: int = 0,
                    opcode: int = 0, task: int = 0, keyword: int = 0,
                    activity_id: Optional[GuidLike] = None,
                    related_activity_id: Optional[GuidLike] = None) -> None:
        """Writes an event that keeps its descriptor (EventWrite, EventWriteTransfer):
        an EVENT_HEADER record with id, version, channel, level, opcode, task and
        keyword, to every session whose level and keywords take it.

        payload: any bytes-like object (not copied); activity_id: the event's
        ActivityId (default: the thread's, see activity_id_control);
        related_activity_id: stored as a RELATED_ACTIVITYID extended item.
        Raises MoreDataError when the event does not fit a session's buffer,
        Error with ARITHMETIC_OVERFLOW past 0xFFFF bytes in all, an Error with
        NOT_ENOUGH_MEMORY / LOG_FILE_FULL when a session dropped it. Returns
        normally (and writes nothing) when no session takes it.
        """
        _native.openetw_provider_write_event(
            self._live(), id, version, channel, level, opcode, task, keyword,
            b"" if activity_id is None else _guid_bytes(activity_id),
            b"" if related_activity_id is None else _guid_bytes(related_activity_id), payload)

    def close(self) -> None:
        """Unregisters (waiting for callbacks running on other threads); the
        callback is released. Idempotent."""
        self._handle = None

    unregister = close

    def __enter__(self) -> "Provider":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "registered" if self._handle is not None else "unregistered"
        return f"<Provider {self.guid} {state}>"


def activity_id_control(code: int, activity_id: Optional[GuidLike] = None) -> uuid.UUID:
    """The calling thread's activity id, as EventActivityIdControl: code is one
    of ETW_ACTIVITY_CTRL_GET_ID (returns the thread's), SET_ID (sets it to
    activity_id), CREATE_ID (returns a new unique id), GET_SET_ID (sets it,
    returns the old one), CREATE_SET_ID (sets a new one, returns the old).
    Returns the id the call gives back (activity_id itself for SET_ID)."""
    given = b"" if activity_id is None else _guid_bytes(activity_id)
    return uuid.UUID(bytes_le=bytes(_native.openetw_activity_id_control(code, given)))
