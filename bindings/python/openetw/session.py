"""openetw.Session: a trace session (StartTrace, ControlTrace, EnableTraceEx2).

The calls that block (stop, flush, flush_to_file, update, start) release the
GIL; a Properties object passed to one must not be used by another thread
until it returns (properties objects are not synchronized).
"""
from __future__ import annotations

import os
import uuid
from typing import Iterable, Optional, Union

from . import _native
from .constants import SessionRights
from .errors import NotFoundError
from .filters import EnableProperty, Filter, descriptors
from .properties import Properties, _guid_bytes
from .provider import reraise_enable_errors
from .records import snapshot

ENABLE, DISABLE = _native.ETW_CONTROL_CODE_ENABLE_PROVIDER, _native.ETW_CONTROL_CODE_DISABLE_PROVIDER


class Session:
    """A running session. Start one from Properties, or open one by name.

    >>> props = Properties("My Session", log_file_name="/tmp/my.etl",
    ...                    log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL)
    >>> with Session(props) as session:        # stopped and closed at the end
    ...     session.enable_provider(provider_guid, level=Level.VERBOSE)
    ...     ...
    ...     stats = session.stop()             # the Properties, with statistics

    A session this object started is stopped when the with block ends (if
    still running) or when the object is collected, unless detach() was
    called; one opened by name is only closed: close() never stops a session. query/update/flush/flush_to_file/stop write the settings
    and statistics into the given Properties (default: self.properties, the
    object the session started from) and return it.
    """

    def __init__(self, properties: Properties, *, lossless: bool = False,
                 lossless_timeout_ms: int = 0, realtime_backlog_buffers: int = 0,
                 replace_orphan: bool = False, take_over_orphan: bool = False,
                 in_process: bool = False, profile_interval: int = 0,
                 filters: Optional[Iterable[Filter]] = None) -> None:
        """Starts a session (etw_session_start_ex); properties receives the
        adjusted settings. lossless: writers wait up to lossless_timeout_ms for
        space instead of dropping events (ETW_SESSION_LOSSLESS).
        replace_orphan: an orphaned session holding the name (its host
        process died) is stopped first (ETW_SESSION_REPLACE_ORPHAN).
        take_over_orphan: the orphaned session holding the name is stopped
        and goes on here with its last settings (properties gives only the
        name, and receives what started), appending to its sequential log
        file, its providers enabled again (ETW_SESSION_TAKE_OVER_ORPHAN);
        NotFoundError when no orphan has the name, AlreadyExistsError when
        its host is alive. Not together with replace_orphan
        (InvalidParameterError). in_process: the session runs in this process
        and ends with it, also where sessions are system-wide
        (ETW_SESSION_IN_PROCESS); without it a start that reaches no session
        host fails saying why. profile_interval: a system logger's sampled
        profile interval in 100 ns units (0: 1 ms; 1221 to 10000000).
        filters: the session's own filters (EVENT_TRACE_PROPERTIES_V2.FilterDesc),
        applied to every provider it enables: PidFilter and ExecutableNameFilter
        only (another type: NotSupportedError; a bad one: InvalidParameterError)."""
        options = None
        if (lossless or lossless_timeout_ms or realtime_backlog_buffers or replace_orphan
                or take_over_orphan or in_process or profile_interval):
            options = _native.etw_session_options()
            options.flags = ((_native.ETW_SESSION_LOSSLESS if lossless else 0) |
                             (_native.ETW_SESSION_REPLACE_ORPHAN if replace_orphan else 0) |
                             (_native.ETW_SESSION_TAKE_OVER_ORPHAN if take_over_orphan else 0) |
                             (_native.ETW_SESSION_IN_PROCESS if in_process else 0))
            options.lossless_timeout_ms = lossless_timeout_ms
            options.realtime_backlog_buffers = realtime_backlog_buffers
            options.profile_interval = profile_interval
        self._handle = None
        self.properties = properties
        self._owner = True
        self._stopped = False
        handle = None
        try:
            # A private session enables its provider now: its callback may raise.
            with reraise_enable_errors():
                if filters is None:
                    handle = _native.etw_session_start_ex(properties._handle, options)
                else:
                    handle = _native.openetw_session_start_filtered(properties._handle, options,
                                                                    descriptors(filters))
        except BaseException:
            if handle is not None:  # started, but a callback raised: do not leave it running
                try:
                    _native.etw_session_stop(handle, None)
                except Exception:
                    pass
            raise
        self._handle = handle

    @classmethod
    def open(cls, name: str) -> "Session":
        """Opens a running session by name (case-insensitive) to control it.
        NotFoundError when no running session has that name."""
        self = cls.__new__(cls)
        self._handle = _native.etw_session_open(name)
        self.properties = Properties(name)
        self._owner = False
        self._stopped = False
        return self

    @staticmethod
    def list() -> list[Properties]:
        """The running sessions' names, settings and statistics (QueryAllTraces)."""
        props: list[Properties] = []
        while True:
            count = _native.etw_session_list([p._handle for p in props])
            if count <= len(props):
                return props[:count]
            props = [Properties("list") for _ in range(count)]

    # ---- the handle ----
    def _live(self):
        if self._handle is None:
            raise ValueError("the session handle is closed")
        return self._handle

    @property
    def handle(self) -> int:
        """The session handle value (Wnode.HistoricalContext); 0 once closed."""
        return 0 if self._handle is None else _native.etw_session_handle(self._handle)

    @property
    def name(self) -> str:
        return self.properties.session_name

    def options(self):
        """The options the session runs with (a frozen SessionOptions snapshot)."""
        return snapshot(_native.etw_session_get_options(self._live()))

    def host_info(self):
        """The host process and its state (a frozen SessionHostInfo: process_id,
        state ETW_SESSION_HOST_RUNNING or ETW_SESSION_HOST_ORPHANED, is_local).
        NotFoundError once the session has stopped."""
        return snapshot(_native.etw_session_get_host_info(self._live()))

    def close(self) -> None:
        """Releases the handle; the session keeps running. Idempotent."""
        self._handle = None

    def detach(self) -> None:
        """Lets the session outlive this object: leaving the with block or
        garbage collection then only releases the handle, and the session runs
        until someone stops it (Session.open(name).stop(), or etwctl stop)."""
        self._owner = False

    @property
    def stops_on_exit(self) -> bool:
        """True when leaving the with block (or collecting this object) stops
        the session: it was started here, and is neither detached nor stopped."""
        return self._owner and not self._stopped and self._handle is not None

    def __del__(self) -> None:
        # A session started here and neither stopped nor detached ends with its object.
        try:
            if getattr(self, "_handle", None) is not None and self.stops_on_exit:
                _native.etw_session_stop(self._handle, None)
        except Exception:
            pass  # stopped elsewhere already; nothing to report to

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc_info) -> None:
        try:
            if self._owner and not self._stopped and self._handle is not None:
                try:
                    self.stop()
                except NotFoundError:
                    pass  # stopped through another handle
        finally:
            self.close()

    def __repr__(self) -> str:
        return f"<Session {self.name!r} handle={self.handle:#x}>"

    # ---- control ----
    def _props(self, properties: Optional[Properties]) -> Properties:
        return self.properties if properties is None else properties

    def query(self, properties: Optional[Properties] = None) -> Properties:
        """The current settings and statistics (ControlTrace QUERY)."""
        props = self._props(properties)
        _native.etw_session_query(self._live(), props._handle)
        return props

    def update(self, properties: Properties) -> Properties:
        """Applies FlushTimer, MaximumBuffers, EnableFlags and the log file name
        (ControlTrace UPDATE); properties then holds the current values."""
        _native.etw_session_update(self._live(), properties._handle)
        return properties

    def flush(self, properties: Optional[Properties] = None) -> Properties:
        """Writes every buffer holding events (ControlTrace FLUSH); a buffering
        session writes its buffers to its log file name."""
        props = self._props(properties)
        _native.etw_session_flush(self._live(), props._handle)
        return props

    def flush_to_file(self, path: Union[str, os.PathLike],
                      properties: Optional[Properties] = None) -> Properties:
        """Buffering sessions: writes the buffers held as a complete .etl at path."""
        props = self._props(properties)
        _native.etw_session_flush_to_file(self._live(), os.fsdecode(path), props._handle)
        return props

    def stop(self, properties: Optional[Properties] = None) -> Properties:
        """Stops the session (ControlTrace STOP): providers are disabled (their
        callbacks run on this thread), every buffer is written. The handle
        stays open. NotFoundError when already stopped."""
        props = self._props(properties)
        try:
            with reraise_enable_errors():
                _native.etw_session_stop(self._live(), props._handle)
        finally:
            self._stopped = True  # also after a file error: the session has stopped
        return props

    def grant(self, user_id: int, rights: Union[SessionRights, int]) -> None:
        """Sets the rights of user user_id over the session (EventAccessControl):
        SessionRights bits (CONTROL, LOG, CONSUME, ALL), replacing what the
        user had; 0 revokes. A session starts owner-only: its host's user and
        root hold every right. Works on a session hosted here or, with the
        control right, in another process. InvalidParameterError for unknown
        bits; NotSupportedError for a private session or where sessions are
        not system-wide (OPENETW_REGISTRY=none)."""
        _native.etw_session_grant(self._live(), user_id, rights)

    def set_profile_interval(self, interval_100ns: int) -> None:
        """Changes a running system logger's sampled-profile interval
        (TraceSampledProfileIntervalInfo), in 100 ns units, 1221 to 10000000:
        the profile's source reopens at it at once; options().profile_interval
        reports it. InvalidParameterError outside the range; NotSupportedError
        for a session that is no system logger; AccessDeniedError without the
        control right over another process's session."""
        _native.etw_session_set_profile_interval(self._live(), interval_100ns)

    def enable_provider(self, guid: Union[uuid.UUID, str, bytes], level: int = 0,
                        match_any_keyword: int = 0, match_all_keyword: int = 0, *,
                        properties: Union[EnableProperty, int, None] = None,
                        filters: Optional[Iterable[Filter]] = None) -> None:
        """Enables a provider (EnableTraceEx2), registered or not yet; again to
        change level, keywords, properties or filters (each enable replaces them).
        Registered providers are notified on this thread.

        properties: EnableProperty bits (STACK_TRACE, SID, TS_ID, PROCESS_START_KEY,
        EVENT_KEY, IGNORE_KEYWORD_0): extended data items on the provider's
        EVENT_HEADER events (Record.stack, .sid, ...). filters: filters at the
        source (openetw.filters: EventIdFilter, PidFilter, ExecutableNameFilter,
        EventNameFilter, StackwalkFilter, PayloadFilter, RawFilter), at most one
        of a type. InvalidParameterError for bad properties or a bad filter,
        NotSupportedError for a filter type OpenETW does not implement; the
        message names the filter by its index."""
        session, guid_bytes = self._live(), _guid_bytes(guid)
        with reraise_enable_errors():
            if properties is None and filters is None:
                _native.etw_session_enable_provider(session, guid_bytes, ENABLE, level,
                                                    match_any_keyword, match_all_keyword)
            else:
                _native.openetw_session_enable_provider_ex(
                    session, guid_bytes, ENABLE, level, match_any_keyword, match_all_keyword,
                    int(properties or 0), descriptors(filters or ()))

    def capture_state(self, guid: Union[uuid.UUID, str, bytes], level: int = 0,
                      match_any_keyword: int = 0, match_all_keyword: int = 0) -> None:
        """Asks the provider's registrations this session enables to log their
        state (EVENT_CONTROL_CODE_CAPTURE_STATE): each callback gets an
        EnableInfo with capture_state True and this call's level and keywords;
        the enablement does not change. NotFoundError (ETW_ERROR_WMI_GUID_NOT_FOUND)
        when the session does not enable the GUID."""
        with reraise_enable_errors():
            _native.etw_session_enable_provider(self._live(), _guid_bytes(guid),
                                                _native.ETW_CONTROL_CODE_CAPTURE_STATE, level,
                                                match_any_keyword, match_all_keyword)

    def disable_provider(self, guid: Union[uuid.UUID, str, bytes]) -> None:
        with reraise_enable_errors():
            _native.etw_session_enable_provider(self._live(), _guid_bytes(guid), DISABLE, 0, 0, 0)


def max_sessions() -> int:
    """How many sessions may run at once."""
    return _native.etw_session_max_sessions()


def set_max_sessions(count: int) -> None:
    """Sets how many sessions may run at once (running ones are not affected)."""
    _native.etw_session_set_max_sessions(count)
