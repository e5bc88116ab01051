"""openetw.Schemas: the manifests and provider binaries events decode with.

TraceLogging events carry their schema and the kernel (MOF) classes are
built in; manifest-based events need their provider's instrumentation
manifest (.man) or the binary that carries it compiled (a DLL/EXE/SYS with
a WEVT_TEMPLATE resource), as TDH finds them through the registry on
Windows. A Schemas object holds those sources; every decoder it runs (one
per thread, decode.h's thread rule) has all of them, in the order loaded.

>>> schemas = openetw.Schemas(manifests=["HttpService.man"])
>>> with openetw.Consumer("http.etl", schemas=schemas) as consumer:
...     for record in consumer:
...         print(record.event_name, record.fields)

openetw.schemas is the default every consumer without schemas= uses (and
openetw.decode); openetw.load_manifest / load_binary add to it. A load that
fails raises the library's error (openetw.errors: NotFoundError for a
missing file or a binary without WEVT_TEMPLATE, InvalidDataError for bad
XML or a file that is not a PE image), its status and message naming the
file, and leaves the schemas as they were.
"""
from __future__ import annotations

import os
import threading
from typing import Iterable, List, Optional, Tuple, Union

from . import _native
from .fields import DecodedEvent

PathLike = Union[str, bytes, os.PathLike]
_MANIFEST, _BINARY = "manifest", "binary"


class Schemas:
    """Schema sources (manifests, provider binaries) shared by every thread's decoder."""

    def __init__(self, *, manifests: Iterable[PathLike] = (), binaries: Iterable[PathLike] = ()) -> None:
        self._lock = threading.Lock()
        # Only ever appended to: a thread's decoder applies the entries past its count.
        self._sources: List[Tuple[str, bytes]] = []
        self._local = threading.local()
        for path in manifests:
            self.load_manifest(path)
        for path in binaries:
            self.load_binary(path)

    @property
    def source_count(self) -> int:
        """How many sources were loaded."""
        return len(self._sources)

    def _decoder(self):
        """This thread's decoder, brought up to date with every source loaded so far."""
        local = self._local
        decoder = getattr(local, "decoder", None)
        if decoder is None:
            decoder = local.decoder = _native.etw_decoder_create()
            local.applied = 0
        sources = self._sources
        while local.applied < len(sources):
            kind, data = sources[local.applied]
            if kind == _MANIFEST:
                _native.etw_decoder_load_manifest_text(decoder, data)
            else:
                _native.etw_decoder_load_binary_image(decoder, data)
            local.applied += 1
        return decoder

    def _load(self, kind: str, load, source, data: Optional[bytes]) -> None:
        with self._lock:
            decoder = self._decoder()
            # The library reads and checks it first: its error names the file.
            load(decoder, source)
            try:
                if data is None:
                    with open(source, "rb") as f:
                        data = f.read()
            except BaseException:
                self._local.decoder = None  # it holds a source the others would not get
                raise
            self._sources.append((kind, data))
            self._local.applied = len(self._sources)

    def load_manifest(self, path: PathLike) -> None:
        """Loads an instrumentation manifest (.man XML, UTF-8 or UTF-16 with a BOM).
        Raises InvalidDataError (bad XML or inconsistent manifest: the message
        names the file and line), NotFoundError (no such file),
        AccessDeniedError, NoUnicodeTranslationError."""
        path = os.fsencode(path)
        self._load(_MANIFEST, _native.etw_decoder_load_manifest, path, None)

    def load_manifest_text(self, text: Union[str, bytes]) -> None:
        """As load_manifest, from the manifest's text (messages name it "(memory)")."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        self._load(_MANIFEST, _native.etw_decoder_load_manifest_text, data, data)

    def load_binary(self, path: PathLike) -> None:
        """Loads the manifest compiled into a provider binary (its WEVT_TEMPLATE
        resource, names from its MESSAGETABLE). Raises NotFoundError when the
        binary has none, InvalidDataError when the file is not a PE image or
        is damaged (the message names the file, part and offset)."""
        path = os.fsencode(path)
        self._load(_BINARY, _native.etw_decoder_load_binary, path, None)

    def load_binary_image(self, image: bytes) -> None:
        """As load_binary, from the bytes of a PE file."""
        data = bytes(image)
        self._load(_BINARY, _native.etw_decoder_load_binary_image, data, data)

    def decode(self, record) -> Optional[DecodedEvent]:
        """Decodes a Record (or the record of a ClassicEvent/EventRecord) with this
        thread's decoder: None when no schema describes it; raises InvalidDataError
        when its payload does not match its schema."""
        record = record._decoded_record()
        raw = _native.openetw_decode(self._decoder(), record)
        return None if raw is None else DecodedEvent(raw)


schemas = Schemas()
"""The default schemas: of every consumer given no schemas=, and of openetw.decode."""


def load_manifest(path: PathLike) -> None:
    """openetw.schemas.load_manifest(path)."""
    schemas.load_manifest(path)


def load_binary(path: PathLike) -> None:
    """openetw.schemas.load_binary(path)."""
    schemas.load_binary(path)
