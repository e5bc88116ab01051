"""openetw.Consumer: read .etl files or a live session (OpenTrace, ProcessTrace).

Callbacks run on the thread inside process() (which releases the GIL while
the library reads, and takes it back for each callback); iterating runs
process() on a helper thread. Every object a callback receives is a copy
(payloads are bytes), valid after the callback returns. A callback returns a
true value to stop processing (process() then raises CancelledError); an
exception it raises stops processing too and is re-raised from process()
with its traceback.
"""
from __future__ import annotations

import os
import queue
import threading
from typing import Callable, Iterable, Iterator, Optional, Union

from . import _native
from .errors import Error
from .records import buffer_from_proxy, event_from_proxy, event_record_from_proxy, record_from_proxy, snapshot

PathLike = Union[str, bytes, os.PathLike]
_ORDERS = {"time": _native.ETW_CONSUMER_ORDER_TIME, "file": _native.ETW_CONSUMER_ORDER_FILE}


class _Dispatch:
    """What the native trampolines call. Holds no reference to the Consumer
    (the library owns a reference to these methods until close)."""

    def __init__(self, on_buffer, on_record, on_event, on_loss, on_raw_buffer, on_event_record,
                 schemas) -> None:
        self.on_buffer, self.on_record, self.on_event = on_buffer, on_record, on_event
        self.on_loss, self.on_raw_buffer = on_loss, on_raw_buffer
        self.on_event_record, self.schemas = on_event_record, schemas
        self.sink: Optional[Callable] = None  # iteration
        self.error: Optional[BaseException] = None

    def callables(self) -> tuple:
        # The record callback is always installed: iteration needs it.
        return (self.buffer if self.on_buffer else None, self.record,
                self.event if self.on_event else None,
                self.loss if self.on_loss else None, self.raw_buffer if self.on_raw_buffer else None,
                self.event_record if self.on_event_record else None)

    def _mark(self, record):
        """Records decode with the consumer's schemas (fields.DecodedMixin reads the mark)."""
        if self.schemas is not None and record is not None:
            record.__dict__["_schemas"] = self.schemas
        return record

    def _fail(self, error: BaseException) -> int:
        if self.error is None:
            self.error = error
        return 1

    def buffer(self, proxy, data, image) -> int:
        try:
            return 1 if self.on_buffer(buffer_from_proxy(proxy, data, image)) else 0
        except BaseException as error:
            return self._fail(error)

    def record(self, proxy, payload, raw, extended) -> int:
        if self.on_record is None and self.sink is None:
            return 0
        try:
            record = self._mark(record_from_proxy(proxy, payload, raw, extended))
            if self.on_record is not None and self.on_record(record):
                return 1
            return 1 if self.sink is not None and self.sink(record) else 0
        except BaseException as error:
            return self._fail(error)

    def event(self, proxy, payload, raw, extended) -> int:
        try:
            event = event_from_proxy(proxy, payload, raw, extended)
            self._mark(event.record)
            return 1 if self.on_event(event) else 0
        except BaseException as error:
            return self._fail(error)

    def event_record(self, proxy, user_data, record_proxy, payload, raw, extended) -> int:
        try:
            event = event_record_from_proxy(proxy, user_data, record_proxy, payload, raw, extended)
            self._mark(event.record)
            return 1 if self.on_event_record(event) else 0
        except BaseException as error:
            return self._fail(error)

    def loss(self, events_lost, buffers_lost) -> int:
        try:
            return 1 if self.on_loss(events_lost, buffers_lost) else 0
        except BaseException as error:
            return self._fail(error)

    def raw_buffer(self, data) -> int:
        try:
            return 1 if self.on_raw_buffer(data) else 0
        except BaseException as error:
            return self._fail(error)


_END = object()


class Consumer:
    """Reads one or more .etl files (Consumer(paths)) or a running real-time
    session (Consumer.realtime(name)).

    >>> with Consumer("/tmp/my.etl") as consumer:
    ...     for record in consumer:            # every record, in time order
    ...         print(record.kind_name, record.opcode, record.payload)
    >>> with Consumer(["a.etl", "b.etl"], order="file", on_event=print) as consumer:
    ...     consumer.process()

    Callbacks (each optional; return a true value to stop):
    on_buffer(BufferInfo), on_record(Record), on_event(ClassicEvent), and for
    live consumers on_loss(events_lost, buffers_lost) and on_raw_buffer(bytes);
    on_event_record(EventRecord) for EVENT_HEADER records (manifest-based and
    TraceLogging events, as ProcessTrace's EventRecordCallback), after on_record.
    They are kept alive until close() and released exactly once.

    schemas (an openetw.Schemas) are the manifests and provider binaries the
    records' fields decode with; None means the default, openetw.schemas.
    """

    def __init__(self, paths: Union[PathLike, Iterable[PathLike]], *, order: str = "time",
                 raw_timestamps: bool = False, on_buffer=None, on_record=None, on_event=None,
                 on_event_record=None, schemas=None) -> None:
        if isinstance(paths, (str, bytes, os.PathLike)):
            paths = [paths]
        encoded = [os.fsencode(p) for p in paths]
        self._setup(order, raw_timestamps, on_buffer, on_record, on_event, None, None, False,
                    on_event_record, schemas)
        self._handle = _native.etw_consumer_open(encoded, self._options)

    @classmethod
    def realtime(cls, session_name: str, *, raw_timestamps: bool = False, on_buffer=None,
                 on_record=None, on_event=None, on_loss=None, on_raw_buffer=None,
                 on_event_record=None, schemas=None) -> "Consumer":
        """A live consumer of a running real-time session. process() blocks
        until the session stops (or cancel()), delivering buffers as they arrive."""
        self = cls.__new__(cls)
        self._setup("time", raw_timestamps, on_buffer, on_record, on_event, on_loss, on_raw_buffer, True,
                    on_event_record, schemas)
        self._handle = _native.etw_consumer_open_session(session_name, self._options)
        if on_loss is not None:
            _native.etw_consumer_set_loss_callback(self._handle, True)
        if on_raw_buffer is not None:
            _native.etw_consumer_set_raw_buffer_callback(self._handle, True)
        return self

    def _setup(self, order, raw_timestamps, on_buffer, on_record, on_event, on_loss, on_raw_buffer,
               live, on_event_record, schemas) -> None:
        self._handle = None
        if order not in _ORDERS:
            raise ValueError(f"order must be 'time' or 'file', not {order!r}")
        for name, fn in (("on_buffer", on_buffer), ("on_record", on_record), ("on_event", on_event),
                         ("on_loss", on_loss), ("on_raw_buffer", on_raw_buffer),
                         ("on_event_record", on_event_record)):
            if fn is not None and not callable(fn):
                raise TypeError(f"{name} must be callable or None")
        flags = _ORDERS[order] | (_native.ETW_CONSUMER_RAW_TIMESTAMP if raw_timestamps else 0)
        from .schemas import Schemas
        if schemas is not None and not isinstance(schemas, Schemas):
            raise TypeError("schemas must be an openetw.Schemas or None")
        self._dispatch = _Dispatch(on_buffer, on_record, on_event, on_loss, on_raw_buffer,
                                   on_event_record, schemas)
        self._options = (flags, self._dispatch.callables())
        self._live_session = live

    def _live(self):
        handle = self._handle
        if handle is None:
            raise ValueError("the consumer is closed")
        return handle

    # ---- processing ----
    def process(self) -> None:
        """Reads everything (a live consumer: until the session stops), running
        the callbacks on this thread. Raises the exception a callback raised,
        CancelledError after cancel() or a callback returning true, or the
        status of the first problem found (after reading all that could be read)."""
        handle, dispatch = self._live(), self._dispatch
        dispatch.error = None
        failure: Optional[Error] = None
        try:
            _native.etw_consumer_process(handle)
        except Error as error:
            failure = error
        error, dispatch.error = dispatch.error, None
        if error is not None:
            raise error  # the callback's exception, not the CancelledError it caused
        if failure is not None:
            raise failure

    def cancel(self) -> None:
        """Stops processing from any thread (permanent: later process() calls
        raise CancelledError at once)."""
        _native.etw_consumer_cancel(self._live())

    def __iter__(self) -> Iterator:
        return self.records()

    def records(self, batch: int = 256) -> Iterator:
        """Yields every Record while process() runs on a helper thread (records
        are handed over in batches). Leaving the loop early stops processing
        (a live consumer is cancelled); errors are raised after the records
        read before them."""
        self._live()
        dispatch = self._dispatch
        if dispatch.sink is not None:
            raise RuntimeError("the consumer is already being iterated")
        handoff: queue.Queue = queue.Queue(maxsize=4)
        chunk: list = []
        abandoned = False

        def sink(record) -> int:
            chunk.append(record)
            if len(chunk) >= batch:
                handoff.put(chunk.copy())
                chunk.clear()
            return 1 if abandoned else 0

        def run() -> None:
            outcome: Optional[BaseException] = None
            try:
                self.process()
            except BaseException as error:
                outcome = error
            if chunk:
                handoff.put(chunk.copy())
            handoff.put((_END, outcome))

        dispatch.sink = sink
        worker = threading.Thread(target=run, name="openetw-consumer", daemon=True)
        worker.start()
        try:
            while True:
                item = handoff.get()
                if isinstance(item, tuple) and item[0] is _END:
                    if item[1] is not None:
                        raise item[1]
                    return
                yield from item
        finally:
            if worker.is_alive():
                abandoned = True
                if self._live_session and self._handle is not None:
                    self.cancel()  # it may be waiting for data, not in a callback
                while worker.is_alive():  # drain so the worker never blocks on put
                    try:
                        handoff.get(timeout=0.05)
                    except queue.Empty:
                        pass
            worker.join()
            dispatch.sink = None

    # ---- facts ----
    @property
    def file_count(self) -> int:
        return _native.etw_consumer_file_count(self._live())

    def logfile_header(self, file_index: int = 0):
        """The TRACE_LOGFILE_HEADER facts of one file (a frozen LogfileInfo)."""
        return snapshot(_native.etw_consumer_logfile_header(self._live(), file_index))

    def stats(self):
        """The counters of the last or running process() (a frozen ConsumerStats)."""
        return snapshot(_native.etw_consumer_get_stats(self._live()))

    # ---- lifetime ----
    def close(self) -> None:
        """Closes the consumer: a process() running on another thread is
        cancelled, and the consumer is freed (its callbacks released) when
        that call returns. Idempotent."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _native.etw_consumer_cancel(handle)
            # The callbacks are now referenced only by the library, which
            # releases them when the handle is freed.
            self._options = self._dispatch = None

    def __enter__(self) -> "Consumer":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

