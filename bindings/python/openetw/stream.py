"""Traces off the machine: sessions exported to a NATS JetStream stream, the
stream read back as files are, and collected into .etl files (docs/FLEET.md).

>>> stream = Stream("nats://collector:4222/ETW", credentials_file="/etc/openetw/nats.conf")
>>> with Session(stream.export(Properties("Web", log_file_name="/var/log/web.etl"))) as s:
...     ...                                   # every buffer also goes to the stream
>>> with stream.open() as consumer:           # a Consumer: one file per session instance
...     for source, record in consumer.events():
...         print(source.machine, source.session, record.opcode)
>>> follower = stream.open(follow=True)     # then what sessions publish, until cancel()
>>> report = stream.collect("/srv/traces")    # one .etl per machine, session and start
"""
from __future__ import annotations

import dataclasses
import os
import urllib.parse
from typing import Iterator, Optional

from . import _native
from .consumer import Consumer
from .errors import from_status
from .properties import Properties
from .records import snapshot


@dataclasses.dataclass(frozen=True)
class Source:
    """Where a stream consumer's file came from: one machine's session instance."""
    machine: str
    session: str
    start_time: int  # the session's StartTime, FILETIME (UTC)


@dataclasses.dataclass(frozen=True)
class CollectedFile:
    """One session instance of a collected stream and what became of its file."""
    path: str
    machine: str
    session: str
    start_time: int          # FILETIME (UTC)
    start_utc: str           # the start as the file name gives it, UTC YYYYMMDDTHHMMSS.fffffffZ
    outcome: str             # "written", "unchanged", "replaced", "kept", "no file", "failed"
    data_buffers: int
    complete: bool           # the stream held all of it: the file is the session's own
    missing: tuple           # sentences saying what the stream lacks; () when complete
    error: str               # why the file was kept or not written; "" otherwise


@dataclasses.dataclass(frozen=True)
class CollectReport:
    """What collect() did: files in (machine, session, start) order, and how
    many instances the session filter left out (the machine filter is the
    server's: what it leaves out is never read)."""
    files: tuple
    skipped: int


def _source_of(path: str) -> Optional[Source]:
    # A stream's file is named "URL#machine/session/start", names escaped as
    # subject tokens (%XX), so neither part can hold a '/' of its own.
    _, sep, tail = path.rpartition("#")
    parts = tail.split("/") if sep else []
    if len(parts) != 3:
        return None
    machine, session = (urllib.parse.unquote(p, errors="surrogateescape") for p in parts[:2])
    return Source("" if machine == "%" else machine, "" if session == "%" else session, int(parts[2]))


class _Sources:
    """The Source of each file index, looked up once per index. Followed, files
    appear while processing and their headers may only be read on the
    processing thread, so lookups happen there (in the callbacks); the cache
    (a list only ever appended to) may be read from any thread."""

    def __init__(self) -> None:
        self.known: list = []

    def at(self, handle, file_index: int) -> Optional[Source]:
        known = self.known
        while len(known) <= file_index:
            known.append(_source_of(snapshot(_native.etw_consumer_logfile_header(handle, len(known))).path))
        return known[file_index]


class StreamConsumer(Consumer):
    """A Consumer of a stream (etw_consumer_open_stream): each machine's
    session instance is one of its files, read exactly as that .etl file
    would be. source(record) says which machine and session a record came
    from; sources holds the Source of every file index known so far.
    credentials_file: None for the file OPENETW_NATS_CREDENTIALS names.

    follow=True (or "?follow=1" in the URL) follows the stream: process()
    (or events()/records()) reads what it holds, then every buffer sessions
    publish to it, until cancel() or close() from another thread; process()
    then raises CancelledError after delivering what was fetched (events()
    and records() raise it after the last record). A session instance becomes
    a new file index when its header buffer arrives, so sources grows while
    processing, and source() of an index not yet known is for the callbacks
    (the processing thread): events() resolves it there. Records are delivered
    once they are 3 s old (order="time"), or as they arrive (order="file").
    The other options are Consumer's."""

    def __init__(self, url: str, credentials_file: Optional[os.PathLike] = None, *, follow: bool = False,
                 order: str = "time", raw_timestamps: bool = False, on_buffer=None, on_record=None,
                 on_event=None, on_event_record=None, schemas=None) -> None:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        follow = follow or query.get("follow") == ["1"]
        sources = self._sources = _Sources()
        if follow:
            handle_box: list = []

            # Runs on the processing thread before the record reaches on_record
            # or events(): the only place a new index's header may be read.
            def resolve(record) -> bool:
                sources.at(handle_box[0], record.file_index)
                return bool(on_record(record)) if on_record is not None else False
            record_hook = resolve
        else:
            record_hook = on_record
        self._setup(order, raw_timestamps, on_buffer, record_hook, on_event, None, None, follow,
                    on_event_record, schemas)
        if follow:
            flags, callables = self._options
            self._options = (flags | _native.ETW_CONSUMER_FOLLOW, callables)
        self._handle = _native.etw_consumer_open_stream(
            url, os.fspath(credentials_file) if credentials_file else None, self._options)
        if follow:
            handle_box.append(self._handle)
        else:
            for i in range(self.file_count):  # all of them, known at open
                sources.at(self._handle, i)
        self.follow = follow

    @property
    def sources(self) -> tuple:
        """The Source of each file index known so far (followed: those whose
        records were delivered); None for a file that did not come from a stream."""
        return tuple(self._sources.known)

    def source(self, record) -> Source:
        """The machine's session instance a Record (or anything with file_index)
        came from. Followed, a new index is looked up only on the processing
        thread (in a callback); elsewhere only indexes already delivered."""
        known = self._sources.known
        if record.file_index < len(known):
            return known[record.file_index]
        return self._sources.at(self._live(), record.file_index)

    def records(self, batch: Optional[int] = None) -> Iterator:
        """Consumer.records(); batch defaults to 1 when followed (a record is
        handed over as it is delivered, not when a batch fills), else 256."""
        return super().records(batch or (1 if self.follow else 256))

    def events(self) -> Iterator[tuple]:
        """Yields (Source, Record) for every record, in time order across
        machines (followed: until cancel() or close(), then CancelledError)."""
        known = self._sources.known
        for record in self.records():
            yield known[record.file_index], record


class Stream:
    """A NATS JetStream stream sessions export to: "nats://HOST[:PORT]/STREAM"
    (several HOST:PORT of a cluster separated by commas).

    credentials_file: the `key = value` file (user, password, token, creds,
    nkey_seed, tls_*) the export, the reader and the collect use; None for
    the file the environment variable OPENETW_NATS_CREDENTIALS names, if set.
    Credentials are never in the URL.

    open(follow=True) follows the stream: what it holds, then every buffer
    sessions publish to it, until the consumer's cancel() (StreamConsumer).
    """

    def __init__(self, url: str, *, credentials_file: Optional[os.PathLike] = None) -> None:
        self.url = url
        self.credentials_file = os.fspath(credentials_file) if credentials_file else None

    def export(self, properties: Properties) -> Properties:
        """Makes the session started from properties also publish every buffer
        to this stream (Properties.set_export); returns properties. The start
        then fails with AccessDeniedError when the server refuses the
        credentials and NotFoundError when no server answers."""
        properties.set_export(self.url, self.credentials_file)
        return properties

    def open(self, *, since: Optional[str] = None, follow: bool = False, **options) -> StreamConsumer:
        """A StreamConsumer of the stream from its start, or since a UTC time
        ("YYYY-MM-DDTHH:MM:SSZ"), to its last message now; follow=True goes on
        with every buffer published after that until cancel() or close()
        (StreamConsumer says how). options are StreamConsumer's (order,
        on_event, schemas, ...).

        >>> consumer = stream.open(follow=True, order="file")
        >>> threading.Thread(target=lambda: [print(s, r) for s, r in consumer.events()]).start()
        >>> ...; consumer.cancel()                # the thread's events() raises CancelledError
        """
        url = self.url + (f"?since={since}" if since else "")
        return StreamConsumer(url, self.credentials_file, follow=follow, **options)

    def collect(self, folder: os.PathLike, *, machine: Optional[str] = None,
                session: Optional[str] = None, overwrite: bool = False) -> CollectReport:
        """collect(self.url, folder, ...) with this stream's credentials file."""
        return collect(self.url, folder, machine=machine, session=session, overwrite=overwrite,
                       credentials_file=self.credentials_file)


def collect(url: str, folder: os.PathLike, *, machine: Optional[str] = None,
            session: Optional[str] = None, overwrite: bool = False,
            credentials_file: Optional[os.PathLike] = None) -> CollectReport:
    """Rebuilds each machine's session instance of the stream url as
    folder/MACHINE.SESSION.START.etl (etw_collect_stream) and returns the
    CollectReport. machine/session select one host or session name (the
    session compared case-insensitively); overwrite replaces a file that
    exists with other contents. Raises an openetw.Error unless every selected
    instance was complete and its file written or unchanged; the exception's
    .report is the CollectReport as far as the collect went (AlreadyExistsError:
    a file kept; status HANDLE_EOF: an instance incomplete, its file written
    as far as it goes; NO_MORE_ITEMS: nothing matched), empty when the stream
    could not be read (NotFoundError: no server or stream, a missing folder is
    PATH_NOT_FOUND, InvalidParameterError: a bad URL)."""
    handle = _native.etw_collect_report_create()
    status = _native.etw_collect_stream(handle, url, os.fspath(folder), machine or None, session or None,
                                        os.fspath(credentials_file) if credentials_file else None,
                                        _native.ETW_COLLECT_OVERWRITE if overwrite else 0)
    message = _native.etw_last_error_message() if status else ""
    files = []
    for i in range(_native.etw_collect_report_file_count(handle)):
        f = _native.etw_collect_report_file(handle, i)
        files.append(CollectedFile(
            path=f.path, machine=f.machine, session=f.session, start_time=f.start_time, start_utc=f.start_utc,
            outcome=_native.etw_collect_outcome_name(f.outcome), data_buffers=f.data_buffers,
            complete=bool(f.complete), missing=tuple(f.missing.split("\n")) if f.missing else (),
            error=f.error))
    report = CollectReport(files=tuple(files), skipped=_native.etw_collect_report_skipped(handle))
    if status:
        error = from_status(status, message)
        error.report = report
        raise error
    return report
