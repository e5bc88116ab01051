"""openetw.LiveTrace: a live trace in one object (a real-time session, its
providers enabled, and a consumer delivering events on a thread of its own).

>>> with LiveTrace("My trace", [(GUID, Level.INFORMATION)], on_event=print) as trace:
...     ...                       # events arrive on the trace's thread
>>> trace.events_lost             # after the with block: every event was delivered
"""
from __future__ import annotations

import threading
import uuid
from typing import Callable, Iterable, NamedTuple, Optional, Sequence, Union

from .constants import Level, LogFileMode
from .consumer import Consumer
from .properties import Properties
from .records import ClassicEvent
from .session import Session

GuidLike = Union[uuid.UUID, str, bytes]


class Enable(NamedTuple):
    """One provider a live trace enables (EnableTraceEx2's level and keywords,
    and its enable properties and filters at the source: openetw.filters)."""
    guid: GuidLike
    level: int = Level.VERBOSE
    match_any_keyword: int = 0
    match_all_keyword: int = 0
    properties: Optional[int] = None  # EnableProperty bits
    filters: Optional[Sequence] = None  # EventIdFilter, PidFilter, ...


class LiveTrace:
    """Starts a real-time session named name, enables providers (each an
    Enable or a tuple (guid, level[, match_any[, match_all]])), and calls
    on_event(ClassicEvent) for every classic event on a thread of its own
    (its return value is ignored). stop(), or leaving the with block, stops
    the session and returns once every event it logged was delivered; an
    exception on_event raised is re-raised there. The final settings and
    statistics are in .properties (events_lost, buffers_written).
    on_event_record(EventRecord), if given, receives the manifest-based and
    TraceLogging events (EVENT_RECORD style) on the same thread; schemas
    (openetw.Schemas) are what their fields decode with (default:
    openetw.schemas)."""

    def __init__(self, name: str, providers: Iterable[Union[Enable, tuple]],
                 on_event: Callable[[ClassicEvent], object], *, buffer_size: int = 0,
                 maximum_buffers: int = 0, on_event_record: Optional[Callable] = None,
                 schemas=None) -> None:
        members = {"log_file_mode": LogFileMode.REAL_TIME_MODE}
        if buffer_size:
            members["buffer_size"] = buffer_size
        if maximum_buffers:
            members["maximum_buffers"] = maximum_buffers
        self.properties = Properties(name, **members)
        self._session = Session(self.properties)
        self._thread: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None
        try:
            for p in providers:
                e = p if isinstance(p, Enable) else Enable(*p)
                self._session.enable_provider(e.guid, e.level, e.match_any_keyword, e.match_all_keyword,
                                              properties=e.properties, filters=e.filters)
            self._consumer = Consumer.realtime(
                name, on_event=lambda event: on_event(event) and None, schemas=schemas,
                on_event_record=None if on_event_record is None else
                (lambda event: on_event_record(event) and None))
        except BaseException:
            self._session.__exit__(None, None, None)
            raise
        self._thread = threading.Thread(target=self._run, name=f"LiveTrace {name}", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            self._consumer.process()
        except BaseException as error:  # re-raised by stop()
            self._error = error

    @property
    def session(self) -> Session:
        """The session, for control calls (query, flush, enable_provider)."""
        return self._session

    @property
    def events_lost(self) -> int:
        return self.properties.events_lost

    def stop(self) -> Properties:
        """Stops the session and waits until every event was delivered. Idempotent."""
        thread, self._thread = self._thread, None
        if thread is None:
            return self.properties
        try:
            if self._session.stops_on_exit:
                self._session.stop()
        except BaseException:
            self._consumer.cancel()  # the feed would not end by itself
            raise
        finally:
            thread.join()
            self._consumer.close()
            self._session.close()
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self.properties

    def __enter__(self) -> "LiveTrace":
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def __del__(self) -> None:
        try:
            if getattr(self, "_thread", None) is not None:
                self.stop()
        except Exception:
            pass
