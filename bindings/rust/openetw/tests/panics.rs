//! A panic in any closure never crosses the C boundary: processing stops and
//! the panic is resumed from the Rust call that ran the callback.
mod common;

use std::ops::ControlFlow;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use openetw::{Consumer, ConsumerBuilder, EventClass, LogFileMode, Properties, Provider, Session};

fn message(payload: Box<dyn std::any::Any + Send>) -> String {
    payload.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| payload.downcast_ref::<String>().cloned()).unwrap()
}

// Processes a 100-event file with `builder`; returns the panic's message.
fn process_panics(name: &str, builder: ConsumerBuilder<'_>) -> String {
    let dir = temp_dir(name);
    let path = dir.join("t.etl");
    write_trace(&path, guid(30), 100, b"x");
    let mut consumer = builder.open_file(&path).unwrap();
    let payload = catch_unwind(AssertUnwindSafe(|| consumer.process())).unwrap_err();
    message(payload)
}

#[test]
fn record_closure_panic_stops_processing_and_is_resumed() {
    let mut calls = 0;
    let mut events = 0;
    let msg = process_panics(
        "panic-record",
        Consumer::builder()
            .on_record(|_| {
                calls += 1;
                if calls == 5 {
                    panic!("record 5");
                }
                ControlFlow::Continue(())
            })
            .on_event(|_| {
                events += 1;
                ControlFlow::Continue(())
            }),
    );
    assert_eq!(msg, "record 5");
    assert_eq!(calls, 5, "no record after the panic");
    assert_eq!(events, 3, "the header record is not an event; record 5's event never ran");
}

#[test]
fn event_closure_panic_stops_processing_and_is_resumed() {
    let mut records = 0;
    let msg = process_panics(
        "panic-event",
        Consumer::builder()
            .on_record(|_| {
                records += 1;
                ControlFlow::Continue(())
            })
            .on_event(|e| panic!("event of {} bytes", e.payload().len())),
    );
    assert_eq!(msg, "event of 1 bytes");
    assert_eq!(records, 2, "the header record, then the first event's record");
}

#[test]
fn buffer_closure_panic_stops_processing_and_is_resumed() {
    let mut buffers = 0;
    let msg = process_panics(
        "panic-buffer",
        Consumer::builder().on_buffer(|_| {
            buffers += 1;
            panic!("buffer")
        }),
    );
    assert_eq!((msg.as_str(), buffers), ("buffer", 1));
}

#[test]
fn live_raw_buffer_closure_panic_is_resumed_on_the_processing_thread() {
    let name = unique("Panic Live");
    let mut props = Properties::new(&name).unwrap();
    props.set_log_file_mode(LogFileMode::REAL_TIME).unwrap();
    let provider = Provider::register(guid(31)).unwrap();
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&guid(31), 0, 0, 0).unwrap();
    let records = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&records);
    let mut consumer = Consumer::builder()
        .on_raw_buffer(|_| panic!("raw buffer"))
        .on_record(move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
            ControlFlow::Continue(())
        })
        .open_session(&name)
        .unwrap();
    let worker = std::thread::spawn(move || consumer.process());
    provider.write(&EventClass::new(guid(31)), b"x").unwrap();
    session.flush(None).unwrap();
    let payload = worker.join().unwrap_err();
    assert_eq!(message(payload), "raw buffer");
    assert_eq!(records.load(Ordering::SeqCst), 0, "the buffer's records were not delivered");
    session.stop(None).unwrap();
}

#[test]
fn enable_closure_panic_is_resumed_from_the_call_that_enabled() {
    let g = guid(32);
    let counter = DropCounter::default();
    let probe = counter.probe();
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    let provider = Provider::register_with_callback(g, move |info| {
        let _keep = &probe;
        seen.fetch_add(1, Ordering::SeqCst);
        if info.level == 3 {
            panic!("enable at level 3");
        }
    })
    .unwrap();
    let mut props = Properties::new(&unique("Panic Enable")).unwrap();
    props.set_log_file_mode(LogFileMode::REAL_TIME).unwrap();
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&g, 2, 0, 0).unwrap();
    let payload = catch_unwind(AssertUnwindSafe(|| session.enable_provider(&g, 3, 0, 0))).unwrap_err();
    assert_eq!(message(payload), "enable at level 3");
    assert!(provider.is_enabled(3, 0), "the enable itself happened");
    // Nothing is left pending: the next calls are quiet.
    session.enable_provider(&g, 4, 0, 0).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 3);

    // Registering while enabled at level 3 panics from register; the new
    // registration is dropped (unregistered) while unwinding.
    let payload = catch_unwind(AssertUnwindSafe(|| session.enable_provider(&g, 3, 0, 0))).unwrap_err();
    assert_eq!(message(payload), "enable at level 3");
    assert_eq!(calls.load(Ordering::SeqCst), 4);
    let second = DropCounter::default();
    let probe2 = second.probe();
    let payload = catch_unwind(|| {
        Provider::register_with_callback(g, move |info| {
            let _keep = &probe2;
            assert_ne!(info.level, 3, "second provider sees level 3");
        })
    })
    .unwrap_err();
    assert!(message(payload).contains("second provider sees level 3"));
    assert_eq!(second.drops(), 1, "the half-registered provider was unregistered");
    session.stop(None).unwrap();
    drop(provider);
    assert_eq!(counter.drops(), 1);
}
