"""Traces off the machine: sessions exported to a NATS JetStream stream, the
stream read back as files are, and collected into .etl files (docs/FLEET.md).

>>> stream = Stream("nats://collector:4222/ETW", credentials_file="/etc/openetw/nats.conf")
>>> with Session(stream.export(Properties("Web", log_file_name="/var/log/web.etl"))) as s:
...     ...                                   # every buffer also goes to the stream
>>> with stream.open() as consumer:           # a Consumer: one file per session instance
...     for source, record in consumer.events():
...         print(source.machine, source.session, record.opcode)
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


class StreamConsumer(Consumer):
    """A Consumer of a stream (etw_consumer_open_stream): each machine's
    session instance is one of its files, read exactly as that .etl file
    would be. sources[file_index] (and source(record)) say which machine and
    session a record came from. credentials_file: None for the file
    OPENETW_NATS_CREDENTIALS names. The other options are Consumer's."""

    def __init__(self, url: str, credentials_file: Optional[os.PathLike] = None, *, order: str = "time",
                 raw_timestamps: bool = False, on_buffer=None, on_record=None, on_event=None,
                 on_event_record=None, schemas=None) -> None:
        self._setup(order, raw_timestamps, on_buffer, on_record, on_event, None, None, False,
                    on_event_record, schemas)
        self._handle = _native.etw_consumer_open_stream(
            url, os.fspath(credentials_file) if credentials_file else None, self._options)
        self.sources: tuple = tuple(_source_of(self.logfile_header(i).path)
                                    for i in range(self.file_count))

    def source(self, record) -> Source:
        """The machine's session instance a Record (or anything with file_index) came from."""
        return self.sources[record.file_index]

    def events(self) -> Iterator[tuple]:
        """Yields (Source, Record) for every record, in time order across machines."""
        for record in self.records():
            yield self.sources[record.file_index], record


class Stream:
    """A NATS JetStream stream sessions export to: "nats://HOST[:PORT]/STREAM"
    (several HOST:PORT of a cluster separated by commas).

    credentials_file: the `key = value` file (user, password, token, creds,
    nkey_seed, tls_*) the export, the reader and the collect use; None for
    the file the environment variable OPENETW_NATS_CREDENTIALS names, if set.
    Credentials are never in the URL.
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

    def open(self, *, since: Optional[str] = None, **options) -> StreamConsumer:
        """A StreamConsumer of the stream from its start, or since a UTC time
        ("YYYY-MM-DDTHH:MM:SSZ"), to its last message now. options are
        Consumer's (order, on_event, schemas, ...)."""
        url = self.url + (f"?since={since}" if since else "")
        return StreamConsumer(url, self.credentials_file, **options)

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
