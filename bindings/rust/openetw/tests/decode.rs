//! Decoded events: the shared Windows samples (values checked by hand in
//! tests/decode/ of the C++ tests) and a trace this binding writes.
mod common;

use std::ops::ControlFlow;
use std::path::PathBuf;

use common::*;
use openetw::{Consumer, DecodedEvent, EventClass, Guid, Order, Provider, Session, Source, Status, Value};

fn sample(name: &str) -> PathBuf {
    let dir = std::env::var_os("OPENETW_SAMPLES_DIR").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../../shared/etl-samples")
    });
    dir.join(name)
}

/// Every record that decodes (NOT_FOUND ones skipped), in file order.
fn decode_all(path: &std::path::Path) -> Vec<DecodedEvent> {
    let mut out = Vec::new();
    let mut failures = Vec::new();
    let mut consumer = Consumer::builder()
        .order(Order::File)
        .on_record(|r| {
            match r.decode() {
                Ok(e) => out.push(e),
                Err(e) if e.status() == Status::NOT_FOUND => {}
                Err(e) => failures.push(e),
            }
            ControlFlow::Continue(())
        })
        .open_files(&[path])
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    assert!(failures.is_empty(), "{failures:?}");
    out
}

/// The TraceLogging events (every sample also has a kernel EventTrace/Header).
fn tracelogging(path: &std::path::Path) -> Vec<DecodedEvent> {
    decode_all(path).into_iter().filter(|e| e.source == Source::TraceLogging).collect()
}

#[test]
fn lxcore_tracelogging_fields_are_typed() {
    let events = decode_all(&sample("etlparser_lxcore_kernel.etl"));
    let tl: Vec<_> = events.iter().filter(|e| e.source == Source::TraceLogging).collect();
    assert_eq!(tl.len(), 2);
    let e = tl[0];
    assert_eq!(e.event_name, "BreakPoint");
    assert_eq!(e.provider_name, "Microsoft.Windows.Subsystem.LxCore");
    assert_eq!(e.get::<u8>("ErrorLevel").unwrap(), 2);
    assert_eq!(e.get::<Guid>("instanceId").unwrap(), Guid::default());
    assert_eq!(e.get::<i32>("LxPid").unwrap(), -1);
    assert_eq!(e.get::<i32>("LxNs").unwrap(), 0);
    assert_eq!(e.get::<String>("ExecutablePath").unwrap(), "");
    assert_eq!(e.get::<String>("Function").unwrap(), "LxpInstanceStart");
    assert_eq!(e.get::<u32>("Line").unwrap(), 2659);
    assert_eq!(e.field("Message"), Some(&Value::String("[0xc0000034] LxpInstanceInitialize\n".into())));
    assert_eq!(e.formatted("LxPid"), Some("-1"));
    assert_eq!(
        e.names().collect::<Vec<_>>(),
        ["ErrorLevel", "instanceId", "LxPid", "LxTid", "LxNs", "ExecutablePath", "Function", "Line", "Message"]
    );
    assert_eq!(tl[1].get::<u32>("Line").unwrap(), 10528);
    assert_eq!(tl[1].get::<String>("Function").unwrap(), "LxpDrvFsTypeMount");
}

#[test]
fn absent_fields_and_wrong_types_are_errors_naming_both() {
    let events = decode_all(&sample("etlparser_lxcore_kernel.etl"));
    let e = events.iter().find(|e| e.event_name == "BreakPoint").unwrap();
    assert_eq!(e.field("NoSuchField"), None);
    let absent = e.get::<u32>("NoSuchField").unwrap_err();
    assert_eq!(absent.status(), Status::NOT_FOUND);
    assert_eq!(absent.message(), "event 'BreakPoint' has no field 'NoSuchField'");
    let wrong = e.get::<i64>("Line").unwrap_err(); // a UINT32: no widening
    assert_eq!(wrong.status(), Status::INVALID_PARAMETER);
    assert_eq!(wrong.message(), "field 'Line' of event 'BreakPoint' is U32, not i64");
    assert_eq!(e.get::<u32>("LxPid").unwrap_err().message(), "field 'LxPid' of event 'BreakPoint' is I32, not u32");
    assert!(e.get::<String>("Line").is_err());
}

#[test]
fn kernel_header_class_decodes_from_the_kernel_sample() {
    let events = decode_all(&sample("etlparser_lxcore_kernel.etl"));
    let k: Vec<_> = events.iter().filter(|e| e.source == Source::Kernel).collect();
    assert_eq!(k.len(), 1);
    let h = k[0];
    assert_eq!(h.event_name, "EventTrace/Header");
    assert_eq!(h.get::<u32>("BufferSize").unwrap(), 8192);
    assert_eq!(h.get::<u32>("NumberOfProcessors").unwrap(), 6);
    assert_eq!(h.get::<u32>("PointerSize").unwrap(), 8);
    assert_eq!(h.get::<String>("SessionNameString").unwrap(), "lxcore_kernel");
    assert_eq!(h.get::<String>("LogFileNameString").unwrap(), "C:\\Prog\\lxcore_kernel.etl");
    assert_eq!(h.formatted("Version"), Some("0x501000A"));
    assert_eq!(h.get::<i64>("EndTime").unwrap(), 132392018832816874); // an INT64 in the MOF class
}

#[test]
fn self_describing_struct_nests_its_members() {
    let events = tracelogging(&sample("pv_SelfDescribingSingleEvent.etl"));
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!((e.event_name.as_str(), e.provider_name.as_str()), ("TestEvent", "MySource"));
    assert_eq!(
        e.field("a"),
        Some(&Value::Struct(vec![("b".into(), Value::String("Hello".into())), ("c".into(), Value::String("World!".into()))]))
    );
    assert!(e.get::<String>("a").is_err());
}

#[test]
fn amsi_counted_character_array_is_one_string() {
    let events = tracelogging(&sample("etlparser_AMSITrace.etl"));
    assert_eq!(events.len(), 19);
    assert!(events.iter().all(|e| e.event_name == "AmsiScript" && e.provider_name == "AmsiTrace"));
    assert_eq!(events[1].get::<String>("Script").unwrap(), "$global:?");
    assert_eq!(events[1].get::<String>("Raw Script").unwrap(), "$global:?");
    assert_eq!(events.iter().filter(|e| e.get::<String>("Engine").unwrap() == "VBScript").count(), 4);
}

/// FileIo's class GUID: classic events the provider writes with it decode as FileIo/Name.
const FILE_IO: &str = "90cbdc39-4a3e-11d1-84f4-0000f80464e3";

#[test]
fn a_trace_this_binding_writes_decodes() {
    let dir = temp_dir("decode-live");
    let path = dir.join("decode.etl");
    let g = guid(40);
    let provider = Provider::register(g).unwrap();
    let mut props = file_props(&unique("Decode"), &path);
    let session = Session::start(&mut props).unwrap();
    session.enable_provider(&g, 0, 0, 0).unwrap();
    let class = EventClass { guid: FILE_IO.parse().unwrap(), event_type: 0, level: 4, version: 2 };
    let name: Vec<u8> = "\\Device\\x.txt\0".encode_utf16().flat_map(u16::to_le_bytes).collect();
    provider.write_parts(&class, &[&0x1234u64.to_le_bytes(), &name]).unwrap();
    provider.write(&class, &[1, 2, 3, 4]).unwrap(); // too short for FileObject (8 bytes)
    provider.write(&EventClass { event_type: 99, ..class }, b"x").unwrap(); // no such FileIo type
    session.stop(None).unwrap();

    let mut seen = Vec::new();
    let mut consumer = Consumer::builder()
        .on_event(|e| {
            seen.push(e.decode());
            ControlFlow::Continue(())
        })
        .open_files(&[&path])
        .unwrap();
    consumer.process().unwrap();
    drop(consumer);
    assert_eq!(seen.len(), 3);
    let named = seen[0].as_ref().unwrap();
    assert_eq!((named.source, named.event_name.as_str()), (Source::Kernel, "FileIo/Name"));
    assert_eq!(named.field("FileObject"), Some(&Value::Pointer(0x1234)));
    assert_eq!(named.get::<String>("FileName").unwrap(), "\\Device\\x.txt");
    let short = seen[1].as_ref().unwrap_err();
    assert_eq!(short.status(), Status::INVALID_DATA);
    assert!(short.message().contains("FileObject"), "{}", short.message());
    assert_eq!(seen[2].as_ref().unwrap_err().status(), Status::NOT_FOUND);
}
