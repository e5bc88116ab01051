//! Enabling with filters does not leak per call: 10,000 enable_provider_ex
//! calls with every filter type (half of them refused by the library) leave
//! the resident set (/proc/self/statm) flat after a warm-up; the same measure
//! with 1 KB leaked per call sees the leak. (Its own test binary, as leak.rs.)
mod common;

use common::*;
use openetw::{EnableOptions, EnableProperty, Filter, LogFileMode, Properties, Session, Status};

const CALLS: usize = 10_000;
const BOUND: i64 = 2 << 20; // a 1 KB leak per call adds ~10 MB

#[cfg(target_os = "linux")]
fn rss_bytes() -> i64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    statm.split_whitespace().nth(1).unwrap().parse::<i64>().unwrap() * 4096
}

// n enables, every other one with a PID filter given twice; the number refused.
fn enables(session: &Session, n: usize, leak: bool) -> usize {
    let g = guid(60);
    let mut refused = 0;
    for i in 0..n {
        let mut opts = EnableOptions::new()
            .properties(EnableProperty::STACK_TRACE | EnableProperty::SID)
            .filter(Filter::event_ids(true, &[3, 5]))
            .filter(Filter::pid(&[std::process::id()]))
            .filter(Filter::executable_name("no-such-program;another"))
            .filter(Filter::event_names(true, &["Kept", "Other"]))
            .filter(Filter::stackwalk(true, &[3]));
        if i % 2 == 1 {
            opts = opts.filter(Filter::pid(&[1]));
        }
        match session.enable_provider_ex(&g, 5, 0, 0, &opts) {
            Ok(()) => {}
            Err(e) if e.status() == Status::INVALID_PARAMETER => refused += 1,
            Err(e) => panic!("{e}"),
        }
        if leak {
            std::hint::black_box(Box::leak(Box::new([1u8; 1024])));
        }
    }
    refused
}

#[cfg(target_os = "linux")]
fn growth(session: &Session, leak: bool) -> i64 {
    assert_eq!(enables(session, CALLS, leak), CALLS / 2); // warm-up
    let before = rss_bytes();
    assert_eq!(enables(session, CALLS, leak), CALLS / 2);
    let grown = rss_bytes() - before;
    eprintln!("10,000 enables with filters (leak={leak}): RSS growth {grown} bytes");
    grown
}

#[test]
#[cfg(target_os = "linux")]
fn enabling_with_filters_does_not_leak_and_the_measure_sees_a_leak() {
    let mut props = Properties::new(&unique("FilterLeak")).unwrap();
    props.set_log_file_mode(LogFileMode::REAL_TIME).unwrap();
    let session = Session::start(&mut props).unwrap();
    let clean = growth(&session, false);
    assert!(clean < BOUND, "10,000 enables with filters grew RSS by {clean} bytes");
    let leaked = growth(&session, true);
    assert!(leaked > BOUND, "a 1 KB leak per enable grew RSS by only {leaked} bytes");
    session.stop(None).unwrap();
}
