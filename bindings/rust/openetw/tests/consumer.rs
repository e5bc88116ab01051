//! Consumers of files: closures, order, timestamps, headers, stats, errors.
mod common;

use std::ops::ControlFlow;

use common::*;
use openetw::{Consumer, Order, RecordKind, Status};

#[test]
fn every_closure_sees_every_record_of_several_files() {
    let dir = temp_dir("consumer-files");
    let (a, b) = (dir.join("a.etl"), dir.join("b.etl"));
    write_trace(&a, guid(20), 300, b"from a");
    write_trace(&b, guid(21), 200, b"from b");
    let (mut records, mut events, mut buffers, mut header_records) = (0, 0, 0, 0);
    let mut times = Vec::new();
    let mut files = [0usize; 2];
    let mut consumer = Consumer::builder()
        .on_record(|r| {
            records += 1;
            times.push(r.timestamp());
            if r.kind() == RecordKind::SYSTEM {
                header_records += 1;
            }
            ControlFlow::Continue(())
        })
        .on_event(|e| {
            events += 1;
            let expected: &[u8] = if e.guid() == guid(20) { b"from a" } else { b"from b" };
            assert_eq!(e.payload(), expected);
            files[e.record().file_index() as usize] += 1;
            ControlFlow::Continue(())
        })
        .on_buffer(|b| {
            buffers += 1;
            assert_eq!(b.status(), Status::OK);
            assert_eq!(b.message(), "");
            assert!(!b.data().is_empty());
            ControlFlow::Continue(())
        })
        .open_files(&[&a, &b])
        .unwrap();
    assert_eq!(consumer.file_count(), 2);
    let header = consumer.logfile_header(1).unwrap();
    assert_eq!(header.path, b.to_str().unwrap());
    assert_eq!(header.log_file_name, b.to_str().unwrap());
    assert_eq!(header.header.PointerSize, 8);
    assert_eq!(consumer.logfile_header(2).unwrap_err().status(), Status::INVALID_PARAMETER);
    consumer.process().unwrap();
    let stats = consumer.stats().unwrap();
    assert_eq!((stats.file_count, stats.records, stats.corrupt_records), (2, 502, 0));
    drop(consumer);
    assert_eq!(buffers, stats.buffers, "the buffer closure ran once per buffer");
    assert_eq!((records, events, header_records), (502, 500, 2));
    assert_eq!(files, [300, 200]);
    assert!(buffers >= 2);
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "time order");
}

#[test]
fn file_order_raw_timestamps_and_a_second_process() {
    let dir = temp_dir("consumer-order");
    let path = dir.join("t.etl");
    write_trace(&path, guid(22), 50, b"x");
    let mut seen = Vec::new();
    let mut consumer = Consumer::builder()
        .order(Order::File)
        .raw_timestamps(true)
        .on_record(|r| {
            seen.push((r.timestamp(), r.timestamp_raw(), r.buffer_index()));
            ControlFlow::Continue(())
        })
        .open_file(&path)
        .unwrap();
    consumer.process().unwrap();
    consumer.process().unwrap(); // each call starts from the beginning again
    drop(consumer);
    assert_eq!(seen.len(), 102);
    assert!(seen.iter().all(|(t, raw, _)| t == raw));
    assert!(seen[..51].windows(2).all(|w| w[0].2 <= w[1].2), "file order: buffers as stored");
    assert_eq!(seen[..51], seen[51..]);

    let mut filetimes = Vec::new();
    let mut consumer = Consumer::builder()
        .on_record(|r| {
            filetimes.push((r.timestamp(), r.timestamp_raw()));
            ControlFlow::Continue(())
        })
        .open_file(&path)
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    // FILETIME of 2020 onwards: far above any monotonic counter's raw value here.
    assert!(filetimes[1..].iter().all(|(t, _)| *t > 132_000_000_000_000_000));
}

#[test]
fn break_stops_processing_with_cancelled() {
    let dir = temp_dir("consumer-break");
    let path = dir.join("t.etl");
    write_trace(&path, guid(23), 100, b"x");
    let mut calls = 0;
    let mut consumer = Consumer::builder()
        .on_record(|_| {
            calls += 1;
            if calls == 10 { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
        })
        .open_file(&path)
        .unwrap();
    assert_eq!(consumer.process().unwrap_err().status(), Status::CANCELLED);
    assert_eq!(consumer.stats().unwrap().records, 10);
    consumer.cancel();
    assert_eq!(consumer.process().unwrap_err().status(), Status::CANCELLED, "cancelling is permanent");
    drop(consumer);
    assert_eq!(calls, 10);
}

#[test]
fn bad_input_is_refused_with_status_and_message() {
    let dir = temp_dir("consumer-bad");
    let missing = dir.join("missing.etl");
    let e = Consumer::builder().open_file(&missing).unwrap_err();
    assert_eq!(e.status(), Status::FILE_NOT_FOUND);
    assert!(e.message().contains("missing.etl"), "{e}");

    let junk = dir.join("junk.etl");
    std::fs::write(&junk, "this is not a trace file. ".repeat(400)).unwrap();
    let e = Consumer::builder().open_file(&junk).unwrap_err();
    eprintln!("junk: {e}");
    assert_eq!(e.status(), Status::BAD_LENGTH);
    assert!(e.message().contains("junk.etl"), "{e}");
    let empty: [&str; 0] = [];
    assert_eq!(Consumer::builder().open_files(&empty).unwrap_err().status(), Status::INVALID_PARAMETER);
    let e = Consumer::builder().open_session(&unique("Nobody")).unwrap_err();
    assert_eq!(e.status(), Status::WMI_INSTANCE_NOT_FOUND);
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bad = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/tmp/\xff.etl"));
        assert_eq!(Consumer::builder().open_file(bad).unwrap_err().status(), Status::NO_UNICODE_TRANSLATION);
    }
}

#[test]
fn each_closure_is_dropped_exactly_once() {
    let dir = temp_dir("consumer-drops");
    let path = dir.join("t.etl");
    write_trace(&path, guid(24), 5, b"x");
    let counters: Vec<DropCounter> = (0..3).map(|_| DropCounter::default()).collect();
    let build = |counters: &[DropCounter]| {
        let (a, b, c) = (counters[0].probe(), counters[1].probe(), counters[2].probe());
        Consumer::builder()
            .on_record(move |_| {
                let _keep = &a;
                ControlFlow::Continue(())
            })
            .on_event(move |_| {
                let _keep = &b;
                ControlFlow::Continue(())
            })
            .on_buffer(move |_| {
                let _keep = &c;
                ControlFlow::Continue(())
            })
    };
    let mut consumer = build(&counters).open_file(&path).unwrap();
    consumer.process().unwrap();
    assert!(counters.iter().all(|c| c.drops() == 0));
    drop(consumer);
    assert!(counters.iter().all(|c| c.drops() == 1));

    // A failed open frees the closures too (user_data_free has run): once.
    let counters: Vec<DropCounter> = (0..3).map(|_| DropCounter::default()).collect();
    assert!(build(&counters).open_file(dir.join("missing.etl")).is_err());
    assert!(counters.iter().all(|c| c.drops() == 1));
    assert!(build(&counters).open_session(&unique("Nobody")).is_err());
    assert!(counters.iter().all(|c| c.drops() == 2));
}
