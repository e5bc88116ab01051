//! openetw::load_manifest: the default sources every thread's decoder of
//! Record::decode has (a test binary of its own: the sources are global).
use std::ops::ControlFlow;
use std::path::PathBuf;

use openetw::{Consumer, Order, RecordKind, Status};

fn first_event_names() -> Vec<Result<String, Status>> {
    let path = std::env::var_os("OPENETW_SAMPLES_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/etl-samples")
    }).join("tx_HTTP_Server.etl");
    let mut names = Vec::new();
    let mut consumer = Consumer::builder()
        .order(Order::File)
        .on_record(|r| {
            if r.kind() != RecordKind::EVENT {
                return ControlFlow::Continue(());
            }
            names.push(r.decode().map(|d| d.event_name).map_err(|e| e.status()));
            ControlFlow::Break(())
        })
        .open_file(path)
        .unwrap();
    let _ = consumer.process();
    drop(consumer);
    names
}

#[test]
fn load_manifest_reaches_every_threads_decoder() {
    assert_eq!(first_event_names(), vec![Err(Status::NOT_FOUND)]); // this thread's decoder now exists
    let e = openetw::load_manifest("/nonexistent/x.man").unwrap_err();
    assert_eq!(e.status(), Status::FILE_NOT_FOUND);
    assert_eq!(openetw::source_count(), 0);
    openetw::load_manifest(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/decode/manifests/Microsoft-Windows-HttpService.xml")).unwrap();
    assert_eq!(openetw::source_count(), 1);
    let want = vec![Ok("HTTPConnectionTraceTaskConnConnect".to_string())];
    assert_eq!(first_event_names(), want); // the existing decoder caught up
    assert_eq!(std::thread::spawn(first_event_names).join().unwrap(), want); // a new one starts with it
    let e = openetw::load_binary("/nonexistent/x.dll").unwrap_err();
    assert_eq!(e.status(), Status::FILE_NOT_FOUND);
    assert_eq!(openetw::source_count(), 1);
}
