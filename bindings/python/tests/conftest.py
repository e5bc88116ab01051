"""Shared fixtures: unique session names, a temporary folder, a provider GUID."""
import itertools
import os
import uuid

import pytest

# Sessions stay in this process, as in scripts/bindings-tests.sh (tests that
# need system-wide sessions run child processes with a registry of their own).
os.environ.setdefault("OPENETW_REGISTRY", "none")

import openetw
from openetw import LogFileMode, Properties

_counter = itertools.count()


@pytest.fixture
def name():
    """A session name no other test or process uses."""
    return f"PyTest {os.getpid()} {next(_counter)}"


@pytest.fixture
def guid():
    return uuid.uuid4()


def file_props(name, path, **members):
    members.setdefault("buffer_size", 16)
    return Properties(name, log_file_name=str(path), log_file_mode=LogFileMode.FILE_MODE_SEQUENTIAL,
                      **members)


def write_trace(path, name, guid, count, payload=b"data", **write_args):
    """A file session with `count` events of provider `guid`; returns the final properties.
    Lossless, so a slow disk never drops an event."""
    with openetw.Provider(guid) as provider, \
            openetw.Session(file_props(name, path, maximum_buffers=64), lossless=True) as session:
        session.enable_provider(guid)
        for i in range(count):
            provider.write(payload, **write_args)
        return session.stop()
