"""OpenETW for Python: classic Event Tracing for Windows sessions, portably.

The idiomatic API over the SWIG-generated openetw._native module (which
stays importable for anything not wrapped here yet).
"""
from . import _native
from .constants import *  # noqa: F401,F403  (ETW_* constants and enums)
from .constants import (Clock, EventType, KernelFlag, Level, LogFileMode, SessionRights,
                        WnodeFlag)
from .errors import (AccessDeniedError, AlreadyExistsError, BadLengthError, CancelledError,
                     Error, InvalidDataError, InvalidNameError, InvalidParameterError,
                     MoreDataError, NoUnicodeTranslationError, NotFoundError, NotSupportedError,
                     OutOfMemoryError, Status)
from .properties import Properties
from .records import BufferInfo, ClassicEvent, EventRecord, Record
from . import extended
from .fields import DecodedEvent, Property, decode
from .schemas import Schemas, load_binary, load_manifest, schemas
from .provider import EnableInfo, Provider, activity_id_control, guid_from_name
from .tracelogging import InType, OutType, Typed
from .session import Session, max_sessions, set_max_sessions
from .filters import (EnableProperty, EventIdFilter, EventNameFilter, ExecutableNameFilter, FilterType,
                      PayloadFilter, PayloadOperator, PayloadPredicate, PidFilter, RawFilter,
                      StackwalkFilter)
from .providers import (ProviderProcess, ProviderSession, RegisteredProvider, list_providers,
                        provider_guids, query_provider)
from .consumer import Consumer
from .trace import Enable, LiveTrace
from .kernel_trace import KERNEL_LOGGER_NAME, KernelTrace, parse_kernel_flags
from .stream import CollectedFile, CollectReport, Source, Stream, StreamConsumer, collect


def version() -> str:
    """The version of the loaded library ("MAJOR.MINOR.PATCH")."""
    return _native.etw_version_string()


def status_name(status: int) -> str:
    """The symbolic name of a status, e.g. "ETW_ERROR_INVALID_PARAMETER"."""
    return _native.etw_status_name(status)


def status_string(status: int) -> str:
    """The short English description of a status."""
    return _native.etw_status_string(status)


def last_error() -> tuple:
    """(status, message) the last call on this thread left."""
    return Status(_native.etw_last_error_status()), _native.etw_last_error_message()


__version__ = version()
