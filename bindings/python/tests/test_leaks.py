"""Callbacks called 10,000 times must not grow the process (RSS from /proc/self/statm).

A real per-call leak, such as one leaked reference to a 1 KB object per call,
grows RSS by about 10 MB over 10,000 calls; the bound is 2 MB.
"""
import gc
import os

import pytest

import openetw
from openetw import Consumer, Provider, Session
from conftest import file_props, write_trace

CALLS = 10_000
BOUND = 2 * 1024 * 1024
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    gc.collect()
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def growth(action) -> int:
    action()  # warm-up: caches, arenas, first-time allocations
    before = rss()
    action()
    after = rss()
    print(f"RSS {before} -> {after} bytes ({after - before:+d})")
    return after - before


def test_record_callback_10000_times(tmp_path, name, guid):
    path = tmp_path / "leak.etl"
    write_trace(path, name, guid, CALLS, payload=b"p" * 100)
    count = [0]

    def on_record(record):
        count[0] += 1

    def action():
        with Consumer(path, on_record=on_record, on_event=lambda e: None) as consumer:
            consumer.process()
    assert growth(action) < BOUND
    assert count[0] == 2 * (CALLS + 1)


def test_enable_callback_10000_times(tmp_path, name, guid):
    calls = []
    with Provider(guid, lambda info: calls.append(None)), \
            Session(file_props(name, tmp_path / "e.etl")) as session:
        def action():
            for _ in range(CALLS // 2):
                session.enable_provider(guid)
                session.disable_provider(guid)
            calls.clear()
        assert growth(action) < BOUND


def test_register_unregister_10000_times(guid):
    def action():
        for _ in range(CALLS):
            # Each callback holds 1 KB: a registration that never frees its
            # user_data leaks at least that much.
            Provider(guid, lambda info, ballast=bytes(1024): None).close()
    assert growth(action) < BOUND
