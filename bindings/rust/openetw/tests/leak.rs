//! Callbacks do not leak per call: 10,000 records through a record closure and
//! 10,000 register/unregister cycles with enable closures leave the resident
//! set (/proc/self/statm) flat after a warm-up. The same measure run with a
//! closure that leaks 1 KB per call must see the leak, so the bound is proven
//! able to fail. (Its own test binary: no other test allocates meanwhile.)
mod common;

use std::ops::ControlFlow;
use std::path::Path;

use common::*;
use openetw::{Consumer, LogFileMode, Properties, Provider, Session};

const CALLS: usize = 10_000;
// A per-call leak of 1 KB adds ~10 MB over 10,000 calls; noise stays far below.
const BOUND: i64 = 2 << 20;

#[cfg(target_os = "linux")]
fn rss_bytes() -> i64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: i64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

// What a leaking closure does each call when `leak` is set.
fn maybe_leak(leak: bool) {
    if leak {
        std::hint::black_box(Box::leak(Box::new([1u8; 1024])));
    }
}

fn consume(path: &Path, leak: bool) -> usize {
    let mut records = 0;
    let mut consumer = Consumer::builder()
        .on_record(|_| {
            records += 1;
            maybe_leak(leak);
            ControlFlow::Continue(())
        })
        .open_file(path)
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    records
}

fn cycle(session: &Session, n: usize, leak: bool) -> usize {
    let g = guid(40);
    session.enable_provider(&g, 0, 0, 0).unwrap();
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..n {
        let calls = calls.clone();
        // Registering while the session enables the GUID runs the closure once.
        let provider = Provider::register_with_callback(g, move |_| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            maybe_leak(leak);
        })
        .unwrap();
        drop(provider);
    }
    calls.load(std::sync::atomic::Ordering::Relaxed)
}

#[cfg(target_os = "linux")]
fn growth(what: &str, run: impl Fn(bool) -> usize, leak: bool) -> i64 {
    assert_eq!(run(leak), CALLS, "{what}: the closure ran once per call"); // warm-up
    let before = rss_bytes();
    assert_eq!(run(leak), CALLS);
    let grown = rss_bytes() - before;
    eprintln!("{what} (leak={leak}): RSS {before} -> {} bytes, growth {grown}", before + grown);
    grown
}

#[test]
#[cfg(target_os = "linux")]
fn callbacks_do_not_leak_and_the_measure_sees_a_leak() {
    let dir = temp_dir("leak");
    let path = dir.join("leak.etl");
    write_trace(&path, guid(41), CALLS - 1, b"0123456789abcdef"); // plus the header record

    let mut props = Properties::new(&unique("Leak")).unwrap();
    props.set_log_file_mode(LogFileMode::REAL_TIME).unwrap();
    let session = Session::start(&mut props).unwrap();

    let records = growth("record closure", |leak| consume(&path, leak), false);
    let enables = growth("enable closure", |leak| cycle(&session, CALLS, leak), false);
    assert!(records < BOUND, "10,000 record callbacks grew RSS by {records} bytes");
    assert!(enables < BOUND, "10,000 register/unregister cycles grew RSS by {enables} bytes");

    let leaked = growth("record closure", |leak| consume(&path, leak), true);
    assert!(leaked > BOUND, "a 1 KB leak per record grew RSS by only {leaked} bytes");
    let leaked = growth("enable closure", |leak| cycle(&session, CALLS, leak), true);
    assert!(leaked > BOUND, "a 1 KB leak per enable grew RSS by only {leaked} bytes");
    session.stop(None).unwrap();
}
