"""openetw.Properties: the settings of a session (EVENT_TRACE_PROPERTIES)."""
from __future__ import annotations

import uuid
from typing import Any, Callable, Optional, Union

from . import _native
from .constants import Clock, LogFileMode
from .records import snapshot

_n = _native


class _Member:
    """A property over one getter/setter pair of properties.h."""

    def __init__(self, getter: Callable, setter: Optional[Callable] = None,
                 to_python: Callable = lambda v: v, to_native: Callable = lambda v: v,
                 doc: str = "") -> None:
        self._get, self._set = getter, setter
        self._to_python, self._to_native = to_python, to_native
        self.__doc__ = doc

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, obj: Optional["Properties"], owner: type) -> Any:
        if obj is None:
            return self
        return self._to_python(self._get(obj._handle))

    def __set__(self, obj: "Properties", value: Any) -> None:
        if self._set is None:
            raise AttributeError(f"{self._name} is an output member (read-only)")
        self._set(obj._handle, self._to_native(value))


def _guid_bytes(value: Union[uuid.UUID, str, bytes]) -> bytes:
    if isinstance(value, uuid.UUID):
        return value.bytes_le
    if isinstance(value, str):
        return uuid.UUID(value).bytes_le
    return bytes(value)


class Properties:
    """Session properties: build from a session name, or from a Windows block.

    Setters check one member at a time and raise an openetw.Error (the
    object is left unchanged); validate() checks the rules that tie members
    together. Not synchronized: use one object from one thread at a time.

    >>> p = Properties("My Session", log_file_name="/tmp/my.etl",
    ...                log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL, buffer_size=8)
    >>> block = p.to_bytes()              # the Windows-layout block
    >>> Properties.from_bytes(block).session_name
    'My Session'
    """

    __slots__ = ("_handle",)

    def __init__(self, session_name: str, **members: Any) -> None:
        self._handle = _n.etw_properties_create(session_name)
        for name, value in members.items():
            if not isinstance(getattr(type(self), name, None), _Member):
                raise TypeError(f"Properties has no member {name!r}")
            setattr(self, name, value)

    @classmethod
    def _wrap(cls, handle) -> "Properties":
        obj = cls.__new__(cls)
        obj._handle = handle
        return obj

    @classmethod
    def from_bytes(cls, block) -> "Properties":
        """Imports a Windows-layout block (any bytes-like object), fully validated."""
        return cls._wrap(_n.etw_properties_import(block))

    def to_bytes(self) -> bytes:
        """Exports the Windows-layout block: record, session name, log file name."""
        buffer = bytearray(_n.etw_properties_export(None, self._handle))
        size = _n.etw_properties_export(buffer, self._handle)
        return bytes(memoryview(buffer)[:size])

    def export_into(self, buffer) -> int:
        """Exports into a writable buffer; returns the block size (MoreDataError if too small)."""
        return _n.etw_properties_export(buffer, self._handle)

    @property
    def block_size(self) -> int:
        """The size of the exported block in bytes."""
        return _n.etw_properties_export(None, self._handle)

    def copy(self) -> "Properties":
        return self._wrap(_n.etw_properties_clone(self._handle))

    __copy__ = copy

    def __deepcopy__(self, memo: dict) -> "Properties":
        return self.copy()

    def validate(self) -> None:
        """Checks the rules that tie members together, as starting a session does."""
        _n.etw_properties_validate(self._handle)

    def set_export(self, url, credentials_file=None) -> None:
        """Also publish every buffer to a NATS JetStream stream, url "nats://HOST:PORT/STREAM";
        credentials come from credentials_file (or the file $OPENETW_NATS_CREDENTIALS names),
        never from the URL (docs/FLEET.md). None removes the export."""
        _n.etw_properties_set_export(self._handle, url or None, credentials_file or None)

    @property
    def export_url(self):
        """The export's nats:// URL, or None."""
        return _n.etw_properties_export_url(self._handle) or None

    @property
    def export_credentials(self):
        """The export's credentials file name as set, or None."""
        return _n.etw_properties_export_credentials(self._handle) or None

    def record(self):
        """A frozen snapshot of the fixed record (EventTraceProperties) as exported."""
        return snapshot(_n.etw_properties_get_record(self._handle))

    def __repr__(self) -> str:
        return (f"Properties({self.session_name!r}, log_file_name={self.log_file_name!r}, "
                f"log_file_mode={self.log_file_mode!r}, buffer_size={self.buffer_size})")

    # ---- input members ----
    session_name = _Member(_n.etw_properties_session_name, _n.etw_properties_set_session_name,
                           doc="The session name (1..1024 characters).")
    log_file_name = _Member(_n.etw_properties_log_file_name,
                            _n.etw_properties_set_log_file_name,
                            to_python=lambda v: v or None,
                            doc="The log file name, or None for no log file.")
    buffer_size = _Member(_n.etw_properties_buffer_size, _n.etw_properties_set_buffer_size,
                          doc="KB per buffer, 4..16384.")
    minimum_buffers = _Member(_n.etw_properties_minimum_buffers,
                              _n.etw_properties_set_minimum_buffers)
    maximum_buffers = _Member(_n.etw_properties_maximum_buffers,
                              _n.etw_properties_set_maximum_buffers)
    maximum_file_size = _Member(_n.etw_properties_maximum_file_size,
                                _n.etw_properties_set_maximum_file_size,
                                doc="MB (KB with USE_KBYTES_FOR_SIZE); 0 = no limit.")
    log_file_mode = _Member(_n.etw_properties_log_file_mode,
                            _n.etw_properties_set_log_file_mode, to_python=LogFileMode)
    flush_timer = _Member(_n.etw_properties_flush_timer, _n.etw_properties_set_flush_timer,
                          doc="Seconds.")
    enable_flags = _Member(_n.etw_properties_enable_flags, _n.etw_properties_set_enable_flags,
                           doc="KernelFlag bits: system loggers only.")
    flush_threshold = _Member(_n.etw_properties_flush_threshold,
                              _n.etw_properties_set_flush_threshold,
                              doc="AgeLimit / FlushThreshold (one LONG member).")
    age_limit = flush_threshold
    clock_type = _Member(_n.etw_properties_clock_type, _n.etw_properties_set_clock_type,
                         to_python=Clock)
    guid = _Member(_n.etw_properties_get_guid, _n.etw_properties_set_guid,
                   to_python=lambda b: uuid.UUID(bytes_le=b), to_native=_guid_bytes,
                   doc="The session GUID (all zero: generated when the session starts).")

    # ---- output members (filled when a session starts, is queried or stops) ----
    number_of_buffers = _Member(_n.etw_properties_number_of_buffers)
    free_buffers = _Member(_n.etw_properties_free_buffers)
    events_lost = _Member(_n.etw_properties_events_lost)
    buffers_written = _Member(_n.etw_properties_buffers_written)
    log_buffers_lost = _Member(_n.etw_properties_log_buffers_lost)
    real_time_buffers_lost = _Member(_n.etw_properties_real_time_buffers_lost)
    logger_thread_id = _Member(_n.etw_properties_logger_thread_id)
    historical_context = _Member(_n.etw_properties_historical_context,
                                 doc="The session handle after a start.")
