//! LiveTrace: every event delivered by stop(); dropping stops the session; a
//! panic of the closure comes back from stop().
mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use openetw::{level, EventClass, LiveTrace, Provider, Session, Status};

#[test]
fn live_trace_delivers_every_event_and_stops_on_drop() {
    let g = guid(41);
    let provider = Provider::register(g).unwrap();
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let name = unique("Live");
    let trace = LiveTrace::new(&name)
        .enable(g, level::WARNING, 0, 0)
        .on_event(move |e| {
            counter.fetch_add((e.level() <= level::WARNING) as usize, Ordering::Relaxed);
        })
        .start()
        .unwrap();
    let class = EventClass { guid: g, event_type: 10, level: level::ERROR, version: 0 };
    for _ in 0..2000 {
        provider.write(&class, b"x").unwrap();
    }
    provider.write(&EventClass { level: level::VERBOSE, ..class }, b"filtered").unwrap();
    let stats = trace.stop().unwrap();
    assert_eq!((seen.load(Ordering::Relaxed), stats.events_lost), (2000, 0));
    assert_eq!(Session::open(&name).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);

    let name = unique("LiveDrop");
    let trace = LiveTrace::new(&name).enable_all(g).start().unwrap();
    assert!(Session::open(&name).is_ok());
    drop(trace);
    assert_eq!(Session::open(&name).unwrap_err().status(), Status::WMI_INSTANCE_NOT_FOUND);
}

#[test]
fn a_panic_in_the_closure_comes_back_from_stop() {
    let g = guid(42);
    let provider = Provider::register(g).unwrap();
    let trace = LiveTrace::new(&unique("LivePanic"))
        .enable_all(g)
        .on_event(|_| panic!("from the closure"))
        .start()
        .unwrap();
    provider.write(&EventClass { guid: g, event_type: 10, level: level::ERROR, version: 0 }, b"x").unwrap();
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| trace.stop())).unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"from the closure"));
}
