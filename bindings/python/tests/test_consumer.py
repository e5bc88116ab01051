"""Consumers: iteration, callbacks, order, raw timestamps, cancel, exceptions in callbacks."""
import threading
import time

import pytest

import openetw
from openetw import Consumer, LogFileMode, Properties, Provider, Session
from conftest import write_trace


@pytest.fixture
def trace(tmp_path, name, guid):
    path = tmp_path / "t.etl"
    write_trace(path, name, guid, 500, payload=b"payload", type=5, level=2)
    return path


def test_callbacks_see_copies_that_outlive_them(trace):
    records, events, buffers = [], [], []
    with Consumer(trace, on_record=records.append, on_event=events.append,
                  on_buffer=buffers.append) as consumer:
        consumer.process()
        stats = consumer.stats()
        header = consumer.logfile_header()
        assert consumer.file_count == 1
    assert stats.records == len(records) == 501 and len(events) == 500
    assert stats.buffers == len(buffers) and all(isinstance(b.data, bytes) for b in buffers)
    assert records[0].kind_name == "system" and records[1].kind_name == "full"
    event = events[0]
    assert event.payload == b"payload" and event.header.Class.Type == 5
    assert event.record.payload == b"payload" and event.record.raw[48:] == b"payload"
    assert header.header.BufferSize == 16 * 1024 and header.path == str(trace)
    assert records[1].datetime.year >= 2024
    timestamps = [r.timestamp for r in records]
    assert timestamps == sorted(timestamps)


def test_orders_and_raw_timestamps(trace, tmp_path, name, guid):
    other = tmp_path / "u.etl"
    write_trace(other, name + " 2", guid, 10, payload=b"second")
    by_file = [r.payload for r in Consumer([trace, other], order="file")
               if r.kind == openetw.ETW_RECORD_KIND_FULL]
    assert by_file == [b"payload"] * 500 + [b"second"] * 10
    raw = [r for r in Consumer(trace, raw_timestamps=True)][1]
    assert raw.timestamp == raw.timestamp_raw
    with pytest.raises(ValueError, match="order"):
        Consumer(trace, order="random")


def test_callback_returning_true_stops(trace):
    seen = []
    with Consumer(trace, on_record=lambda r: seen.append(r) or len(seen) == 10) as consumer:
        with pytest.raises(openetw.CancelledError):
            consumer.process()
        assert consumer.stats().records == 10


@pytest.mark.parametrize("kind", ["on_record", "on_event", "on_buffer"])
def test_exception_in_callback_stops_and_is_reraised(trace, kind):
    calls = []

    def callback(item):
        calls.append(item)
        raise ZeroDivisionError(kind)
    with Consumer(trace, **{kind: callback}) as consumer:
        with pytest.raises(ZeroDivisionError, match=kind) as info:
            consumer.process()
        assert info.traceback[-1].name == "callback"  # raised where it happened
        assert len(calls) == 1 and consumer.stats().buffers <= 1
        # Not cancelled for good: processing again starts over.
        with pytest.raises(ZeroDivisionError):
            consumer.process()


def test_exception_in_live_callback_stops_the_live_consumer(name, guid):
    props = Properties(name, log_file_mode=LogFileMode.REAL_TIME_MODE, flush_timer=1)
    with Provider(guid) as provider, Session(props) as session:
        session.enable_provider(guid)
        errors = []

        def fail(record):
            raise RuntimeError("live")
        consumer = Consumer.realtime(name, on_record=fail)

        def run():
            try:
                consumer.process()
            except RuntimeError as e:
                errors.append(e)
        reader = threading.Thread(target=run)
        reader.start()
        provider.write(b"x")
        session.flush()
        reader.join(10)
        assert not reader.is_alive() and str(errors[0]) == "live"
        consumer.close()


def test_cancel_from_another_thread_wakes_a_blocked_live_consumer(name):
    props = Properties(name, log_file_mode=LogFileMode.REAL_TIME_MODE)
    with Session(props):
        consumer = Consumer.realtime(name)
        outcome = []
        reader = threading.Thread(target=lambda: outcome.append(pytest.raises(
            openetw.CancelledError, consumer.process)))
        reader.start()
        time.sleep(0.2)
        consumer.cancel()
        reader.join(10)
        assert not reader.is_alive() and outcome
        consumer.close()


def test_leaving_iteration_early_stops_processing(trace):
    with Consumer(trace) as consumer:
        for index, record in enumerate(consumer):
            if index == 3:
                break
        # Stopped, not cancelled: the consumer can be read again.
        assert sum(1 for _ in consumer) == 501


def test_bad_input_raises(tmp_path):
    with pytest.raises(openetw.NotFoundError, match="missing.etl"):
        Consumer(tmp_path / "missing.etl")
    junk = tmp_path / "junk.etl"
    junk.write_bytes(b"this is not a trace file. " * 400)
    with pytest.raises(openetw.BadLengthError, match="BufferSize"):
        Consumer(junk)
    with pytest.raises(openetw.NotFoundError):
        Consumer.realtime("PyTest nobody")
    with pytest.raises(TypeError):
        Consumer([42])
    with pytest.raises(TypeError, match="callable"):
        Consumer(junk, on_record="not callable")
    with pytest.raises(ValueError, match="NUL"):
        Consumer("bad\0name")


def test_closed_consumer_refuses_calls(trace):
    consumer = Consumer(trace)
    consumer.close()
    with pytest.raises(ValueError, match="closed"):
        consumer.process()


def test_consumer_callbacks_are_released_at_close(trace):
    import weakref

    class Callback:
        def __call__(self, record):
            pass
    callback = Callback()
    ref = weakref.ref(callback)
    consumer = Consumer(trace, on_record=callback)
    del callback
    consumer.process()
    assert ref() is not None
    consumer.close()
    consumer.close()
    assert ref() is None


def test_a_damaged_file_is_reported_not_raised_by_stats_and_buffer_info(trace):
    data = bytearray(trace.read_bytes())
    data[16384:16384 + 8] = b"\xff" * 8  # buffer 1's BufferSize and SavedOffset
    trace.write_bytes(bytes(data))
    statuses = []
    with Consumer(trace, order="file", on_buffer=lambda b: statuses.append(b.status)) as consumer:
        with pytest.raises(openetw.BadLengthError):
            consumer.process()
        stats = consumer.stats()  # raised BadLengthError before: the status member was taken for a failure
    assert stats.first_problem == openetw.Status.BAD_LENGTH
    assert stats.corrupt_buffers >= 1 and stats.records > 0
    assert openetw.Status.BAD_LENGTH in statuses and openetw.Status.OK in statuses
