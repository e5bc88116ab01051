"""openetw.KernelTrace: the system logger in one object (krabsetw's
kernel_trace, ferrisetw's KernelTrace): a real-time system logger session
recording the kernel events its flags select, and a consumer delivering them,
decoded, to callbacks on a thread of its own.

>>> trace = KernelTrace("process,thread", name="My kernel trace")
>>> @trace.on("Process/Start")
... def started(event):                   # a Record: event["ProcessId"], event.process_id, ...
...     print(event["ProcessId"], event["ImageFileName"])
>>> with trace:                           # started here, stopped at the end
...     subprocess.run(["/bin/true"])
"""
from __future__ import annotations

import threading
from typing import Callable, Optional, Tuple, Union

from . import _native
from .constants import KernelFlag, LogFileMode
from .consumer import Consumer
from .errors import Error, NotFoundError
from .properties import Properties
from .records import Record
from .session import Session

KERNEL_LOGGER_NAME: str = _native.ETW_KERNEL_LOGGER_NAME
# Record kinds whose event type is the HookId's low byte (the rest carry it in opcode).
_HOOK_KINDS = {_native.ETW_RECORD_KIND_SYSTEM, _native.ETW_RECORD_KIND_COMPACT, _native.ETW_RECORD_KIND_PERFINFO}

EventFilter = Union[None, str, Tuple[str, int]]
Callback = Callable[[Record], object]


def parse_kernel_flags(flags: Union[KernelFlag, int, str]) -> KernelFlag:
    """EnableFlags from a KernelFlag/int, or from names such as "process,thread"
    (etw_enable_flags_parse: short names, EVENT_TRACE_FLAG_* names, xperf
    groups, a number). InvalidParameterError names an unknown flag."""
    if isinstance(flags, str):
        return KernelFlag(_native.etw_enable_flags_parse(flags))
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"kernel flags must be a KernelFlag, an int or a str, not {type(flags).__name__}")
    return KernelFlag(flags)


def event_opcode(record: Record) -> int:
    """The event type (Class.Type: 1 Start, 2 End, 3 DCStart, ...) of a kernel record."""
    return record.hook_id & 0xFF if record.kind in _HOOK_KINDS else record.opcode


def _matcher(event: EventFilter) -> Callable[[str, str, int], bool]:
    """A test of (event name, class name, opcode) for one filter:
    None (every event), "Class/Event", "Class", or ("Class", opcode)."""
    if event is None:
        return lambda name, cls, opcode: True
    if isinstance(event, tuple) and len(event) == 2 and isinstance(event[0], str) and isinstance(event[1], int):
        want_cls, want_opcode = event[0].casefold(), event[1]
        return lambda name, cls, opcode: cls == want_cls and opcode == want_opcode
    if isinstance(event, str) and event:
        want = event.casefold()
        if "/" in want:
            return lambda name, cls, opcode: name == want
        return lambda name, cls, opcode: cls == want
    raise TypeError(f"event filter must be None, 'Class/Event', 'Class' or ('Class', opcode), not {event!r}")


class KernelTrace:
    """A system logger session ("NT Kernel Logger" by default; any other name
    runs with ETW_SYSTEM_LOGGER_MODE, so several can run at once) recording
    the kernel events flags select (KernelFlag bits, or names such as
    "process,thread"), delivered in real time to callbacks.

    Callbacks receive a Record (openetw.records): fields by name
    (event["ProcessId"], event.fields), event_name ("Process/Start"),
    task_name (the class), opcode_name, process_id, thread_id, timestamp
    (FILETIME) and datetime. They run on the trace's thread, in time order;
    their return value is ignored. Register them with on_event= (every
    event) or on(filter, callback) before start(); a filter is "Class/Event"
    ("Process/Start"), "Class" ("Process": every event of the class) or
    ("Class", opcode) (("Process", 1)), names compared case-insensitively.

    start() (or entering the with block) starts the session, whose DCStart
    rundown describes what runs, and the delivery; stop() (or leaving the
    with block, or collection) stops the session, returns once every event
    was delivered, closes the consumer and joins the thread, and re-raises
    the first exception a callback raised (which also ended the delivery).
    Failures raise openetw.Error subclasses with the library's status and
    message: InvalidParameterError for an unknown flag name,
    NotSupportedError for a flag this system does not serve,
    AccessDeniedError without the right to read kernel events,
    AlreadyExistsError when a session has the name. .properties holds the
    final settings and statistics (events_lost) after stop().
    """

    def __init__(self, flags: Union[KernelFlag, int, str], name: str = KERNEL_LOGGER_NAME, *,
                 on_event: Optional[Callback] = None, buffer_size: int = 0,
                 maximum_buffers: int = 0) -> None:
        self.flags = parse_kernel_flags(flags)
        self.name = name
        mode = LogFileMode.REAL_TIME_MODE
        if name.casefold() != KERNEL_LOGGER_NAME.casefold():
            mode |= LogFileMode.SYSTEM_LOGGER_MODE  # the kernel logger's name makes it one already
        members = {"log_file_mode": mode, "enable_flags": self.flags}
        if buffer_size:
            members["buffer_size"] = buffer_size
        if maximum_buffers:
            members["maximum_buffers"] = maximum_buffers
        self.properties = Properties(name, **members)
        # (matcher, callback) pairs; replaced, never mutated, so the delivery
        # thread iterates a consistent tuple without a lock.
        self._callbacks: tuple = ()
        if on_event is not None:
            self.on(None, on_event)
        self._session: Optional[Session] = None
        self._consumer: Optional[Consumer] = None
        self._thread: Optional[threading.Thread] = None
        self._error: Optional[BaseException] = None

    # ---- callbacks ----
    def on(self, event: EventFilter, callback: Optional[Callback] = None):
        """Calls callback(record) for the events the filter selects (None:
        every event). Without a callback, returns a decorator."""
        matches = _matcher(event)

        def register(fn: Callback) -> Callback:
            if not callable(fn):
                raise TypeError("callback must be callable")
            self._callbacks = self._callbacks + ((matches, fn),)
            return fn
        return register if callback is None else register(callback)

    def _dispatch(self, record: Record) -> None:
        try:
            name, cls = record.event_name.casefold(), record.task_name.casefold()
        except Error:
            name = cls = ""  # a payload its class does not describe: only unfiltered callbacks see it
        opcode = event_opcode(record)
        for matches, fn in self._callbacks:
            if matches(name, cls, opcode):
                fn(record)

    # ---- lifetime ----
    @property
    def running(self) -> bool:
        """True between start() and stop()."""
        return self._thread is not None

    @property
    def session(self) -> Optional[Session]:
        """The running session (None before start and after stop), for control calls."""
        return self._session if self._thread is not None else None

    def start(self) -> "KernelTrace":
        """Starts the session and the delivery thread. Raises what the start
        raised; no session is left running then."""
        if self._thread is not None:
            raise RuntimeError(f"the kernel trace {self.name!r} is already running")
        session = Session(self.properties)
        try:
            consumer = Consumer.realtime(self.name, on_record=self._dispatch)
        except BaseException:
            session.__exit__(None, None, None)  # stops it
            raise
        self._session, self._consumer, self._error = session, consumer, None
        self._thread = threading.Thread(target=self._run, name=f"KernelTrace {self.name}", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            self._consumer.process()
        except BaseException as error:  # re-raised by stop()
            self._error = error

    def stop(self) -> Properties:
        """Stops the session, waits until every event was delivered, closes the
        consumer and joins the thread; returns the final properties. Idempotent."""
        thread, self._thread = self._thread, None
        if thread is None:
            return self.properties
        session, consumer = self._session, self._consumer
        try:
            try:
                session.stop()
            except NotFoundError:
                pass  # stopped elsewhere (etwctl stop): its feed has ended too
            except BaseException:
                consumer.cancel()  # the feed would not end by itself
                raise
        finally:
            thread.join()
            consumer.close()
            session.close()
            self._session = self._consumer = None
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        return self.properties

    def __enter__(self) -> "KernelTrace":
        if self._thread is None:
            self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop()

    def __del__(self) -> None:
        try:
            if getattr(self, "_thread", None) is not None:
                self.stop()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "running" if self._thread is not None else "stopped"
        return f"<KernelTrace {self.name!r} {self.flags!r} {state}>"
