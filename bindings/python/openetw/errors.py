"""The openetw.Error hierarchy: every failing library call raises one.

The SWIG layer calls from_status() with the status and the thread's last
error message right after the failing call (bindings/swig/python.i), so
this module decides which class a status becomes, in one place.
"""
from __future__ import annotations

import enum

from . import _native

# Status: an IntEnum of every ETW_OK / ETW_ERROR_* value the library defines,
# named without the ETW_ERROR_ prefix (Status.INVALID_PARAMETER == 87).
Status = enum.IntEnum("Status", {
    name.removeprefix("ETW_ERROR_").removeprefix("ETW_"): value
    for name, value in vars(_native).items()
    if name == "ETW_OK" or name.startswith("ETW_ERROR_")
})


class Error(Exception):
    """A failing OpenETW call: .status (a Status or int), .status_name, .message."""

    def __init__(self, status: int, message: str = "") -> None:
        try:
            self.status: int = Status(status)
        except ValueError:  # a code this binding does not know yet
            self.status = status
        self.status_name: str = _native.etw_status_name(status)
        self.message: str = message or _native.etw_status_string(status)
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"{self.message} [{self.status_name} ({int(self.status)})]"


_CLASSES: dict[int, type[Error]] = {}


def _for(*statuses: int):
    def register(cls: type[Error]) -> type[Error]:
        for status in statuses:
            _CLASSES[status] = cls
        return cls
    return register


# The subclasses also derive from the built-in exception a Python user would
# catch for the same mistake.
@_for(Status.INVALID_PARAMETER)
class InvalidParameterError(Error, ValueError):
    """ETW_ERROR_INVALID_PARAMETER: a value, flag, mode or offset is not allowed."""


@_for(Status.BAD_LENGTH)
class BadLengthError(Error, ValueError):
    """ETW_ERROR_BAD_LENGTH: a size or length field is wrong."""


@_for(Status.INVALID_NAME, Status.BAD_PATHNAME)
class InvalidNameError(Error, ValueError):
    """ETW_ERROR_INVALID_NAME / BAD_PATHNAME: a session or file name is not allowed."""


@_for(Status.NO_UNICODE_TRANSLATION)
class NoUnicodeTranslationError(Error, ValueError):
    """ETW_ERROR_NO_UNICODE_TRANSLATION: invalid UTF-8 or UTF-16."""


@_for(Status.MORE_DATA, Status.INSUFFICIENT_BUFFER)
class MoreDataError(Error, BufferError):
    """ETW_ERROR_MORE_DATA: an output buffer is too small, or an event exceeds a buffer."""


@_for(Status.OUTOFMEMORY)
class OutOfMemoryError(Error, MemoryError):
    """ETW_ERROR_OUTOFMEMORY: an allocation failed."""


@_for(Status.INVALID_DATA, Status.HANDLE_EOF)
class InvalidDataError(Error, ValueError):
    """ETW_ERROR_INVALID_DATA / HANDLE_EOF: corrupt or truncated input."""


@_for(Status.ALREADY_EXISTS)
class AlreadyExistsError(Error):
    """ETW_ERROR_ALREADY_EXISTS: a session with that name is running."""


@_for(Status.FILE_NOT_FOUND, Status.PATH_NOT_FOUND, Status.WMI_INSTANCE_NOT_FOUND,
      Status.WMI_GUID_NOT_FOUND, Status.NOT_FOUND)
class NotFoundError(Error, LookupError):
    """A file, folder, session or GUID that does not exist; ETW_ERROR_NOT_FOUND:
    a provider binary without a WEVT_TEMPLATE resource (decode.h)."""


@_for(Status.ACCESS_DENIED)
class AccessDeniedError(Error):
    """ETW_ERROR_ACCESS_DENIED."""


@_for(Status.NOT_SUPPORTED)
class NotSupportedError(Error):
    """ETW_ERROR_NOT_SUPPORTED."""


@_for(Status.CANCELLED)
class CancelledError(Error):
    """ETW_ERROR_CANCELLED: processing was cancelled."""


def from_status(status: int, message: str = "") -> Error:
    """The exception for a failing status (a plain Error for codes without a subclass)."""
    return _CLASSES.get(status, Error)(status, message)
